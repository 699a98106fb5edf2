/* Shared helpers for the test programs (cmocka). */
#ifndef SK_TEST_SUPPORT_H
#define SK_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "skelanim.h"

/* ../shared beside the repo (env SK_SHARED_DIR), or NULL when absent; prints
 * once why tests that need it say so. */
const char *sk_test_shared_dir(void);
/* Source tree root (env SK_SOURCE_DIR, else "."). */
const char *sk_test_source_dir(void);
/* Path join into a static-free caller buffer. */
void sk_test_path(char *out, size_t cap, const char *a, const char *b);
/* Reads a whole file (malloc'd, NUL-terminated); NULL on failure. */
char *sk_test_read_file(const char *path, size_t *size);

#endif
