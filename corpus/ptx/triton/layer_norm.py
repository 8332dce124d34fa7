"""layer_norm: forward layer norm of 4 rows x 48 f32 columns (row stride 64), BLOCK = 64,
one program per row; writes y, the row means and the reciprocal standard deviations
(the Triton tutorial's layer norm, single-block variant)."""
import triton
import triton.language as tl


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
               BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    y = xc * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


ARCHS = (80, 90)
ROWS, N, STRIDE, BLOCK, EPS = 4, 48, 64, 64, 2.0**-10


def case(cap):
    import numpy as np
    from common import small_ints
    # x, w, b are multiples of 1/8 in [-2, 2]: every partial sum of x is exact in f32.
    x = (small_ints(ROWS * STRIDE, 4, -16, 16) / 8.0).astype(np.float32).reshape(ROWS, STRIDE)
    w = (small_ints(STRIDE, 5, -16, 16) / 8.0).astype(np.float32)
    b = (small_ints(STRIDE, 6, -16, 16) / 8.0).astype(np.float32)
    y = np.zeros((ROWS, STRIDE), dtype=np.float64)
    mean = np.zeros(ROWS)
    rstd = np.zeros(ROWS)
    bound = 0.0
    u = 2.0**-24
    er = 1.0e-5                                   # the rstd rule below
    for r in range(ROWS):
        v = x[r, :N].astype(np.float64)
        mean[r] = v.sum() / N
        xc = v - mean[r]
        var = (xc * xc).sum() / N
        rstd[r] = 1 / np.sqrt(var + EPS)
        y[r, :N] = xc * rstd[r] * w[:N] + b[:N]
        # |dy| <= |rstd w| dxc + |xc rstd w| (er + 2u) + u (|y| + |b|), dxc <= 3e-7 |mean| + u |xc|
        dxc = 3e-7 * abs(mean[r]) + u * np.abs(xc)
        bound = max(bound, float(np.max(np.abs(rstd[r] * w[:N]) * dxc
                                        + np.abs(xc * rstd[r] * w[:N]) * (er + 2 * u)
                                        + u * (np.abs(y[r, :N]) + np.abs(b[:N])))))
    assert bound < 1e-4, bound
    why_common = ("Inputs x, w, b are multiples of 1/8 in [-2, 2], so sum(x) (48 terms, any order) "
                  "is exact. Triton lowers `/ N` to cvt.rn.f32.s32 + div.full.f32 (max 2 ulp, PTX "
                  "ISA 8.7 div), tl.sqrt to sqrt.approx.ftz.f32 (max rel 2^-23; var + eps >= "
                  "2^-10 is normal) and 1/s to div.full.f32. ")
    return dict(
        kernel=layer_norm, num_warps=2, grid=[ROWS],
        args=[("x_ptr", "*fp32", "x"), ("y_ptr", "*fp32", "y"), ("w_ptr", "*fp32", "w"),
              ("b_ptr", "*fp32", "b"), ("mean_ptr", "*fp32", "mean"), ("rstd_ptr", "*fp32", "rstd"),
              ("stride", "i32", STRIDE), ("N", "i32", N), ("eps", "fp32", EPS),
              ("BLOCK", "constexpr", BLOCK)],
        buffers=[("x", x), ("y", ROWS * STRIDE * 4), ("w", w), ("b", b), ("mean", ROWS * 4),
                 ("rstd", ROWS * 4)],
        expected={"y": y.astype(np.float32), "mean": mean.astype(np.float32),
                  "rstd": rstd.astype(np.float32)},
        compare={
            "mean": {"elem": "f32", "rule": "rel:3e-7", "why": why_common +
                     "mean = div.full.f32(exact sum, 48.0): within 2 ulp of the exact quotient, "
                     "so within 2.5 ulp <= 2.5 * 2^-23 = 3e-7 relative of the correctly rounded "
                     "expected value."},
            "rstd": {"elem": "f32", "rule": "rel:1e-5", "why": why_common +
                     "mean has rel error <= 2.5 * 2^-23 = 3e-7 (|mean| <= 2); xc = fl(x - mean) then "
                     "has abs error <= 3e-7 |mean| + 2^-24 |xc|; var (rows have var >= 0.4) = "
                     "sum of 48 squares in any order / 48: rel error <= 48 * 2^-24 + 2 * max "
                     "dxc / rms + 3e-7 <= 5e-6; + eps (2^-24), sqrt.approx (2^-23), div.full "
                     "(3e-7): rstd rel error <= 5e-6 / 2 + 5e-7 < 1e-5."},
            "y": {"elem": "f32", "rule": "abs:1e-4", "why": why_common +
                  "y = xc * rstd * w + b (mul, then mul or fma): |dy| <= |rstd w| dxc + |xc rstd w| "
                  "(1e-5 + 2 * 2^-24) + 2^-24 (|y| + |b|), evaluated over these inputs: "
                  f"max {bound:.2e} < 1e-4."},
        },
    )
