// Warp-level collectives: shfl.sync (.bfly .down .up .idx; full warps and sub-segments, clamps,
// out-of-range b, the |p predicate), vote.sync (.ballot .any .all .uni), activemask,
// match.sync (.any .all, b32 and b64) and redux.sync (.add .min .max .and .or .xor), with full
// masks, masks holding exited lanes, and partial masks in divergent code. 2 blocks of 64
// threads, n = 120: in warp 3 lanes 24..31 exit at once. The model is warp_collectives.host.c
// (32-lane arrays following the manual's shfl.sync pseudocode). Replaces the hand-written
// nvcc-style warp_collectives.ptx of ../nvcc: same entry, parameters and launch.
//
// Shuffles whose c operand no width gives (clamps 10, 12, 23) or whose predicate is stored
// are inline asm; everything else is the CUDA intrinsics.

#define K 28

// d = shfl.sync.MODE(a, b, c, m), p = its predicate.
#define SHFL_P(MODE, d, p, a, b, c, m)                                                 \
  asm volatile("{ .reg .pred q; shfl.sync." MODE ".b32 %0|q, %2, %3, %4, %5; "         \
               "selp.u32 %1, 1, 0, q; }"                                               \
               : "=r"(d), "=r"(p) : "r"(a), "r"(b), "n"(c), "r"(m))
#define SHFL(MODE, d, a, b, c, m)                                                      \
  asm volatile("shfl.sync." MODE ".b32 %0, %1, %2, %3, %4;"                            \
               : "=r"(d) : "r"(a), "r"(b), "n"(c), "r"(m))

extern "C" __global__ void warp_collectives(unsigned *out, const unsigned *in, unsigned n) {
  unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n) return;
  unsigned gw = gid >> 5, lane = threadIdx.x & 31, v = in[gid];
  unsigned *o = out + gid * K;
  const unsigned full = 0xffffffffu;

  // Part A: mask -1, exited lanes ignored.
  o[0] = __ballot_sync(full, v & 1);
  unsigned any = __any_sync(full, v < (gw << 27));
  unsigned all = __all_sync(full, v >= (gw << 25));
  unsigned uni = __uni_sync(full, (v >= 0x80000000u || gw == 2) && gw != 1);
  o[1] = (any != 0) | (all != 0) << 1 | (uni != 0) << 2;
  unsigned act = __activemask();
  o[2] = act;
  o[3] = __match_any_sync(full, v & 3);
  int p1, p2;
  o[4] = __match_all_sync(full, gw, &p1);
  o[5] = __match_all_sync(full, v & 3, &p2);
  o[6] = (p1 != 0) | (p2 != 0) << 1;
  o[7] = __match_any_sync(full, (unsigned long long)(v & 1) << 40 | (lane & 2));
  o[8] = __reduce_add_sync(full, v);
  o[9] = (unsigned)__reduce_min_sync(full, (int)v);
  o[10] = __reduce_max_sync(full, v);
  o[11] = __reduce_and_sync(full, v | 0xf0f0f0f0u);
  o[12] = __reduce_or_sync(full, 1u << (v & 31));
  o[13] = __reduce_xor_sync(full, v);
  o[14] = (unsigned)__reduce_max_sync(full, (int)v);

  // Part B: shuffles, warp-uniform branch on "all 32 lanes present".
  if (act == full) {
    unsigned t = v;
    for (unsigned off = 16; off; off >>= 1) t += __shfl_xor_sync(full, t, off);
    o[15] = t;
    t = v;
    for (unsigned off = 8; off; off >>= 1) t += __shfl_down_sync(full, t, off, 16);
    o[16] = t;
    t = v;
    for (unsigned off = 1; off < 32; off <<= 1) {
      unsigned s = __shfl_up_sync(full, t, off);
      if (lane >= off) t += s;
    }
    o[17] = t;
    o[18] = __shfl_sync(full, v, v >> 27);
    unsigned d, p19, p20, p22, p23;
    SHFL_P("idx", d, p19, v, lane + 3, 0x181f, full);
    o[19] = d;
    SHFL_P("idx", d, p20, v, v, 0x0a, full);
    o[20] = d;
    o[21] = __shfl_xor_sync(full, v, v);
    SHFL_P("up", d, p22, v, 2u, 0x1800, full);
    o[22] = d;
    SHFL_P("down", d, p23, v, 5u, 0x0c, full);
    o[23] = d;
    o[24] = p20 | p22 << 1 | p23 << 2 | p19 << 3;
  } else {
    unsigned t = v;
    for (unsigned off = 4; off; off >>= 1) t += __shfl_xor_sync(act, t, off);
    o[15] = t;
    t = v;
    for (unsigned off = 8; off; off >>= 1) {
      unsigned s;
      SHFL("down", s, t, off, 0x17, act);
      t += s;
    }
    o[16] = t;
    t = v;
    for (unsigned off = 1; off < 32; off <<= 1) {
      unsigned s = __shfl_up_sync(act, t, off);
      if (lane >= off) t += s;
    }
    o[17] = t;
    unsigned d, p;
    SHFL_P("idx", d, p, v, v >> 27, 0x17, act);
    o[18] = d;
    o[24] = p;
  }

  // Part C: divergent branches with partial masks.
  unsigned odd = act & 0xaaaaaaaau, even = act & 0x55555555u;
  if (lane & 1) {
    o[25] = __reduce_add_sync(odd, v);
    o[26] = __ballot_sync(odd, (v & 2) != 0);
  } else {
    o[25] = __match_any_sync(even, v & 1);
    o[26] = __ballot_sync(even, (v & 4) != 0);
  }
  unsigned lo = act & 0xffffu, hi = act & 0xffff0000u;
  if (lane < 16) {
    unsigned t = v;
    for (unsigned off = 8; off; off >>= 1) t += __shfl_xor_sync(lo, t, off);
    o[27] = t;
  } else {
    o[27] = __reduce_max_sync(hi, v);
  }
}
