// Single precision with subnormals (no -ftz): IEEE add, sub, mul, div (div.rn.f32), sqrt,
// fmaf, and the rounding-mode intrinsics __fadd_rz/ru, __fsub_rd, __fmul_rz/rd, __fdiv_rz/ru,
// __fsqrt_rd/ru, __frcp_rn/rz, __fmaf_ru/rz; fminf/fmaxf, __saturatef, copysignf, and
// __fmul_rn(x, y) + z, which is never contracted.
extern "C" __global__ void f32_directed(const float *a, const float *b, const float *c,
                                        float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + 24 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = sqrtf(x);
    o[5] = fmaf(x, y, z);
    o[6] = __fadd_rz(x, y);
    o[7] = __fadd_ru(x, y);
    o[8] = __fsub_rd(x, y);
    o[9] = __fmul_rz(x, y);
    o[10] = __fmul_rd(x, y);
    o[11] = __fdiv_rz(x, y);
    o[12] = __fdiv_ru(x, y);
    o[13] = __fsqrt_rd(x);
    o[14] = __fsqrt_ru(x);
    o[15] = __frcp_rn(x);
    o[16] = __frcp_rz(x);
    o[17] = __fmaf_ru(x, y, z);
    o[18] = __fmaf_rz(x, y, z);
    o[19] = fminf(x, y);
    o[20] = fmaxf(x, y);
    o[21] = __saturatef(__fadd_rn(x, 0.0f));
    o[22] = copysignf(x, y);
    o[23] = __fmul_rn(x, y) + z;
}
