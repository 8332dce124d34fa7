"""matmul_bf16: C = A @ B with A 128x64, B 64x64 in bf16, f32 accumulation, C stored as f32;
tiles 64x64x32, grid (2, 1), 4 warps, two K iterations. sm_80: mma.sync.m16n8k16 bf16;
sm_90a: wgmma m64n64k16 bf16."""
import triton
import triton.language as tl


@triton.jit
def matmul_bf16(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
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


ARCHS = (80, 90)


def case(cap):
    import numpy as np
    from common import matmul_shapes, matmul_args, small_ints, exact_matmul, f32_to_bf16_bits
    M, N, K, BM, BN, BK = matmul_shapes()
    # Multiples of 1/4 in [-4, 4] (exact in bf16): products are multiples of 1/16 below 16,
    # every partial sum (|.| <= 1024, 15 significant bits) is exact in f32 in any order.
    a = small_ints(M * K, 12, -16, 16).reshape(M, K) / 4.0
    b = small_ints(K * N, 13, -16, 16).reshape(K, N) / 4.0
    c = exact_matmul(a, b)
    abits, bbits = f32_to_bf16_bits(a.astype(np.float32)), f32_to_bf16_bits(b.astype(np.float32))
    return dict(
        kernel=matmul_bf16, num_warps=4, grid=[M // BM, N // BN],
        args=matmul_args(matmul_bf16, "*bf16", "*bf16", "*fp32"),
        buffers=[("a", abits), ("b", bbits), ("c", M * N * 4)],
        expected={"c": c.astype(np.float32)},
    )
