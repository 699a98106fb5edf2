/* The one numeric parser of the command-line tool (issue #14 finding 6):
 * every number an option takes goes through cli_number, so every option
 * accepts and refuses alike. No output: the caller prints the reason. */
#ifndef SK_CLI_PARSE_NUMBER_H
#define SK_CLI_PARSE_NUMBER_H

#include <stdbool.h>
#include <stddef.h>

typedef enum cli_num_kind {
    CLI_NUM_REAL, /* decimal or hexadecimal floating point; finite; subnormals accepted */
    CLI_NUM_UINT  /* decimal digits only: no sign (so "-1" is refused, never wrapped), no spaces */
} cli_num_kind;

/* Parses exactly len bytes of s (no leading or trailing junk, no spaces) as a
 * number of that kind inside [min, max]. On failure returns false and writes
 * the reason (e.g. "is outside [0, 1]", "is not a finite number") to why. */
bool cli_number(const char *s, size_t len, cli_num_kind kind, double min, double max, double *out, char *why,
                size_t why_cap);

/* Splits s at sep into exactly n numbers of that kind in [min, max]. */
bool cli_numbers(const char *s, char sep, int n, cli_num_kind kind, double min, double max, double *out, char *why,
                 size_t why_cap);

#endif
