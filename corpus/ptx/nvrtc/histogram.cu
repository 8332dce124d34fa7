// 256-bin byte histogram: per-block bins in shared memory updated with atomicAdd on __shared__
// (order-independent integer adds), merged into the global bins with atomicAdd; the input is
// read as uchar4 words in a grid-stride loop. A second, weighted histogram of 64 bins
// uses atomicAdd of unsigned long long on shared memory.
extern "C" __global__ void histogram(const uchar4 *data, int nwords, unsigned *bins,
                                     unsigned long long *wbins)
{
    __shared__ unsigned sb[256];
    __shared__ unsigned long long wb[64];
    for (int j = threadIdx.x; j < 256; j += blockDim.x)
        sb[j] = 0;
    for (int j = threadIdx.x; j < 64; j += blockDim.x)
        wb[j] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
        uchar4 w = data[i];
        atomicAdd(&sb[w.x], 1u);
        atomicAdd(&sb[w.y], 1u);
        atomicAdd(&sb[w.z], 1u);
        atomicAdd(&sb[w.w], 1u);
        atomicAdd(&wb[w.x >> 2], (unsigned long long)w.y * 0x100000001ull);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < 256; j += blockDim.x)
        if (sb[j])
            atomicAdd(&bins[j], sb[j]);
    for (int j = threadIdx.x; j < 64; j += blockDim.x)
        atomicAdd(&wbins[j], wb[j]);
}
