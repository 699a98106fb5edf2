/* JSON for libskelanim_io: a strict syntax checker; a document on an
 * sk_allocator (one pass that checks and builds a valid text; the checker
 * for the message of an invalid one), with out-of-memory told apart from
 * syntax errors; and a streaming writer on an sk_allocator. See
 * json_internal.h. */
#include "io/json_internal.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

/* Eight bytes at s hold no '"', '\\' or control character (bytes below
 * 0x20): the exact tests for a zero byte and a byte below n, on a word. */
static inline bool plain8(const unsigned char *s) {
    uint64_t x;
    memcpy(&x, s, 8);
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x)) & highs ? false : true;
}

/* s[*i] is the opening quote. */
static bool check_string(const unsigned char *s, size_t len, size_t *i, const char **what) {
    size_t k = *i + 1;
    for (;;) {
        while (len - k >= 8 && plain8(s + k)) k += 8;
        while (k < len && s[k] >= 0x20 && s[k] != '"' && s[k] != '\\') k++;
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

/* The check; *values counts the values of a well-formed text (object keys
 * are not values). */
static sk_result check(const char *text, size_t len, size_t *offset, const char **what, size_t *values) {
    const unsigned char *s = (const unsigned char *)text;
    size_t n_values = 0;
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
    return SK_OK;
fail:
    if (offset) *offset = i;
    if (what) *what = w;
    return code;
}

sk_result sk_json_check(const char *text, size_t len, size_t *offset, const char **what) {
    return check(text, len, offset, what, NULL);
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

/* 2^e for e in the normal range [-1022, 1023], from its bits. */
static inline double pow2(int e) {
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The double nearest to (q + f) * 2^e2, ties to even, where 0 <= f < 1 and
 * f > 0 exactly when sticky; q has at least 54 bits when sticky (so f only
 * breaks ties below q's last bit). The result is a normal double (the
 * callers' ranges). */
static double round_u128(sk_u128 q, bool sticky, int e2) {
    uint64_t hi = (uint64_t)(q >> 64);
    int bits = hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll((uint64_t)q);
    if (bits <= 53) return (double)(uint64_t)q * pow2(e2); /* exact (sticky is false here) */
    int shift = bits - 53;
    uint64_t m = (uint64_t)(q >> shift);
    sk_u128 rem = q & (((sk_u128)1 << shift) - 1), half = (sk_u128)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (m & 1u)))) m++; /* 2^53 at most: still exact */
    return (double)m * pow2(e2 + shift); /* exact: the result is normal (|e2 + shift| < 160) */
}
#endif

/* The number of JSON syntax (checked) that starts at s[*at], ending at
 * s[len] at the latest; *at: the index after it. */
static double number_at(const char *s, size_t len, size_t *at) {
    size_t i = *at;
    s += i;
    size_t n = len - i;
    i = 0;
    bool neg = s[0] == '-';
    if (neg) i++;
    uint64_t w = 0; /* the significant digits, at most 19 (< 2^64) */
    int sig = 0;
    long scale = 0; /* value = w * 10^scale */
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (w == 0 && d == 0) continue; /* "0" (JSON has no other leading zeros) */
        if (++sig > 19) goto slow;
        w = w * 10u + d;
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            scale--;
            if (w == 0 && d == 0) continue; /* zeros before the first significant digit */
            if (++sig > 19) goto slow;
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
    *at += i;
    n = i;
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
slow: /* more than 19 significant digits: the end of the number, then strtod */
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '+' || s[i] == 'e' ||
                     s[i] == 'E'))
        i++;
    *at += i;
    return number_strtod(s, i);
}

double sk_json_number(const char *s, size_t n) {
    if (n == 0) return number_strtod(s, n);
    size_t at = 0;
    double v = number_at(s, n, &at);
    /* text beyond the number (not JSON syntax): strtod decides */
    return at == n ? v : number_strtod(s, n);
}

/* ---- the document (sk_json_read) ---------------------------------------------- */

/* Decodes the checked string whose body starts at s[i] (after the opening
 * quote) into out, NUL-terminated, as cJSON does: escapes replaced, \uXXXX
 * (a surrogate pair as one code point) as UTF-8 (\u0000 included: the C
 * string ends there), every other byte as it is. *end: the index after the
 * closing quote. Returns the end of the output (after the NUL); the output
 * is never longer than the quoted text. */
