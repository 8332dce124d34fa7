// Double precision: IEEE add, sub, mul, div, sqrt, fma; a*b+c (built with --fmad=false, so it
// stays a mul and an add: NVVM's contraction choice depends on common subexpressions); the
// directed-rounding intrinsics (__dadd_rz, __dmul_ru, __ddiv_rd, __dsqrt_ru, __fma_rz,
// __drcp_rn ...); fmin/fmax; rounding to integers; f64 -> f32 -> f64.
extern "C" __global__ void f64_arith(const double *a, const double *b, const double *c,
                                     double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + 24 * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = sqrt(x);
    o[5] = fma(x, y, z);
    o[6] = x * y + z;
    o[7] = __dadd_rz(x, y);
    o[8] = __dadd_ru(x, y);
    o[9] = __dsub_rd(x, y);
    o[10] = __dmul_ru(x, y);
    o[11] = __dmul_rz(x, y);
    o[12] = __ddiv_rd(x, y);
    o[13] = __ddiv_ru(x, y);
    o[14] = __dsqrt_ru(x);
    o[15] = __dsqrt_rz(x);
    o[16] = __fma_rz(x, y, z);
    o[17] = __fma_rd(x, y, z);
    o[18] = __drcp_rn(x);
    o[19] = fmin(x, y);
    o[20] = fmax(x, y);
    o[21] = (double)(float)x;
    o[22] = rint(x) + floor(y) * 0.5;
    o[23] = trunc(x) - ceil(y);
}
