// A 1-D three-point stencil through a shared tile with halo cells, built three ways: plain,
// -lineinfo (.loc with inlined_at for the inlined helpers, .file at the end) and -G (debug:
// no optimisation, .target sm_80, debug, DWARF sections). The arithmetic calls fmaf explicitly
// so the three builds compute the same bits (-G changes what the compiler would contract).
#define B 64

__device__ __forceinline__ float load_or_zero(const float *in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

__device__ __forceinline__ float smooth(float l, float c, float r, float w)
{
    return fmaf(w, l + r, (1.0f - 2.0f * w) * c);
}

extern "C" __global__ void stencil(float *out, const float *in, int n, float w, int steps)
{
    __shared__ float t[B + 2];
    int i = blockIdx.x * B + threadIdx.x;
    float v = load_or_zero(in, i, n);
    for (int s = 0; s < steps; s++) {
        t[threadIdx.x + 1] = v;
        if (threadIdx.x == 0)
            t[0] = s == 0 ? load_or_zero(in, i - 1, n) : 0.0f;
        if (threadIdx.x == B - 1)
            t[B + 1] = s == 0 ? load_or_zero(in, i + 1, n) : 0.0f;
        __syncthreads();
        v = smooth(t[threadIdx.x], t[threadIdx.x + 1], t[threadIdx.x + 2], w);
        __syncthreads();
    }
    if (i < n)
        out[i] = v;
}
