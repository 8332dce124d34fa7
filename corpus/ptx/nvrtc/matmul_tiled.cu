// Shared-memory tiled SGEMM, C = alpha * A * B + beta * C, 16 x 16 tiles, each thread one
// element; the inner product accumulates acc += As * Bs, which nvcc contracts into fma.rn.f32
// (the twin calls fmaf in the same k order); ragged edges padded with zeros. The epilogue calls
// fmaf itself, so which of its two products gets fused is not left to the compiler.
#define TS 16

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N,
                                        int K, float alpha, float beta)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS + 1];
    int row = blockIdx.y * TS + threadIdx.y, col = blockIdx.x * TS + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; k++)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = fmaf(alpha, acc, beta * C[row * N + col]);
}
