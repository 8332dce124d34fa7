/* C twin of bitonic_sort.cu: the same network, comparator by comparator. */
#include "twin.h"
#define N 256

int main(void) {
  twin_begin();
  uint32_t *keys = twin_buf("keys");
  uint32_t *vals = twin_buf("vals");
  for (uint32_t b = 0; b < grid[0]; b++) {
    uint32_t *k = keys + b * N, *v = vals + b * N;
    for (uint32_t size = 2; size <= N; size <<= 1)
      for (uint32_t stride = size / 2; stride > 0; stride >>= 1)
        for (uint32_t t = 0; t < N / 2; t++) {
          uint32_t pos = 2 * t - (t & (stride - 1));
          int up = (pos & size) == 0;
          uint32_t a = k[pos], c = k[pos + stride];
          if ((a > c) == up) {
            k[pos] = c;
            k[pos + stride] = a;
            uint32_t tmp = v[pos];
            v[pos] = v[pos + stride];
            v[pos + stride] = tmp;
          }
        }
    for (int j = 1; j < N; j++)
      if (k[j - 1] > k[j]) twin_die("not sorted", NULL);
  }
  twin_end();
  return 0;
}
