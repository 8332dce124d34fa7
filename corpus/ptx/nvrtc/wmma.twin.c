/* C twin of wmma.cu: D = A * B + C from the definition, each element of D the exact sum
 * (long double: the test values are exact there) rounded once to f32. Half and bfloat16
 * inputs decoded bit by bit. */
#include "twin.h"

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
  if (e == 31) twin_die("no Inf/NaN in the wmma inputs", NULL);
  return (h >> 15) ? -v : v;
}
static double bf16_to_double(uint16_t h) { return bits_f32((uint32_t)h << 16); }

int main(void) {
  twin_begin();
  const void *a = twin_buf("a"), *b = twin_buf("b");
  const float *c = twin_buf("c");
  float *d = twin_buf("d");
  int M = (int)twin_param(4), N = (int)twin_param(5), K = (int)twin_param(6);
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      long double s = c[m * N + n];
      for (int k = 0; k < K; k++) {
        double x, y;
        if (twin_is("wmma_f16")) {
          x = half_to_double(((const uint16_t *)a)[m * K + k]);
          y = half_to_double(((const uint16_t *)b)[n * K + k]);
        } else if (twin_is("wmma_bf16")) {
          x = bf16_to_double(((const uint16_t *)a)[m * K + k]);
          y = bf16_to_double(((const uint16_t *)b)[n * K + k]);
        } else {
          x = ((const float *)a)[m * K + k];
          y = ((const float *)b)[n * K + k];
        }
        s += (long double)x * y;
      }
      d[m * N + n] = (float)s;
    }
  twin_end();
  return 0;
}
