/* JSON for libskelanim_io: a strict syntax checker; a document on an
 * sk_allocator (checker, then jsmn's tokenizer, then values and decoded
 * strings); parsing through cJSON with out-of-memory told apart from syntax
 * errors; and a streaming writer on an sk_allocator. See json_internal.h. */
#include "io/json_internal.h"

#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS /* closing a container without parent links scans back over its siblings */
#include <jsmn.h>

/* ---- syntax check (RFC 8259, with cJSON's limits) ----------------------------- */

static size_t skip_ws(const unsigned char *s, size_t len, size_t i) {
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

static int hex4(const unsigned char *s, size_t len, size_t i) {
    if (len - i < 4) return -1;
    int v = 0;
    for (size_t k = 0; k < 4; k++) {
        unsigned char c = s[i + k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* s[*i] is the opening quote. */
static bool check_string(const unsigned char *s, size_t len, size_t *i, const char **what) {
    size_t k = *i + 1;
    for (;;) {
        if (k >= len) {
            *what = "unterminated string";
            return false;
        }
        unsigned char c = s[k];
        if (c == '"') break;
        if (c < 0x20) {
            *i = k;
            *what = "control character in a string";
            return false;
        }
        if (c != '\\') {
            k++;
            continue;
        }
        if (k + 1 >= len) {
            *what = "unterminated string";
            return false;
        }
        unsigned char e = s[k + 1];
        if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
            k += 2;
            continue;
        }
        *i = k;
        if (e != 'u') {
            *what = "invalid escape sequence in a string";
            return false;
        }
        int code = hex4(s, len, k + 2);
        if (code < 0) {
            *what = "invalid \\u escape in a string";
            return false;
        }
        k += 6;
        if (code >= 0xDC00 && code <= 0xDFFF) {
            *what = "unpaired UTF-16 low surrogate in a string";
            return false;
        }
        if (code >= 0xD800 && code <= 0xDBFF) {
            int low = len - k >= 2 && s[k] == '\\' && s[k + 1] == 'u' ? hex4(s, len, k + 2) : -1;
            if (low < 0xDC00 || low > 0xDFFF) {
                *what = "unpaired UTF-16 high surrogate in a string";
                return false;
            }
            k += 6;
        }
    }
    *i = k + 1;
    return true;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static sk_result check_number(const unsigned char *s, size_t len, size_t *i, const char **what) {
    size_t k = *i, start = k;
    if (k < len && s[k] == '-') k++;
    if (k < len && s[k] == '0') k++;
    else if (k < len && is_digit(s[k])) while (k < len && is_digit(s[k])) k++;
    else goto bad;
    if (k < len && s[k] == '.') {
        k++;
        if (k >= len || !is_digit(s[k])) goto bad;
        while (k < len && is_digit(s[k])) k++;
    }
    if (k < len && (s[k] == 'e' || s[k] == 'E')) {
        k++;
        if (k < len && (s[k] == '+' || s[k] == '-')) k++;
        if (k >= len || !is_digit(s[k])) goto bad;
        while (k < len && is_digit(s[k])) k++;
    }
    if (k - start > SK_JSON_MAX_NUMBER_CHARS) {
        *what = "a number longer than 63 characters (the parser's limit)";
        return SK_ERR_LIMIT;
    }
    *i = k;
    return SK_OK;
bad:
    *i = k;
    *what = "malformed number";
    return SK_ERR_PARSE;
}

enum { ST_VALUE, ST_VALUE_OR_CLOSE, ST_KEY, ST_KEY_OR_CLOSE, ST_AFTER };

/* The check; *values and *keys count what a well-formed text holds (the
 * tokens of jsmn are the values and the keys). */
static sk_result check(const char *text, size_t len, size_t *offset, const char **what, size_t *values,
                       size_t *keys) {
    const unsigned char *s = (const unsigned char *)text;
    size_t n_values = 0, n_keys = 0;
    uint8_t is_object[(SK_JSON_MAX_DEPTH + 7) / 8];
    uint32_t depth = 0;
    int state = ST_VALUE;
    size_t i = 0;
    const char *w = NULL;
    sk_result code = SK_ERR_PARSE;
    for (;;) {
        i = skip_ws(s, len, i);
        if (state == ST_AFTER && depth == 0) break;
        if (i >= len) {
            w = "unexpected end of the text";
            goto fail;
        }
        unsigned char c = s[i];
        if (state == ST_AFTER) {
            bool obj = (is_object[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1u;
            if (c == ',') {
                i++;
                state = obj ? ST_KEY : ST_VALUE;
            } else if (c == (obj ? '}' : ']')) {
                i++;
                depth--;
            } else {
                w = obj ? "expected ',' or '}'" : "expected ',' or ']'";
                goto fail;
            }
            continue;
        }
        if (state == ST_KEY || state == ST_KEY_OR_CLOSE) {
            if (state == ST_KEY_OR_CLOSE && c == '}') {
                i++;
                depth--;
                state = ST_AFTER;
                continue;
            }
            if (c != '"') {
                w = "expected a string (an object key)";
                goto fail;
            }
            if (!check_string(s, len, &i, &w)) goto fail;
            n_keys++;
            i = skip_ws(s, len, i);
            if (i >= len || s[i] != ':') {
                w = "expected ':' after an object key";
                goto fail;
            }
            i++;
            state = ST_VALUE;
            continue;
        }
        /* a value */
        if (state == ST_VALUE_OR_CLOSE && c == ']') {
            i++;
            depth--;
            state = ST_AFTER;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth >= SK_JSON_MAX_DEPTH) {
                w = "nesting deeper than 1000 levels (the parser's limit)";
                code = SK_ERR_LIMIT;
                goto fail;
            }
            if (c == '{') is_object[depth / 8] |= (uint8_t)(1u << (depth % 8));
            else is_object[depth / 8] &= (uint8_t)~(1u << (depth % 8));
            depth++;
            i++;
            n_values++;
            state = c == '{' ? ST_KEY_OR_CLOSE : ST_VALUE_OR_CLOSE;
            continue;
        }
        if (c == '"') {
            if (!check_string(s, len, &i, &w)) goto fail;
        } else if (c == '-' || is_digit(c)) {
            code = check_number(s, len, &i, &w);
            if (code != SK_OK) goto fail;
            code = SK_ERR_PARSE;
        } else {
            static const char *const lits[] = {"true", "false", "null"};
            size_t k = 0;
            while (k < 3 && lits[k][0] != (char)c) k++;
            size_t n = k < 3 ? strlen(lits[k]) : 0;
            if (k == 3 || len - i < n || memcmp(s + i, lits[k], n) != 0) {
                w = "unexpected character";
                goto fail;
            }
            i += n;
        }
        n_values++;
        state = ST_AFTER;
    }
    if (i != len) {
        w = "trailing data after the JSON value";
        goto fail;
    }
    if (values) *values = n_values;
    if (keys) *keys = n_keys;
    return SK_OK;
fail:
    if (offset) *offset = i;
    if (what) *what = w;
    return code;
}

sk_result sk_json_check(const char *text, size_t len, size_t *offset, const char **what) {
    return check(text, len, offset, what, NULL, NULL);
}

/* ---- numbers ------------------------------------------------------------------ */

/* strtod on a copy, '.' replaced by the locale's decimal point as cJSON does
 * (strtod reads the locale's). n <= SK_JSON_MAX_NUMBER_CHARS (checked). */
static double number_strtod(const char *s, size_t n) {
    char buf[SK_JSON_MAX_NUMBER_CHARS + 1];
    if (n > SK_JSON_MAX_NUMBER_CHARS) n = SK_JSON_MAX_NUMBER_CHARS;
    const char point = localeconv()->decimal_point[0];
    for (size_t i = 0; i < n; i++) buf[i] = s[i] == '.' ? point : s[i];
    buf[n] = 0;
    return strtod(buf, NULL);
}

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 sk_u128;

/* The double nearest to (q + f) * 2^e2, ties to even, where 0 <= f < 1 and
 * f > 0 exactly when sticky; q has at least 54 bits when sticky (so f only
 * breaks ties below q's last bit). The result is a normal double (the
 * callers' ranges). */
static double round_u128(sk_u128 q, bool sticky, int e2) {
    uint64_t hi = (uint64_t)(q >> 64);
    int bits = hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll((uint64_t)q);
    if (bits <= 53) return ldexp((double)(uint64_t)q, e2); /* exact (sticky is false here) */
    int shift = bits - 53;
    uint64_t m = (uint64_t)(q >> shift);
    sk_u128 rem = q & (((sk_u128)1 << shift) - 1), half = (sk_u128)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (m & 1u)))) m++; /* 2^53 at most: still exact */
    return ldexp((double)m, e2 + shift);
}
#endif

double sk_json_number(const char *s, size_t n) {
    size_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg) i++;
    uint64_t w = 0; /* the significant digits, at most 19 (< 2^64) */
    int sig = 0;
    long scale = 0; /* value = w * 10^scale */
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (w == 0 && d == 0) continue; /* "0" (JSON has no other leading zeros) */
        if (++sig > 19) return number_strtod(s, n);
        w = w * 10u + d;
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            scale--;
            if (w == 0 && d == 0) continue; /* zeros before the first significant digit */
            if (++sig > 19) return number_strtod(s, n);
            w = w * 10u + d;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = i < n && s[i] == '-';
        if (i < n && (s[i] == '-' || s[i] == '+')) i++;
        long e = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000) e = e * 10 + (s[i] - '0');
        scale += eneg ? -e : e;
    }
    if (i != n) return number_strtod(s, n); /* not JSON syntax: strtod decides */
    if (w == 0) return neg ? -0.0 : 0.0;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    /* Clinger's fast path: a mantissa of at most 15 digits is an exact
     * double, so are 10^0..10^22, and one IEEE multiplication or division of
     * exact operands is correctly rounded: strtod's double, no locale. */
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (sig <= 15 && scale >= -22 && scale <= 22) {
        double v = (double)w;
        v = scale < 0 ? v / p10[-scale] : v * p10[scale];
        return neg ? -v : v;
    }
