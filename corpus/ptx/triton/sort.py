"""sort: tl.sort of a 4 x 64 block in one program along the rows: f32 ascending and int32
descending (bitonic networks of compare-and-swap over a reshaped hypercube: shuffles and
shared-memory layout conversions)."""
import triton
import triton.language as tl


@triton.jit
def sort(f_ptr, i_ptr, fs_ptr, is_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    f = tl.load(f_ptr + offs)
    i = tl.load(i_ptr + offs)
    tl.store(fs_ptr + offs, tl.sort(f, dim=1))
    tl.store(is_ptr + offs, tl.sort(i, dim=1, descending=True))


ARCHS = (80, 90)
ROWS, COLS = 4, 64


def case(cap):
    import numpy as np
    from common import mixes, uniform_f32, small_ints
    f = uniform_f32(ROWS * COLS, 90, -100.0, 100.0).reshape(ROWS, COLS)
    f[0, :] = f[0, ::-1].copy()
    f[1, :] = np.sort(f[1, :])[::-1]                 # reverse-sorted row
    f[2, ::3] = 7.5                                  # repeated values
    f[3, 5], f[3, 6] = np.inf, -np.inf
    f[f == 0] = 0.5                                  # no +-0 (they compare equal, bits differ)
    i = np.array([m >> 32 for m in mixes(ROWS * COLS, 91)], dtype=np.uint64)
    i = i.astype(np.uint32).view(np.int32).reshape(ROWS, COLS)
    i[1, :] = small_ints(COLS, 92, -5, 5)            # many duplicates
    i[2, 0], i[2, 1] = -2**31, 2**31 - 1
    assert not np.any(np.isnan(f))
    return dict(
        kernel=sort, num_warps=2, grid=[1],
        args=[("f_ptr", "*fp32", "f"), ("i_ptr", "*i32", "i"), ("fs_ptr", "*fp32", "fs"),
              ("is_ptr", "*i32", "is"), ("ROWS", "constexpr", ROWS), ("COLS", "constexpr", COLS)],
        buffers=[("f", f), ("i", i), ("fs", ROWS * COLS * 4), ("is", ROWS * COLS * 4)],
        expected={"fs": np.sort(f, axis=1), "is": np.sort(i, axis=1)[:, ::-1].copy()},
    )
