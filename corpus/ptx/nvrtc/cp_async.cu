// Asynchronous global -> shared copies (compute_80 cp.async).
// cp_async_pipeline: a double-buffered loop with the cuda_pipeline.h primitives
//   (__pipeline_memcpy_async of 16 bytes, __pipeline_commit, __pipeline_wait_prior(1)), each
//   thread then reading another thread's element of the tile.
// cp_async_sizes: 4- and 8-byte copies, and a 16-byte copy of which only the first 8 bytes come
//   from global memory (the rest zero-filled: cp.async's src-size operand).
// cg_memcpy_async: cooperative_groups::memcpy_async of a whole tile by the block, cg::wait.
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

#define T 128

extern "C" __global__ void cp_async_pipeline(const int4 *in, unsigned *out, int ntiles)
{
    __shared__ __align__(16) int4 buf[2][T];
    int t = threadIdx.x;
    const int4 *src = in + blockIdx.x * ntiles * T;
    __pipeline_memcpy_async(&buf[0][t], &src[t], sizeof(int4));
    __pipeline_commit();
    unsigned acc = 0;
    for (int k = 0; k < ntiles; k++) {
        if (k + 1 < ntiles)
            __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &src[(k + 1) * T + t], sizeof(int4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        int4 v = buf[k & 1][(t * 5 + k) % T];
        acc = (acc * 31u) ^ ((unsigned)v.x + (unsigned)v.y * 3u + (unsigned)v.z * 5u + (unsigned)v.w * 7u);
        __syncthreads();
    }
    out[blockIdx.x * T + t] = acc;
}

extern "C" __global__ void cp_async_sizes(const unsigned *in, unsigned *out)
{
    __shared__ __align__(16) unsigned s4[T];
    __shared__ __align__(16) unsigned long long s8[T];
    __shared__ __align__(16) uint4 s16[T];
    int t = threadIdx.x;
    const unsigned *src = in + blockIdx.x * 8 * T;
    __pipeline_memcpy_async(&s4[t], &src[t], 4);
    __pipeline_memcpy_async(&s8[t], (const unsigned long long *)(src + T) + t, 8);
    __pipeline_memcpy_async(&s16[t], (const uint4 *)(src + 4 * T) + t, 16, 8);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int u = T - 1 - t;
    out[blockIdx.x * 8 * T + 8 * t + 0] = s4[u];
    out[blockIdx.x * 8 * T + 8 * t + 1] = (unsigned)s8[u];
    out[blockIdx.x * 8 * T + 8 * t + 2] = (unsigned)(s8[u] >> 32);
    out[blockIdx.x * 8 * T + 8 * t + 3] = s16[u].x;
    out[blockIdx.x * 8 * T + 8 * t + 4] = s16[u].y;
    out[blockIdx.x * 8 * T + 8 * t + 5] = s16[u].z;
    out[blockIdx.x * 8 * T + 8 * t + 6] = s16[u].w;
    out[blockIdx.x * 8 * T + 8 * t + 7] = s4[(u + 1) % T] ^ s16[(u + 7) % T].w;
}

extern "C" __global__ void cg_memcpy_async(const float *in, float *out, int n)
{
    __shared__ __align__(16) float tile[4 * T];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * n, sizeof(float) * n);
    cg::wait(block);
    int t = threadIdx.x;
    for (int j = t; j < n; j += T)
        out[blockIdx.x * n + j] = tile[n - 1 - j] * 2.0f;
}
