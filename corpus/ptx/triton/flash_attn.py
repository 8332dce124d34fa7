"""flash_attn: single-head attention O = softmax(Q K^T * sm_scale) V for 64 queries, 64 keys,
head dimension 32, in f16 with f32 accumulation; one program holds all 64 queries and walks
the keys in two blocks of 32 with the online-softmax rescaling of the Triton tutorial's fused
attention (exp2 with the scale folded in, P rounded to f16 before the second dot)."""
import triton
import triton.language as tl


@triton.jit
def flash_attn(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        kt = tl.load(k_ptr + (start_n + offs_n)[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, kt)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + (start_n + offs_n)[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc)


ARCHS = (80, 90)
N_CTX, D, BLOCK_M, BLOCK_N, SM_SCALE = 64, 32, 64, 32, 0.25


def case(cap):
    import numpy as np
    from common import small_ints
    # q, k, v are multiples of 1/8 in [-1, 1]: exact in f16, and q.k (32 products, multiples of
    # 1/64, |q.k| <= 32) is exact in f32 whatever the tensor cores' order.
    q = (small_ints(N_CTX * D, 30, -8, 8) / 8.0).reshape(N_CTX, D)
    k = (small_ints(N_CTX * D, 31, -8, 8) / 8.0).reshape(N_CTX, D)
    v = (small_ints(N_CTX * D, 32, -8, 8) / 8.0).reshape(N_CTX, D)
    k[40] = k[3]                       # two keys alike, so some rows have repeated maxima
    s = (q @ k.T) * SM_SCALE           # float64, exact
    w = np.exp(s - s.max(axis=1, keepdims=True))
    o = (w @ v) / w.sum(axis=1, keepdims=True)
    return dict(
        kernel=flash_attn, num_warps=4, grid=[N_CTX // BLOCK_M],
        args=[("q_ptr", "*fp16", "q"), ("k_ptr", "*fp16", "k"), ("v_ptr", "*fp16", "v"),
              ("o_ptr", "*fp32", "o"), ("sm_scale", "fp32", SM_SCALE), ("N_CTX", "i32", N_CTX),
              ("BLOCK_M", "constexpr", BLOCK_M), ("BLOCK_N", "constexpr", BLOCK_N),
              ("HEAD_DIM", "constexpr", D)],
        buffers=[("q", q.astype(np.float16)), ("k", k.astype(np.float16)),
                 ("v", v.astype(np.float16)), ("o", N_CTX * D * 4)],
        expected={"o": o.astype(np.float32)},
        compare={"o": {"elem": "f32", "rule": "abs:1e-3", "why": WHY}},
    )


WHY = ("expected = float64 softmax(0.25 q.k^T) v rounded to f32; |v| <= 1, weights sum to 1. "
       "q.k is exact (see inputs). The kernel's weights differ by: the f32 constant 0x3FB8AA3B "
       "for log2(e) (rel 1.3e-8 on exponents <= 11.6: 1e-7 on a weight), rounding of qk*scale "
       "and of the subtraction of the running max (exponent error <= 3 * 11.6 * 2^-24, "
       "rel 1.4e-6 on a weight, twice for first-block weights through alpha), ex2.approx.f32 "
       "(tl.math.exp2 is ex2.approx.ftz.f32; arguments and results here are normal or 0; "
       "<= 2 ulp of the rounded result, PTX ISA 8.7: 3e-7, twice through alpha): weight rel "
       "error <= 4e-6. l = sum of 64 weights in f32: rel 64 * 2^-24 = 3.8e-6. P is rounded to f16 "
       "before P.V: rel 2^-11 = 4.9e-4 for P >= 2^-14, abs 2^-25 below; the f32 accumulation of "
       "P.V (tensor cores, any order) adds 64 * 2^-24 * sum|p v|; div.full.f32 2 ulp. So "
       "|o - expected| <= (4.9e-4 + 4e-6 + 3.8e-6 + 3.8e-6 + 3e-7) max|v| + 64 * 2^-25 = 5.1e-4 "
       "< 1e-3.")