/* A code point as UTF-8 (1-4 bytes); returns the end. */
static unsigned char *put_utf8(unsigned char *o, uint32_t cp) {
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
    return o;
}

void sk_json_doc_free(sk_json_doc *doc) {
    if (doc->block) sk_free(doc->alloc, doc->block, doc->block_size);
    if (doc->strings) sk_free(doc->alloc, doc->strings, doc->strings_size);
    memset(doc, 0, sizeof *doc);
}

/* A string from s[i] (after its opening quote) checked and decoded into out
 * in one go (what check_string accepts, decoded as cJSON decodes it). Returns the
 * end of the output, *end the index after the closing quote; NULL when the
 * string is not valid (the caller then runs the checker for its message). */
static char *read_string(const unsigned char *s, size_t len, size_t i, size_t *end, char *out) {
    unsigned char *o = (unsigned char *)out;
    for (;;) {
        while (len - i >= 8 && plain8(s + i)) {
            memcpy(o, s + i, 8);
            o += 8;
            i += 8;
        }
        unsigned char c;
        while (i < len && (c = s[i]) >= 0x20 && c != '"' && c != '\\') *o++ = c, i++;
        if (i >= len || s[i] < 0x20) return NULL;
        if (s[i] == '"') break;
        if (len - i < 2) return NULL;
        unsigned char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case '"': case '\\': case '/': *o++ = e; break;
        case 'u': {
            int h = hex4(s, len, i);
            if (h < 0 || (h >= 0xDC00 && h <= 0xDFFF)) return NULL;
            uint32_t cp = (uint32_t)h;
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                int low = len - i >= 2 && s[i] == '\\' && s[i + 1] == 'u' ? hex4(s, len, i + 2) : -1;
                if (low < 0xDC00 || low > 0xDFFF) return NULL;
                cp = 0x10000 + ((cp & 0x3FF) << 10 | ((uint32_t)low & 0x3FF));
                i += 6;
            }
            o = put_utf8(o, cp);
            break;
        }
        default: return NULL;
        }
    }
    *o++ = 0;
    *end = i + 1;
    return (char *)o;
}

/* The document in one pass: what check() accepts, built as build() builds
 * it, the values in an array that grows (they refer to each other by
 * distance, so it may move), the strings in a block of len + 1 bytes of
 * their own (decoded, each is shorter than its quoted text). SK_ERR_PARSE
 * without a message when the text is not valid JSON or passes a limit (the
 * caller then runs check() for the byte and the message), or
 * SK_ERR_OUT_OF_MEMORY. */
