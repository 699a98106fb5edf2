/* The private allocation helpers of core/internal.h: the default allocator,
 * sk_realloc_raw and the arena. Not part of the API: every library that uses
 * them (libskelanim, and the shared libskelanim_io and libskelanim_batch)
 * links its own hidden copy, so no shared library exports them. */
#include "core/internal.h"

#include <stdlib.h>

static void *default_alloc(void *user, size_t size) { (void)user; return malloc(size); }
static void *default_realloc(void *user, void *p, size_t o, size_t n) { (void)user; (void)o; return realloc(p, n); }
static void default_free(void *user, void *p, size_t size) { (void)user; (void)size; free(p); }

static const sk_allocator sk_default_allocator = {default_alloc, default_realloc, default_free, NULL};

const sk_allocator *sk_allocator_or_default(const sk_allocator *a) {
    if (!a || !a->alloc || !a->free) return &sk_default_allocator;
    return a;
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
