/* The host program and C model of vectors_nvcc.cu (regen.py builds it with host.h and runs it: it
 * writes the launch and the expected buffers). It was ../nvcc/vectors_nvcc.c, the C twin of a
 * hand-written PTX kernel; the computation, inputs and launch are unchanged, and the PTX
 * instructions named below are those the hand-written kernel used. */
/* Vector loads and stores, register packing, byte permutes, bit fields and f16 conversions, as
 * nvcc emits them for float4 / uint4 / ulonglong2 / uchar4 / short4 / ushort2 and the
 * __byte_perm, __half intrinsics:
 *   ld.global.v4.f32 / st.global.v4.f32, ld.global.nc.v4.u32 (const __restrict__ uint4),
 *   st.global.v2.u64, ld.global.v4.u8 into 16-bit registers, ld.global.v4.u16 + cvt.s32.s16,
 *   ld.global.v2.u16, mul.wide.s16; mov.b64 {lo, hi} <-> %rd and mov.b32 {lo, hi} <-> %r;
 *   prmt.b32 in the generic form (data-dependent selector, and a constant one with the
 *   sign-replicating msb set) and in every mode (.f4e .b4e .rc8 .ecl .ecr .rc16);
 *   bfe.u32 / bfe.s32 / bfi.b32 / bfe.s64 with start and length from data, including the bits
 *   above the low 8 that the instructions ignore (PTX ISA 8.7 §9.7.1.19-20, L6466-6558);
 *   cvt.{rn,rz,rm,rp}.f16.f32, cvt.rn.f16x2.f32 and cvt.f32.f16 round trips, checked here by an
 *   exact software f16 conversion (overflow to Inf or to 65504 by rounding mode, subnormals,
 *   ties to even).
 * 2 blocks of 64 threads, no NaN anywhere (checked), 25 words of misc output per thread. */
#include "host.h"

#define THREADS 128
#define K 25

/* ---- the instructions' models ---- */

