/* The Khronos glTF-Validator corpus ($SK_SHARED_DIR/assets/validator, 248
 * cases: 84 valid, 164 invalid): every valid case must load; every invalid
 * case whose errors touch what the loader reads must be rejected; the rest
 * may go either way but must not crash or read out of bounds (run under
 * ASan/UBSan). The counts are asserted exactly (the constants below), so a
 * corpus that was not read, or a change of outcome anywhere, fails.
 *
 * Expected today: 248 cases; 84/84 valid files load; 94/94 relevant invalid
 * files are rejected (87 about geometry, skeleton and animation data, 7 about
 * images, textures and samplers, which the loader reads since it keeps the
 * file's looks); of the 70 other invalid files 67 load and 3 are rejected
 * (no /asset, an empty skin joint list). 151 of the 248 load.
 *
 * Valid files load even when they hold things we never use: an accessor of a
 * type we do not know (refused only if something we read uses it), a buffer
 * without data nothing reads, a buffer at a URL (never fetched:
 * base/buffer/non_relative_uri), and a mesh whose vertex data is not in the
 * file (base/root/named_objects: its only buffer has no uri in a .gltf). Such
 * a primitive is loaded empty and says why (sk_primitive.missing_data); the
 * skeleton, skins, scenes and clips do not depend on it. The corpus has no
 * .glb whose buffer other than the first lacks a uri (the same placeholder):
 * tests/test_gltf_load.c (test_placeholder_buffer) makes them.
 *
 * Which errors are "relevant" (must be rejected) is decided per error message
 * of the expected report, by code and JSON pointer:
 *
 *  - always relevant: the GLB container (GLB_*), JSON syntax/type errors
 *    (INVALID_JSON, TYPE_MISMATCH, ARRAY_TYPE_MISMATCH), the asset version,
 *    buffers / bufferViews / accessors layout (lengths, strides, alignment,
 *    sparse, non-finite floats, IBMs, index/joint data), animations, skins,
 *    the node hierarchy (loops, two parents, weights, non-root scene nodes),
 *    mesh attributes/indices/morph-target structure, KHR_mesh_quantization
 *    used without being required, image data in a strided bufferView;
 *  - generic codes (UNRESOLVED_REFERENCE, UNSATISFIED_DEPENDENCY,
 *    UNDEFINED_PROPERTY, VALUE_NOT_IN_RANGE, INVALID_URI, IO_ERROR) are
 *    relevant when their pointer is in a part we read: /asset, /buffers,
 *    /bufferViews, /accessors, /nodes, /meshes, /skins, /animations,
 *    /scenes, /scene, /images, /textures, /samplers, and in /materials the
 *    base colour, factors, alpha and sidedness — but not inside an
 *    "/extensions/" object or a material texture we never follow (normal,
 *    occlusion, emissive, metallic-roughness);
 *  - not relevant: accessor min/max vs. data (ACCESSOR_ELEMENT_OUT_OF_*_BOUND,
 *    ACCESSOR_MIN/MAX_MISMATCH: the bounds are informative, we never use them
 *    and real exporters get them slightly wrong), joint/weight *values*
 *    (duplicates, negative or non-normalised weights: the data is still safe
 *    to read and sk_primitive documents that weights are stored as-is), unit
 *    length of normals/tangents, EMPTY_ENTITY (an empty array is harmless),
 *    image *contents* (IMAGE_DATA_INVALID, MIME types: the library keeps the
 *    encoded bytes and never decodes them), cameras, extensions' own objects,
 *    bufferView target/usage hints, MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE
 *    (a shared view without stride reads fine), NODE_SKIN_NO_SCENE (scene
 *    membership does not affect what we load), custom attributes
 *    (_CUSTOM with UNSIGNED_INT, invalid attribute names: never read),
 *    POSITION without min/max (bounds unused), KHR_animation_pointer's own
 *    errors (pointer channels are skipped).
 *
 * No case needs an exception to these rules. Every rejection's message names
 * the file once, first, and no case is reported as out of memory (which
 * would mean the JSON syntax checker accepted what cJSON refused). */
