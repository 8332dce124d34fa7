/* C twin of saxpy_template.cu: y = fma(a, x, y) (the contraction nvcc applies by default,
 * checked in the PTX: fma.rn.f32 / fma.rn.f64), integers wrapping to 16 bits. */
#include "twin.h"

int main(void) {
  twin_begin();
  int n = (int)twin_param(3);
  if (twin_is("_Z4axpyIfEvPT_PKS0_S0_i")) {
    float *y = twin_buf("y");
    const float *x = twin_buf("x");
    float a = twin_param_f32(2);
    for (int i = 0; i < n; i++) y[i] = fmaf(a, x[i], y[i]);
  } else if (twin_is("_Z4axpyIdEvPT_PKS0_S0_i")) {
    double *y = twin_buf("y");
    const double *x = twin_buf("x");
    double a = twin_param_f64(2);
    for (int i = 0; i < n; i++) y[i] = fma(a, x[i], y[i]);
  } else {
    uint16_t *y = twin_buf("y");
    const uint16_t *x = twin_buf("x");
    uint16_t a = (uint16_t)twin_param(2);
    for (int i = 0; i < n; i++) y[i] = (uint16_t)(a * x[i] + y[i]);
  }
  twin_end();
  return 0;
}
