/* JSON for libskelanim_io: parsing through cJSON with out-of-memory told
 * apart from syntax errors, and a streaming writer on an sk_allocator. See
 * json_internal.h. */
#include "io/json_internal.h"

#include <math.h>
#include <stdio.h>

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

sk_result sk_json_check(const char *text, size_t len, size_t *offset, const char **what) {
    const unsigned char *s = (const unsigned char *)text;
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
        state = ST_AFTER;
    }
    if (i != len) {
        w = "trailing data after the JSON value";
        goto fail;
    }
    return SK_OK;
fail:
    if (offset) *offset = i;
    if (what) *what = w;
    return code;
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
