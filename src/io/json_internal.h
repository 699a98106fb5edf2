/* Private JSON helpers of libskelanim_io (src/io/json.c). Not installed.
 *
 * Reading: sk_json_read, the one JSON reader of the library (the glTF, state
 * machine and motion analysis readers): a document in memory from an
 * sk_allocator: a flat array of values in document order (sk_jv) and the
 * decoded, NUL-terminated strings. One pass checks a text as the strict,
 * allocation-free syntax checker does (RFC 8259 with cJSON's limits) and
 * builds it, the values in an array that grows, the strings in a block of
 * their own; a text it does not accept goes to the checker, which reports
 * the syntax error with its byte offset (and, should it accept what the one
 * pass did not, counts the values for a second pass that fills one block).
 * Numbers are read as strtod reads them (bit for bit), strings decoded as
 * cJSON decodes them; of duplicate keys a lookup finds the first, as
 * cJSON's did. Every byte comes from the caller's allocator, and running
 * out of memory is SK_ERR_OUT_OF_MEMORY, told apart from syntax errors.
 * cJSON itself is no part of the library: the tests and the fuzz harnesses
 * use it as the oracle this reader is compared with.
 *
 * Writing: a small streaming writer whose buffer comes from an sk_allocator
 * (the .glb writer and the analysis writer build their JSON with it). */
#ifndef SKELANIM_IO_JSON_INTERNAL_H
#define SKELANIM_IO_JSON_INTERNAL_H

#include "core/internal.h"

#include <math.h>

/* cJSON's limits (cJSON.c 1.7: CJSON_NESTING_LIMIT, and numbers are copied
 * into a 64-byte buffer before strtod). */
#define SK_JSON_MAX_DEPTH 1000u
#define SK_JSON_MAX_NUMBER_CHARS 63u

/* The syntax check alone (SK_OK, SK_ERR_PARSE or SK_ERR_LIMIT). */
sk_result sk_json_check(const char *text, size_t len, size_t *offset, const char **what);

/* ---- a document on an sk_allocator (sk_json_read) ---------------------------- */

typedef enum sk_jv_type {
    SK_JV_NULL,
    SK_JV_FALSE,
    SK_JV_TRUE,
    SK_JV_NUMBER,
    SK_JV_STRING,
    SK_JV_ARRAY,
    SK_JV_OBJECT
} sk_jv_type;

/* One value. The values of a document are one array in document order: the
 * first element or member of a container is the value right after it, the
 * next one is `next` values further on. */
typedef struct sk_jv {
    union {
        double valuedouble;      /* SK_JV_NUMBER */
        const char *valuestring; /* SK_JV_STRING: decoded, NUL-terminated */
    };
    const char *key; /* a member's name (decoded, NUL-terminated), else NULL */
    uint32_t next;   /* values to the next element or member; 0: the last one */
    uint32_t count;  /* elements of an array, members of an object; 0 otherwise */
    uint8_t type;    /* sk_jv_type */
} sk_jv;

typedef struct sk_json_doc {
    const sk_allocator *alloc;
    void *block; /* the values (and, read in two passes, then the strings) */
    size_t block_size;
    void *strings; /* read in one pass: the decoded strings' own block, else NULL */
    size_t strings_size;
    const sk_jv *root;
    uint32_t count; /* values */
} sk_json_doc;

/* Reads len bytes of JSON text (one value, then only whitespace) into *doc
 * with memory from alloc (NULL: the default). On failure *doc holds nothing
 * and the result is SK_ERR_PARSE (a syntax error at byte *offset, described
 * by *what), SK_ERR_LIMIT (nesting deeper than 1000 levels, a number of more
 * than 63 characters, more than 2^32 values) or SK_ERR_OUT_OF_MEMORY. Free
 * with sk_json_doc_free. */
sk_result sk_json_read(const char *text, size_t len, const sk_allocator *alloc, sk_json_doc *doc, size_t *offset,
                       const char **what);
void sk_json_doc_free(sk_json_doc *doc);
/* sk_json_read by the checker and a second pass over the checked text (one
 * block): what sk_json_read does with a text its one pass refused and the
 * checker accepts (not expected); tests compare the two. */
sk_result sk_json_read_two_pass(const char *text, size_t len, const sk_allocator *alloc, sk_json_doc *doc,
                                size_t *offset, const char **what);

