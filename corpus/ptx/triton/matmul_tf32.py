"""matmul_tf32: C = A @ B with A 128x64, B 64x64 in f32, tl.dot with input_precision="tf32"
(Triton's default for f32), f32 accumulation; tiles 64x64x32, grid (2, 1), 4 warps.
sm_80: mma.sync.m16n8k8 tf32; sm_90a: wgmma m64n64k8 tf32."""
import triton
import triton.language as tl


@triton.jit
def matmul_tf32(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
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
        acc = tl.dot(a, b, acc, input_precision="tf32")
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


ARCHS = (80, 90)


def case(cap):
    import numpy as np
    from common import matmul_shapes, matmul_args, small_ints, exact_matmul
    M, N, K, BM, BN, BK = matmul_shapes()
    # Multiples of 1/16 in [-8, 8]: exact in tf32 (8 significant bits <= 11), so the tf32
    # rounding of the operands changes nothing; products are multiples of 2^-8 below 64, every
    # partial sum (|.| <= 4096, 21 significant bits) is exact in f32 in any order.
    a = (small_ints(M * K, 14, -128, 128).reshape(M, K) / 16.0).astype(np.float32)
    b = (small_ints(K * N, 15, -128, 128).reshape(K, N) / 16.0).astype(np.float32)
    c = exact_matmul(a, b)
    return dict(
        kernel=matmul_tf32, num_warps=4, grid=[M // BM, N // BN],
        args=matmul_args(matmul_tf32, "*fp32", "*fp32", "*fp32"),
        buffers=[("a", a), ("b", b), ("c", M * N * 4)],
        expected={"c": c.astype(np.float32)},
    )
