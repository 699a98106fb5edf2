#include "core/internal.h"
#include "skelanim/core/skeleton.h"

#include <math.h>

/* One allocation holds the struct and every array. */
sk_result sk_skeleton_create(const sk_skeleton_desc *d, const sk_allocator *alloc, sk_skeleton **out,
                             sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skeleton_create: out is NULL");
    *out = NULL;
    if (!d || (d->joint_count > 0 && !d->parents))
        return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_skeleton_create: parents are required");
    uint32_t n = d->joint_count;
    if (n > SK_MAX_JOINTS)
        return sk_error_set(err, SK_ERR_LIMIT, "skeleton: %u joints exceed the limit of %u", n, SK_MAX_JOINTS);
    uint64_t wtotal = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = d->parents[i];
        if (p < -1 || p >= (int32_t)i)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT,
                                "skeleton: joint %u has parent %d; parents must come before children", i, p);
        if (d->weight_counts) wtotal += d->weight_counts[i];
        if (d->rest) {
            const sk_transform *x = &d->rest[i];
            const float *f = &x->t.x;
            for (int k = 0; k < 10; k++)
                if (!sk_isfinite_f(f[k]))
                    return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "skeleton: joint %u rest transform is not finite", i);
            if (!(sk_quat_length(x->r) > 1e-6f))
                return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "skeleton: joint %u rest rotation has zero length", i);
        }
    }
    if (wtotal > UINT32_MAX / 2) return sk_error_set(err, SK_ERR_LIMIT, "skeleton: too many morph weights");

    size_t names_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *s = (d->names && d->names[i]) ? d->names[i] : "";
        names_bytes += strlen(s) + 1;
    }
    size_t off_parents = (sizeof(sk_skeleton) + 15) & ~(size_t)15;
    size_t off_rest = off_parents + (((size_t)n * sizeof(int32_t) + 15) & ~(size_t)15);
    size_t groups = ((size_t)n + 7) / 8;
    size_t off_rsoa = (off_rest + (size_t)n * sizeof(sk_transform) + 15) & ~(size_t)15;
    size_t off_woff = off_rsoa + groups * 80 * sizeof(float);
    size_t off_wcnt = off_woff + (size_t)n * sizeof(uint32_t);
    size_t off_wrest = off_wcnt + (size_t)n * sizeof(uint32_t);
    size_t off_names = off_wrest + (size_t)wtotal * sizeof(float);
    off_names = (off_names + 7) & ~(size_t)7;
    size_t off_chars = off_names + (size_t)n * sizeof(char *);
    size_t total = off_chars + names_bytes;

    const sk_allocator *a = sk_allocator_or_default(alloc);
    char *mem = sk_alloc(a, total);
    if (!mem) return sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "skeleton: out of memory (%zu bytes)", total);
    sk_skeleton *s = (sk_skeleton *)mem;
    int32_t *parents = (int32_t *)(mem + off_parents);
    sk_transform *rest = (sk_transform *)(mem + off_rest);
    float *rsoa = (float *)(mem + off_rsoa);
    uint32_t *woff = (uint32_t *)(mem + off_woff);
    uint32_t *wcnt = (uint32_t *)(mem + off_wcnt);
    float *wrest = (float *)(mem + off_wrest);
    const char **names = (const char **)(mem + off_names);
    char *chars = mem + off_chars;

    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        parents[i] = d->parents[i];
        if (d->rest) {
            rest[i] = d->rest[i];
            rest[i].r = sk_quat_normalize(rest[i].r);
        } else {
            rest[i] = sk_transform_identity();
        }
        woff[i] = w;
        wcnt[i] = d->weight_counts ? d->weight_counts[i] : 0;
        w += wcnt[i];
        const char *nm = (d->names && d->names[i]) ? d->names[i] : "";
        size_t len = strlen(nm) + 1;
        memcpy(chars, nm, len);
        names[i] = chars;
        chars += len;
    }
    if (d->rest_weights && wtotal) memcpy(wrest, d->rest_weights, (size_t)wtotal * sizeof(float));
    sk_soa_fill(rest, n, (uint32_t)groups, rsoa);
    s->joint_count = n;
    s->parents = parents;
    s->names = names;
    s->rest = rest;
    s->rest_soa = rsoa;
    s->weight_offset = woff;
    s->weight_count = wcnt;
    s->rest_weights = wrest;
    s->weight_total = (uint32_t)wtotal;
    s->allocator = *a;
    s->allocation_size = total;
    *out = s;
    return SK_OK;
}

