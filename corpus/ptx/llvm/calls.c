/* Non-inlined calls (.func with .param passing): a scalar function with several arguments, a
 * function returning f64, a function taking a generic pointer to the caller's local array
 * (cvta.local, generic ld/st), a 64-bit function, a non-tail-recursive function (call depth up
 * to 13, its frames on the local stack) and indirect calls through a table of function pointers
 * selected by data. */
#include "ptxk.h"

#define NOINLINE __attribute__((noinline))

NOINLINE static uint32_t mix3(uint32_t a, uint32_t b, uint32_t c, uint8_t sh) {
  return ((a ^ b) << (sh & 15)) + c * 0x01000193u;
}
NOINLINE static double weighted(double x, float w, int32_t k) { return x * w + (double)k; }
NOINLINE static void fill(uint32_t *p, uint32_t n, uint32_t seed) {
  for (uint32_t k = 0; k < n; k++) p[k] = seed = seed * 1103515245u + 12345u;
}
NOINLINE static uint64_t sum_sel(const uint32_t *p, uint32_t n, uint32_t mask) {
  uint64_t s = 0;
  for (uint32_t k = 0; k < n; k++)
    if (p[k] & mask) s += (uint64_t)p[k] << (k & 7);
  return s;
}
NOINLINE static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE static uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
NOINLINE static uint32_t op_xor(uint32_t a, uint32_t b) { return a ^ (b >> 3); }
NOINLINE static uint32_t op_mul(uint32_t a, uint32_t b) { return a * (b | 1u); }
NOINLINE static uint32_t op_rot(uint32_t a, uint32_t b) {
  return (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31));
}
typedef uint32_t (*binop)(uint32_t, uint32_t);

KERNEL void calls(uint32_t *out, double *dout, const uint32_t *in, uint32_t n) {
  binop ops[4] = {op_add, op_xor, op_mul, op_rot};
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint32_t a = in[i], b = in[(i + 1) % n];
  uint32_t buf[10];
  out[8 * i] = mix3(a, b, i, (uint8_t)(a >> 24));
  fill(buf, 6 + (a & 3), b);
  uint64_t s = sum_sel(buf, 6 + (a & 3), a);
  out[8 * i + 1] = (uint32_t)s;
  out[8 * i + 2] = (uint32_t)(s >> 32);
  out[8 * i + 3] = fib(i % 14);
  uint32_t acc = a;
  for (int k = 0; k < 4; k++) acc = ops[(b >> (2 * k)) & 3](acc, buf[k]);
  out[8 * i + 4] = acc;
  out[8 * i + 5] = buf[a % 6];
  out[8 * i + 6] = mix3(acc, s > 0xffffffffull, fib(a & 7), 3);
  out[8 * i + 7] = ops[a & 3](b, 12345);
  dout[i] = weighted((double)a * 0.5, (float)(b & 0xfff) * 0.25f, (int32_t)b);
}

#ifdef PTXK_HOST
#define N 160
static uint32_t *g_out, *g_in;
static double *g_dout;
static void body(void) { calls(g_out, g_dout, g_in, N); }
int main(int argc, char **argv) {
  ptxk_begin(argc, argv, "calls", 3, 1, 1, 64, 1, 1);
  g_in = ptxk_in("in", N * 4);
  for (int i = 0; i < N; i++) g_in[i] = (uint32_t)ptxk_mix64(i * 3 + 999);
  g_out = ptxk_out("out", N * 8 * 4);
  g_dout = ptxk_out("dout", N * 8);
  ptxk_param_buf("out");
  ptxk_param_buf("dout");
  ptxk_param_buf("in");
  ptxk_param_scalar("u32", N);
  return ptxk_launch(body);
}
#endif
