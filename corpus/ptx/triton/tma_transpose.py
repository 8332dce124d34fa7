"""tma_transpose: a pure data-movement kernel through device-side tensor descriptors
(tl.make_tensor_descriptor): Y = X^T for an int32 matrix X of 80 x 52 in tiles of 32 x 32, grid
(3, 2), 4 warps. Both dimensions are ragged (80 = 2 * 32 + 16, 52 = 32 + 20), so the edge tiles
cross the tensor's bounds: a descriptor load fills the out-of-bounds elements with zeros, a
descriptor store writes only the in-bounds ones. The loaded tile, zeros included, is also
written through plain pointers into a padded 96 x 64 copy `pad`, which makes the zero fill
observable. sm_90a: each program builds two 128-byte CUtensorMaps in Triton's global scratch
(tensormap.replace.tile.* on a shared-memory copy, tensormap.cp_fenceproxy, fence.proxy.tensormap),
loads by TMA (cp.async.bulk.tensor.2d.shared::cta.global with mbarrier expect_tx/try_wait.parity)
and stores by TMA (cp.async.bulk.tensor.2d.global.shared::cta.bulk_group); no tensor cores.
sm_80 has no TMA: Triton lowers the descriptors to masked pointer arithmetic."""
import triton
import triton.language as tl


@triton.jit
def tma_transpose(x_ptr, y_ptr, pad_ptr, M, N, P,
                  BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[N, M], strides=[M, 1], block_shape=[BN, BM])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tile = x_desc.load([pid_m * BM, pid_n * BN])
    y_desc.store([pid_n * BN, pid_m * BM], tl.trans(tile))
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(pad_ptr + rm[:, None] * P + rn[None, :], tile)


ARCHS = (80, 90)

M, N, BM, BN = 80, 52, 32, 32


def case(cap):
    import numpy as np
    from common import mixes
    gm, gn = -(-M // BM), -(-N // BN)
    P = gn * BN
    # Random 32-bit patterns: the kernel only moves bits.
    x = np.array([m >> 32 for m in mixes(M * N, 140)], dtype=np.uint64).astype(np.uint32)
    x = x.view(np.int32).reshape(M, N)
    # TMA: global strides must be multiples of 16 bytes (N * 4 = 208, M * 4 = 320).
    assert (N * 4) % 16 == 0 and (M * 4) % 16 == 0
    y = np.ascontiguousarray(x.T)
    pad = np.zeros((gm * BM, P), dtype=np.int32)
    pad[:M, :N] = x
    return dict(
        kernel=tma_transpose, num_warps=4, grid=[gm, gn],
        args=[("x_ptr", "*i32", "x"), ("y_ptr", "*i32", "y"), ("pad_ptr", "*i32", "pad"),
              ("M", "i32", M), ("N", "i32", N), ("P", "i32", P),
              ("BM", "constexpr", BM), ("BN", "constexpr", BN)],
        buffers=[("x", x), ("y", N * M * 4), ("pad", gm * BM * P * 4)],
        expected={"y": y, "pad": pad},
    )