void sk_skeleton_destroy(sk_skeleton *skel) {
    if (!skel) return;
    sk_allocator a = skel->allocator;
    sk_free(&a, skel, skel->allocation_size);
}

int32_t sk_skeleton_find(const sk_skeleton *skel, const char *name) {
    if (!skel || !name) return -1;
    for (uint32_t i = 0; i < skel->joint_count; i++)
        if (strcmp(skel->names[i], name) == 0) return (int32_t)i;
    return -1;
}

uint32_t sk_skeleton_subtree_end(const sk_skeleton *skel, uint32_t joint) {
    if (!skel || joint >= skel->joint_count) return 0;
    uint32_t end = joint + 1;
    /* [joint, end) are descendants so far; the next joint is one iff its parent is among them. */
    while (end < skel->joint_count && skel->parents[end] >= (int32_t)joint) end++;
    return end;
}

sk_result sk_skeleton_sort(uint32_t count, const int32_t *parents, uint32_t *out_order, uint32_t *scratch,
                           sk_error *err) {
    /* Children lists via counting sort, then an explicit-stack depth-first walk
     * from each root in index order. Nodes never reached lie on a cycle. */
    uint32_t *first = scratch;             /* count offsets into child[] */
    uint32_t *child = scratch + count;     /* count */
    uint32_t *stack = scratch + 2 * count; /* count */
    for (uint32_t i = 0; i < count; i++) {
        int32_t p = parents[i];
        if (p < -1 || p >= (int32_t)count)
            return sk_error_set(err, SK_ERR_INVALID_DATA, "/nodes/%u: parent index %d out of range", i, p);
        if (p == (int32_t)i)
            return sk_error_set(err, SK_ERR_INVALID_DATA, "/nodes/%u: node is its own parent", i);
    }
    /* first[p] = number of children of p, prefix-summed. */
    for (uint32_t i = 0; i < count; i++) first[i] = 0;
    for (uint32_t i = 0; i < count; i++)
        if (parents[i] >= 0) first[parents[i]]++;
    uint32_t acc = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t c = first[i];
        first[i] = acc;
        acc += c;
    }
    /* Fill children (stable, ascending index); out_order used as a cursor. */
    for (uint32_t i = 0; i < count; i++) out_order[i] = first[i];
    for (uint32_t i = 0; i < count; i++)
        if (parents[i] >= 0) child[out_order[parents[i]]++] = i;
    /* Walk from each root; a node's children are child[first[n] .. first[n+1]).
     * Each node is pushed once (by its parent), so the stack never exceeds count. */
    uint32_t placed = 0;
    for (uint32_t r = 0; r < count; r++) {
        if (parents[r] != -1) continue;
        uint32_t sp = 0;
        stack[sp++] = r;
        while (sp) {
            uint32_t node = stack[--sp];
            if (placed >= count) break;
            out_order[placed++] = node;
            uint32_t b = first[node], e = node + 1 < count ? first[node + 1] : acc;
            /* push children in reverse so the lowest index is visited first */
            for (uint32_t k = e; k > b; k--) {
                if (sp >= count) return sk_error_set(err, SK_ERR_INVALID_DATA, "/nodes: node graph is not a forest");
                stack[sp++] = child[k - 1];
            }
        }
    }
    if (placed != count)
        return sk_error_set(err, SK_ERR_INVALID_DATA,
                            "/nodes: %u of %u nodes are on a cycle of the node hierarchy", count - placed, count);
    return SK_OK;
}
