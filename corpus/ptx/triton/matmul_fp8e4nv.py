"""matmul_fp8e4nv: C = A @ B with A 128x64, B 64x64 in fp8 e4m3 (OCP E4M3FN, Triton's
fp8e4nv), f32 accumulation, C stored as f32; tiles 64x64x32, grid (2, 1), 4 warps.
sm_90a only: Triton supports fp8e4nv from capability 89 (on sm_80 it lists only fp8e4b15
and fp8e5); wgmma m64n64k32 e4m3."""
import triton
import triton.language as tl


@triton.jit
def matmul_fp8e4nv(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


ARCHS = (90,)


def case(cap):
    import numpy as np
    from common import matmul_shapes, matmul_args, small_ints, exact_matmul, fp8_encode_exact
    M, N, K, BM, BN, BK = matmul_shapes()
    # Values from {0, +-0.5, +-1, +-1.5, +-2, +-3} (exact in e4m3): products are multiples of 1/4
    # with |p| <= 9, every partial sum is a multiple of 1/4 below 576, i.e. at most 12
    # significant bits, so it is exact even in a reduced-precision fp8 accumulator (Hopper's
    # fp8 wgmma keeps fewer than 24 accumulator bits) and in any order.
    vals = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0])
    a = vals[small_ints(M * K, 20, 0, len(vals) - 1)].reshape(M, K)
    b = vals[small_ints(K * N, 20 + 1, 0, len(vals) - 1)].reshape(K, N)
    c = exact_matmul(a, b)
    assert np.all(np.abs(c) * 4 < 2**12)
    return dict(
        kernel=matmul_fp8e4nv, num_warps=4, grid=[M // BM, N // BN],
        args=matmul_args(matmul_fp8e4nv, "*fp8e4nv", "*fp8e4nv", "*fp32"),
        buffers=[("a", fp8_encode_exact(a, "e4m3")), ("b", fp8_encode_exact(b, "e4m3")),
                 ("c", M * N * 4)],
        expected={"c": c.astype(np.float32)},
    )
