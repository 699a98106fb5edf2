/* Shared helpers of the fuzzing harnesses (fuzz/, outside the libraries).
 *
 * Every harness defines LLVMFuzzerTestOneInput; linked with libFuzzer
 * (-DSK_FUZZ=ON, clang) it is a fuzzer, linked with fuzz/replay_main.c (every
 * build) it replays files: ctest runs each harness over fuzz/regress/NAME/.
 * A harness that finds a broken promise calls fz_fail, which aborts, so
 * libFuzzer keeps the input and the replay test fails. */
#ifndef SK_FUZZ_COMMON_H
#define SK_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "skelanim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Prints "fuzz: broken promise: ..." and aborts. */
void fz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* A reader over the input bytes: past the end every read gives zeros. */
typedef struct fz_bytes {
    const uint8_t *p;
    size_t n;
} fz_bytes;

uint8_t fz_u8(fz_bytes *b);
uint32_t fz_u32(fz_bytes *b);
/* The next four bytes as a float, any bit pattern (NaN, inf, subnormals). */
float fz_raw_float(fz_bytes *b);
/* A float in [lo, hi] from two bytes. */
float fz_range(fz_bytes *b, float lo, float hi);
/* Mostly in [lo, hi]; one time in eight a raw float. */
float fz_float(fz_bytes *b, float lo, float hi);

/* The input split at the first occurrence of sep: head before, tail after
 * (tail NULL, size 0 when sep does not occur). */
void fz_split(const uint8_t *data, size_t size, const char *sep, fz_bytes *head, fz_bytes *tail);

/* The separator of the glTF inputs: "JSON or GLB" SK_FUZZ_BIN_SEP "buffer". */
#define SK_FUZZ_BIN_SEP "\n#skelanim-fuzz-bin#\n"
/* The separator of the state-machine inputs: "JSON" SEP "driving bytes". */
#define SK_FUZZ_PARAM_SEP "\n#skelanim-fuzz-params#\n"

/* An sk_file_io serving the input: main_path gives head, every other path
 * (external buffers, images) tail (or "cannot open" without one). */
typedef struct fz_files {
    const char *main_path;
    fz_bytes head, tail;
    sk_file_io io;
} fz_files;
void fz_files_init(fz_files *f, const char *main_path, const uint8_t *data, size_t size);

/* Load options of the harnesses: the file system above, 16 MiB decoded at
 * most (the default would allow 64 MiB per input, slow to fuzz), warnings
 * counted into *warnings. */
void fz_gltf_options(sk_gltf_options *o, fz_files *files, uint32_t *warnings);

/* Runs what a loaded asset feeds: every clip sampled (random access, cursor,
 * every loop mode) at times from the clip and from b, local-to-model, every
 * skin's palette, sk_primitive_vertex_position and CPU skinning (LBS and, when
 * the palette is rigid, DQS) of primitives up to 4096 vertices. Fails when a
 * model matrix or palette entry is not finite (the reader bounds world space,
 * SK_GLTF_MAX_WORLD) or a call on valid arguments fails. */
void fz_exercise_asset(const sk_asset *asset, fz_bytes *b);

/* True when every float is finite. */
int fz_finite(const float *v, size_t n);
int fz_pose_finite(const sk_pose *p);

/* The built-in mannequin, built once per process (the harness's state, not
 * the library's). */
const sk_asset *fz_mannequin(void);

#endif
