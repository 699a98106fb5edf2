#include "core/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

static void *default_alloc(void *user, size_t size) { (void)user; return malloc(size); }
static void *default_realloc(void *user, void *p, size_t o, size_t n) { (void)user; (void)o; return realloc(p, n); }
static void default_free(void *user, void *p, size_t size) { (void)user; (void)size; free(p); }

static const sk_allocator sk_default_allocator = {default_alloc, default_realloc, default_free, NULL};

const sk_allocator *sk_allocator_or_default(const sk_allocator *a) {
    if (!a || !a->alloc || !a->free) return &sk_default_allocator;
    return a;
}

void *sk_alloc(const sk_allocator *a, size_t size) {
    a = sk_allocator_or_default(a);
    if (size == 0) size = 1;
    void *p = a->alloc(a->user, size);
    if (p) memset(p, 0, size);
    return p;
}

void *sk_realloc_raw(const sk_allocator *a, void *p, size_t old_size, size_t new_size) {
    a = sk_allocator_or_default(a);
    if (new_size == 0) new_size = 1;
    if (a->realloc) return a->realloc(a->user, p, old_size, new_size);
    void *q = a->alloc(a->user, new_size);
    if (!q) return NULL;
    if (p) {
        memcpy(q, p, old_size < new_size ? old_size : new_size);
        a->free(a->user, p, old_size);
    }
    return q;
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

/* ---- arena ---- */
struct sk_arena_block {
    sk_arena_block *next;
    size_t size, used;
    /* data follows, 16-byte aligned */
};
#define SK_ARENA_HDR ((sizeof(sk_arena_block) + 15u) & ~(size_t)15u)
#define SK_ARENA_CHUNK ((size_t)64 * 1024)

void sk_arena_init(sk_arena *a, const sk_allocator *alloc) {
    a->alloc = *sk_allocator_or_default(alloc);
    a->head = NULL;
}

void *sk_arena_alloc(sk_arena *a, size_t size) {
    void *p = sk_arena_alloc_raw(a, size);
    if (p) memset(p, 0, size);
    return p;
}

void *sk_arena_alloc_raw(sk_arena *a, size_t size) {
    size_t need = (size + 15u) & ~(size_t)15u;
    if (need < size) return NULL;
    if (need == 0) need = 16;
    sk_arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        size_t cap = need > SK_ARENA_CHUNK ? need : SK_ARENA_CHUNK, total;
        if (!sk_size_add(cap, SK_ARENA_HDR, &total)) return NULL;
        b = a->alloc.alloc(a->alloc.user, total);
        if (!b) return NULL;
        b->size = cap;
        b->used = 0;
        /* A huge block goes behind the head so the head keeps its free space. */
        if (a->head && need > SK_ARENA_CHUNK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    char *p = (char *)b + SK_ARENA_HDR + b->used;
    b->used += need;
    return p;
}

char *sk_arena_strdup(sk_arena *a, const char *s) {
    if (!s) s = "";
    size_t n = strlen(s);
    char *p = sk_arena_alloc(a, n + 1);
    if (p) memcpy(p, s, n + 1);
    return p;
}

void sk_arena_release(sk_arena *a) {
    sk_arena_block *b = a->head;
    while (b) {
        sk_arena_block *n = b->next;
        a->alloc.free(a->alloc.user, b, b->size + SK_ARENA_HDR);
        b = n;
    }
    a->head = NULL;
}

void sk_arena_reset(sk_arena *a) {
    sk_arena_block *keep = NULL;
    for (sk_arena_block *b = a->head; b; b = b->next)
        if (!keep || b->size > keep->size) keep = b;
    sk_arena_block *b = a->head;
    while (b) {
        sk_arena_block *n = b->next;
        if (b != keep) a->alloc.free(a->alloc.user, b, b->size + SK_ARENA_HDR);
        b = n;
    }
    if (keep) {
        keep->next = NULL;
        keep->used = 0;
    }
    a->head = keep;
}
