// A function template instantiated for float and double (C++-mangled entry names, obtained
// with nvrtcAddNameExpression / nvrtcGetLoweredName): a grid-stride axpy through
// __restrict__ / __ldg pointers (ld.global.nc), with a * x[i] + y[i] contracted into fma.rn
// (nvcc's default -fmad=true; the twin calls fma), and an extern "C" integer variant.
template <typename T>
__global__ void axpy(T *__restrict__ y, const T *__restrict__ x, T a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * __ldg(&x[i]) + y[i];
}

template __global__ void axpy<float>(float *__restrict__, const float *__restrict__, float, int);
template __global__ void axpy<double>(double *__restrict__, const double *__restrict__, double,
                                      int);

extern "C" __global__ void axpy_u16(unsigned short *y, const unsigned short *x, unsigned short a,
                                    int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = (unsigned short)(a * x[i] + y[i]);
}
