/* Shared helpers for the test programs (cmocka). */
#ifndef SK_TEST_SUPPORT_H
#define SK_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "skelanim.h"

/* Exit status of a test program that ran but skipped something: ctest reports
 * it as skipped (SKIP_RETURN_CODE in tests/CMakeLists.txt), never as passed. */
#define SK_TEST_SKIP_STATUS 77

/* Strict mode: the environment variable CI is set to anything but "", "0" or
 * "false" (any case), or SK_REQUIRE_SHARED=1. Then a missing prerequisite (the
 * ../shared data, a display, a GL context, SDL2, a tool) fails the test that
 * needs it; otherwise that test is skipped with a note. The one rule for every
 * test; tests/lib.sh has the same rule for the shell tests. */
bool sk_test_strict(void);
/* A prerequisite is missing (printf-style reason). Strict: fails the running
 * cmocka test with the reason. Otherwise: prints "note: SKIPPED: reason",
 * remembers it (see sk_test_exit_status) and skips the running test. Call it
 * only inside a cmocka test; it does not return. */
void sk_test_missing(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
/* ../shared beside the repo (env SK_SHARED_DIR). When it is absent: strict
 * mode fails the running test; otherwise a note is printed, the skip is
 * remembered and NULL is returned (the caller skips). */
const char *sk_test_shared_dir(void);
/* ../shared, or sk_test_missing(): never returns NULL. */
const char *sk_test_require_shared(void);
/* out = ../shared/rel (cap bytes), a file that opens for reading, or
 * sk_test_missing() naming it. */
void sk_test_require_shared_file(char *out, size_t cap, const char *rel);
/* The status main() returns: the number of failed tests (cmocka's result) if
 * any failed, else SK_TEST_SKIP_STATUS if a prerequisite was missing, else 0:
 *   return sk_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL)); */
int sk_test_exit_status(int failed);
/* The CPU's instruction-set features, read here with the compiler's CPUID
 * builtin (__builtin_cpu_supports), independently of the library's own
 * detection (core/simd.c, the decoders' availability checks): a test that
 * runs kernels at several SIMD levels composes from these the levels the CPU
 * can run and checks that each of them ran. All false off x86-64, and every
 * SIMD feature false in a build configured with -DSK_SIMD=OFF (SK_NO_SIMD),
 * whose only level is scalar. */
typedef struct sk_test_cpu {
    bool x86_64, sse2, avx2, fma, avx512f, avx512vl, avx512dq, avx512bw, avx512vbmi;
} sk_test_cpu;
sk_test_cpu sk_test_cpu_features(void);
/* The SIMD levels a test ran against those the CPU supports (bit i: level
 * names[i]). Prints one line, "SIMD levels run: <ran>", with what (the
 * kernels they are of) and the CPU's levels, and a note naming the levels the
 * CPU lacks (not run: nothing to run them on). Returns the number of levels
 * the CPU supports that were not run, each named on stderr: a failure in
 * strict mode (sk_test_strict; the caller fails: see sk_test_simd_check),
 * otherwise a note. A level run that the CPU does not support (the library
 * resolved a level to one it cannot run, or a -DSK_SIMD=OFF build ran a SIMD
 * kernel) fails the running test in any mode. */
int sk_test_simd_levels(const char *what, unsigned ran, unsigned cpu, const char *const *names, int count);
/* Fails the running cmocka test in strict mode when missing (the sum of
 * sk_test_simd_levels' results) is not 0. */
void sk_test_simd_check(int missing);
/* Source tree root (env SK_SOURCE_DIR, else "."). */
const char *sk_test_source_dir(void);
/* Path join into a static-free caller buffer. */
void sk_test_path(char *out, size_t cap, const char *a, const char *b);
/* dir/name read as a .bvh at scale metres per unit (0: the file's units), with
 * at least one clip; fails the running test otherwise. */
sk_asset *sk_test_load_bvh(const char *dir, const char *name, double scale);
/* Reads a whole file (malloc'd, NUL-terminated); NULL on failure. */
char *sk_test_read_file(const char *path, size_t *size);
/* The model folders of dir (../shared/assets/gltf): every subfolder but
 * dot-entries and LICENSES/, sorted by name, strdup'ed into names (free each).
 * Fails the test when dir cannot be read or holds more than cap. */
int sk_test_model_dirs(const char *dir, char **names, int cap);
/* Deterministic pseudo-random numbers in [-1, 1) (a linear congruential
 * step of *seed), and a random unit quaternion from four of them. */
float sk_test_rnd(uint32_t *seed);
/* The angle of a^-1 b (radians), in double (atan2: exact near zero, where acos is not). */
double sk_test_quat_angle(sk_quat a, sk_quat b);
sk_quat sk_test_rnd_quat(uint32_t *seed);
/* A copy of clip c in which the rotation keys of joints[k] (k < n) are
 * multiplied on the right by turn[k] (key by key, tangents too). Fails the
 * test on error; destroy with sk_clip_destroy. */
sk_clip *sk_test_clip_turned(const sk_clip *c, const int32_t *joints, const sk_quat *turn, uint32_t n);
/* A skeleton of n joints (n >= 1): chains of five from the root (joint i's
 * parent is 0 where i % 5 == 0, else i - 1), a random rest pose from seed
 * (scale x in [0.9, 1.1)). Fails the test on error; destroy with
 * sk_skeleton_destroy. */
sk_skeleton *sk_test_chain_skeleton(uint32_t n, uint32_t seed);
/* Fails the test (printing the first differing joint) unless the SoA pose
 * converts back to exactly these transforms (memcmp) and its padding lanes
 * hold the identity. */
void sk_test_assert_soa_equal(const sk_skeleton *s, const sk_soa_pose *soa, const sk_transform *aos, const char *what);

/* A counting allocator with the peak of live bytes (user: an sk_test_peak):
 * bad counts frees whose size differs from the allocation's. */
typedef struct sk_test_peak {
    size_t live, peak, bad;
} sk_test_peak;
void *sk_test_peak_alloc(void *user, size_t size);
void *sk_test_peak_realloc(void *user, void *p, size_t old_size, size_t size);
void sk_test_peak_free(void *user, void *p, size_t size);

#endif
