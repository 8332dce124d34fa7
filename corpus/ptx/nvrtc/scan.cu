// Prefix sums.
// scan_hillis: inclusive Hillis-Steele scan of u32 over one block, double-buffered in shared
//   memory (2 x 256 words), log2(256) rounds separated by __syncthreads.
// scan_blelloch: exclusive work-efficient scan (up-sweep, clear, down-sweep) of 512 ints per
//   block by 256 threads, with a padded index to avoid bank conflicts, plus the block total.
// scan_warp: inclusive float scan, per warp with __shfl_up_sync, warp totals through shared
//   memory scanned by warp 0, then added back (the order of every sum is fixed by the code).
#define PAD(i) ((i) + ((i) >> 5))

extern "C" __global__ void scan_hillis(const unsigned *in, unsigned *out)
{
    __shared__ unsigned buf[2][256];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 256;
    int cur = 0;
    buf[0][t] = in[base + t];
    __syncthreads();
    for (unsigned off = 1; off < 256; off <<= 1) {
        unsigned v = buf[cur][t];
        if (t >= off)
            v += buf[cur][t - off];
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    out[base + t] = buf[cur][t];
}

extern "C" __global__ void scan_blelloch(const int *in, int *out, int *totals)
{
    __shared__ int s[PAD(512) + 1];
    int t = threadIdx.x;
    int base = blockIdx.x * 512;
    s[PAD(2 * t)] = in[base + 2 * t];
    s[PAD(2 * t + 1)] = in[base + 2 * t + 1];
    int off = 1;
    for (int d = 256; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            s[PAD(b)] += s[PAD(a)];
        }
        off *= 2;
    }
    if (t == 0) {
        totals[blockIdx.x] = s[PAD(511)];
        s[PAD(511)] = 0;
    }
    for (int d = 1; d < 512; d *= 2) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            int x = s[PAD(a)];
            s[PAD(a)] = s[PAD(b)];
            s[PAD(b)] += x;
        }
    }
    __syncthreads();
    out[base + 2 * t] = s[PAD(2 * t)];
    out[base + 2 * t + 1] = s[PAD(2 * t + 1)];
}

extern "C" __global__ void scan_warp(const float *in, float *out)
{
    __shared__ float totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float v = in[i];
    for (int off = 1; off < 32; off <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off)
            v += u;
    }
    if (lane == 31)
        totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float w = lane < (int)(blockDim.x >> 5) ? totals[lane] : 0.0f;
        for (int off = 1; off < 32; off <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, w, off);
            if (lane >= off)
                w += u;
        }
        totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0)
        v += totals[warp - 1];
    out[i] = v;
}
