// Grid-stride saxpy in f32, y[i] = a * x[i] + y[i] for i < n (contracted to fma.rn.f32 by
// NVRTC's default -fmad=true; the host program saxpy_nvcc.host.c calls fmaf). Replaces the
// hand-written nvcc-style saxpy_nvcc.ptx of ../nvcc: same entry, parameters and launch.
extern "C" __global__ void __launch_bounds__(128)
saxpy_nvcc(int n, float a, const float *__restrict__ x, float *__restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