#endif
#if defined(__SIZEOF_INT128__)
    /* Up to 19 digits and |scale| <= 27 (the shortest round-trip text of a
     * double has 17), exactly in integers: w * 10^k = (w * 5^k) * 2^k, and
     * w / 10^k = (w * 2^s / 5^k) * 2^-(s+k) with a quotient of at least 64
     * bits and the remainder as the sticky bit; then one rounding. */
    static const uint64_t p5[28] = {1ull,
                                    5ull,
                                    25ull,
                                    125ull,
                                    625ull,
                                    3125ull,
                                    15625ull,
                                    78125ull,
                                    390625ull,
                                    1953125ull,
                                    9765625ull,
                                    48828125ull,
                                    244140625ull,
                                    1220703125ull,
                                    6103515625ull,
                                    30517578125ull,
                                    152587890625ull,
                                    762939453125ull,
                                    3814697265625ull,
                                    19073486328125ull,
                                    95367431640625ull,
                                    476837158203125ull,
                                    2384185791015625ull,
                                    11920928955078125ull,
                                    59604644775390625ull,
                                    298023223876953125ull,
                                    1490116119384765625ull,
                                    7450580596923828125ull};
    if (scale >= 0 && scale <= 27) {
        double v = round_u128((sk_u128)w * p5[scale], false, (int)scale);
        return neg ? -v : v;
    }
    if (scale < 0 && scale >= -27) {
        int k = (int)-scale, s2 = __builtin_clzll(w) + 64; /* w * 2^s2 has bit 127 set */
        sk_u128 num = (sk_u128)w << s2;
        sk_u128 q = num / p5[k], r = num % p5[k]; /* q >= 2^127 / 2^63 = 2^64 */
        double v = round_u128(q, r != 0, -s2 - k);
        return neg ? -v : v;
    }
