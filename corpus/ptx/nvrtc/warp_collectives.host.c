/* The host program and C model of warp_collectives.cu (regen.py builds it with host.h and runs it:
 * it writes the launch and the expected buffers). It was ../nvcc/warp_collectives.c, the C twin of
 * a hand-written PTX kernel; the computation, inputs and launch are unchanged, and the PTX
 * instructions named below are those the hand-written kernel used. */
/* Warp-level collectives: shfl.sync (.bfly .down .up .idx; full warps and sub-segments, clamps,
 * out-of-range b, the |p predicate), vote.sync (.ballot .any .all .uni), activemask,
 * match.sync (.any .all, b32 and b64) and redux.sync (.add .min .max .and .or .xor), with full
 * masks (-1), masks holding exited lanes, and partial masks in divergent code.
 *
 * 2 blocks of 64 threads (4 warps), n = 120: warp 3 (threads 96..127) keeps lanes 0..23, lanes
 * 24..31 exit at once. vote/match/redux/activemask are defined over the non-exited threads of the
 * mask (PTX ISA 8.7 §9.7.13.9-12, L18076-18098, L18134-18152, L18185-18189, L18223-18239), so
 * part A uses mask -1 in every warp. shfl.sync is undefined when the source lane is exited or not
 * in the mask (§9.7.9.6, L12030), so part B takes a warp-uniform branch: full warps shuffle with
 * -1, warp 3 with its activemask (0x00ffffff) and only shuffles whose source lanes stay below 24.
 * Part C diverges (odd/even lanes, low/high half) and uses the matching partial masks.
 *
 * The C model runs one warp at a time as 32-lane arrays, following the manual's pseudocode for
 * shfl.sync (L12044-12073) literally, and stops with an error if the kernel ever reads a lane
 * the manual leaves undefined or runs a collective from a lane outside its mask. */
#include "host.h"

#define N 120
#define THREADS 128
#define K 28 /* output words per thread */

enum { UP, DOWN, BFLY, IDX };

static uint32_t g_act[32]; /* 1: lane not exited (the warp being modelled) */

static void check_member(uint32_t lane, uint32_t mask) {
  if (!(mask >> lane & 1)) host_die("collective executed by a lane outside its membermask");
}

/* One lane's shfl.sync, the manual's pseudocode (L12044-12073). j is signed: for .up,
 * lane - bval < 0 must give pval = false (the manual does not give j's type; a negative j
 * compared unsigned would select a lane that does not exist). */
static uint32_t shfl_lane(int mode, const uint32_t src[32], uint32_t lane, uint32_t b, uint32_t c, uint32_t mask,
                          uint32_t *p) {
  check_member(lane, mask);
  int32_t bval = (int32_t)(b & 31), cval = (int32_t)(c & 31), segmask = (int32_t)(c >> 8 & 31);
  int32_t l = (int32_t)lane;
  int32_t maxLane = (l & segmask) | (cval & ~segmask);
  int32_t minLane = l & segmask;
  int32_t j = 0, pval = 0;
  switch (mode) {
  case UP: j = l - bval, pval = j >= maxLane; break;
  case DOWN: j = l + bval, pval = j <= maxLane; break;
  case BFLY: j = l ^ bval, pval = j <= maxLane; break;
  case IDX: j = minLane | (bval & ~segmask), pval = j <= maxLane; break;
  }
  if (!pval) j = l;
  if (!g_act[j] || !(mask >> j & 1)) host_die("shfl.sync reads an exited lane or one outside the mask");
  if (p) *p = (uint32_t)pval;
  return src[j];
}

/* d[l] = shfl(src)[l] for the lanes l in `who` (the lanes executing), b per lane. */
static void shfl(int mode, uint32_t d[32], const uint32_t src[32], const uint32_t b[32], uint32_t c,
                 uint32_t mask, uint32_t who, uint32_t p[32]) {
  uint32_t tmp[32];
  for (uint32_t l = 0; l < 32; l++)
    if (who >> l & 1) tmp[l] = shfl_lane(mode, src, l, b[l], c, mask, p ? &p[l] : NULL);
  for (uint32_t l = 0; l < 32; l++)
    if (who >> l & 1) d[l] = tmp[l];
}
static void fill(uint32_t b[32], uint32_t x) {
  for (int l = 0; l < 32; l++) b[l] = x;
}