static sk_result read_one_pass(const unsigned char *s, size_t len, sk_json_doc *doc) {
    const sk_allocator *a = doc->alloc;
    struct frame {
        uint32_t at, last;
        bool obj;
    } stack[SK_JSON_MAX_DEPTH];
    int sp = -1;
    size_t cap = len / 12u + 64u, n = 0;
    sk_jv *v = sk_realloc_raw(a, NULL, 0, cap * sizeof *v);
    char *strings = sk_realloc_raw(a, NULL, 0, len + 1), *sp_out = strings;
    sk_result r = SK_ERR_PARSE;
    if (!v || !strings) {
        r = SK_ERR_OUT_OF_MEMORY;
        goto fail;
    }
    size_t i = skip_ws(s, len, 0);
    const char *key = NULL;
    for (;;) {
        /* a value at s[i] */
        if (i >= len) goto fail;
        if (n == cap) {
            size_t nc = cap + cap / 2;
            if (nc > UINT32_MAX) goto fail; /* check() reports the limit */
            sk_jv *nv = sk_realloc_raw(a, v, cap * sizeof *v, nc * sizeof *v);
            if (!nv) {
                r = SK_ERR_OUT_OF_MEMORY;
                goto fail;
            }
            v = nv, cap = nc;
        }
        sk_jv *x = &v[n];
        memset(x, 0, sizeof *x);
        if (sp >= 0) {
            struct frame *f = &stack[sp];
            if (f->last != UINT32_MAX) v[f->last].next = (uint32_t)(n - f->last);
            f->last = (uint32_t)n;
            v[f->at].count++;
            if (f->obj) x->key = key;
        }
        unsigned char c = s[i];
        bool open = false;
        if (c == '{' || c == '[') {
            if (sp + 1 >= (int)SK_JSON_MAX_DEPTH) goto fail;
            x->type = c == '{' ? SK_JV_OBJECT : SK_JV_ARRAY;
            stack[++sp] = (struct frame){(uint32_t)n, UINT32_MAX, c == '{'};
            open = true;
            i++;
        } else if (c == '"') {
            x->type = SK_JV_STRING;
            x->valuestring = sp_out;
            if (!(sp_out = read_string(s, len, i + 1, &i, sp_out))) goto fail;
        } else if (c == '-' || is_digit(c)) {
            const char *w;
            size_t k = i;
            if (check_number(s, len, &k, &w) != SK_OK) goto fail;
            x->type = SK_JV_NUMBER;
            x->valuedouble = number_at((const char *)s, k, &i); /* the number the checker saw, no more */
            if (i != k) goto fail;
        } else if (c == 't' && len - i >= 4 && memcmp(s + i, "true", 4) == 0) {
            x->type = SK_JV_TRUE;
            i += 4;
        } else if (c == 'f' && len - i >= 5 && memcmp(s + i, "false", 5) == 0) {
            x->type = SK_JV_FALSE;
            i += 5;
        } else if (c == 'n' && len - i >= 4 && memcmp(s + i, "null", 4) == 0) {
            x->type = SK_JV_NULL;
            i += 4;
        } else {
            goto fail;
        }
        n++;
        /* what follows: a first key or an empty container's end, or, after a
         * value, ',' and the next key or value, or the container's end */
        i = skip_ws(s, len, i);
        if (open) {
            if (i < len && s[i] == (stack[sp].obj ? '}' : ']')) {
                sp--;
                i++;
            } else if (stack[sp].obj) {
                goto key;
            } else {
                continue;
            }
        }
        for (;;) { /* after a value */
            if (sp < 0) {
                if (skip_ws(s, len, i) != len) goto fail;
                doc->block = v, doc->block_size = cap * sizeof *v;
                doc->strings = strings, doc->strings_size = len + 1;
                doc->root = v;
                doc->count = (uint32_t)n;
                return SK_OK;
            }
            i = skip_ws(s, len, i);
            if (i >= len) goto fail;
            if (s[i] == ',') {
                i = skip_ws(s, len, i + 1);
                if (stack[sp].obj) goto key;
                break;
            }
            if (s[i] != (stack[sp].obj ? '}' : ']')) goto fail;
            sp--;
            i++;
        }
        continue;
    key:
        if (i >= len || s[i] != '"') goto fail;
        key = sp_out;
        if (!(sp_out = read_string(s, len, i + 1, &i, sp_out))) goto fail;
        i = skip_ws(s, len, i);
        if (i >= len || s[i] != ':') goto fail;
        i = skip_ws(s, len, i + 1);
    }
fail:
    if (v) sk_free(a, v, cap * sizeof *v);
    if (strings) sk_free(a, strings, len + 1);
    return r;
}

/* The second pass, over text the checker accepted (so nothing is checked
 * again): the values in document order into v, the strings into strings.
 * Per open container: the value it is and its last element or member so far
 * (whose next is set when another follows). */
static void build(const unsigned char *s, size_t len, sk_jv *v, char *strings) {
    struct frame {
        uint32_t at, last;
        bool obj;
    } stack[SK_JSON_MAX_DEPTH];
    int sp = -1;
    uint32_t n = 0;
    bool want_key = false;
    const char *key = NULL;
    size_t i = 0;
    for (;;) {
        i = skip_ws(s, len, i);
        if (i >= len) break;
        unsigned char c = s[i];
        if (c == ',') {
            want_key = stack[sp].obj;
            i++;
            continue;
        }
        if (c == '}' || c == ']') {
            sp--;
            i++;
            continue;
        }
        if (want_key) { /* "key" : */
            key = strings;
            strings = read_string(s, len, i + 1, &i, strings); /* checked: not NULL */
            i = skip_ws(s, len, i) + 1;
            want_key = false;
            continue;
        }
        sk_jv *x = &v[n];
        if (sp >= 0) {
            struct frame *f = &stack[sp];
            if (f->last != UINT32_MAX) v[f->last].next = n - f->last;
            f->last = n;
            v[f->at].count++;
            if (f->obj) x->key = key;
        }
        if (c == '{' || c == '[') {
            x->type = c == '{' ? SK_JV_OBJECT : SK_JV_ARRAY;
            stack[++sp] = (struct frame){n, UINT32_MAX, c == '{'};
            want_key = c == '{';
            i++;
        } else if (c == '"') {
            x->type = SK_JV_STRING;
            x->valuestring = strings;
            strings = read_string(s, len, i + 1, &i, strings); /* checked: not NULL */
        } else if (c == 't') {
            x->type = SK_JV_TRUE;
            i += 4;
        } else if (c == 'f') {
            x->type = SK_JV_FALSE;
            i += 5;
        } else if (c == 'n') {
            x->type = SK_JV_NULL;
            i += 4;
        } else {
            x->type = SK_JV_NUMBER;
            x->valuedouble = number_at((const char *)s, len, &i);
        }
        n++;
    }
}

