"""matmul_tma: C = A @ B in f16 with f32 accumulation like matmul_f16 (A 128x64, B 64x64, tiles
64x64x32, grid (2, 1), 4 warps), but every tile moves through device-side tensor descriptors
(tl.make_tensor_descriptor, descriptor .load/.store). sm_90a: the descriptors are built in
Triton's global scratch memory (tensormap.replace, tensormap.cp_fenceproxy,
fence.proxy.tensormap), tiles arrive by TMA (cp.async.bulk.tensor with mbarrier
expect_tx/try_wait.parity, elect.sync), wgmma m64n64k16, and C leaves through stmatrix and a TMA
store (cp.async.bulk.tensor shared -> global, bulk_group). sm_80 has no TMA: Triton lowers the
descriptors to pointer arithmetic (cp.async, ldmatrix, mma.sync) and uses no scratch."""
import triton
import triton.language as tl


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


ARCHS = (80, 90)


def case(cap):
    import numpy as np
    from common import matmul_shapes, small_ints, exact_matmul
    M, N, K, BM, BN, BK = matmul_shapes()
    # Integers in [-4, 4]: exact products and partial sums, exact f16 result (see matmul_f16).
    a = small_ints(M * K, 24, -4, 4).reshape(M, K).astype(np.float16)
    b = small_ints(K * N, 25, -4, 4).reshape(K, N).astype(np.float16)
    c = exact_matmul(a, b)
    assert np.all(np.abs(c) <= 2048)
    return dict(
        kernel=matmul_tma, num_warps=4, grid=[M // BM, N // BN],
        args=[("a_ptr", "*fp16", "a"), ("b_ptr", "*fp16", "b"), ("c_ptr", "*fp16", "c"),
              ("M", "i32", M), ("N", "i32", N), ("K", "i32", K),
              ("BM", "constexpr", BM), ("BN", "constexpr", BN), ("BK", "constexpr", BK)],
        buffers=[("a", a), ("b", b), ("c", M * N * 2)],
        expected={"c": c.astype(np.float16)},
    )
