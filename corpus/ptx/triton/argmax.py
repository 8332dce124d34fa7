"""argmax: per row of an 8 x 50 f32 matrix (BLOCK = 64, masked columns read as -inf):
tl.argmax and tl.argmin (ties go to the lowest index), tl.max and tl.min values; one program
per row, 2 warps (shuffle butterflies carrying (value, index) pairs plus a shared-memory step)."""
import triton
import triton.language as tl


@triton.jit
def argmax(x_ptr, imax_ptr, imin_ptr, vmax_ptr, vmin_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    tl.store(imax_ptr + row, tl.argmax(x, axis=0))
    tl.store(vmax_ptr + row, tl.max(x, axis=0))
    y = tl.where(mask, x, float("inf"))
    tl.store(imin_ptr + row, tl.argmin(y, axis=0))
    tl.store(vmin_ptr + row, tl.min(y, axis=0))


ARCHS = (80, 90)
ROWS, COLS, STRIDE, BLOCK = 8, 50, 64, 64


def case(cap):
    import numpy as np
    from common import small_ints, uniform_f32
    x = uniform_f32(ROWS * STRIDE, 60, -8.0, 8.0).reshape(ROWS, STRIDE)
    x[:, COLS:] = 100.0                               # beyond n_cols: never read into the result
    t = small_ints(COLS, 61, -3, 2)
    x[1, :COLS] = np.where(t >= 0, t + 1, t)          # from {-3..-1, 1..3}: many ties
    x[2, 5] = x[2, 44] = 9.0                          # tie for the max, the lower index wins
    x[3, 0] = 9.5                                     # max at column 0
    x[3, 49] = -9.5                                   # min at the last valid column
    x[4, :COLS] = 1.25                                # all equal: both indices 0
    x[5, 20] = np.inf
    x[5, 21] = -np.inf                                # infinities win
    imax, imin = np.zeros(ROWS, np.int32), np.zeros(ROWS, np.int32)
    vmax, vmin = np.zeros(ROWS, np.float32), np.zeros(ROWS, np.float32)
    for r in range(ROWS):
        v = x[r, :COLS]
        imax[r], imin[r] = np.argmax(v), np.argmin(v)  # numpy: the first occurrence
        vmax[r], vmin[r] = v.max(), v.min()
    assert not np.any(x[:, :COLS] == 0)              # no +-0 ties (max.f32 may pick either)
    return dict(
        kernel=argmax, num_warps=2, grid=[ROWS],
        args=[("x_ptr", "*fp32", "x"), ("imax_ptr", "*i32", "imax"), ("imin_ptr", "*i32", "imin"),
              ("vmax_ptr", "*fp32", "vmax"), ("vmin_ptr", "*fp32", "vmin"),
              ("n_cols", "i32", COLS), ("stride", "i32", STRIDE), ("BLOCK", "constexpr", BLOCK)],
        buffers=[("x", x), ("imax", ROWS * 4), ("imin", ROWS * 4), ("vmax", ROWS * 4),
                 ("vmin", ROWS * 4)],
        expected={"imax": imax, "imin": imin, "vmax": vmax, "vmin": vmin},
    )
