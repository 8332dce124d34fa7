/* The host program and C model of dyn_shared_const.cu (regen.py builds it with host.h and runs it:
 * it writes the launch and the expected buffers). It was ../nvcc/dyn_shared_const.c, the C twin of
 * a hand-written PTX kernel; the computation, inputs and launch are unchanged, and the PTX
 * instructions named below are those the hand-written kernel used. */
/* Dynamic shared memory, .const and .global module variables, generic addressing and special
 * registers with defined values.
 *
 * extern __shared__ dsmem[] (.extern .shared .align 16 .b8 dsmem[]) is sized by the launch
 * ("shared_bytes": 768 = 64 u32 + 64 u64): a[] = the first ntid words, b[] = the ntid u64 after
 * them. Each thread writes a[t] with st.shared and b[t] through a generic pointer (cvta.shared,
 * generic st.u64), then after bar.sync reads other threads' slots (ld.shared, generic ld.u64).
 * ctab is a __constant__ array with an initializer (ld.const, data-dependent index); gtab and
 * gscale are __device__ variables with initializers (gtab's initializer ends early, as nvcc
 * writes it, so its last 11 bytes are zero-initialised). isspacep.{shared,global,local} classify a
 * generic shared pointer and the generic address of the input buffer. %laneid, %lanemask_*,
 * %ntid, %nctaid and WARP_SZ have defined values (%warpid, %smid and the like do not and are not
 * written); %dynamic_smem_size is the launch's shared_bytes. 3 blocks of 64 threads, 17 output
 * words per thread. */
#include "host.h"

static const uint32_t ctab[16] = {0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau,
                                  0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
                                  0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u};
static const uint32_t gtab[8] = {3, 0x00010001u, 0x80000000u, 0xffffffffu, 5, 9, 0, 0};
static const uint32_t gscale = 7;

#define B 64
static uint32_t sm_a[B]; /* dsmem[0 .. 4*ntid) */
static uint64_t sm_b[B]; /* dsmem[4*ntid .. 12*ntid) */

static void dyn_shared_const(uint32_t *out, const uint32_t *in) {
  uint32_t t = TID_X, nt = NTID_X, i = CTAID_X * nt + t, v = in[i];
  sm_a[t] = v ^ ctab[t & 15];
  uint64_t *p = &sm_b[t];
  *p = (uint64_t)v << 32 | gtab[t & 7];
  HOST_BARRIER();
  uint32_t *o = &out[i * 17];
  o[0] = sm_a[(t + 1) % nt] + gscale * sm_a[nt - 1 - t];
  uint64_t q = sm_b[t * 5 % nt];
  o[1] = (uint32_t)q;
  o[2] = (uint32_t)(q >> 32);
  /* isspacep.shared(p) = 1, .global(p) = 0, .shared(in) = 0, .global(in) = 1, .local(p) = 0 */
  o[3] = 1 | 0 << 1 | 0 << 2 | 1 << 3 | 0 << 4;
  uint32_t lane = t & 31; /* 1-D blocks of whole warps: %laneid = tid.x mod 32 */
  o[4] = lane;
  o[5] = (1u << lane) - 1;                               /* %lanemask_lt */
  o[6] = (uint32_t)((2ull << lane) - 1);                 /* %lanemask_le */
  o[7] = 1u << lane;                                     /* %lanemask_eq */
  o[8] = ~((1u << lane) - 1);                            /* %lanemask_ge */
  o[9] = ~(uint32_t)((2ull << lane) - 1);                /* %lanemask_gt */
  o[10] = nt;
  o[11] = NCTAID_X;
  o[12] = 32; /* WARP_SZ */
  o[13] = ctab[v & 15];
  o[14] = gtab[v & 7];
  o[15] = 1; /* cvta.to.shared of cvta.shared of a shared address gives it back */
  o[16] = B * 4 + B * 8; /* %dynamic_smem_size: the launch's shared_bytes */
}

#define G 3
static uint32_t *g_out, *g_in;
static void body(void) { dyn_shared_const(g_out, g_in); }
int main(int argc, char **argv) {
  host_begin(argc, argv, "dyn_shared_const", G, 1, 1, B, 1, 1);
  host_shared(B * 4 + B * 8);
  g_in = host_in("in", G * B * 4);
  for (uint32_t i = 0; i < G * B; i++) g_in[i] = (uint32_t)host_mix64(i + 2024);
  g_out = host_out("out", G * B * 17 * 4);
  host_param_buf("out");
  host_param_buf("in");
  return host_launch_threads(body);
}
