/* The glTF reader's JSON layer (src/io/json.c: sk_json_read) against cJSON,
 * which it replaced and which stays here as the oracle:
 *  1. the JSON of every .gltf and .glb under ../shared/assets, ../shared/mocap
 *     and tests/data (the validator's corpus included): where cJSON reads the
 *     text (one value, then only whitespace) and the strict checker accepts
 *     it, both give the same tree: types, every number bit for bit, every
 *     string and key byte for byte, members in the same order, and a lookup
 *     by key finds the member cJSON's lookup finds (the first of duplicates);
 *     the number of files is printed and asserted;
 *  2. hand-written edge cases (escapes, surrogate pairs, \u0000, -0, 1e308,
 *     denormals, 17 and more digits, duplicate keys, nesting at the limit and
 *     one beyond);
 *  3. numbers: sk_json_number against strtod on random decimal texts (up to
 *     20 digits, exponents, exact halfway points between two doubles);
 *  4. random corruptions of a document: what the checker accepts, both read
 *     the same.
 * Where cJSON accepts text that is not JSON (a leading zero, control
 * characters in strings, whitespace other than JSON's, a byte order mark,
 * which the glTF reader refuses before it reads the JSON anyway), the
 * checker refuses it: those files are counted and printed, never compared. */
#include "support.h"

#include "io/json_internal.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- tree comparison ---------------------------------------------------------- */

static bool same_value(const cJSON *c, const sk_jv *v, char *where, size_t cap);

static const char *jv_type_name(const sk_jv *v) {
    static const char *const names[] = {"null", "false", "true", "number", "string", "array", "object"};
    return v->type < 7 ? names[v->type] : "?";
}

static bool same_value(const cJSON *c, const sk_jv *v, char *where, size_t cap) {
    int ct = c->type & 0xFF;
    bool ok;
    switch (ct) {
    case cJSON_NULL: ok = v->type == SK_JV_NULL; break;
    case cJSON_False: ok = v->type == SK_JV_FALSE; break;
    case cJSON_True: ok = v->type == SK_JV_TRUE; break;
    case cJSON_Number:
        ok = v->type == SK_JV_NUMBER && memcmp(&c->valuedouble, &v->valuedouble, sizeof(double)) == 0;
        if (!ok && v->type == SK_JV_NUMBER)
            snprintf(where + strlen(where), cap - strlen(where), ": %.17g != %.17g", c->valuedouble, v->valuedouble);
        break;
    case cJSON_String: ok = v->type == SK_JV_STRING && strcmp(c->valuestring, v->valuestring) == 0; break;
    case cJSON_Array:
    case cJSON_Object: {
        bool obj = ct == cJSON_Object;
        ok = v->type == (obj ? SK_JV_OBJECT : SK_JV_ARRAY) && (int)v->count == cJSON_GetArraySize(c);
        if (!ok) break;
        const cJSON *x = c->child;
        const sk_jv *y = sk_jv_child(v);
        size_t len = strlen(where);
        for (unsigned i = 0; x && y; x = x->next, y = sk_jv_next(y), i++) {
            if (obj) {
                snprintf(where + len, cap - len, "/%s", x->string);
                if (!y->key || strcmp(x->string, y->key) != 0) return false;
                /* the lookup: the first member of that name, as cJSON's */
                const cJSON *cf = cJSON_GetObjectItemCaseSensitive(c, x->string);
                const sk_jv *vf = sk_jv_get(v, y->key);
                int ci = 0, vi = 0;
                for (const cJSON *k = c->child; k != cf; k = k->next) ci++;
                for (const sk_jv *k = sk_jv_child(v); k != vf; k = sk_jv_next(k)) vi++;
                if (ci != vi) {
                    snprintf(where + strlen(where), cap - strlen(where), ": lookup finds member %d, cJSON %d", vi, ci);
                    return false;
                }
            } else {
                snprintf(where + len, cap - len, "/%u", i);
                if (y->key) return false;
            }
            if (!same_value(x, y, where, cap)) return false;
            where[len] = 0;
        }
        ok = !x && !y;
        break;
    }
    default: ok = false; break;
    }
    if (!ok && !strstr(where, "!="))
        snprintf(where + strlen(where), cap - strlen(where), ": cJSON type %d, ours %s", ct, jv_type_name(v));
    return ok;
}