/* prmt (§9.7.9.7, L12087-12421): the generic form and the six modes' source-byte table. */
enum { P_GEN, P_F4E, P_B4E, P_RC8, P_ECL, P_ECR, P_RC16 };
static const uint8_t prmt_table[7][4][4] = {
    /* for each mode and c[1:0]: the source byte of d.b0, d.b1, d.b2, d.b3 */
    {{0}},
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
    {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
    {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
    {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
};
static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
  uint64_t tmp64 = (uint64_t)b << 32 | a;
  uint32_t d = 0;
  for (int k = 0; k < 4; k++) {
    uint32_t byte;
    if (mode == P_GEN) {
      uint32_t ctl = c >> (4 * k) & 0xf;
      byte = (uint32_t)(tmp64 >> (8 * (ctl & 7))) & 0xff;
      if (ctl & 8) byte = byte & 0x80 ? 0xff : 0; /* replicate the byte's sign */
    } else {
      byte = (uint32_t)(tmp64 >> (8 * prmt_table[mode][c & 3][k])) & 0xff;
    }
    d |= byte << (8 * k);
  }
  return d;
}

/* bfe / bfi, the manual's pseudocode bit by bit (L6501-6513, L6551-6558). */
static uint64_t bfe(uint64_t a, uint32_t b, uint32_t c, int msb, int is_signed) {
  uint32_t pos = b & 0xff, len = c & 0xff;
  uint64_t sbit = 0;
  if (is_signed && len != 0) sbit = a >> (pos + len - 1 < (uint32_t)msb ? pos + len - 1 : (uint32_t)msb) & 1;
  uint64_t d = 0;
  for (uint32_t i = 0; i <= (uint32_t)msb; i++) {
    uint64_t bit = (i < len && pos + i <= (uint32_t)msb) ? a >> (pos + i) & 1 : sbit;
    d |= bit << i;
  }
  return d;
}
static uint32_t bfi32(uint32_t a, uint32_t b, uint32_t c, uint32_t dd) {
  uint32_t pos = c & 0xff, len = dd & 0xff, f = b;
  for (uint32_t i = 0; i < len && pos + i <= 31; i++) f = (f & ~(1u << (pos + i))) | (a >> i & 1) << (pos + i);
  return f;
}

/* f32 -> f16 with the rounding modes of cvt (.rn .rz .rm .rp), exactly: the value is m * 2^(e-150),
 * the f16 quantum is 2^qexp (2^-24 for subnormals), the result is q * 2^qexp rounded. */
enum { RN, RZ, RM, RP };
static uint16_t f32_to_f16(float f, int mode) {
  uint32_t x = host_f32_bits(f), sign = x >> 31, ax = x & 0x7fffffffu;
  uint16_t s16 = (uint16_t)(sign << 15);
  if (ax > 0x7f800000u) host_die("NaN input to f32_to_f16");
  if (ax == 0x7f800000u) return s16 | 0x7c00;
  int32_t e = (int32_t)(ax >> 23);
  uint32_t m = ax & 0x7fffffu;
  if (e == 0)
    e = 1;
  else
    m |= 0x800000u;
  if (m == 0) return s16;
  int32_t lg = e - 150 + (31 - __builtin_clz(m)); /* floor(log2 |f|) */
  int32_t qexp = lg - 10 < -24 ? -24 : lg - 10;
  int32_t sh = e - 150 - qexp;
  uint64_t q, r = 0, half = 0;
  if (sh >= 0) {
    q = (uint64_t)m << sh;
  } else if (-sh > 40) {
    q = 0, r = 1, half = 2; /* below half of the quantum, not zero */
  } else {
    q = (uint64_t)m >> -sh, r = (uint64_t)m & ((1ull << -sh) - 1), half = 1ull << (-sh - 1);
  }
  int up = 0;
  switch (mode) {
  case RN: up = r > half || (r == half && r != 0 && (q & 1)); break;
  case RZ: up = 0; break;
  case RM: up = sign && r != 0; break;
  case RP: up = !sign && r != 0; break;
  }
  q += (uint64_t)up;
  uint64_t bits = ((uint64_t)(qexp + 24) << 10) + q; /* carries into the exponent when q reaches 2048 */
  if (bits >= 0x7c00) {                              /* overflow: Inf or the largest finite */
    int to_inf = mode == RN || (mode == RP && !sign) || (mode == RM && sign);
    return s16 | (to_inf ? 0x7c00 : 0x7bff);
  }
  return s16 | (uint16_t)bits;
}
static float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, e = h >> 10 & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return host_bits_f32(sign | 0x7f800000u | m << 13);
  if (e == 0) return host_bits_f32(sign) + (sign ? -1.0f : 1.0f) * (float)m * 0x1p-24f; /* exact */
  return host_bits_f32(sign | (e + 112) << 23 | m << 13);
}

/* ---- the kernel ---- */

static void vectors_nvcc(const float *fin, const uint32_t *uin, const uint8_t *bin, const uint16_t *sin, float *fout,
                         uint64_t *qout, uint32_t *mout) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  const float *a = &fin[4 * i];
  float *fo = &fout[4 * i];
  fo[0] = a[0] + a[1];
  fo[1] = a[1] * a[2];
  fo[2] = a[2] - a[3];
  fo[3] = a[3];
  const uint32_t *u = &uin[4 * i];
  uint64_t q0 = (uint64_t)u[1] << 32 | u[0], q1 = (uint64_t)u[2] * u[3];
  qout[2 * i] = q0;
  qout[2 * i + 1] = q1;
  uint32_t *m = &mout[K * i];
  m[0] = (uint32_t)(q1 >> 32) ^ (uint32_t)q1;
  const uint8_t *c = &bin[4 * i];
  m[1] = c[0] + c[1] * 2u + c[2] * 3u + c[3] * 5u;
  const int16_t *s = (const int16_t *)&sin[4 * i];
  m[2] = (uint32_t)((int32_t)s[0] * s[1] + s[2] - s[3]);
  m[3] = (uint32_t)sin[4 * i + 2] | (uint32_t)sin[4 * i + 3] << 16;
  m[4] = prmt(u[0], u[1], u[2], P_GEN);
  m[5] = prmt(u[0], u[1], u[3], P_F4E);
  m[6] = prmt(u[0], u[1], u[3] >> 2, P_B4E);
  m[7] = prmt(u[0], u[1], u[3] >> 4, P_RC8);
  m[8] = prmt(u[0], u[1], u[3] >> 6, P_ECL);
  m[9] = prmt(u[0], u[1], u[3] >> 8, P_ECR);
  m[10] = prmt(u[0], u[1], u[3] >> 10, P_RC16);
  m[11] = prmt(u[0], u[1], 0x9c1b, P_GEN);
  uint32_t pos = u[1] & 0x13f, len = u[2] & 0x12f;
  m[12] = (uint32_t)bfe(u[0], pos, len, 31, 0);
  m[13] = (uint32_t)bfe(u[0], pos, len, 31, 1);
  m[14] = bfi32(u[3], u[0], pos, len);
  uint64_t e64 = bfe(q0, u[3] & 0x7f, u[2] >> 24 & 0x7f, 63, 1);
  m[15] = (uint32_t)e64;
  m[16] = (uint32_t)(e64 >> 32);
  uint16_t h0 = f32_to_f16(a[0], RN), h1 = f32_to_f16(a[1], RZ), h2 = f32_to_f16(a[2], RM),
           h3 = f32_to_f16(a[3], RP);
  m[17] = host_f32_bits(f16_to_f32(h0));
  m[18] = host_f32_bits(f16_to_f32(h1));
  m[19] = host_f32_bits(f16_to_f32(h2));
  m[20] = host_f32_bits(f16_to_f32(h3));
  uint32_t x2 = (uint32_t)f32_to_f16(a[0], RN) << 16 | f32_to_f16(a[1], RN); /* cvt.rn.f16x2.f32 d, a0, a1 */
  m[21] = x2;
  m[22] = x2 >> 16 | x2 << 16;
  m[23] = (uint32_t)h0 | (uint32_t)h1 << 16;
  m[24] = (uint32_t)h2 | (uint32_t)h3 << 16;
}

