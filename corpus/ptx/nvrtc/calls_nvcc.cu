// Non-inlined device functions (C++-mangled .funcs, NVVM's call sequences): a u8 argument, a
// {u32, f32} struct returned by value, two {f64, f64} structs passed by value, non-tail
// recursion (depth <= 10), a void function storing through a generic pointer, and indirect
// calls through function pointers at two call sites. 3 blocks of 64 threads, n = 170. The model
// is calls_nvcc.host.c. Replaces the hand-written nvcc-style calls_nvcc.ptx of ../nvcc: same
// entry, parameters and launch.

struct pair {
  unsigned lo;
  float f;
};
struct vec2 {
  double x, y;
};
typedef unsigned (*binop)(unsigned, unsigned);

__device__ __noinline__ unsigned mix3(unsigned a, unsigned b, unsigned c, unsigned char sh) {
  return ((a ^ b) << (sh & 15)) + c * 0x01000193u;
}
__device__ __noinline__ pair split(unsigned x, float f, unsigned char c) {
  pair r = {x + c, f * 0.5f};
  return r;
}
__device__ __noinline__ double dot2(vec2 a, vec2 b) { return fma(a.x, b.x, a.y * b.y); }
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ void store2(unsigned *p, unsigned a, unsigned b) {
  p[0] = a;
  p[1] = b;
}
__device__ __noinline__ unsigned op_add(unsigned a, unsigned b) { return a + b; }
__device__ __noinline__ unsigned op_xor(unsigned a, unsigned b) { return a ^ (b >> 3); }
__device__ __noinline__ unsigned op_mul(unsigned a, unsigned b) { return a * (b | 1u); }
__device__ __noinline__ unsigned op_rot(unsigned a, unsigned b) {
  return (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31));
}

extern "C" __global__ void calls_nvcc(unsigned *out, double *dout, const unsigned *in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = in[i], b = in[(i + 1) % n];
  unsigned *o = &out[8 * i];
  o[0] = mix3(a, b, i, (unsigned char)(a >> 24));
  pair pr = split(a, (float)(b & 0xffff), (unsigned char)b);
  o[1] = pr.lo;
  o[2] = __float_as_uint(pr.f);
  vec2 u = {(double)a, (double)(int)b}, w = {0.25, -1.5 * (double)i};
  dout[i] = dot2(u, w);
  unsigned fb = fib(i % 11);
  o[3] = fb;
  unsigned sel = (b >> 3) & 3;
  binop f = sel == 0 ? op_add : sel == 1 ? op_xor : sel == 2 ? op_mul : op_rot;
  unsigned acc = f(a, b);
  binop g = (a & 1) ? op_rot : op_mul;
  acc = g(acc, i);
  o[4] = acc;
  store2(&o[5], acc ^ a, fib(a & 7));
  o[7] = mix3(acc, fb, b, 3);
}
