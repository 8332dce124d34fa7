/* C twin of matmul_tiled.cu: acc = fmaf(a, b, acc) over k in increasing order, the zero
 * padding of the last tile included (fmaf(0, 0, acc) can turn -0 into +0, so it is done too). */
#include "twin.h"
#define TS 16

int main(void) {
  twin_begin();
  const float *A = twin_buf("A"), *B = twin_buf("B");
  float *C = twin_buf("C");
  int M = (int)twin_param(3), N = (int)twin_param(4), K = (int)twin_param(5);
  float alpha = twin_param_f32(6), beta = twin_param_f32(7);
  for (int row = 0; row < M; row++)
    for (int col = 0; col < N; col++) {
      float acc = 0.0f;
      int kmax = (K + TS - 1) / TS * TS;
      for (int k = 0; k < kmax; k++) {
        float a = k < K ? A[row * K + k] : 0.0f, b = k < K ? B[k * N + col] : 0.0f;
        acc = fmaf(a, b, acc);
      }
      volatile float bc = beta * C[row * N + col];
      C[row * N + col] = fmaf(alpha, acc, bc);
    }
  twin_end();
  return 0;
}
