"""matmul_i8: C = A @ B with A 128x64, B 64x64 in int8 (the full range), int32 accumulation,
C stored as int32; tiles 64x64x32, grid (2, 1), 4 warps. sm_80: mma.sync.m16n8k32 s8 (with
.satfinite, never reached here);
sm_90a: wgmma m64n64k32 s8. Integer arithmetic: exact (|C| <= 64 * 128 * 128 = 2^20)."""
import triton
import triton.language as tl


@triton.jit
def matmul_i8(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


ARCHS = (80, 90)


def case(cap):
    import numpy as np
    from common import matmul_shapes, matmul_args, mixes
    M, N, K, BM, BN, BK = matmul_shapes()
    a = np.array([m >> 56 for m in mixes(M * K, 16)], dtype=np.uint8).view(np.int8).reshape(M, K)
    b = np.array([m >> 56 for m in mixes(K * N, 17)], dtype=np.uint8).view(np.int8).reshape(K, N)
    a[0, :] = -128
    b[:, 0] = -128
    c = a.astype(np.int64) @ b.astype(np.int64)
    return dict(
        kernel=matmul_i8, num_warps=4, grid=[M // BM, N // BN],
        args=matmul_args(matmul_i8, "*i8", "*i8", "*i32"),
        buffers=[("a", a), ("b", b), ("c", M * N * 4)],
        expected={"c": c.astype(np.int32)},
    )