/* cJSON's verdict as the reader used it: one value, then only JSON whitespace. */
static cJSON *cjson_read(const char *text, size_t len) {
    const char *end = NULL;
    cJSON *root = len ? cJSON_ParseWithLengthOpts(text, len, &end, false) : NULL;
    if (!root) return NULL;
    size_t i = (size_t)(end - text);
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) i++;
    if (i != len) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

typedef struct counts {
    int compared;     /* both read it: same tree */
    int both_refused; /* neither */
    int lax;          /* cJSON read it, the checker refused it (not JSON) */
    bool quiet;       /* do not print each of those */
} counts;

/* Compares the two readers on one text; false when they disagree. */
static bool compare_text(const char *name, const char *text, size_t len, counts *n) {
    cJSON *c = cjson_read(text, len);
    sk_json_doc doc;
    size_t at = 0;
    const char *what = "";
    sk_result r = sk_json_read(text, len, NULL, &doc, &at, &what);
    bool ok = true;
    if (c && r == SK_OK) {
        char where[4096] = "";
        if (!same_value(c, doc.root, where, sizeof where)) {
            fprintf(stderr, "%s: the readers differ at %s\n", name, where[0] ? where : "/");
            ok = false;
        }
        /* the checker and a second pass (sk_json_read's other way) build the same */
        sk_json_doc two;
        if (sk_json_read_two_pass(text, len, NULL, &two, NULL, NULL) != SK_OK ||
            !same_value(c, two.root, where, sizeof where) || two.count != doc.count) {
            fprintf(stderr, "%s: the two-pass reader differs at %s\n", name, where[0] ? where : "/");
            ok = false;
        } else {
            sk_json_doc_free(&two);
        }
        n->compared++;
    } else if (c) {
        n->lax++;
        if (!n->quiet)
            printf("  %s: cJSON reads it, ours refuses it (%s near byte %zu: %s)\n", name, sk_result_string(r), at, what);
        /* only text that is not JSON may be refused */
        if (sk_json_check(text, len, NULL, NULL) == SK_OK) {
            fprintf(stderr, "%s: well-formed, cJSON reads it, ours: %s\n", name, sk_result_string(r));
            ok = false;
        }
    } else if (r == SK_OK) {
        fprintf(stderr, "%s: ours reads it, cJSON refuses it\n", name);
        ok = false;
    } else {
        n->both_refused++;
    }
    if (r == SK_OK) sk_json_doc_free(&doc);
    cJSON_Delete(c);
    return ok;
}

/* ---- 1. every glTF of the shared assets and tests/data ------------------------ */

static int files_found, files_checked, glb_without_json;

static bool has_suffix(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void walk(const char *dir, counts *n, int *bad) {
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        names[count++] = strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            walk(path, n, bad);
        } else if (has_suffix(names[i], ".gltf") || has_suffix(names[i], ".glb")) {
            files_found++;
            size_t size = 0;
            char *data = sk_test_read_file(path, &size);
            assert_non_null(data);
            const char *json = data;
            size_t len = size;
            const unsigned char *u = (const unsigned char *)data;
            if (size >= 4 && rd32(u) == 0x46546C67u) { /* GLB: the JSON chunk */
                if (size >= 20 && rd32(u + 16) == 0x4E4F534Au && rd32(u + 12) <= size - 20) {
                    json = data + 20;
                    len = rd32(u + 12);
                } else {
                    glb_without_json++;
                    json = NULL;
                }
            }
            if (json) {
                files_checked++;
                if (!compare_text(path, json, len, n)) (*bad)++;
            }
            free(data);
        }
        free(names[i]);
    }
    free(names);
}

