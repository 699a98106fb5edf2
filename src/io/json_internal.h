/* Private JSON helpers of libskelanim_io (src/io/json.c). Not installed.
 *
 * Reading: cJSON builds the parse tree. Its nodes come from cJSON's own
 * allocator (malloc unless a program calls cJSON_InitHooks, which would be
 * process-wide state, so the library never does): that tree is the one
 * documented exception to "every allocation goes through sk_allocator". It
 * lives only while a loader runs and is freed before the loader returns.
 * cJSON reports every failure the same way, so when it fails the text is
 * checked again by a strict, allocation-free syntax checker with cJSON's own
 * limits: a syntax error is reported with its byte offset, and text that is
 * well-formed means cJSON ran out of memory.
 *
 * Writing: a small streaming writer whose buffer comes from an sk_allocator
 * (the .glb writer builds its JSON chunk with it). */
#ifndef SKELANIM_IO_JSON_INTERNAL_H
#define SKELANIM_IO_JSON_INTERNAL_H

#include "core/internal.h"

#include <cjson/cJSON.h>

/* cJSON's limits (cJSON.c 1.7: CJSON_NESTING_LIMIT, and numbers are copied
 * into a 64-byte buffer before strtod). */
#define SK_JSON_MAX_DEPTH 1000u
#define SK_JSON_MAX_NUMBER_CHARS 63u

/* Parses len bytes of JSON text: one value, then only whitespace. On
 * success *out is the tree (free it with cJSON_Delete). Otherwise *out is
 * NULL and the result is SK_ERR_PARSE (a syntax error at byte *offset,
 * described by *what), SK_ERR_LIMIT (nesting or a number beyond cJSON's
 * limits) or SK_ERR_OUT_OF_MEMORY (the text is well-formed: cJSON could not
 * allocate its tree). */
sk_result sk_json_parse(const char *text, size_t len, cJSON **out, size_t *offset, const char **what);

/* The syntax check alone (SK_OK, SK_ERR_PARSE or SK_ERR_LIMIT). */
sk_result sk_json_check(const char *text, size_t len, size_t *offset, const char **what);

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
