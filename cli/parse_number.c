/* The one numeric parser of the command-line tool (see parse_number.h). */
#include "parse_number.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool why_set(char *why, size_t cap, const char *msg, double min, double max) {
    if (why && cap) snprintf(why, cap, msg, min, max);
    return false;
}

bool cli_number(const char *s, size_t len, cli_num_kind kind, double min, double max, double *out, char *why,
                size_t why_cap) {
    char buf[128];
    const char *what = kind == CLI_NUM_UINT ? "is not a non-negative integer" : "is not a finite number";
    if (!s || len == 0 || len >= sizeof buf) return why_set(why, why_cap, what, min, max);
    memcpy(buf, s, len);
    buf[len] = 0;
    if (isspace((unsigned char)buf[0])) return why_set(why, why_cap, what, min, max);
    double v;
    char *end = NULL;
    errno = 0;
    if (kind == CLI_NUM_UINT) {
        for (size_t i = 0; i < len; i++)
            if (buf[i] < '0' || buf[i] > '9') return why_set(why, why_cap, what, min, max);
        unsigned long long u = strtoull(buf, &end, 10);
        if (errno == ERANGE) return why_set(why, why_cap, "is outside [%.10g, %.10g]", min, max);
        v = (double)u;
        if (u > 9007199254740992ull) v = INFINITY; /* beyond every range we take */
    } else {
        v = strtod(buf, &end);
        /* ERANGE on underflow (a subnormal or a value rounded to 0) is fine;
         * on overflow strtod returns +-HUGE_VAL, refused as not finite. */
        if (end == buf || *end || !isfinite(v)) return why_set(why, why_cap, what, min, max);
        if (isnan(v)) return why_set(why, why_cap, what, min, max);
    }
    if (!(v >= min && v <= max)) return why_set(why, why_cap, "is outside [%.10g, %.10g]", min, max);
    *out = v;
    return true;
}

bool cli_numbers(const char *s, char sep, int n, cli_num_kind kind, double min, double max, double *out, char *why,
                 size_t why_cap) {
    const char *p = s;
    char count[64];
    snprintf(count, sizeof count, "is not %d numbers separated by '%c'", n, sep);
    for (int i = 0; i < n; i++) {
        const char *c = p ? strchr(p, sep) : NULL;
        if (!p || (i == n - 1 && c)) {
            if (why && why_cap) snprintf(why, why_cap, "%s", count);
            return false;
        }
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!cli_number(p, len, kind, min, max, &out[i], why, why_cap)) return false;
        p = c ? c + 1 : NULL;
    }
    return true;
}