static void test_files(void **state) {
    (void)state;
    const char *shared = sk_test_require_shared();
    counts n = {0};
    int bad = 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/assets", shared);
    walk(dir, &n, &bad);
    int shared_assets = files_found;
    snprintf(dir, sizeof dir, "%s/mocap", shared);
    walk(dir, &n, &bad);
    snprintf(dir, sizeof dir, "%s/tests/data", sk_test_source_dir());
    walk(dir, &n, &bad);
    printf("JSON reader vs cJSON: %d .gltf/.glb files (%d under shared/assets), %d JSON texts checked (%d .glb "
           "without a JSON chunk): %d read alike by both, %d refused by both, %d read by cJSON only (not JSON)\n",
           files_found, shared_assets, files_checked, glb_without_json, n.compared, n.both_refused, n.lax);
    assert_int_equal(bad, 0);
    assert_int_equal(files_checked + glb_without_json, files_found);
    assert_true(shared_assets >= 250); /* the validator's corpus and the sample models */
    assert_true(n.compared >= 200);
    assert_int_equal(n.compared + n.both_refused + n.lax, files_checked);
}

/* ---- 2. edge cases ------------------------------------------------------------- */

static void test_edge_cases(void **state) {
    (void)state;
    static const char *const texts[] = {
        "{}",
        "[]",
        "[[], {}, [[]], {\"\": {}}]",
        "0",
        "-0",
        "\"alone\"",
        "  true  ",
        "null",
        ("[-0, 0, -0.0, 0e5, -0E-5, 1e308, 1.7976931348623157e308, 1e309, -1e309, 2.2250738585072014e-308, "
        "2.2250738585072011e-308, 4.9e-324, 5e-324, 2.4703282292062327e-324, 2.4703282292062328e-324, 1e-320, "
        "1e-400, 123456789012345678, 12345678901234567890, 123456789012345678901234567890, "
        "0.30000000000000004, 0.1, 0.2, 0.3, 9007199254740993, 9007199254740992, 9007199254740991, "
        "1.00000000000000011102230246251565404236316680908203125, "
        "1.00000000000000011102230246251565404236316680908203124, 4294967295, 4294967296, 1E+2, 1e-7, "
        "-4.371139894487897e-8, 1.4901157641133977e-08, 0.061929598450660706, 3.0000000000000004, 1e22, 1e23, "
        "1e-22, 1e-23, 9999999999999999999, 0.000000000000000000000000000001, 8.98846567431158e307, 1e-27, "
        "1.2345678901234567e-27, 1.2345678901234567e27, 1.2345678901234567e28]"),
        ("[\"\", \"plain\", \"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u0041\\u00e9\\u20ac\\uffff\", \"\\ud83d\\ude00\", "
         "\"\\uD834\\uDD1E and \\udbff\\udfff\", \"a\\u0000b\", \"caf\xc3\xa9 \xe2\x82\xac\", \"\\u007f\\u0080\\u07ff\\u0800\"]"),
        "{\"a\": 1, \"a\": 2, \"b\": {\"a\": [3], \"a\": 4}, \"a\": 5}",
        "{\"\\u0061\": 1, \"a\": 2}",
        "{\"a\\u0000x\": 1, \"a\": 2}",
        "{\"x\": {\"y\": {\"z\": [1, {\"w\": [true, false, null]}]}}, \"v\": \"\\u00e9\"}",
        " \t\n\r{ \"k\" \t: \n[ 1 ,2\r, 3 ] } \n",
        /* refused by both */
        "",
        "{",
        "[1,]",
        "{\"a\":}",
        "[\"\\ud800\"]",
        "[\"\\udc00\"]",
        "[\"\\x\"]",
        "{} {}",
        "[1 2]",
        "nul",
        /* cJSON reads them, the checker does not (not JSON) */
        "[01]",
        "[1.]",
        "[\"a\tb\"]",
        "[1,\x0b 2]",
    };
    counts n = {0};
    int bad = 0;
    char name[32];
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        snprintf(name, sizeof name, "edge case %zu", i);
        if (!compare_text(name, texts[i], strlen(texts[i]), &n)) bad++;
    }
    printf("edge cases: %d read alike, %d refused by both, %d read by cJSON only\n", n.compared, n.both_refused,
           n.lax);
    assert_int_equal(bad, 0);
    assert_int_equal(n.compared, 15);
    assert_int_equal(n.both_refused, 10);
    assert_int_equal(n.lax, 4);

    /* the duplicate key: the first, as cJSON's lookup */
    const char *dup = "{\"a\": 1, \"a\": 2}";
    sk_json_doc doc;
    assert_int_equal(sk_json_read(dup, strlen(dup), NULL, &doc, NULL, NULL), SK_OK);
    assert_true(sk_jv_get(doc.root, "a")->valuedouble == 1.0);
    assert_null(sk_jv_get(doc.root, "b"));
    assert_null(sk_jv_get(sk_jv_get(doc.root, "a"), "a")); /* not an object */
    sk_json_doc_free(&doc);

    /* -0 keeps its sign */
    assert_int_equal(sk_json_read("[-0]", 4, NULL, &doc, NULL, NULL), SK_OK);
    assert_true(signbit(sk_jv_child(doc.root)->valuedouble));
    sk_json_doc_free(&doc);

    /* nesting: 1000 levels are the limit (cJSON's), 1001 are refused by both */
    static char deep[8192];
    for (int depth = 999; depth <= 1001; depth++) {
        for (int kind = 0; kind < 2; kind++) {
            size_t len = 0;
            for (int k = 0; k < depth; k++) {
                if (kind == 0) deep[len++] = '[';
                else len += (size_t)sprintf(deep + len, k + 1 < depth ? "{\"k\":" : "{");
            }
            if (kind == 0) memset(deep + len, ']', (size_t)depth);
            else memset(deep + len, '}', (size_t)depth);
            len += (size_t)depth;
            char *text = malloc(len); /* no terminating NUL: the reader takes a length */
            memcpy(text, deep, len);
            size_t at = 0;
            sk_result r = sk_json_read(text, len, NULL, &doc, &at, NULL);
            cJSON *c = cjson_read(text, len);
            assert_int_equal(r, depth <= 1000 ? SK_OK : SK_ERR_LIMIT);
            assert_int_equal(c != NULL, depth <= 1000);
            if (r == SK_OK) {
                char where[8192] = "";
                assert_true(same_value(c, doc.root, where, sizeof where));
                assert_int_equal(doc.count, (uint32_t)depth);
                sk_json_doc_free(&doc);
            } else {
                assert_int_equal(at, 1000u * (kind == 0 ? 1u : 5u)); /* the 1001st opening */
            }
            cJSON_Delete(c);
            free(text);
        }
    }
    /* a number of 63 characters is read, 64 are beyond the limit */
    for (size_t chars = 63; chars <= 64; chars++) {
        char num[80] = "[0.";
        memset(num + 3, '1', chars - 2);
        num[chars + 1] = ']';
        cJSON *c = cjson_read(num, chars + 2);
        assert_int_equal(sk_json_read(num, chars + 2, NULL, &doc, NULL, NULL), chars == 63 ? SK_OK : SK_ERR_LIMIT);
        if (chars == 63) {
            char where[256] = "";
            assert_true(same_value(c, doc.root, where, sizeof where));
            sk_json_doc_free(&doc);
        }
        cJSON_Delete(c);
    }
}