static float *g_fin, *g_fout;
static uint32_t *g_uin, *g_mout;
static uint8_t *g_bin;
static uint16_t *g_sin;
static uint64_t *g_qout;
static void body(void) { vectors_nvcc(g_fin, g_uin, g_bin, g_sin, g_fout, g_qout, g_mout); }

/* Edge values of the f32 -> f16 conversions. */
static const uint32_t edges[] = {
    0x477fe000u, /* 65504, the largest f16 */
    0x477fefffu, /* just below 65520: rn gives 65504 */
    0x477ff000u, /* 65520: the tie between 65504 and 2^16, rn gives Inf */
    0x4788b800u, /* 70000 */
    0xc788b800u, /* -70000 */
    0x47800000u, /* 65536 */
    0x33800000u, /* 2^-24, the smallest f16 subnormal */
    0x33000000u, /* 2^-25: tie between 0 and 2^-24 */
    0x33400000u, /* 1.5 * 2^-25 */
    0x33c00000u, /* 1.5 * 2^-24: tie between 2^-24 and 2^-23 */
    0xb3c00000u, /* -1.5 * 2^-24 */
    0x387fc000u, /* 2^-14 - 2^-24, the largest subnormal */
    0x387fe000u, /* 2^-14 - 2^-25: tie, rounds up to the smallest normal */
    0x38800000u, /* 2^-14 */
    0x32800000u, /* 2^-26 */
    0x2edbe6ffu, /* 1e-10 */
    0x80000000u, /* -0 */
    0x7f800000u, /* Inf */
    0xff800000u, /* -Inf */
    0x3f801000u, /* 1 + 2^-11: tie, rn to 1 */
    0x3f803000u, /* 1 + 3 * 2^-11: tie, rn to 1 + 2^-9 */
    0xbf801000u, /* -(1 + 2^-11) */
    0x3dcccccdu, /* 0.1f */
    0xc0490fdbu, /* -pi */
};
#define NEDGES (sizeof edges / sizeof edges[0])

int main(int argc, char **argv) {
  host_begin(argc, argv, "vectors_nvcc", 2, 1, 1, 64, 1, 1);
  g_fin = host_in("fin", THREADS * 16);
  for (uint32_t i = 0; i < THREADS; i++) {
    for (uint32_t k = 0; k < 4; k++) {
      uint64_t r = host_mix64(i * 4 + k + 600);
      /* |x| in [2^-27, 2^18): f16 subnormals, normals and overflow */
      g_fin[4 * i + k] = host_bits_f32((uint32_t)(r >> 63) << 31 | (uint32_t)(100 + (r >> 32) % 45) << 23 |
                                       ((uint32_t)r & 0x7fffffu));
    }
    if (i < 4 * NEDGES) { /* edge i/4 in component i%4 (one rounding mode each), 1.0 elsewhere */
      for (uint32_t k = 0; k < 4; k++) g_fin[4 * i + k] = 1.0f;
      g_fin[4 * i + i % 4] = host_bits_f32(edges[i / 4]);
    }
  }
  g_uin = host_in("uin", THREADS * 16);
  for (uint32_t i = 0; i < THREADS * 4; i++) g_uin[i] = (uint32_t)host_mix64(i + 7000);
  g_bin = host_in("bin", THREADS * 4);
  for (uint32_t i = 0; i < THREADS * 4; i++) g_bin[i] = (uint8_t)host_mix64(i + 8000);
  g_sin = host_in("sin", THREADS * 8);
  for (uint32_t i = 0; i < THREADS * 4; i++) g_sin[i] = (uint16_t)host_mix64(i + 9000);
  g_fout = host_out("fout", THREADS * 16);
  g_qout = host_out("qout", THREADS * 16);
  g_mout = host_out("mout", THREADS * K * 4);
  host_param_buf("fin");
  host_param_buf("uin");
  host_param_buf("bin");
  host_param_buf("sin");
  host_param_buf("fout");
  host_param_buf("qout");
  host_param_buf("mout");
  int rc = host_launch_threads(body);
  for (uint32_t i = 0; i < THREADS * 4; i++)
    if (g_fout[i] != g_fout[i]) host_die("a NaN in fout");
  return rc;
}
