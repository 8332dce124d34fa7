/* C twin of recursion.cu: the same recursions (signed overflow in dc_sum done in unsigned). */
#include "twin.h"

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static uint32_t dc_sum(const int32_t *a, int lo, int hi) {
  if (hi - lo == 1) return (uint32_t)a[lo];
  int mid = (lo + hi) / 2;
  uint32_t l = dc_sum(a, lo, mid), r = dc_sum(a, mid, hi);
  return l * 3u - r;
}
static uint32_t hanoi(int n, int from, int to, int via, uint32_t h) {
  if (n == 0) return h;
  h = hanoi(n - 1, from, via, to, h);
  h = h * 31u + (uint32_t)(from * 4 + to);
  return hanoi(n - 1, via, to, from, h);
}

int main(void) {
  twin_begin();
  const int32_t *a = twin_buf("a");
  uint32_t *out = twin_buf("out");
  int n = (int)twin_param(2);
  for (int i = 0; i < n; i++) {
    out[3 * i] = fib(i % 13);
    out[3 * i + 1] = dc_sum(a, i, i + 1 + i % 16);
    out[3 * i + 2] = hanoi(i % 7, 0, 2, 1, (uint32_t)i);
  }
  twin_end();
  return 0;
}
