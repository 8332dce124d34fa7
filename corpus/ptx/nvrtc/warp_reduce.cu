// Warp-shuffle reductions: a float sum down a tree (__shfl_down_sync), an int sum and an
// unsigned max across a butterfly (__shfl_xor_sync, every lane ends with the total), and a
// broadcast from lane 0 (__shfl_sync). Threads past n take part with neutral values.
extern "C" __global__ void warp_reduce(const float *in, const int *iv, float *fsum, int *isum,
                                       unsigned *umax, float *bcast, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = i < n ? in[i] : 0.0f;
    int x = i < n ? iv[i] : 0;
    unsigned u = i < n ? (unsigned)iv[i] * 2654435761u : 0u;

    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    for (int off = 1; off < 32; off <<= 1)
        x += __shfl_xor_sync(0xffffffffu, x, off);
    for (int off = 1; off < 32; off <<= 1)
        u = max(u, __shfl_xor_sync(0xffffffffu, u, off));
    float first = __shfl_sync(0xffffffffu, v, 0);

    int warp = i >> 5;
    if (lane == 0) {
        fsum[warp] = v;
        umax[warp] = u;
    }
    isum[i] = x;
    bcast[i] = first * (float)(lane + 1);
}