#include "support.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const always_relevant[] = {
    "GLB_", "INVALID_JSON", "TYPE_MISMATCH", "ARRAY_TYPE_MISMATCH", "UNKNOWN_ASSET_MAJOR_VERSION",
    "ASSET_MIN_VERSION_GREATER_THAN_VERSION", "BUFFER_BYTE_LENGTH_MISMATCH", "BUFFER_DATA_URI_MIME_TYPE_INVALID",
    "BUFFER_MISSING_GLB_DATA", "BUFFER_VIEW_TOO_LONG", "BUFFER_VIEW_TOO_BIG_BYTE_STRIDE",
    "BUFFER_VIEW_INVALID_BYTE_STRIDE", "VALUE_MULTIPLE_OF", "ACCESSOR_OFFSET_ALIGNMENT",
    "ACCESSOR_TOTAL_OFFSET_ALIGNMENT", "ACCESSOR_TOO_LONG", "ACCESSOR_MATRIX_ALIGNMENT", "ACCESSOR_SMALL_BYTESTRIDE",
    "ACCESSOR_SPARSE_", "ACCESSOR_INVALID_FLOAT", "ACCESSOR_INDEX_", "ACCESSOR_JOINTS_INDEX_OOB",
    "ACCESSOR_ANIMATION_", "ACCESSOR_INVALID_IBM", "ANIMATION_", "SKIN_", "INVALID_IBM_ACCESSOR_COUNT", "NODE_LOOP",
    "NODE_PARENT_OVERRIDE", "NODE_WEIGHTS_INVALID", "NODE_SKIN_WITH_NON_SKINNED_MESH", "SCENE_NON_ROOT_NODE",
    "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT", "MESH_PRIMITIVE_JOINTS_WEIGHTS_MISMATCH",
    "MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT", "MESH_INVALID_WEIGHTS_COUNT", "MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR",
    "MESH_PRIMITIVE_INDICES_ACCESSOR_WITH_BYTESTRIDE", "NON_REQUIRED_EXTENSION", "IMAGE_BUFFER_VIEW_WITH_BYTESTRIDE",
};
static const char *const generic_codes[] = {
    "UNRESOLVED_REFERENCE", "UNSATISFIED_DEPENDENCY", "UNDEFINED_PROPERTY", "VALUE_NOT_IN_RANGE", "INVALID_URI",
    "IO_ERROR",
};
static const char *const read_prefixes[] = {
    "/asset", "/buffers", "/bufferViews", "/accessors", "/nodes",  "/meshes",   "/skins",
    "/animations", "/scenes", "/scene", "/images", "/textures", "/samplers",
};
/* Inside /materials/N: the parts the loader reads (the metallic-roughness
 * base colour, factors, alpha, sidedness); normal, occlusion, emissive and
 * metallic-roughness textures are not read. */
static const char *const material_parts[] = {
    "/pbrMetallicRoughness/baseColorFactor", "/pbrMetallicRoughness/baseColorTexture",
    "/pbrMetallicRoughness/metallicFactor", "/pbrMetallicRoughness/roughnessFactor", "/alphaMode", "/alphaCutoff",
    "/doubleSided", "/name",
};

enum {
    CASES = 248,
    VALID = 84,           /* all load */
    INVALID = 164,
    RELEVANT = 94,        /* all rejected */
    OTHER_LOADED = 67,
    OTHER_REJECTED = 3,
};

static bool starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static bool message_relevant(const char *code, const char *pointer) {
    for (size_t i = 0; i < sizeof always_relevant / sizeof always_relevant[0]; i++) {
        const char *r = always_relevant[i];
        size_t n = strlen(r);
        if (r[n - 1] == '_' ? starts_with(code, r) : strcmp(code, r) == 0) return true;
    }
    bool generic = false;
    for (size_t i = 0; i < sizeof generic_codes / sizeof generic_codes[0]; i++)
        if (strcmp(code, generic_codes[i]) == 0) generic = true;
    if (!generic || !pointer) return false;
    if (strstr(pointer, "/extensions/")) return false;
    if (starts_with(pointer, "/materials/")) {
        const char *rest = pointer + 11;
        while (*rest >= '0' && *rest <= '9') rest++;
        if (!*rest || !strcmp(rest, "/pbrMetallicRoughness")) return true;
        for (size_t i = 0; i < sizeof material_parts / sizeof material_parts[0]; i++)
            if (starts_with(rest, material_parts[i])) return true;
        return false;
    }
    for (size_t i = 0; i < sizeof read_prefixes / sizeof read_prefixes[0]; i++) {
        size_t n = strlen(read_prefixes[i]);
        if (strncmp(pointer, read_prefixes[i], n) == 0 && (pointer[n] == 0 || pointer[n] == '/'))
            return strstr(pointer, "/material/") == NULL;
    }
    return false;
}

/* Is any error of the case's report relevant? Falls back to the manifest's
 * error codes when the report is unreadable. */
static bool case_relevant(const char *dir, const cJSON *c, char *why, size_t why_cap) {
    why[0] = 0;
    const cJSON *report = cJSON_GetObjectItemCaseSensitive(c, "report");
    char path[1024];
    sk_test_path(path, sizeof path, dir, cJSON_IsString(report) ? report->valuestring : "");
    char *text = sk_test_read_file(path, NULL);
    cJSON *r = text ? cJSON_Parse(text) : NULL;
    free(text);
    bool relevant = false;
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "issues"), "messages");
    if (cJSON_IsArray(msgs)) {
        const cJSON *m;
        cJSON_ArrayForEach(m, msgs) {
            const cJSON *sev = cJSON_GetObjectItemCaseSensitive(m, "severity");
            const cJSON *code = cJSON_GetObjectItemCaseSensitive(m, "code");
            const cJSON *ptr = cJSON_GetObjectItemCaseSensitive(m, "pointer");
            if (!cJSON_IsNumber(sev) || sev->valueint != 0 || !cJSON_IsString(code)) continue;
            if (message_relevant(code->valuestring, cJSON_IsString(ptr) ? ptr->valuestring : NULL)) {
                relevant = true;
                snprintf(why, why_cap, "%s at %s", code->valuestring, cJSON_IsString(ptr) ? ptr->valuestring : "-");
                break;
            }
        }
    } else {
        const cJSON *codes = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "expected"), "errorCodes");
        const cJSON *code;
        cJSON_ArrayForEach(code, codes) {
            if (cJSON_IsString(code) && message_relevant(code->valuestring, NULL)) {
                relevant = true;
                snprintf(why, why_cap, "%s", code->valuestring);
                break;
            }
        }
    }
    cJSON_Delete(r);
    return relevant;
}

