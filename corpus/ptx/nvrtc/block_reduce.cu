// Block reductions with shared memory and __syncthreads.
// block_reduce_tree: the classic halving tree over a 256-float shared array (sequential
// addressing), one partial sum per block, plus an int max over the same tree.
// block_reduce_warp: a double sum, each warp with __shfl_down_sync (64-bit shuffles), warp
// results through shared memory, the first warp finishing them.
extern "C" __global__ void block_reduce_tree(const float *in, float *out, int *imax, int n)
{
    __shared__ float s[256];
    __shared__ int m[256];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    m[t] = i < n ? __float_as_int(in[i]) : (int)0x80000000;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            s[t] += s[t + stride];
            m[t] = max(m[t], m[t + stride]);
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
        imax[blockIdx.x] = m[0];
    }
}

extern "C" __global__ void block_reduce_warp(const double *in, double *out, int n)
{
    __shared__ double warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    double v = i < n ? in[i] : 0.0;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x / 32;
        v = lane < nwarps ? warp_sums[lane] : 0.0;
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}
