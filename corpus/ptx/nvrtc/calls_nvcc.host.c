/* The host program and C model of calls_nvcc.cu (regen.py builds it with host.h and runs it: it
 * writes the launch and the expected buffers). It was ../nvcc/calls_nvcc.c, the C twin of a hand-
 * written PTX kernel; the computation, inputs and launch are unchanged, and the PTX instructions
 * named below are those the hand-written kernel used. */
/* Non-inlined device functions in nvcc's call-sequence style ({ .reg .b32 temp_param_reg;
 * .param ... param0; st.param ...; .param ... retval0; call.uni (retval0), f, (param0, ...);
 * ld.param ...; }), with C++-mangled .func names:
 *   mix3(u32, u32, u32, u8)        a u8 argument in a .param .b32, read back with ld.param.u8
 *   split(u32, f32, u8) -> pair    a struct {u32; f32} returned in .param .align 4 .b8 [8]
 *   dot2(vec2, vec2) -> f64        structs {f64; f64} passed by value in .param .align 8 .b8 [16];
 *                                  nvcc contracts a.x*b.x + a.y*b.y into fma(a.x, b.x, a.y*b.y)
 *                                  (its default -fmad=true), so the C side calls fma
 *   fib(u32)                       non-tail recursion, depth <= 10
 *   store2(u32 *, u32, u32)        no return value, stores through a generic pointer
 *   op_add/op_xor/op_mul/op_rot    called indirectly through function pointers (mov.u64 of the
 *                                  function's name, selp) with .callprototype, at two call sites
 *                                  with different selections.
 * 3 blocks of 64 threads, n = 170. */
#include <math.h>

#include "host.h"

static uint32_t mix3(uint32_t a, uint32_t b, uint32_t c, uint8_t sh) {
  return ((a ^ b) << (sh & 15)) + c * 0x01000193u;
}
struct pair {
  uint32_t lo;
  float f;
};
static struct pair split(uint32_t x, float f, uint8_t c) {
  struct pair r = {x + c, f * 0.5f};
  return r;
}
struct vec2 {
  double x, y;
};
static double dot2(struct vec2 a, struct vec2 b) { return fma(a.x, b.x, a.y * b.y); }
static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static void store2(uint32_t *p, uint32_t a, uint32_t b) {
  p[0] = a;
  p[1] = b;
}
static uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
static uint32_t op_xor(uint32_t a, uint32_t b) { return a ^ (b >> 3); }
static uint32_t op_mul(uint32_t a, uint32_t b) { return a * (b | 1u); }
static uint32_t op_rot(uint32_t a, uint32_t b) { return (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31)); }
typedef uint32_t (*binop)(uint32_t, uint32_t);

static void calls_nvcc(uint32_t *out, double *dout, const uint32_t *in, uint32_t n) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint32_t a = in[i], b = in[(i + 1) % n];
  uint32_t *o = &out[8 * i];
  o[0] = mix3(a, b, i, (uint8_t)(a >> 24));
  struct pair pr = split(a, (float)(b & 0xffff), (uint8_t)b);
  o[1] = pr.lo;
  o[2] = host_f32_bits(pr.f);
  struct vec2 u = {(double)a, (double)(int32_t)b}, w = {0.25, -1.5 * (double)i};
  dout[i] = dot2(u, w);
  uint32_t fb = fib(i % 11);
  o[3] = fb;
  static const binop ops[4] = {op_add, op_xor, op_mul, op_rot};
  uint32_t acc = ops[(b >> 3) & 3](a, b);
  binop g = (a & 1) ? op_rot : op_mul;
  acc = g(acc, i);
  o[4] = acc;
  store2(&o[5], acc ^ a, fib(a & 7));
  o[7] = mix3(acc, fb, b, 3);
}

#define N 170
#define THREADS 192
static uint32_t *g_out, *g_in;
static double *g_dout;
static void body(void) { calls_nvcc(g_out, g_dout, g_in, N); }
int main(int argc, char **argv) {
  host_begin(argc, argv, "calls_nvcc", 3, 1, 1, 64, 1, 1);
  g_out = host_out("out", THREADS * 8 * 4);
  g_dout = host_out("dout", THREADS * 8);
  g_in = host_in("in", THREADS * 4);
  for (uint32_t i = 0; i < THREADS; i++) g_in[i] = (uint32_t)host_mix64(i * 7 + 1);
  host_param_buf("out");
  host_param_buf("dout");
  host_param_buf("in");
  host_param_scalar("u32", N);
  return host_launch_threads(body);
}