/* Lanes taking part: in the mask and not exited. */
static uint32_t parts(uint32_t mask) {
  uint32_t m = 0;
  for (uint32_t l = 0; l < 32; l++)
    if (g_act[l] && mask >> l & 1) m |= 1u << l;
  return m;
}
static uint32_t ballot(const uint32_t pred[32], uint32_t mask) {
  uint32_t m = parts(mask), d = 0;
  for (uint32_t l = 0; l < 32; l++)
    if (m >> l & 1 && pred[l]) d |= 1u << l;
  return d;
}
static uint32_t vote_any(const uint32_t pred[32], uint32_t mask) { return ballot(pred, mask) != 0; }
static uint32_t vote_all(const uint32_t pred[32], uint32_t mask) { return ballot(pred, mask) == parts(mask); }
static uint32_t vote_uni(const uint32_t pred[32], uint32_t mask) {
  uint32_t b = ballot(pred, mask);
  return b == 0 || b == parts(mask);
}
static uint32_t match_any(const uint64_t a[32], uint32_t lane, uint32_t mask) {
  uint32_t m = parts(mask), d = 0;
  for (uint32_t l = 0; l < 32; l++)
    if (m >> l & 1 && a[l] == a[lane]) d |= 1u << l;
  return d;
}
static uint32_t match_all(const uint64_t a[32], uint32_t mask, uint32_t *p) {
  uint32_t m = parts(mask);
  for (uint32_t l = 0; l < 32; l++)
    if (m >> l & 1 && a[l] != a[__builtin_ctz(m)]) return *p = 0, 0;
  return *p = 1, m;
}
enum { R_ADD, R_MINU, R_MAXU, R_MINS, R_MAXS, R_AND, R_OR, R_XOR };
static uint32_t redux(int op, const uint32_t a[32], uint32_t mask) {
  uint32_t m = parts(mask), r = 0;
  int first = 1;
  for (uint32_t l = 0; l < 32; l++) {
    if (!(m >> l & 1)) continue;
    uint32_t x = a[l];
    if (first) {
      r = x, first = 0;
      continue;
    }
    switch (op) {
    case R_ADD: r += x; break;
    case R_MINU: r = x < r ? x : r; break;
    case R_MAXU: r = x > r ? x : r; break;
    case R_MINS: r = (int32_t)x < (int32_t)r ? x : r; break;
    case R_MAXS: r = (int32_t)x > (int32_t)r ? x : r; break;
    case R_AND: r &= x; break;
    case R_OR: r |= x; break;
    case R_XOR: r ^= x; break;
    }
  }
  return r;
}

static uint32_t *g_out, *g_in;

