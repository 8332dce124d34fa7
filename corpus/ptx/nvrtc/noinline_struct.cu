// __noinline__ device functions: one with eight arguments of different types (u8, s16, u32,
// s64, f32, f64, a pointer, an int) returning a 24-byte struct; one taking a struct by value
// and returning an int4; a void one writing through a pointer. NVVM passes them in .param
// space (func_retval0 as an aligned byte array).
struct Res {
    int i;
    float f;
    double d;
    unsigned long long u;
};

struct Pair {
    short lo;
    short hi;
    float scale;
};

__device__ __noinline__ Res mix(unsigned char a, short b, unsigned c, long long d, float e,
                                double f, const int *p, int k)
{
    Res r;
    r.i = (int)a * b + (int)(c >> 3) + p[k & 7];
    r.f = fmaf(e, (float)b, (float)a);
    r.d = f / (double)(c | 1u) - (double)d;
    r.u = ((unsigned long long)c << 32) ^ (unsigned long long)d ^ a;
    return r;
}

__device__ __noinline__ int4 spread(Pair q, unsigned w)
{
    return make_int4(q.lo, q.hi, (int)(q.scale * 8.0f), (int)(w % 1000u) - q.lo);
}

__device__ __noinline__ void store_twice(unsigned long long *dst, unsigned long long v)
{
    dst[0] = v;
    dst[1] = ~v;
}

extern "C" __global__ void noinline_struct(const unsigned *in, const int *tab, int *oi,
                                           float *of, double *od, unsigned long long *ou,
                                           int4 *o4, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned w = in[i], v = in[n + i];
    long long d = (long long)(((unsigned long long)v << 32) | w);
    float e = (float)(int)(w & 0xffff) * 0.015625f - 512.0f;
    double f = (double)(int)v * 0.25;
    Res r = mix((unsigned char)w, (short)(w >> 8), v, d, e, f, tab, (int)(v >> 5));
    oi[i] = r.i;
    of[i] = r.f;
    od[i] = r.d;
    store_twice(ou + 2 * i, r.u);
    Pair q = {(short)(v >> 16), (short)w, e};
    o4[i] = spread(q, w ^ v);
}