static void test_corpus(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared(); /* absent: skipped, or a failure under CI */
    char dir[1024], path[1024];
    snprintf(dir, sizeof dir, "%s/assets/validator", shared);
    sk_test_path(path, sizeof path, dir, "manifest.json");
    char *text = sk_test_read_file(path, NULL);
    /* The shared data is there but its corpus cannot be read: that fails (only
     * a missing ../shared as a whole is a skip, as everywhere: tests/support.h). */
    if (!text) fprintf(stderr, "%s cannot be read\n", path);
    assert_non_null(text);
    cJSON *manifest = cJSON_Parse(text);
    free(text);
    assert_non_null(manifest);
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(manifest, "cases");
    assert_true(cJSON_IsArray(cases));

    unsigned cases_n = 0, valid = 0, valid_ok = 0, invalid = 0, rel = 0, rel_ok = 0, other = 0, other_loaded = 0,
             mismatches = 0, loaded_total = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cases) {
        const char *id = cJSON_GetObjectItemCaseSensitive(c, "id")->valuestring;
        const cJSON *input = cJSON_GetObjectItemCaseSensitive(c, "input");
        const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "expected"), "verdict");
        assert_true(cJSON_IsString(input) && cJSON_IsString(verdict));
        cases_n++;
        sk_test_path(path, sizeof path, dir, input->valuestring);
        sk_asset *asset = NULL;
        sk_error err = {0};
        sk_result r = sk_gltf_load_file(path, NULL, &asset, &err);
        bool loaded = r == SK_OK;
        if (loaded) {
            assert_non_null(asset);
            assert_non_null(asset->skeleton);
            assert_int_equal(asset->node_count, asset->skeleton->joint_count);
            assert_int_equal(sk_asset_validate(asset, &err), SK_OK); /* what the loader hands out is consistent */
            loaded_total++;
        } else {
            assert_null(asset);
            if (r == SK_ERR_OUT_OF_MEMORY) fprintf(stderr, "%s: %s\n", id, err.message);
            assert_int_not_equal(r, SK_ERR_OUT_OF_MEMORY);
            /* the message names the file once, first */
            if (strncmp(err.message, path, strlen(path)) != 0 || strstr(err.message + 1, path))
                fprintf(stderr, "%s: %s\n", id, err.message);
            assert_true(strncmp(err.message, path, strlen(path)) == 0 && err.message[strlen(path)] == ':');
            assert_null(strstr(err.message + 1, path));
        }
        sk_asset_destroy(asset);
        bool is_valid = strcmp(verdict->valuestring, "valid") == 0;
        char why[256];
        if (is_valid) {
            valid++;
            if (loaded) valid_ok++;
            else {
                mismatches++;
                fprintf(stderr, "MISMATCH valid case %s was rejected: %s (%s)\n", id, sk_result_string(r), err.message);
            }
        } else if (invalid++, case_relevant(dir, c, why, sizeof why)) {
            rel++;
            if (!loaded) rel_ok++;
            else {
                mismatches++;
                fprintf(stderr, "MISMATCH invalid case %s (%s) was loaded\n", id, why);
            }
        } else {
            other++;
            if (loaded) other_loaded++;
            if (getenv("SK_VERBOSE"))
                fprintf(stderr, "other invalid %s: %s %s\n", id, loaded ? "loaded" : "rejected", loaded ? "" : err.message);
        }
    }
    printf("validator corpus: %u cases (%u valid, %u invalid): %u/%u valid loaded, %u/%u relevant invalid rejected, "
           "%u other invalid: %u loaded, %u rejected; %u loaded in all\n",
           cases_n, valid, invalid, valid_ok, valid, rel_ok, rel, other, other_loaded, other - other_loaded,
           loaded_total);
    cJSON_Delete(manifest);
    assert_int_equal(mismatches, 0);
    assert_int_equal(cases_n, CASES);
    assert_int_equal(valid, VALID);
    assert_int_equal(invalid, INVALID);
    assert_int_equal(valid_ok, VALID);
    assert_int_equal(rel, RELEVANT);
    assert_int_equal(rel_ok, RELEVANT);
    assert_int_equal(other_loaded, OTHER_LOADED);
    assert_int_equal(other - other_loaded, OTHER_REJECTED);
    assert_int_equal(loaded_total, VALID + OTHER_LOADED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