/* A number of JSON syntax (checked) as strtod reads it in the "C" locale, bit
 * for bit; exposed for the tests. */
double sk_json_number(const char *s, size_t n);

/* sk_json_read for the readers whose errors name a file (prefix; "": none):
 * on failure *doc holds nothing and err says "PREFIX: invalid JSON near byte
 * N: WHAT" or "PREFIX: out of memory building the JSON parse tree". */
sk_result sk_json_load(const char *text, size_t len, const sk_allocator *alloc, const char *prefix,
                       sk_json_doc *doc, sk_error *err);

/* NULL-safe accessors (like cJSON's): v may be NULL (a member that is not
 * there), which is of no type. */
static inline bool sk_jv_is(const sk_jv *v, sk_jv_type t) { return v && v->type == (uint8_t)t; }
static inline const sk_jv *sk_jv_child(const sk_jv *v) { return v && v->count ? v + 1 : NULL; }
static inline const sk_jv *sk_jv_next(const sk_jv *v) { return v->next ? v + v->next : NULL; }
/* The first member named key (NULL: none, or obj is not an object). */
const sk_jv *sk_jv_get(const sk_jv *obj, const char *key);

/* Typed reads. */
static inline bool sk_jv_is_null(const sk_jv *v) { return sk_jv_is(v, SK_JV_NULL); }
static inline bool sk_jv_is_true(const sk_jv *v) { return sk_jv_is(v, SK_JV_TRUE); }
static inline bool sk_jv_is_bool(const sk_jv *v) { return sk_jv_is(v, SK_JV_TRUE) || sk_jv_is(v, SK_JV_FALSE); }
/* The decoded string, NULL when v is not a string. */
static inline const char *sk_jv_string(const sk_jv *v) { return sk_jv_is(v, SK_JV_STRING) ? v->valuestring : NULL; }
/* A number: true and its value in *out; false (*out untouched) otherwise. */
static inline bool sk_jv_number(const sk_jv *v, double *out) {
    if (!sk_jv_is(v, SK_JV_NUMBER)) return false;
    *out = v->valuedouble;
    return true;
}
/* The same for a finite number (JSON text such as 1e999 reads as infinity). */
static inline bool sk_jv_finite(const sk_jv *v, double *out) {
    if (!sk_jv_is(v, SK_JV_NUMBER) || !isfinite(v->valuedouble)) return false;
    *out = v->valuedouble;
    return true;
}
/* Elements of an array (0 when v is not an array). */
static inline uint32_t sk_jv_array_size(const sk_jv *v) { return sk_jv_is(v, SK_JV_ARRAY) ? v->count : 0; }

/* ---- writing ---------------------------------------------------------------- */

typedef struct sk_json_writer {
    const sk_allocator *alloc;
    char *buf;
    size_t len, cap;
    bool failed;        /* out of memory (or too deep): everything after is dropped */
    bool after_key;     /* the next value follows "key": */
    uint32_t depth;
    uint8_t has_item[64]; /* per open container: an element was written (a comma comes first) */
} sk_json_writer;

void sk_json_writer_init(sk_json_writer *w, const sk_allocator *alloc);
void sk_json_writer_free(sk_json_writer *w);
void sk_json_begin_object(sk_json_writer *w);
void sk_json_end_object(sk_json_writer *w);
void sk_json_begin_array(sk_json_writer *w);
void sk_json_end_array(sk_json_writer *w);
void sk_json_key(sk_json_writer *w, const char *key);
void sk_json_string(sk_json_writer *w, const char *s);
void sk_json_uint(sk_json_writer *w, uint64_t v);
void sk_json_int(sk_json_writer *w, int64_t v);
/* Shortest text that reads back as the same float ("%.9g"); non-finite values
 * (which JSON cannot hold) are written as null. The decimal point is always
 * '.', whatever the C locale. */
void sk_json_float(sk_json_writer *w, float v);
void sk_json_floats(sk_json_writer *w, const float *v, size_t n);
void sk_json_bool(sk_json_writer *w, bool v);
/* A complete JSON value produced by another writer. */
void sk_json_raw(sk_json_writer *w, const char *text, size_t n);
/* Key + value shorthands. */
void sk_json_key_uint(sk_json_writer *w, const char *key, uint64_t v);
void sk_json_key_string(sk_json_writer *w, const char *key, const char *s);
void sk_json_key_float(sk_json_writer *w, const char *key, float v);

#endif