#endif
    return number_strtod(s, n);
}

/* ---- the document (sk_json_read) ---------------------------------------------- */

static unsigned hex_value(unsigned char c) {
    return c <= '9' ? (unsigned)(c - '0') : c <= 'F' ? (unsigned)(c - 'A' + 10) : (unsigned)(c - 'a' + 10);
}

static unsigned read_hex4(const unsigned char *p) {
    return hex_value(p[0]) << 12 | hex_value(p[1]) << 8 | hex_value(p[2]) << 4 | hex_value(p[3]);
}

/* Decodes the checked string body s[0, n) into out (NUL-terminated) as cJSON
 * does: escapes replaced, \uXXXX (a surrogate pair as one code point) as
 * UTF-8 (\u0000 included: the C string ends there), every other byte as it
 * is. Returns the end of the output after the NUL. out has room for n + 1. */
static char *decode_string(const unsigned char *s, size_t n, char *out) {
    unsigned char *o = (unsigned char *)out;
    size_t i = 0;
    while (i < n) {
        const unsigned char *bs = memchr(s + i, '\\', n - i);
        size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
        memcpy(o, s + i, run);
        o += run;
        i += run;
        if (i >= n) break;
        unsigned char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t cp = read_hex4(s + i);
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) { /* the checker made sure a low surrogate follows */
                cp = 0x10000 + ((cp & 0x3FF) << 10 | (read_hex4(s + i + 2) & 0x3FF));
                i += 6;
            }
            if (cp < 0x80) {
                *o++ = (unsigned char)cp;
            } else if (cp < 0x800) {
                *o++ = (unsigned char)(0xC0 | cp >> 6);
                *o++ = (unsigned char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *o++ = (unsigned char)(0xE0 | cp >> 12);
                *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                *o++ = (unsigned char)(0x80 | (cp & 0x3F));
            } else {
                *o++ = (unsigned char)(0xF0 | cp >> 18);
                *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
                *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
                *o++ = (unsigned char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: *o++ = e; break; /* '"', '\\', '/' */
        }
    }
    *o++ = 0;
    return (char *)o;
}

/* A scalar from its text [s, s + n): a string's body (type known) or a
 * primitive (number or literal). */
static void scalar(sk_jv *v, const char *text, int start, int end, bool is_string, char **strings) {
    const char *s = text + start;
    size_t n = (size_t)(end - start);
    if (is_string) {
        v->type = SK_JV_STRING;
        v->valuestring = *strings;
        *strings = decode_string((const unsigned char *)s, n, *strings);
    } else if (s[0] == 't') {
        v->type = SK_JV_TRUE;
    } else if (s[0] == 'f') {
        v->type = SK_JV_FALSE;
    } else if (s[0] == 'n') {
        v->type = SK_JV_NULL;
    } else {
        v->type = SK_JV_NUMBER;
        v->valuedouble = sk_json_number(s, n);
    }
}

void sk_json_doc_free(sk_json_doc *doc) {
    if (doc->block) sk_free(doc->alloc, doc->block, doc->block_size);
    memset(doc, 0, sizeof *doc);
}

sk_result sk_json_read(const char *text, size_t len, const sk_allocator *alloc, sk_json_doc *doc, size_t *offset,
                       const char **what) {
    memset(doc, 0, sizeof *doc);
    doc->alloc = sk_allocator_or_default(alloc);
    if (offset) *offset = 0;
    if (what) *what = "";
    size_t n_values = 0, n_keys = 0;
    sk_result r = check(text, len, offset, what, &n_values, &n_keys);
    if (r != SK_OK) return r;
    if (len >= (size_t)INT_MAX) {
        if (what) *what = "JSON text of 2 GiB or more (the tokenizer's limit)";
        return SK_ERR_LIMIT;
    }
    /* values (8-byte aligned), then the strings: decoded, each is shorter
     * than its quoted text, so len bytes hold them all */
    size_t block = 0;
    bool fits = sk_size_mul(n_values, sizeof(sk_jv), &block) && sk_size_add(block, len + 1, &block);
    sk_jv *v = fits ? sk_realloc_raw(doc->alloc, NULL, 0, block) : NULL;
    if (!v) {
        if (what) *what = "out of memory";
        return SK_ERR_OUT_OF_MEMORY;
    }
    memset(v, 0, n_values * sizeof(sk_jv));
    char *strings = (char *)(v + n_values);
    size_t first = skip_ws((const unsigned char *)text, len, 0);
    if (text[first] != '{' && text[first] != '[') {
        /* a scalar alone (jsmn's strict mode wants a delimiter after a primitive) */
        size_t end = len;
        while (end > first && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' ||
                               text[end - 1] == '\r'))
            end--;
        bool str = text[first] == '"';
        scalar(v, text, (int)first + str, (int)end - str, str, &strings);
    } else {
        size_t n_tokens = n_values + n_keys;
        jsmntok_t *tok = n_tokens <= UINT_MAX ? sk_realloc_raw(doc->alloc, NULL, 0, n_tokens * sizeof *tok) : NULL;
        if (!tok) {
            sk_free(doc->alloc, v, block);
            if (what) *what = "out of memory";
            return SK_ERR_OUT_OF_MEMORY;
        }
        jsmn_parser p;
        jsmn_init(&p);
        int got = jsmn_parse(&p, text, len, tok, (unsigned)n_tokens);
        if (got < 0 || (size_t)got != n_tokens) {
            /* cannot happen on checked text (the tests and the fuzzers compare) */
            sk_free(doc->alloc, tok, n_tokens * sizeof *tok);
            sk_free(doc->alloc, v, block);
            if (what) *what = "the tokenizer disagrees with the syntax check";
            return SK_ERR_PARSE;
        }
        /* Tokens in document order, a key before its value: per open
         * container the value it is, the members or elements still to come,
         * its last one so far (whose next is set when another follows), and
         * for an object whether a key comes next. */
        struct frame {
            uint32_t at, left, last;
            bool obj, want_key;
        } stack[SK_JSON_MAX_DEPTH + 1];
        int sp = -1;
        uint32_t n = 0;
        const char *key = NULL;
        for (size_t t = 0; t < n_tokens; t++) {
            const jsmntok_t *k = &tok[t];
            if (sp >= 0 && stack[sp].want_key) {
                key = strings;
                strings = decode_string((const unsigned char *)text + k->start, (size_t)(k->end - k->start), strings);
                stack[sp].want_key = false;
                continue;
            }
            sk_jv *x = &v[n];
            if (sp >= 0) {
                struct frame *f = &stack[sp];
                if (f->last != UINT32_MAX) v[f->last].next = n - f->last;
                f->last = n;
                f->left--;
                if (f->obj) {
                    x->key = key;
                    f->want_key = f->left > 0;
                }
            }
            if (k->type == JSMN_OBJECT || k->type == JSMN_ARRAY) {
                x->type = k->type == JSMN_OBJECT ? SK_JV_OBJECT : SK_JV_ARRAY;
                x->count = (uint32_t)k->size;
                if (k->size > 0) {
                    stack[++sp] = (struct frame){n, (uint32_t)k->size, UINT32_MAX, k->type == JSMN_OBJECT,
                                                 k->type == JSMN_OBJECT};
                    n++;
                    continue;
                }
            } else {
                scalar(x, text, k->start, k->end, k->type == JSMN_STRING, &strings);
            }
            n++;
            while (sp >= 0 && stack[sp].left == 0) sp--;
        }
        sk_free(doc->alloc, tok, n_tokens * sizeof *tok);
    }
    doc->block = v;
    doc->block_size = block;
    doc->root = v;
    doc->count = (uint32_t)n_values;
    return SK_OK;
}

