// Tensor cores through nvcuda::wmma (mma.h): D = A * B + C with A row-major M x K, B
// column-major K x N, C and D row-major float, one warp per 16 x 16 tile of D.
// wmma_f16: m16n16k16, half inputs, float accumulators (wmma.load / wmma.mma.sync /
// wmma.store .f32.f32); wmma_bf16: the same with __nv_bfloat16; wmma_tf32: m16n16k8 with
// precision::tf32 (fragment elements rounded with __float_to_tf32).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_f16(const half *a, const half *b, const float *c, float *d,
                                    int M, int N, int K)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 16), tn = warp % (N / 16);
    if (tm * 16 >= M)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                     const float *c, float *d, int M, int N, int K)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 16), tn = warp % (N / 16);
    if (tm * 16 >= M)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_tf32(const float *a, const float *b, const float *c, float *d,
                                     int M, int N, int K)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 16), tn = warp % (N / 16);
    if (tm * 16 >= M)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 8) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        for (int t = 0; t < fa.num_elements; t++)
            fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
        for (int t = 0; t < fb.num_elements; t++)
            fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}
