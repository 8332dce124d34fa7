// Vector loads and stores (float4, const __restrict__ uint4, ulonglong2, uchar4, short4,
// ushort2), 64-bit packing, prmt.b32 (data and constant selectors, every mode), bit fields and
// f16 conversions. 2 blocks of 64 threads, 25 words of misc output per thread. The model is
// vectors_nvcc.host.c (prmt, bfe, bfi from the manual's pseudocode; an exact software f32 -> f16
// conversion). Replaces the hand-written nvcc-style vectors_nvcc.ptx of ../nvcc: same entry,
// parameters and launch.
//
// prmt and bfe/bfi are inline asm: __byte_perm uses only the low 3 bits of each selector nibble
// (NVVM emits `and.b32 s, s, 30583` before prmt.b32 and folds 0x9c1b to 5139), while the kernel
// uses the sign-replicating msb; the prmt modes and bfe/bfi have no CUDA intrinsic.
#include <cuda_fp16.h>

#define K 25

#define PRMT(MODE)                                                                     \
  __device__ __forceinline__ unsigned prmt_##MODE(unsigned a, unsigned b, unsigned c) { \
    unsigned d;                                                                        \
    asm("prmt.b32." #MODE " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));       \
    return d;                                                                          \
  }
__device__ __forceinline__ unsigned prmt(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
PRMT(f4e)
PRMT(b4e)
PRMT(rc8)
PRMT(ecl)
PRMT(ecr)
PRMT(rc16)

__device__ __forceinline__ unsigned bfe_u32(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ unsigned bfe_s32(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ unsigned long long bfe_s64(unsigned long long a, unsigned b, unsigned c) {
  unsigned long long d;
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ unsigned bfi_b32(unsigned a, unsigned b, unsigned c, unsigned e) {
  unsigned d;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "r"(e));
  return d;
}

extern "C" __global__ void vectors_nvcc(const float4 *fin, const uint4 *__restrict__ uin,
                                        const uchar4 *bin, const unsigned short *sin,
                                        float4 *fout, ulonglong2 *qout, unsigned *mout) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 a = fin[i];
  fout[i] = make_float4(a.x + a.y, a.y * a.z, a.z - a.w, a.w);
  uint4 u = uin[i];
  unsigned long long q0 = (unsigned long long)u.y << 32 | u.x,
                     q1 = (unsigned long long)u.z * u.w;
  qout[i] = make_ulonglong2(q0, q1);
  unsigned *m = &mout[K * i];
  m[0] = (unsigned)(q1 >> 32) ^ (unsigned)q1;
  uchar4 c = bin[i];
  m[1] = c.x + c.y * 2u + c.z * 3u + c.w * 5u;
  short4 s = ((const short4 *)sin)[i];
  m[2] = (unsigned)((int)s.x * s.y + s.z - s.w);
  ushort2 w = ((const ushort2 *)sin)[2 * i + 1];
  m[3] = (unsigned)w.x | (unsigned)w.y << 16;
  m[4] = prmt(u.x, u.y, u.z);
  m[5] = prmt_f4e(u.x, u.y, u.w);
  m[6] = prmt_b4e(u.x, u.y, u.w >> 2);
  m[7] = prmt_rc8(u.x, u.y, u.w >> 4);
  m[8] = prmt_ecl(u.x, u.y, u.w >> 6);
  m[9] = prmt_ecr(u.x, u.y, u.w >> 8);
  m[10] = prmt_rc16(u.x, u.y, u.w >> 10);
  m[11] = prmt(u.x, u.y, 0x9c1b);
  unsigned pos = u.y & 0x13f, len = u.z & 0x12f;
  m[12] = bfe_u32(u.x, pos, len);
  m[13] = bfe_s32(u.x, pos, len);
  m[14] = bfi_b32(u.w, u.x, pos, len);
  unsigned long long e64 = bfe_s64(q0, u.w & 0x7f, u.z >> 24 & 0x7f);
  m[15] = (unsigned)e64;
  m[16] = (unsigned)(e64 >> 32);
  __half h0 = __float2half_rn(a.x), h1 = __float2half_rz(a.y), h2 = __float2half_rd(a.z),
         h3 = __float2half_ru(a.w);
  m[17] = __float_as_uint(__half2float(h0));
  m[18] = __float_as_uint(__half2float(h1));
  m[19] = __float_as_uint(__half2float(h2));
  m[20] = __float_as_uint(__half2float(h3));
  __half2 x2 = __floats2half2_rn(a.y, a.x);  // a.x in the high half
  unsigned x2b = *(unsigned *)&x2;
  m[21] = x2b;
  m[22] = x2b >> 16 | x2b << 16;
  m[23] = (unsigned)__half_as_ushort(h0) | (unsigned)__half_as_ushort(h1) << 16;
  m[24] = (unsigned)__half_as_ushort(h2) | (unsigned)__half_as_ushort(h3) << 16;
}
