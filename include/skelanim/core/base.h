/* skelanim — base types: results, errors, allocator hook.
 *
 * Every function that can fail returns an sk_result and fills an optional
 * sk_error (may be NULL) with a message naming the place (file, JSON path).
 * Nothing in the library prints or exits. Every allocating function takes an
 * sk_allocator (NULL or zero-initialised means malloc/realloc/free), and every
 * byte the library allocates comes from it, the temporary JSON document of
 * the glTF, state-machine and analysis readers included; running out of
 * memory is reported as SK_ERR_OUT_OF_MEMORY, never a crash.
 */
#ifndef SKELANIM_BASE_H
#define SKELANIM_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SK_VERSION_MAJOR 0
#define SK_VERSION_MINOR 1
#define SK_VERSION_PATCH 0
#define SK_VERSION_STRING "0.1.0"

/* SK_API marks every function of the public API. The libraries are built
 * with hidden visibility (-fvisibility=hidden), so a shared library exports
 * exactly the functions declared with SK_API in these headers and nothing
 * else; static libraries are unaffected. On compilers without the GNU
 * visibility attribute it expands to nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define SK_API __attribute__((visibility("default")))
#else
#define SK_API
#endif

typedef enum sk_result {
    SK_OK = 0,
    SK_ERR_INVALID_ARGUMENT, /* a caller passed something unusable (NULL, NaN, bad index) */
    SK_ERR_OUT_OF_MEMORY,
    SK_ERR_IO,               /* a file could not be opened or read */
    SK_ERR_PARSE,            /* not JSON / not a GLB container */
    SK_ERR_INVALID_DATA,     /* well-formed but structurally invalid (bad index, count past buffer) */
    SK_ERR_UNSUPPORTED,      /* a required extension or feature we do not implement */
    SK_ERR_LIMIT             /* a size limit was exceeded */
} sk_result;

typedef struct sk_error {
    sk_result code;
    char message[512];
} sk_error;

/* Human-readable name of a result code ("SK_ERR_INVALID_DATA"). */
SK_API const char *sk_result_string(sk_result r);

/* Fills err (if non-NULL) with code and a printf-style message; returns code. */
SK_API sk_result sk_error_set(sk_error *err, sk_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Allocation hook. A zeroed struct (or a NULL pointer) selects the C library.
 * realloc may be NULL: the library then uses alloc + copy + free. */
typedef struct sk_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} sk_allocator;

SK_API void *sk_alloc(const sk_allocator *a, size_t size);           /* zero-filled */
/* Resizes p from old_size to new_size bytes (the new bytes zero-filled);
 * NULL when out of memory. */
SK_API void *sk_realloc(const sk_allocator *a, void *p, size_t old_size, size_t new_size);
/* Frees p (size bytes, from the same allocator); NULL p does nothing. */
SK_API void sk_free(const sk_allocator *a, void *p, size_t size);

#ifdef __cplusplus
}
#endif
#endif
