// The CUDA C++ twin of the suite's 1-D tensor load (a __grid_constant__ map, CUTLASS-style inline
// PTX); nvrtc-tma.ptx is NVRTC 12.9's output: python3 nvrtc.py nvrtc-tma.cu --gpu-architecture=compute_90 -std=c++17
struct alignas(64) TM { unsigned long long o[16]; };
extern "C" __global__ void k(float* out, const __grid_constant__ TM tm) {
  __shared__ alignas(128) float sm[64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned s = (unsigned)__cvta_generic_to_shared(sm);
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("prefetch.tensormap [%0];" :: "l"(&tm) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" :: "r"(b));
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                 :: "r"(s), "l"(&tm), "r"(0), "r"(b) : "memory");
  }
  __syncthreads();
  unsigned ok = 0;
  while (!ok) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(b));
  if (threadIdx.x < 4) out[threadIdx.x] = sm[threadIdx.x];
}
