"""matmul_f16: C = A @ B with A 128x64, B 64x64 in f16, f32 accumulation, C stored as f16;
tiles 64x64x32, grid (2, 1), 4 warps, the K loop runs twice (the Triton tutorial's matmul without
the grouped ordering). sm_80: mma.sync.m16n8k16 f16, ldmatrix, cp.async; sm_90a: wgmma
m64n64k16 f16."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
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
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


ARCHS = (80, 90)


def case(cap):
    import numpy as np
    from common import matmul_shapes, matmul_args, small_ints, exact_matmul
    M, N, K, BM, BN, BK = matmul_shapes()
    # Integers in [-4, 4]: products and every partial sum (|.| <= 1024) are exact in f32 and
    # the result is exact in f16, whatever order the tensor cores add in.
    a = small_ints(M * K, 10, -4, 4).reshape(M, K).astype(np.float16)
    b = small_ints(K * N, 11, -4, 4).reshape(K, N).astype(np.float16)
    c = exact_matmul(a, b)
    assert np.all(np.abs(c) <= 2048)
    return dict(
        kernel=matmul_f16, num_warps=4, grid=[M // BM, N // BN],
        args=matmul_args(matmul_f16, "*fp16", "*fp16", "*fp16"),
        buffers=[("a", a), ("b", b), ("c", M * N * 2)],
        expected={"c": c.astype(np.float16)},
    )
