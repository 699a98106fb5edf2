#include "core/internal.h"

#include <stdarg.h>
#include <stdio.h>

const char *sk_result_string(sk_result r) {
    switch (r) {
    case SK_OK: return "SK_OK";
    case SK_ERR_INVALID_ARGUMENT: return "SK_ERR_INVALID_ARGUMENT";
    case SK_ERR_OUT_OF_MEMORY: return "SK_ERR_OUT_OF_MEMORY";
    case SK_ERR_IO: return "SK_ERR_IO";
    case SK_ERR_PARSE: return "SK_ERR_PARSE";
    case SK_ERR_INVALID_DATA: return "SK_ERR_INVALID_DATA";
    case SK_ERR_UNSUPPORTED: return "SK_ERR_UNSUPPORTED";
    case SK_ERR_LIMIT: return "SK_ERR_LIMIT";
    }
    return "SK_ERR_UNKNOWN";
}

sk_result sk_error_set(sk_error *err, sk_result code, const char *fmt, ...) {
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void *sk_alloc(const sk_allocator *a, size_t size) {
    a = sk_allocator_or_default(a);
    if (size == 0) size = 1;
    void *p = a->alloc(a->user, size);
    if (p) memset(p, 0, size);
    return p;
}

void *sk_realloc(const sk_allocator *a, void *p, size_t old_size, size_t new_size) {
    void *q = sk_realloc_raw(a, p, old_size, new_size);
    if (q && new_size > old_size) memset((char *)q + old_size, 0, new_size - old_size);
    return q;
}

void sk_free(const sk_allocator *a, void *p, size_t size) {
    if (!p) return;
    a = sk_allocator_or_default(a);
    a->free(a->user, p, size);
}
