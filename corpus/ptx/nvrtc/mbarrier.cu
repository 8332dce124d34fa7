// Arrive/wait barriers in shared memory (mbarrier).
// barrier_phases: cuda::barrier<thread_scope_block> through four phases, with arrive_and_wait
//   and with a split arrive() ... wait(token) around independent work.
// barrier_memcpy: cuda::memcpy_async of a 16-byte-aligned tile completing on the barrier: on
//   compute_80 cp.async + cp.async.mbarrier.arrive, on compute_90 the bulk copy
//   cp.async.bulk...mbarrier::complete_tx::bytes with mbarrier.expect_tx.
// mbarrier_raw: the cuda_awbarrier_primitives.h layer (__mbarrier_init, __mbarrier_arrive,
//   __mbarrier_test_wait / __mbarrier_try_wait_parity on compute_90, __mbarrier_inval).
#include <cuda/barrier>
#include <cuda_awbarrier_primitives.h>

#define T 128
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void barrier_phases(const unsigned *in, unsigned *out)
{
    __shared__ unsigned s[2][T];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    unsigned v = in[blockIdx.x * T + t];
    for (int phase = 0; phase < 4; phase++) {
        s[phase & 1][t] = v;
        bar.arrive_and_wait();
        v = v * 3u + s[phase & 1][(t + 1 + phase * 7) % T];
    }
    s[0][t] = v;
    block_barrier::arrival_token tok = bar.arrive();
    unsigned local = v ^ 0x5bd1e995u;
    bar.wait(std::move(tok));
    out[blockIdx.x * T + t] = local + s[0][T - 1 - t];
}

extern "C" __global__ void barrier_memcpy(const float4 *in, float *out)
{
    __shared__ __align__(16) float4 tile[T];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    if (t == 0)
        cuda::memcpy_async(tile, in + blockIdx.x * T, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    float4 v = tile[(t * 3) % T];
    out[blockIdx.x * T + t] = v.x - v.y + v.z * 0.5f - v.w;
}

extern "C" __global__ void mbarrier_raw(const int *in, int *out)
{
    __shared__ int s[T];
    __shared__ __mbarrier_t bar;
    int t = threadIdx.x;
    if (t == 0)
        __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    int v = in[blockIdx.x * T + t];
    for (int phase = 0; phase < 3; phase++) {
        s[t] = v;
        __mbarrier_token_t tok = __mbarrier_arrive(&bar);
#if __CUDA_ARCH__ >= 900
        (void)tok;
        while (!__mbarrier_try_wait_parity(&bar, phase & 1, 1000)) {
        }
#else
        while (!__mbarrier_test_wait(&bar, tok)) {
        }
#endif
        v = max(v, s[(t + 17) % T]) - phase;
        __syncthreads();
    }
    __syncthreads();
    if (t == 0)
        __mbarrier_inval(&bar);
    out[blockIdx.x * T + t] = v;
}