const sk_jv *sk_jv_get(const sk_jv *obj, const char *key) {
    if (!sk_jv_is(obj, SK_JV_OBJECT)) return NULL;
    for (const sk_jv *m = sk_jv_child(obj); m; m = sk_jv_next(m))
        if (m->key[0] == key[0] && strcmp(m->key, key) == 0) return m;
    return NULL;
}

sk_result sk_json_parse(const char *text, size_t len, cJSON **out, size_t *offset, const char **what) {
    *out = NULL;
    if (offset) *offset = 0;
    if (what) *what = "";
    const char *end = NULL;
    cJSON *root = len ? cJSON_ParseWithLengthOpts(text, len, &end, false) : NULL;
    if (root) {
        /* cJSON stops after the value: only whitespace may follow. */
        size_t i = skip_ws((const unsigned char *)text, len, (size_t)(end - text));
        if (i == len) {
            *out = root;
            return SK_OK;
        }
        cJSON_Delete(root);
        if (offset) *offset = i;
        if (what) *what = "trailing data after the JSON value";
        return SK_ERR_PARSE;
    }
    sk_result r = sk_json_check(text, len, offset, what);
    if (r != SK_OK) return r;
    if (what) *what = "out of memory building the JSON tree";
    return SK_ERR_OUT_OF_MEMORY;
}