sk_result sk_json_read(const char *text, size_t len, const sk_allocator *alloc, sk_json_doc *doc, size_t *offset,
                       const char **what) {
    memset(doc, 0, sizeof *doc);
    doc->alloc = sk_allocator_or_default(alloc);
    if (offset) *offset = 0;
    if (what) *what = "";
    /* One pass over a valid text; for an invalid one (or one that passes a
     * limit) the checker says where and why. */
    sk_result r = read_one_pass((const unsigned char *)text, len, doc);
    if (r == SK_OK) return SK_OK;
    if (r == SK_ERR_OUT_OF_MEMORY) {
        memset(doc, 0, sizeof *doc);
        if (what) *what = "out of memory";
        return r;
    }
    /* (should the checker accept what the one pass did not, the two passes
     * build it) */
    return sk_json_read_two_pass(text, len, alloc, doc, offset, what);
}

sk_result sk_json_read_two_pass(const char *text, size_t len, const sk_allocator *alloc, sk_json_doc *doc,
                                size_t *offset, const char **what) {
    memset(doc, 0, sizeof *doc);
    doc->alloc = sk_allocator_or_default(alloc);
    if (offset) *offset = 0;
    if (what) *what = "";
    size_t n_values = 0;
    sk_result r = check(text, len, offset, what, &n_values);
    if (r != SK_OK) return r;
    if (n_values > UINT32_MAX) { /* 8 GiB of text at least */
        if (what) *what = "more than 2^32 JSON values";
        return SK_ERR_LIMIT;
    }
    /* The values (8-byte aligned), then the strings: decoded, each is shorter
     * than its quoted text, so len bytes hold them all. */
    size_t block = 0;
    bool fits = sk_size_mul(n_values, sizeof(sk_jv), &block) && sk_size_add(block, len + 1, &block);
    sk_jv *v = fits ? sk_realloc_raw(doc->alloc, NULL, 0, block) : NULL;
    if (!v) {
        if (what) *what = "out of memory";
        return SK_ERR_OUT_OF_MEMORY;
    }
    memset(v, 0, n_values * sizeof(sk_jv));
    build((const unsigned char *)text, len, v, (char *)(v + n_values));
    doc->block = v;
    doc->block_size = block;
    doc->root = v;
    doc->count = (uint32_t)n_values;
    return SK_OK;
}

const sk_jv *sk_jv_get(const sk_jv *obj, const char *key) {
    if (!sk_jv_is(obj, SK_JV_OBJECT)) return NULL;
    for (const sk_jv *m = sk_jv_child(obj); m; m = sk_jv_next(m)) {
        /* keys are short: compared here rather than through a call */
        const unsigned char *a = (const unsigned char *)m->key, *b = (const unsigned char *)key;
        while (*a && *a == *b) a++, b++;
        if (*a == *b) return m;
    }
    return NULL;
}

sk_result sk_json_load(const char *text, size_t len, const sk_allocator *alloc, const char *prefix,
                       sk_json_doc *doc, sk_error *err) {
    size_t at = 0;
    const char *what = "";
    sk_result r = sk_json_read(text, len, alloc, doc, &at, &what);
    const char *sep = prefix[0] ? ": " : "";
    if (r == SK_ERR_OUT_OF_MEMORY)
        return sk_error_set(err, r, "%s%sout of memory building the JSON parse tree", prefix, sep);
    if (r != SK_OK) return sk_error_set(err, r, "%s%sinvalid JSON near byte %zu: %s", prefix, sep, at, what);
    return SK_OK;
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
