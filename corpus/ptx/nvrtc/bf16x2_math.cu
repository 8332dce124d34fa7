// bfloat16 math from cuda_bf16.h: packed bf16x2 add, sub, mul, fma, max, min and -|x|
// (compute_80 emulates add/sub/mul with fma.rn.bf16x2; compute_90 has add/sub/mul.bf16x2), and
// the conversions f32 -> bf16 in four rounding modes, bf16 -> f32, float2 -> bf16x2,
// f64 -> bf16, bf16 -> int and int -> bf16.
#include <cuda_bf16.h>

extern "C" __global__ void bf16x2_arith(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                                        const __nv_bfloat162 *c, __nv_bfloat162 *add,
                                        __nv_bfloat162 *sub, __nv_bfloat162 *mul,
                                        __nv_bfloat162 *fma, __nv_bfloat162 *mx,
                                        __nv_bfloat162 *mn, __nv_bfloat162 *nabs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat162 x = a[i], y = b[i], z = c[i];
    add[i] = __hadd2(x, y);
    sub[i] = __hsub2(x, y);
    mul[i] = __hmul2(x, y);
    fma[i] = __hfma2(x, y, z);
    mx[i] = __hmax2(x, y);
    mn[i] = __hmin2(x, y);
    nabs[i] = __hneg2(__habs2(x));
}

extern "C" __global__ void bf16_convert(const float *f, const double *d, const int *iv,
                                        __nv_bfloat16 *rn, __nv_bfloat16 *rz, __nv_bfloat16 *rd,
                                        __nv_bfloat16 *ru, float *back, __nv_bfloat162 *pair,
                                        __nv_bfloat16 *from_d, int *to_int_rn,
                                        __nv_bfloat16 *from_int, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = f[i];
    rn[i] = __float2bfloat16_rn(x);
    rz[i] = __float2bfloat16_rz(x);
    rd[i] = __float2bfloat16_rd(x);
    ru[i] = __float2bfloat16_ru(x);
    back[i] = __bfloat162float(rn[i]);
    pair[i] = __floats2bfloat162_rn(x, -2.0f * x);
    from_d[i] = __double2bfloat16(d[i]);
    to_int_rn[i] = __bfloat162int_rn(rn[i]);
    from_int[i] = __int2bfloat16_rn(iv[i]);
}
