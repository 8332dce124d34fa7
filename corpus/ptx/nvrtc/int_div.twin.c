/* C twin of int_div.cu: C's truncating division (the same as CUDA's); no INT_MIN / -1 and no
 * zero divisor in the inputs; arithmetic right shifts of negatives as gcc does them (like the
 * GPU: shr.s32); signed 8/16-bit operands promoted to int. */
#include <stdlib.h>
#include "twin.h"

int main(void) {
  twin_begin();
  const int32_t *a = twin_buf("a"), *b = twin_buf("b");
  const int64_t *c = twin_buf("c"), *d = twin_buf("d");
  int32_t *o32 = twin_buf("o32");
  int64_t *o64 = twin_buf("o64");
  int n = (int)twin_param(6);
  for (int i = 0; i < n; i++) {
    int32_t x = a[i], y = b[i];
    int64_t p = c[i], q = d[i];
    int32_t *o = o32 + 16 * i;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (int32_t)((uint32_t)x / (uint32_t)y);
    o[3] = (int32_t)((uint32_t)x % (uint32_t)y);
    o[4] = x / 7;
    o[5] = x % 7;
    o[6] = (int32_t)((uint32_t)x / 10u);
    o[7] = x / -16;
    o[8] = (int32_t)((uint32_t)x % 1000000007u);
    o[9] = x >> (y & 31);
    o[10] = (int32_t)((uint32_t)x >> (y & 31));
    o[11] = (int32_t)((uint32_t)x << (y & 31));
    o[12] = (int16_t)x / (int16_t)(y | 1);
    o[13] = (int8_t)x * (int8_t)y;
    o[14] = (uint8_t)x / (uint8_t)(y | 1);
    int32_t mn = x < y ? x : y, mx = x > y ? x : y;
    o[15] = (int32_t)((uint32_t)abs(x % 1000) + (uint32_t)mn - (uint32_t)mx);
    int64_t *r = o64 + 8 * i;
    r[0] = p / q;
    r[1] = p % q;
    r[2] = (int64_t)((uint64_t)p / (uint64_t)q);
    r[3] = (int64_t)((uint64_t)p % (uint64_t)q);
    r[4] = p / 1000000007LL;
    r[5] = (int64_t)((uint64_t)p % 3ull);
    r[6] = p >> (q & 63);
    r[7] = (int64_t)(((uint64_t)p << (q & 63)) + (uint64_t)llabs(q % 12345));
  }
  twin_end();
  return 0;
}
