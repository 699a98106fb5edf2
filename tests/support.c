#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *sk_test_shared_dir(void) {
    const char *d = getenv("SK_SHARED_DIR");
    struct stat st;
    if (d && stat(d, &st) == 0 && S_ISDIR(st.st_mode)) return d;
    fprintf(stderr, "note: ../shared is absent (SK_SHARED_DIR=%s): tests on shared assets cannot run here\n",
            d ? d : "(unset)");
    return NULL;
}

const char *sk_test_source_dir(void) {
    const char *d = getenv("SK_SOURCE_DIR");
    return d ? d : ".";
}

void sk_test_path(char *out, size_t cap, const char *a, const char *b) {
    snprintf(out, cap, "%s/%s", a, b);
}

char *sk_test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return NULL; }
    long n = ftell(f);
    if (n < 0) { fclose(f); return NULL; }
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    if (!buf) { fclose(f); return NULL; }
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); fclose(f); return NULL; }
    buf[n] = 0;
    fclose(f);
    if (size) *size = (size_t)n;
    return buf;
}
