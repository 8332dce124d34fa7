// Double-precision math library (libdevice): exp, log, sin, cos (small and large arguments,
// the latter through the Payne-Hanek reduction), tan, pow, erf, tanh, cbrt, rsqrt, sqrt,
// atan2. The input x (and y) holds one segment of N values per function.
#define N 64

extern "C" __global__ void math_f64(const double *x, const double *y, double *exp_,
                                    double *log_, double *sin_, double *cos_, double *sin_big,
                                    double *pow_, double *erf_, double *tanh_, double *cbrt_,
                                    double *rsqrt_, double *sqrt_, double *atan2_, double *tan_)
{
    int i = threadIdx.x;
    exp_[i] = exp(x[0 * N + i]);
    log_[i] = log(x[1 * N + i]);
    sin_[i] = sin(x[2 * N + i]);
    cos_[i] = cos(x[2 * N + i]);
    sin_big[i] = sin(x[3 * N + i]);
    pow_[i] = pow(x[4 * N + i], y[4 * N + i]);
    erf_[i] = erf(x[5 * N + i]);
    tanh_[i] = tanh(x[6 * N + i]);
    cbrt_[i] = cbrt(x[7 * N + i]);
    rsqrt_[i] = rsqrt(x[8 * N + i]);
    sqrt_[i] = sqrt(x[8 * N + i]);
    atan2_[i] = atan2(x[9 * N + i], y[9 * N + i]);
    tan_[i] = tan(x[2 * N + i]);
}
