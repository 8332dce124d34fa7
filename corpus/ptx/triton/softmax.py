"""softmax: row-wise softmax of a 6 x 50 f32 matrix (row stride 64), one program per row,
BLOCK = 64 columns, masked columns read as -inf (the Triton tutorial's fused softmax)."""
import triton
import triton.language as tl


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


ARCHS = (80, 90)
ROWS, COLS, STRIDE, BLOCK = 6, 50, 64, 64


def case(cap):
    import numpy as np
    from common import uniform_f32
    x = uniform_f32(ROWS * STRIDE, 3, -2.0, 2.0).reshape(ROWS, STRIDE)
    x[1, :COLS] = x[1, 0]                        # a constant row: every output 1/50
    x[2, 7] = x[2, 30] = 2.0                     # a repeated maximum
    ref = np.zeros((ROWS, STRIDE), dtype=np.float64)
    for r in range(ROWS):
        v = x[r, :COLS].astype(np.float64)
        e = np.exp(v - v.max())
        ref[r, :COLS] = e / e.sum()
    return dict(
        kernel=softmax, num_warps=2, grid=[ROWS],
        args=[("out_ptr", "*fp32", "out"), ("in_ptr", "*fp32", "x"), ("in_stride", "i32", STRIDE),
              ("out_stride", "i32", STRIDE), ("n_cols", "i32", COLS),
              ("BLOCK", "constexpr", BLOCK)],
        buffers=[("out", ROWS * STRIDE * 4), ("x", x)],
        expected={"out": ref.astype(np.float32)},
        compare={"out": {"elem": "f32", "rule": "rel:1e-5", "why": WHY}},
    )


WHY = ("expected = float64 softmax rounded to f32. Inputs are k/2^22 in [-2, 2), so d = x - max "
       "is exact (Sterbenz/same grid) with |d| <= 4. Triton lowers tl.exp(d) to "
       "ex2.approx.f32(fl(d * 0x3FB8AA3B)): the f32 constant log2(e)(1 + 1.3e-8) and the rounded "
       "product put an absolute error <= 5.8 * (2^-24 + 1.3e-8) = 4.2e-7 on the exponent, a "
       "relative error <= 2.9e-7 on 2^t; ex2.approx.f32 is within 2 ulp of the correctly rounded "
       "result (PTX ISA 8.7, ex2), <= 2.5 * 2^-23 = 3.0e-7. So each num_i has rel error "
       "<= 6e-7; den = sum of 50 such terms in the compiler's order adds <= 49 * 2^-24 = 2.9e-6; "
       "num/den is div.full.f32 (<= 2 ulp = 2.4e-7, PTX ISA 8.7 div) and the final rounding 6e-8. "
       "Total <= 6e-7 + 6e-7 + 2.9e-6 + 2.4e-7 + 6e-8 = 4.4e-6 < 1e-5.")
