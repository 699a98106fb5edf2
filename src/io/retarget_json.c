/* Retargeting maps from JSON (retarget_json.h), read with io's own JSON
 * reader (json_internal.h). Format in docs/retarget.md. */
#include "io/file_internal.h"
#include "io/json_internal.h"
#include "skelanim/io/retarget_json.h"

#include <math.h>
#include <string.h>

#define MAX_FILE ((uint64_t)16 << 20)

static sk_result bad(sk_error *err, const char *prefix, const char *path, const char *what, const char *name) {
    return sk_error_set(err, SK_ERR_INVALID_DATA, "%s%s%s: %s%s%s%s", prefix, prefix[0] ? ": " : "", path, what,
                        name ? " '" : "", name ? name : "", name ? "'" : "");
}

/* Checks the document and adds up the bytes of its strings. */
static sk_result check(const sk_jv *root, const char *prefix, uint32_t *pairs, size_t *chars, sk_error *err) {
    if (!sk_jv_is(root, SK_JV_OBJECT)) return bad(err, prefix, "/", "expected an object", NULL);
    if (!root->count) return bad(err, prefix, "/", "empty: give \"map\", \"source\", \"target\" or \"root_scale\"", NULL);
    *pairs = 0, *chars = 0;
    for (const sk_jv *v = sk_jv_child(root); v; v = sk_jv_next(v)) {
        if (!strcmp(v->key, "root_scale")) {
            double d;
            if (!sk_jv_finite(v, &d) || d < 0 || d > 1e6) return bad(err, prefix, "/root_scale", "expected a number in [0, 1e6]", NULL);
        } else if (!strcmp(v->key, "map")) {
            if (!sk_jv_is(v, SK_JV_OBJECT)) return bad(err, prefix, "/map", "expected an object of joint names", NULL);
            for (const sk_jv *p = sk_jv_child(v); p; p = sk_jv_next(p)) {
                const char *t = sk_jv_string(p);
                if (!t) return bad(err, prefix, "/map", "expected a target joint name (string) for", p->key);
                if (!p->key[0] || !t[0]) return bad(err, prefix, "/map", "an empty joint name at", p->key[0] ? p->key : "\"\"");
                for (const sk_jv *q = sk_jv_child(v); q != p; q = sk_jv_next(q)) {
                    if (!strcmp(q->key, p->key)) return bad(err, prefix, "/map", "source joint named twice:", p->key);
                    if (!strcmp(q->valuestring, t)) return bad(err, prefix, "/map", "target joint named twice:", t);
                }
                (*pairs)++;
                *chars += strlen(p->key) + strlen(t) + 2;
            }
        } else if (!strcmp(v->key, "source") || !strcmp(v->key, "target")) {
            char path[32];
            strcpy(path, v->key[0] == 's' ? "/source" : "/target");
            if (!sk_jv_is(v, SK_JV_OBJECT)) return bad(err, prefix, path, "expected an object of humanoid bones", NULL);
            for (const sk_jv *p = sk_jv_child(v); p; p = sk_jv_next(p)) {
                if (sk_humanoid_bone_from_name(p->key) < 0)
                    return bad(err, prefix, path, "unknown humanoid bone (hips, spine, ..., left_upper_arm, ...)", p->key);
                for (const sk_jv *q = sk_jv_child(v); q != p; q = sk_jv_next(q))
                    if (sk_humanoid_bone_from_name(q->key) == sk_humanoid_bone_from_name(p->key))
                        return bad(err, prefix, path, "bone given twice:", p->key);
                if (!sk_jv_string(p)) return bad(err, prefix, path, "expected a joint name (string) for", p->key);
                *chars += strlen(p->valuestring) + 1;
            }
        } else {
            return bad(err, prefix, "/", "unknown member", v->key);
        }
    }
    return SK_OK;
}

static char *copy_str(char **dst, const char *s) {
    size_t n = strlen(s) + 1;
    char *r = *dst;
    memcpy(r, s, n);
    *dst += n;
    return r;
}

static sk_result parse_impl(const char *json, size_t len, const sk_allocator *alloc, sk_retarget_map_json **out,
                            sk_error *err, const char *prefix) {
    const sk_allocator *a = sk_allocator_or_default(alloc);
    sk_json_doc doc;
    sk_result r = sk_json_load(json, len, a, prefix, &doc, err);
    if (r != SK_OK) return r;
    uint32_t np = 0;
    size_t chars = 0;
    r = check(doc.root, prefix, &np, &chars, err);
    if (r == SK_OK) {
        size_t bytes = sizeof(sk_retarget_map_json) + (size_t)np * sizeof(sk_retarget_pair) + chars;
        sk_retarget_map_json *m = (sk_retarget_map_json *)sk_alloc(a, bytes);
        if (!m) {
            r = sk_error_set(err, SK_ERR_OUT_OF_MEMORY, "%s%sout of memory", prefix, prefix[0] ? ": " : "");
        } else {
            m->allocator = *a, m->allocation_size = bytes;
            sk_retarget_pair *pairs = (sk_retarget_pair *)(m + 1);
            char *str = (char *)(pairs + np);
            m->pairs = pairs, m->pair_count = np;
            uint32_t k = 0;
            for (const sk_jv *v = sk_jv_child(doc.root); v; v = sk_jv_next(v)) {
                if (!strcmp(v->key, "root_scale")) {
                    double d = 0;
                    sk_jv_finite(v, &d);
                    m->root_scale = (float)d, m->has_root_scale = true;
                } else if (!strcmp(v->key, "map")) {
                    for (const sk_jv *p = sk_jv_child(v); p; p = sk_jv_next(p), k++) {
                        pairs[k].source = copy_str(&str, p->key);
                        pairs[k].target = copy_str(&str, p->valuestring);
                    }
                } else {
                    const char **bones = v->key[0] == 's' ? m->source_bone : m->target_bone;
                    for (const sk_jv *p = sk_jv_child(v); p; p = sk_jv_next(p))
                        bones[sk_humanoid_bone_from_name(p->key)] = copy_str(&str, p->valuestring);
                }
            }
            *out = m;
        }
    }
    sk_json_doc_free(&doc);
    return r;
}