/* One warp: global warp index gw, its 32 lanes' inputs. */
static void warp(uint32_t gw) {
  uint32_t v[32], pr[32], t[32], b[32], p[32], o[32][K];
  uint64_t a[32];
  memset(o, 0, sizeof o);
  uint32_t act = 0;
  for (uint32_t l = 0; l < 32; l++) {
    g_act[l] = gw * 32 + l < N;
    act |= g_act[l] << l;
    v[l] = g_in[gw * 32 + l];
  }
  if (!act) return;
  const uint32_t full = 0xffffffffu;

  /* Part A: mask -1, exited lanes ignored. */
  for (uint32_t l = 0; l < 32; l++) pr[l] = v[l] & 1;
  uint32_t bal = ballot(pr, full);
  for (uint32_t l = 0; l < 32; l++) pr[l] = v[l] < (gw << 27);
  uint32_t any = vote_any(pr, full);
  for (uint32_t l = 0; l < 32; l++) pr[l] = v[l] >= (gw << 25);
  uint32_t all = vote_all(pr, full);
  for (uint32_t l = 0; l < 32; l++) pr[l] = (v[l] >= 0x80000000u || gw == 2) && gw != 1; /* warp 1: all false */
  uint32_t uni = vote_uni(pr, full);
  for (uint32_t l = 0; l < 32; l++) a[l] = v[l] & 3;
  uint32_t mall2_p, mall1_p;
  uint32_t mall2 = match_all(a, full, &mall2_p);
  uint64_t a1[32], a64[32];
  for (uint32_t l = 0; l < 32; l++) a1[l] = gw;
  uint32_t mall1 = match_all(a1, full, &mall1_p);
  for (uint32_t l = 0; l < 32; l++) a64[l] = (uint64_t)(v[l] & 1) << 40 | (l & 2);
  uint32_t r_or[32];
  for (uint32_t l = 0; l < 32; l++) r_or[l] = 1u << (v[l] & 31);
  uint32_t r_and[32];
  for (uint32_t l = 0; l < 32; l++) r_and[l] = v[l] | 0xf0f0f0f0u;
  for (uint32_t l = 0; l < 32; l++) {
    if (!g_act[l]) continue;
    o[l][0] = bal;
    o[l][1] = any | all << 1 | uni << 2;
    o[l][2] = act;
    o[l][3] = match_any(a, l, full);
    o[l][4] = mall1;
    o[l][5] = mall2;
    o[l][6] = mall1_p | mall2_p << 1;
    o[l][7] = match_any(a64, l, full);
    o[l][8] = redux(R_ADD, v, full);
    o[l][9] = redux(R_MINS, v, full);
    o[l][10] = redux(R_MAXU, v, full);
    o[l][11] = redux(R_AND, r_and, full);
    o[l][12] = redux(R_OR, r_or, full);
    o[l][13] = redux(R_XOR, v, full);
    o[l][14] = redux(R_MAXS, v, full);
  }

  /* Part B: shuffles, warp-uniform branch on "all 32 lanes present". */
  if (act == full) {
    memcpy(t, v, sizeof t);
    for (uint32_t off = 16; off; off >>= 1) {
      uint32_t s[32];
      fill(b, off);
      shfl(BFLY, s, t, b, 0x1f, full, full, NULL);
      for (int l = 0; l < 32; l++) t[l] += s[l];
    }
    for (int l = 0; l < 32; l++) o[l][15] = t[l];
    memcpy(t, v, sizeof t);
    for (uint32_t off = 8; off; off >>= 1) {
      uint32_t s[32];
      fill(b, off);
      shfl(DOWN, s, t, b, 0x101f, full, full, NULL);
      for (int l = 0; l < 32; l++) t[l] += s[l];
    }
    for (int l = 0; l < 32; l++) o[l][16] = t[l];
    memcpy(t, v, sizeof t);
    for (uint32_t off = 1; off < 32; off <<= 1) {
      uint32_t s[32];
      fill(b, off);
      shfl(UP, s, t, b, 0, full, full, p);
      for (int l = 0; l < 32; l++)
        if (p[l]) t[l] += s[l];
    }
    for (int l = 0; l < 32; l++) o[l][17] = t[l];
    uint32_t p19[32], p20[32], p22[32], p23[32];
    for (int l = 0; l < 32; l++) b[l] = v[l] >> 27;
    shfl(IDX, t, v, b, 0x1f, full, full, NULL);
    for (int l = 0; l < 32; l++) o[l][18] = t[l];
    for (int l = 0; l < 32; l++) b[l] = (uint32_t)l + 3;
    shfl(IDX, t, v, b, 0x181f, full, full, p19);
    for (int l = 0; l < 32; l++) o[l][19] = t[l];
    shfl(IDX, t, v, v, 0x0a, full, full, p20);
    for (int l = 0; l < 32; l++) o[l][20] = t[l];
    shfl(BFLY, t, v, v, 0x1f, full, full, NULL);
    for (int l = 0; l < 32; l++) o[l][21] = t[l];
    fill(b, 2);
    shfl(UP, t, v, b, 0x1800, full, full, p22);
    for (int l = 0; l < 32; l++) o[l][22] = t[l];
    fill(b, 5);
    shfl(DOWN, t, v, b, 0x0c, full, full, p23);
    for (int l = 0; l < 32; l++) o[l][23] = t[l];
    for (int l = 0; l < 32; l++) o[l][24] = p20[l] | p22[l] << 1 | p23[l] << 2 | p19[l] << 3;
  } else {
    memcpy(t, v, sizeof t);
    for (uint32_t off = 4; off; off >>= 1) {
      uint32_t s[32];
      fill(b, off);
      shfl(BFLY, s, t, b, 0x1f, act, act, NULL);
      for (int l = 0; l < 32; l++) t[l] += s[l];
    }
    for (int l = 0; l < 32; l++) o[l][15] = t[l];
    memcpy(t, v, sizeof t);
    for (uint32_t off = 8; off; off >>= 1) {
      uint32_t s[32];
      fill(b, off);
      shfl(DOWN, s, t, b, 0x17, act, act, NULL);
      for (int l = 0; l < 32; l++) t[l] += s[l];
    }
    for (int l = 0; l < 32; l++) o[l][16] = t[l];
    memcpy(t, v, sizeof t);
    for (uint32_t off = 1; off < 32; off <<= 1) {
      uint32_t s[32];
      fill(b, off);
      shfl(UP, s, t, b, 0, act, act, p);
      for (int l = 0; l < 32; l++)
        if (p[l]) t[l] += s[l];
    }
    for (int l = 0; l < 32; l++) o[l][17] = t[l];
    for (int l = 0; l < 32; l++) b[l] = v[l] >> 27;
    shfl(IDX, t, v, b, 0x17, act, act, p);
    for (int l = 0; l < 32; l++) o[l][18] = t[l], o[l][24] = p[l];
  }

  /* Part C: divergent branches with partial masks. */
  uint32_t odd = act & 0xaaaaaaaau, even = act & 0x55555555u;
  for (uint32_t l = 0; l < 32; l++) pr[l] = (v[l] & 2) != 0;
  uint32_t bal_o = ballot(pr, odd);
  for (uint32_t l = 0; l < 32; l++) pr[l] = (v[l] & 4) != 0;
  uint32_t bal_e = ballot(pr, even);
  for (uint32_t l = 0; l < 32; l++) a[l] = v[l] & 1;
  for (uint32_t l = 0; l < 32; l++) {
    if (!g_act[l]) continue;
    if (l & 1) {
      check_member(l, odd);
      o[l][25] = redux(R_ADD, v, odd);
      o[l][26] = bal_o;
    } else {
      check_member(l, even);
      o[l][25] = match_any(a, l, even);
      o[l][26] = bal_e;
    }
  }
  uint32_t lo = act & 0xffffu, hi = act & 0xffff0000u;
  memcpy(t, v, sizeof t);
  for (uint32_t off = 8; off; off >>= 1) {
    uint32_t s[32];
    fill(b, off);
    shfl(BFLY, s, t, b, 0x1f, lo, lo, NULL);
    for (int l = 0; l < 16; l++) t[l] += s[l];
  }
  uint32_t mx = redux(R_MAXU, v, hi);
  for (uint32_t l = 0; l < 32; l++) {
    if (!g_act[l]) continue;
    if (l < 16) {
      o[l][27] = t[l];
    } else {
      check_member(l, hi);
      o[l][27] = mx;
    }
  }

  for (uint32_t l = 0; l < 32; l++)
    if (g_act[l]) memcpy(&g_out[(gw * 32 + l) * K], o[l], sizeof o[l]);
}

static void block(uint32_t ctaid) {
  for (uint32_t w = 0; w < NTID_X / 32; w++) warp(ctaid * (NTID_X / 32) + w);
}

int main(int argc, char **argv) {
  host_begin(argc, argv, "warp_collectives", 2, 1, 1, 64, 1, 1);
  g_in = host_in("in", THREADS * 4);
  for (uint32_t i = 0; i < THREADS; i++) g_in[i] = (uint32_t)host_mix64(i + 31337);
  /* Warp 1: every value has bit 0 set and the same v & 3, so match.all finds them equal. */
  for (uint32_t i = 32; i < 64; i++) g_in[i] = (g_in[i] & ~3u) | 3u;
  g_out = host_out("out", THREADS * K * 4);
  host_param_buf("out");
  host_param_buf("in");
  host_param_scalar("u32", N);
  return host_launch_blocks(block);
}
