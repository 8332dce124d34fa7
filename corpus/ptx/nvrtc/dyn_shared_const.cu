// Dynamic shared memory, __constant__ and __device__ variables with initializers, generic
// addressing and special registers with defined values. extern __shared__ dsmem[] is sized by
// the launch (shared_bytes 768 = 64 u32 + 64 u64): a[] = the first ntid words, b[] = the ntid u64
// after them. ctab is read at data-dependent indices; gtab's initializer ends early; %laneid,
// %lanemask_*, WARP_SZ, %ntid, %nctaid, %dynamic_smem_size. 3 blocks of 64 threads, 17 output
// words per thread. The model is dyn_shared_const.host.c. Replaces the hand-written nvcc-style
// dyn_shared_const.ptx of ../nvcc: same entry, parameters and launch.

__constant__ unsigned ctab[16] = {0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
                                  0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
                                  0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
                                  0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u};
__device__ unsigned gtab[8] = {3, 0x00010001u, 0x80000000u, 0xffffffffu, 5, 9};
__device__ unsigned gscale = 7;
extern __shared__ __align__(16) unsigned char dsmem[];

#define SREG(name)                                          \
  __device__ __forceinline__ unsigned sreg_##name() {       \
    unsigned r;                                             \
    asm volatile("mov.u32 %0, %%" #name ";" : "=r"(r));     \
    return r;                                               \
  }
SREG(laneid)
SREG(lanemask_lt)
SREG(lanemask_le)
SREG(lanemask_eq)
SREG(lanemask_ge)
SREG(lanemask_gt)
SREG(dynamic_smem_size)

// isspacep.SPACE of a generic address, in asm (NVVM folds __isShared/__isGlobal/__isLocal here:
// it knows where p points and assumes kernel pointer parameters are global).
#define ISSPACEP(space)                                                                   \
  __device__ __forceinline__ unsigned is_##space(const void *p) {                         \
    unsigned r;                                                                           \
    asm volatile("{ .reg .pred q; isspacep." #space " q, %1; selp.u32 %0, 1, 0, q; }"    \
                 : "=r"(r) : "l"(p));                                                     \
    return r;                                                                             \
  }
ISSPACEP(shared)
ISSPACEP(global)
ISSPACEP(local)

extern "C" __global__ void dyn_shared_const(unsigned *out, const unsigned *in) {
  unsigned t = threadIdx.x, nt = blockDim.x, i = blockIdx.x * nt + t, v = in[i];
  unsigned *a = (unsigned *)dsmem;
  unsigned long long *b = (unsigned long long *)(dsmem + 4 * nt);
  a[t] = v ^ ctab[t & 15];
  unsigned long long *p = &b[t];
  *p = (unsigned long long)v << 32 | gtab[t & 7];
  __syncthreads();
  unsigned *o = &out[i * 17];
  o[0] = a[(t + 1) % nt] + gscale * a[nt - 1 - t];
  unsigned long long q = b[t * 5 % nt];
  o[1] = (unsigned)q;
  o[2] = (unsigned)(q >> 32);
  o[3] = is_shared(p) | is_global(p) << 1 | is_shared(in) << 2 | is_global(in) << 3 |
         is_local(p) << 4;
  o[4] = sreg_laneid();
  o[5] = sreg_lanemask_lt();
  o[6] = sreg_lanemask_le();
  o[7] = sreg_lanemask_eq();
  o[8] = sreg_lanemask_ge();
  o[9] = sreg_lanemask_gt();
  o[10] = nt;
  o[11] = gridDim.x;
  o[12] = warpSize;
  o[13] = ctab[v & 15];
  o[14] = gtab[v & 7];
  o[15] = __cvta_shared_to_generic(__cvta_generic_to_shared(p)) == (void *)p;
  o[16] = sreg_dynamic_smem_size();
}
