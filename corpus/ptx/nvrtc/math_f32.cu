// Single-precision math library (libdevice) and intrinsics. Built twice: the default build
// (accurate functions, IEEE division and square root, subnormals) and --use_fast_math (expf ->
// __expf, sinf -> __sinf, ..., -ftz=true, -prec-div=false, -prec-sqrt=false).
// The input x (and y) holds one segment of N values per function, each segment in the range the
// function's error bound is stated for.
#define N 128

extern "C" __global__ void math_f32(const float *x, const float *y, float *exp_, float *log_near,
                                    float *log_far, float *sin_small, float *cos_small,
                                    float *sin_big, float *pow_, float *erf_, float *exp2_,
                                    float *log2_, float *tanh_, float *rsqrt_, float *sqrt_,
                                    float *div_)
{
    int i = threadIdx.x;
    exp_[i] = expf(x[0 * N + i]);
    log_near[i] = logf(x[1 * N + i]);
    log_far[i] = logf(x[2 * N + i]);
    sin_small[i] = sinf(x[3 * N + i]);
    cos_small[i] = cosf(x[3 * N + i]);
    sin_big[i] = sinf(x[4 * N + i]);
    pow_[i] = powf(x[5 * N + i], y[5 * N + i]);
    erf_[i] = erff(x[6 * N + i]);
    exp2_[i] = exp2f(x[7 * N + i]);
    log2_[i] = log2f(x[2 * N + i]);
    tanh_[i] = tanhf(x[8 * N + i]);
    rsqrt_[i] = rsqrtf(x[9 * N + i]);
    sqrt_[i] = sqrtf(x[9 * N + i]);
    div_[i] = x[10 * N + i] / y[10 * N + i];
}

// The intrinsics, called by name: the same in both builds.
extern "C" __global__ void math_f32_intrinsics(const float *x, const float *y, float *exp_,
                                               float *log_near, float *log_far, float *sin_small,
                                               float *cos_small, float *pow_, float *log2_,
                                               float *fdiv, float *rsqrt_rn)
{
    int i = threadIdx.x;
    exp_[i] = __expf(x[0 * N + i]);
    log_near[i] = __logf(x[1 * N + i]);
    log_far[i] = __logf(x[2 * N + i]);
    sin_small[i] = __sinf(x[3 * N + i]);
    cos_small[i] = __cosf(x[3 * N + i]);
    pow_[i] = __powf(x[5 * N + i], y[5 * N + i]);
    log2_[i] = __log2f(x[2 * N + i]);
    fdiv[i] = __fdividef(x[10 * N + i], y[10 * N + i]);
    rsqrt_rn[i] = __frsqrt_rn(x[9 * N + i]);
}
