/* Strict numbers from command-line text: the whole string must be the
 * number (no leading white space, no trailing bytes, not empty), no overflow. Each returns 0 on
 * success and -1 otherwise, leaving *v untouched on failure. Range and sign
 * rules beyond these are the caller's. */
#ifndef HY_CORE_NUM_H
#define HY_CORE_NUM_H

#include <stdint.h>

/* Decimal integer in [lo, hi]. */
int hy_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v);
/* Unsigned integer in `base` (0: decimal, 0x hex or 0 octal, as strtoull);
 * a leading '-' is rejected rather than wrapped. */
int hy_parse_u64(const char *s, int base, uint64_t *v);
/* Finite floating-point number. */
int hy_parse_double(const char *s, double *v);

#endif