sk_result sk_retarget_map_json_parse(const char *json, size_t len, const sk_allocator *alloc, sk_retarget_map_json **out,
                                     sk_error *err) {
    if (!out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_map_json_parse: out is NULL");
    *out = NULL;
    if (!json) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_map_json_parse: json is NULL");
    return parse_impl(json, len, alloc, out, err, "");
}

sk_result sk_retarget_map_json_load(const char *path, const sk_allocator *alloc, const sk_file_io *io,
                                    sk_retarget_map_json **out, sk_error *err) {
    if (!path || !out) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_map_json_load: NULL argument");
    *out = NULL;
    const sk_allocator *a = sk_allocator_or_default(alloc);
    void *buf = NULL;
    size_t n = 0;
    sk_result r = sk_file_read(io, path, MAX_FILE, a, &buf, &n, err);
    if (r != SK_OK) return r;
    r = parse_impl((const char *)buf, n, alloc, out, err, path);
    sk_file_release(io, a, buf, n);
    return r;
}

void sk_retarget_map_json_destroy(sk_retarget_map_json *m) {
    if (!m) return;
    sk_allocator a = m->allocator;
    sk_free(&a, m, m->allocation_size);
}

static sk_result side_map(const char *const *bones, const char *side, const sk_skeleton *skel, const sk_pose *rest,
                          sk_humanoid_map *map, sk_error *err) {
    if (!map) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "retarget map: %s bones given but no %s map to fill", side, side);
    if (!skel) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "retarget map: no %s skeleton", side);
    sk_error e2;
    sk_result r = sk_humanoid_map_find(skel, rest, map, &e2);
    if (r == SK_ERR_OUT_OF_MEMORY) return sk_error_set(err, r, "retarget map: out of memory");
    if (r != SK_OK) {
        for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) map->joint[b] = -1, map->how[b] = SK_HUMANOID_UNMAPPED;
        map->scheme = "user";
    }
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) {
        if (!bones[b]) continue;
        if (bones[b][0] && sk_skeleton_find(skel, bones[b]) < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "retarget map: %s bone %s: no joint named '%s'", side,
                                sk_humanoid_bone_name((sk_humanoid_bone)b), bones[b]);
        r = sk_humanoid_map_set(map, skel, (sk_humanoid_bone)b, bones[b], err);
        if (r != SK_OK) return r;
    }
    r = sk_humanoid_map_check(map, skel, &e2);
    if (r != SK_OK) return sk_error_set(err, r, "retarget map: %s: %s", side, e2.message);
    return SK_OK;
}

sk_result sk_retarget_map_json_apply(const sk_retarget_map_json *m, sk_retarget_desc *desc, sk_humanoid_map *source_map,
                                     sk_humanoid_map *target_map, sk_error *err) {
    if (!m || !desc) return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "sk_retarget_map_json_apply: NULL argument");
    for (uint32_t k = 0; k < m->pair_count; k++) {
        if (desc->source && sk_skeleton_find(desc->source, m->pairs[k].source) < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "retarget map: map: source joint '%s' does not exist",
                                m->pairs[k].source);
        if (desc->target && sk_skeleton_find(desc->target, m->pairs[k].target) < 0)
            return sk_error_set(err, SK_ERR_INVALID_ARGUMENT, "retarget map: map: target joint '%s' does not exist",
                                m->pairs[k].target);
    }
    bool any[2] = {false, false};
    for (int b = 0; b < SK_HUMANOID_BONE_COUNT; b++) any[0] |= m->source_bone[b] != NULL, any[1] |= m->target_bone[b] != NULL;
    sk_humanoid_map ms, mt;
    if (any[0]) {
        sk_result r = side_map(m->source_bone, "source", desc->source, desc->source_rest, source_map ? &ms : NULL, err);
        if (r != SK_OK) return r;
    }
    if (any[1]) {
        sk_result r = side_map(m->target_bone, "target", desc->target, desc->target_rest, target_map ? &mt : NULL, err);
        if (r != SK_OK) return r;
    }
    if (any[0]) *source_map = ms, desc->source_map = source_map;
    if (any[1]) *target_map = mt, desc->target_map = target_map;
    desc->pairs = m->pairs, desc->pair_count = m->pair_count;
    if (m->has_root_scale) desc->root_scale = m->root_scale;
    return SK_OK;
}