/* ---- 3. numbers against strtod ------------------------------------------------------ */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_numbers(void **state) {
    (void)state;
    long n = 0, bad = 0;
    char buf[96];
    for (long it = 0; it < 2000000; it++) {
        int nd = 1 + (int)(rnd() % 20);
        int k = 0;
        if (rnd() & 1) buf[k++] = '-';
        char digits[24];
        for (int d = 0; d < nd; d++) digits[d] = (char)('0' + rnd() % 10);
        if (rnd() % 4 == 0) /* runs of zeros and fives: near halfway points */
            for (int d = nd / 2; d < nd; d++) digits[d] = rnd() % 3 == 0 ? '5' : '0';
        if (nd > 1 && digits[0] == '0') digits[0] = (char)('1' + rnd() % 9);
        int point = (int)(rnd() % (unsigned)(nd + 1));
        if (point == 0 || rnd() % 3 == 0) { /* 0.000ddd */
            buf[k++] = '0';
            buf[k++] = '.';
            int z = (int)(rnd() % 12);
            for (int q = 0; q < z; q++) buf[k++] = '0';
            memcpy(buf + k, digits, (size_t)nd);
            k += nd;
        } else {
            memcpy(buf + k, digits, (size_t)point);
            k += point;
            if (point < nd) {
                buf[k++] = '.';
                memcpy(buf + k, digits + point, (size_t)(nd - point));
                k += nd - point;
            }
        }
        if (rnd() % 2)
            k += sprintf(buf + k, "e%s%d", rnd() % 2 ? "-" : (rnd() % 2 ? "+" : ""), (int)(rnd() % 40));
        buf[k] = 0;
        double a = sk_json_number(buf, (size_t)k), b = strtod(buf, NULL);
        n++;
        if (memcmp(&a, &b, sizeof a) != 0 && bad++ < 10) fprintf(stderr, "%s: %.17g, strtod %.17g\n", buf, a, b);
    }
    /* exactly halfway between two doubles (then cut to 17-19 digits: just above or below) */
    for (long it = 0; it < 300000; it++) {
        uint64_t m = (rnd() >> 11) | (1ull << 52);
        int e = (int)(rnd() % 120) - 90;
        snprintf(buf, sizeof buf, "%.25e", ldexp((double)(2 * m + 1), e - 1));
        char *ex = strchr(buf, 'e');
        char tail[16];
        snprintf(tail, sizeof tail, "%s", ex);
        int keep = 17 + (int)(rnd() % 3);
        snprintf(buf + 1 + keep, sizeof buf - 1 - (size_t)keep, "%s", tail);
        double a = sk_json_number(buf, strlen(buf)), b = strtod(buf, NULL);
        n++;
        if (memcmp(&a, &b, sizeof a) != 0 && bad++ < 10) fprintf(stderr, "%s: %.17g, strtod %.17g\n", buf, a, b);
    }
    printf("numbers: %ld random texts, %ld differ from strtod\n", n, bad);
    assert_int_equal(bad, 0);
}

/* ---- 4. random corruptions ---------------------------------------------------------- */

static void test_corruptions(void **state) {
    (void)state;
    const char *doc = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\\u00e9\\ud83d\\ude00\",\"translation\":"
                      "[1.5,-2e3,0,0.061929598450660706]},{\"children\":[0],\"extras\":{\"x\":null,\"y\":[true,false],"
                      "\"x\":\"\\n\"}}]}";
    size_t len = strlen(doc);
    const char alphabet[] = "{}[],:\"\\u0123456789.eE+-tfn ad";
    char buf[512];
    counts n = {0};
    n.quiet = true;
    int bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, doc, len);
        for (int k = 0; k < 1 + iter % 3; k++) buf[rnd() % len] = alphabet[rnd() % (sizeof alphabet - 1)];
        if (!compare_text("corrupted document", buf, len, &n)) {
            fprintf(stderr, "  text: %.*s\n", (int)len, buf);
            bad++;
        }
    }
    printf("corruptions: %d read alike, %d refused by both, %d read by cJSON only\n", n.compared, n.both_refused,
           n.lax);
    assert_int_equal(bad, 0);
    assert_true(n.compared > 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_corruptions),
        cmocka_unit_test(test_files),
    };
    return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
