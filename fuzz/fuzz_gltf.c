/* Harness: the glTF reader on a .gltf (or .glb) file and its external
 * buffers, served through sk_file_io callbacks. Input: the file's bytes,
 * optionally followed by SK_FUZZ_BIN_SEP and the bytes every external
 * resource (buffer, image) reads; what loads is then run through
 * fz_exercise_asset (sampling, poses, palettes, skinning).
 * First, the file's bytes as JSON: the reader's JSON layer (sk_json_read)
 * against cJSON, the parser it replaced: what it reads, cJSON reads to the
 * same tree (every number bit for bit, strings, keys in order, lookups);
 * what cJSON reads and the strict checker accepts, it reads. */
#include "fuzz_common.h"

#include "io/json_internal.h"

#include <cjson/cJSON.h>

static void same_tree(const cJSON *c, const sk_jv *v) {
    int ct = c->type & 0xFF;
    switch (ct) {
    case cJSON_NULL: if (v->type != SK_JV_NULL) fz_fail("JSON: null differs"); return;
    case cJSON_False: if (v->type != SK_JV_FALSE) fz_fail("JSON: false differs"); return;
    case cJSON_True: if (v->type != SK_JV_TRUE) fz_fail("JSON: true differs"); return;
    case cJSON_Number:
        if (v->type != SK_JV_NUMBER || memcmp(&c->valuedouble, &v->valuedouble, sizeof(double)) != 0)
            fz_fail("JSON: number %.17g differs", c->valuedouble);
        return;
    case cJSON_String:
        if (v->type != SK_JV_STRING || strcmp(c->valuestring, v->valuestring) != 0) fz_fail("JSON: string differs");
        return;
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = ct == cJSON_Object;
        if (v->type != (obj ? SK_JV_OBJECT : SK_JV_ARRAY) || (int)v->count != cJSON_GetArraySize(c))
            fz_fail("JSON: container differs");
        const cJSON *x = c->child;
        const sk_jv *y = sk_jv_child(v);
        for (; x && y; x = x->next, y = sk_jv_next(y)) {
            if (obj) {
                if (!y->key || strcmp(x->string, y->key) != 0) fz_fail("JSON: key differs");
                const cJSON *cf = cJSON_GetObjectItemCaseSensitive(c, x->string);
                const sk_jv *vf = sk_jv_get(v, y->key);
                const cJSON *ck = c->child;
                const sk_jv *vk = sk_jv_child(v);
                while (ck != cf && vk) ck = ck->next, vk = sk_jv_next(vk);
                if (vk != vf) fz_fail("JSON: lookup of \"%s\" differs", x->string);
            } else if (y->key) {
                fz_fail("JSON: an element with a key");
            }
            same_tree(x, y);
        }
        if (x || y) fz_fail("JSON: element count differs");
        return;
    }
    default: fz_fail("JSON: cJSON type %d", ct);
    }
}

static void compare_json(const char *text, size_t len) {
    const char *end = NULL;
    cJSON *c = len ? cJSON_ParseWithLengthOpts(text, len, &end, false) : NULL;
    if (c) { /* one value, then only JSON whitespace */
        size_t i = (size_t)(end - text);
        while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
        if (i != len) {
            cJSON_Delete(c);
            c = NULL;
        }
    }
    sk_json_doc doc;
    sk_result r = sk_json_read(text, len, NULL, &doc, NULL, NULL);
    if (r == SK_OK) {
        if (!c) fz_fail("JSON: read, but cJSON refuses it");
        same_tree(c, doc.root);
        sk_json_doc_free(&doc);
    } else if (c && sk_json_check(text, len, NULL, NULL) == SK_OK) {
        fz_fail("JSON: well-formed and read by cJSON, refused (%s)", sk_result_string(r));
    }
    cJSON_Delete(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_files files;
    fz_files_init(&files, "model.gltf", data, size);
    compare_json((const char *)files.head.p, files.head.n);
    uint32_t warnings = 0;
    sk_gltf_options o;
    fz_gltf_options(&o, &files, &warnings);
    sk_asset *asset = NULL;
    sk_error err = {0};
    if (sk_gltf_load_file("model.gltf", &o, &asset, &err) != SK_OK) {
        if (err.message[0] == 0) fz_fail("a failed load without a message");
        return 0;
    }
    fz_bytes b = {data, size};
    fz_exercise_asset(asset, &b);
    sk_asset_destroy(asset);
    return 0;
}
