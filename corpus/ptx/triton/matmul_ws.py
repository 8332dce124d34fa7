"""matmul_ws: Triton's automatic warp specialization on Hopper (`tl.range(...,
warp_specialize=True)`): C = A @ B in f16 with f32 accumulation through device-side tensor
descriptors, A 128x256, B 256x64, tiles 64x64x32, grid (2, 1), num_warps 4 — which Triton turns
into 12 warps (`.reqntid 384`): the default partition (the 4 warps of the epilogue) plus a
producer partition issuing the TMA loads (`cp.async.bulk.tensor.2d...mbarrier::complete_tx`)
and a consumer warpgroup running `wgmma`, handing the 3-stage ring over with mbarriers
(`arrive.expect_tx`, `try_wait.parity`, `arrive`), re-balancing registers with
`setmaxnreg.inc/dec.sync.aligned`, and meeting at named barriers (`bar.sync 0, 128`,
`barrier.sync 1`). The K loop has 8 steps, so every stage of the ring is reused and the
barrier parities flip. sm_90a only (the sm_80 path has no warp specialization)."""
import triton
import triton.language as tl


@triton.jit
def matmul_ws(a_ptr, b_ptr, c_ptr, M, N, K,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


ARCHS = (90,)

M, N, K, BM, BN, BK = 128, 64, 256, 64, 64, 32


def case(cap):
    import numpy as np
    from common import small_ints, exact_matmul
    # Integers in [-2, 2]: every product and partial sum is an integer of magnitude at most
    # 256 * 4 = 1024, exact in the f32 accumulator whatever the order, and the result is exact
    # in f16 (integers up to 2048).
    a = small_ints(M * K, 141, -2, 2).reshape(M, K).astype(np.float16)
    b = small_ints(K * N, 142, -2, 2).reshape(K, N).astype(np.float16)
    c = exact_matmul(a, b)
    assert np.all(np.abs(c) <= 1024)
    return dict(
        kernel=matmul_ws, num_warps=4, grid=[M // BM, N // BN],
        args=[("a_ptr", "*fp16", "a"), ("b_ptr", "*fp16", "b"), ("c_ptr", "*fp16", "c"),
              ("M", "i32", M), ("N", "i32", N), ("K", "i32", K),
              ("BM", "constexpr", BM), ("BN", "constexpr", BN), ("BK", "constexpr", BK)],
        buffers=[("a", a), ("b", b), ("c", M * N * 2)],
        expected={"c": c.astype(np.float16)},
    )