/* ---- writer --------------------------------------------------------------------- */

void sk_json_writer_init(sk_json_writer *w, const sk_allocator *alloc) {
    memset(w, 0, sizeof *w);
    w->alloc = sk_allocator_or_default(alloc);
}

void sk_json_writer_free(sk_json_writer *w) {
    sk_free(w->alloc, w->buf, w->cap);
    w->buf = NULL;
    w->len = w->cap = 0;
}

static void put(sk_json_writer *w, const char *s, size_t n) {
    if (w->failed) return;
    size_t need;
    if (!sk_size_add(w->len, n + 1, &need)) {
        w->failed = true;
        return;
    }
    if (need > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        char *b = sk_realloc_raw(w->alloc, w->buf, w->cap, cap);
        if (!b) {
            w->failed = true;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

/* Comma before an element of the enclosing container. */
static void element(sk_json_writer *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0) return;
    uint8_t *has = &w->has_item[w->depth - 1];
    if (*has) put(w, ",", 1);
    *has = 1;
}

static void open_container(sk_json_writer *w, char c) {
    element(w);
    if (w->depth >= sizeof w->has_item) {
        w->failed = true;
        return;
    }
    w->has_item[w->depth++] = 0;
    put(w, &c, 1);
}

static void close_container(sk_json_writer *w, char c) {
    if (w->depth) w->depth--;
    put(w, &c, 1);
}

void sk_json_begin_object(sk_json_writer *w) { open_container(w, '{'); }
void sk_json_end_object(sk_json_writer *w) { close_container(w, '}'); }
void sk_json_begin_array(sk_json_writer *w) { open_container(w, '['); }
void sk_json_end_array(sk_json_writer *w) { close_container(w, ']'); }

static void put_string(sk_json_writer *w, const char *s) {
    put(w, "\"", 1);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        const unsigned char *run = p;
        while (*p && *p != '"' && *p != '\\' && *p >= 0x20) p++;
        put(w, (const char *)run, (size_t)(p - run));
        if (!*p) break;
        char esc[8];
        switch (*p) {
        case '"': memcpy(esc, "\\\"", 3); break;
        case '\\': memcpy(esc, "\\\\", 3); break;
        case '\n': memcpy(esc, "\\n", 3); break;
        case '\r': memcpy(esc, "\\r", 3); break;
        case '\t': memcpy(esc, "\\t", 3); break;
        default: snprintf(esc, sizeof esc, "\\u%04x", (unsigned)*p); break;
        }
        put(w, esc, strlen(esc));
        p++;
    }
    put(w, "\"", 1);
}

void sk_json_key(sk_json_writer *w, const char *key) {
    element(w);
    put_string(w, key);
    put(w, ":", 1);
    w->after_key = true;
}

void sk_json_string(sk_json_writer *w, const char *s) {
    element(w);
    put_string(w, s);
}

void sk_json_uint(sk_json_writer *w, uint64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    element(w);
    put(w, b, (size_t)n);
}

void sk_json_int(sk_json_writer *w, int64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%lld", (long long)v);
    element(w);
    put(w, b, (size_t)n);
}

void sk_json_float(sk_json_writer *w, float v) {
    element(w);
    if (!isfinite(v)) {
        put(w, "null", 4);
        return;
    }
    char b[40], o[40];
    int n = snprintf(b, sizeof b, "%.9g", (double)v);
    /* Whatever the locale writes as its decimal point becomes '.'. */
    size_t k = 0;
    for (int i = 0; i < n && k + 1 < sizeof o; i++) {
        char c = b[i];
        bool num = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'E';
        if (num) o[k++] = c;
        else if (k == 0 || o[k - 1] != '.') o[k++] = '.';
    }
    put(w, o, k);
}

void sk_json_floats(sk_json_writer *w, const float *v, size_t n) {
    sk_json_begin_array(w);
    for (size_t i = 0; i < n; i++) sk_json_float(w, v[i]);
    sk_json_end_array(w);
}

void sk_json_bool(sk_json_writer *w, bool v) {
    element(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void sk_json_raw(sk_json_writer *w, const char *text, size_t n) {
    element(w);
    put(w, text, n);
}

void sk_json_key_uint(sk_json_writer *w, const char *key, uint64_t v) {
    sk_json_key(w, key);
    sk_json_uint(w, v);
}

void sk_json_key_string(sk_json_writer *w, const char *key, const char *s) {
    sk_json_key(w, key);
    sk_json_string(w, s);
}

void sk_json_key_float(sk_json_writer *w, const char *key, float v) {
    sk_json_key(w, key);
    sk_json_float(w, v);
}
