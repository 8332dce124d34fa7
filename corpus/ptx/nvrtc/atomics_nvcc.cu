// Atomics whose results do not depend on the order the threads run in (see atomics_nvcc.host.c,
// the same computation in C with the __atomic builtins). Replaces the hand-written nvcc-style
// atomics.ptx of ../nvcc: same parameters and launch (4 x 64).
extern "C" __global__ void __launch_bounds__(64)
atomics_nvcc(const unsigned *in, unsigned *ctr, unsigned *seen, unsigned *words,
             unsigned long long *w64, unsigned *olds, unsigned *hist, unsigned *ghist) {
  __shared__ unsigned bins[16];
  __shared__ unsigned bsum;
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x, v = in[i];
  if (t < 16) {
    bins[t] = 0;
    if (t == 0) bsum = 0;
  }
  __syncthreads();
  unsigned ticket = atomicAdd(&ctr[0], 1u);
  atomicMax(&ctr[1], ticket);
  unsigned inc = atomicInc(&ctr[2], 9u);
  atomicDec(&ctr[3], 9u);
  atomicAdd((float *)&ctr[4], (float)((int)(v % 201u) - 100));
  atomicMin((int *)&ctr[5], (int)v);
  atomicMax((int *)&ctr[6], (int)v);
  unsigned bit = 1u << (v & 31);
  atomicAnd(&ctr[7], (i & 7) == 0 ? ~bit : 0xffffffffu);
  atomicOr(&ctr[8], (i & 7) == 1 ? bit : 0u);
  atomicXor(&ctr[9], v);
  atomicAdd(&ctr[10], ticket);
  atomicAdd(&ctr[11], inc);
  atomicAdd(&ctr[12], (unsigned)(atomicCAS(&ctr[13], 0u, 0xc0ffeeu) == 0));
  atomicAdd(&ctr[15], (unsigned)(atomicExch(&ctr[14], 0xabcdu) == 0x5555u));
  unsigned long long *c64 = (unsigned long long *)ctr;
  atomicAdd(&c64[8], (unsigned long long)v * (v ^ i));
  atomicMin(&c64[9], (unsigned long long)v << 16 | i);
  atomicAdd(&ctr[20], -(v & 255));
  atomicMin(&ctr[21], v);
  seen[ticket] = ticket * 2 + 1;

  unsigned w = words[i];
  olds[4 * i] = atomicCAS(&words[i], i % 3 == 0 ? w : w ^ 1, v ^ 0x5a5a5a5au);
  olds[4 * i + 1] = atomicExch(&words[256 + i], v + i);
  unsigned long long q = w64[i];
  unsigned long long o64 = atomicCAS(&w64[i], i & 1 ? q : ~q, (unsigned long long)v << 32 | i);
  olds[4 * i + 2] = (unsigned)o64;
  olds[4 * i + 3] = (unsigned)(o64 >> 32);

  atomicAdd(&bins[v & 15], 1u);
  atomicAdd(&bsum, v & 0xffff);
  __syncthreads();
  if (t < 16) {
    hist[blockIdx.x * 17 + t] = bins[t];
    atomicAdd(&ghist[t], bins[t]);
  } else if (t == 16) {
    hist[blockIdx.x * 17 + 16] = bsum;
  }
}
