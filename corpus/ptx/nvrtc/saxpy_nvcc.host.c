/* The host program and C model of saxpy_nvcc.cu (regen.py builds it with host.h and runs it: it
 * writes the launch and the expected buffers). It was ../nvcc/saxpy_nvcc.c, the C twin of a hand-
 * written PTX kernel; the computation, inputs and launch are unchanged, and the PTX instructions
 * named below are those the hand-written kernel used. */
/* Classic grid-stride saxpy in f32: y[i] = fmaf(a, x[i], y[i]) for i < n, as
 *   extern "C" __global__ void __launch_bounds__(128)
 *   saxpy_nvcc(int n, float a, const float *__restrict__ x, float *__restrict__ y)
 * compiles with nvcc 12 (fma.rn.f32 from the contraction nvcc does by default, ld.global.nc for
 * the const __restrict__ x, .maxntid from the launch bounds). 2 blocks of 128 threads, n = 1000:
 * each thread runs 3 or 4 iterations; y[1000..1023] are past n and keep their input values. */
#include <math.h>

#include "host.h"

static void saxpy_nvcc(int32_t n, float a, const float *x, float *y) {
  for (int32_t i = (int32_t)(CTAID_X * NTID_X + TID_X); i < n; i += (int32_t)(NTID_X * NCTAID_X))
    y[i] = fmaf(a, x[i], y[i]);
}

#define N 1000
#define LEN 1024
static float *g_x, *g_y;
static const float g_a = -1.2345678f;
static void body(void) { saxpy_nvcc(N, g_a, g_x, g_y); }

/* A finite f32 with a random sign and mantissa and the biased exponent e (0: subnormal). */
static float make_f32(uint64_t r, uint32_t e) {
  return host_bits_f32((uint32_t)(r >> 63) << 31 | e << 23 | ((uint32_t)r & 0x7fffffu));
}

int main(int argc, char **argv) {
  host_begin(argc, argv, "saxpy_nvcc", 2, 1, 1, 128, 1, 1);
  g_x = host_in("x", LEN * 4);
  g_y = host_in("y", LEN * 4);
  for (uint32_t i = 0; i < LEN; i++) {
    uint64_t r = host_mix64(i + 1000), s = host_mix64(i + 5000);
    /* Exponents 0..150 (subnormals up to 2^24), y's within 3 of x's so that a*x + y cancels or
     * rounds in the last place often; |a*x + y| < 2^26, so nothing overflows and no NaN. */
    uint32_t ex = (uint32_t)(r >> 40) % 151;
    int32_t ey = (int32_t)ex + (int32_t)((s >> 40) % 7) - 3;
    if (ey < 0) ey = 0;
    if (ey > 150) ey = 150;
    g_x[i] = make_f32(r, ex);
    g_y[i] = make_f32(s, (uint32_t)ey);
  }
  g_x[0] = 0.0f, g_y[0] = -0.0f;          /* -1.23 * 0 + -0 = -0 */
  g_x[1] = 1.0f, g_y[1] = -g_a;           /* a + (-a): exact zero, +0 under rn */
  g_x[2] = host_bits_f32(1), g_y[2] = 0;  /* a * 2^-149 rounds to -2^-149 */
  host_param_scalar("u32", N);
  host_param_scalar("f32", host_f32_bits(g_a));
  host_param_buf("x");
  host_param_buf("y");
  return host_launch_threads(body);
}
