/* The host program and C model of atomics_nvcc.cu (regen.py builds it with host.h and runs it: it
 * writes the launch and the expected buffers). It was ../nvcc/atomics.c, the C twin of a hand-
 * written PTX kernel; the computation, inputs and launch are unchanged, and the PTX instructions
 * named below are those the hand-written kernel used. */
/* Atomics whose results do not depend on the order the threads run in.
 *
 * 4 blocks of 64 threads, every thread active. Global counters (ctr, initialised by the host):
 * add/max/inc/dec/min/and/or/xor/add.f32/add.u64/min.u64 folded over every thread are
 * commutative and associative, so the final words are order-independent (the f32 sum adds small
 * integers to 0.5: every partial sum is exact). Returned old values are used only where the
 * multiset of old values is order-independent: the tickets of atom.add(ctr[0], 1) are a
 * permutation of 0..255 (their sum, their max, and seen[ticket] = 2 * ticket + 1 are fixed), the
 * olds of atom.inc(ctr[2], 9) are 0..9 repeated (their sum is fixed); one cas(ctr[13], 0, C) per
 * thread has exactly one winner and every exch(ctr[14], X) but one sees X (the counts are fixed).
 * Per-thread cas.b32 / exch.b32 / cas.b64 touch only the thread's own word, so their old values
 * are the words' initial values. A shared-memory histogram and sum (atom.shared.add, bar.sync
 * before and after) is copied out per block and folded into ghist with red.global.add.
 * The C twin runs each block's threads as pthreads with the __atomic builtins. */
#include "host.h"

#define THREADS 256
#define NCTR 24

static uint32_t bins[16], bsum; /* the block's .shared variables (one block runs at a time) */

static uint32_t cas32(uint32_t *p, uint32_t cmp, uint32_t val) {
  __atomic_compare_exchange_n(p, &cmp, val, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp; /* the old value either way */
}
static uint64_t cas64(uint64_t *p, uint64_t cmp, uint64_t val) {
  __atomic_compare_exchange_n(p, &cmp, val, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
/* Read-modify-write with any function, as a cas loop. */
#define RMW(p, old, expr)                                                                          \
  do {                                                                                             \
    old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                    \
    while (!__atomic_compare_exchange_n(p, &old, (expr), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
      ;                                                                                            \
  } while (0)

static void atomics(const uint32_t *in, uint32_t *ctr, uint32_t *seen, uint32_t *words, uint64_t *w64,
                    uint32_t *olds, uint32_t *hist, uint32_t *ghist) {
  uint32_t t = TID_X, i = CTAID_X * NTID_X + TID_X, v = in[i], old;
  uint64_t old64;
  if (t < 16) {
    bins[t] = 0;
    if (t == 0) bsum = 0;
  }
  HOST_BARRIER();
  uint32_t ticket = __atomic_fetch_add(&ctr[0], 1, __ATOMIC_SEQ_CST);
  RMW(&ctr[1], old, old > ticket ? old : ticket);
  uint32_t inc;
  RMW(&ctr[2], inc, inc >= 9 ? 0 : inc + 1);         /* atom.inc: old >= b ? 0 : old + 1 */
  RMW(&ctr[3], old, old == 0 || old > 9 ? 9 : old - 1); /* atom.dec */
  float f = (float)((int32_t)(v % 201u) - 100);
  RMW(&ctr[4], old, host_f32_bits(host_bits_f32(old) + f));
  RMW(&ctr[5], old, (int32_t)old < (int32_t)v ? old : v);
  RMW(&ctr[6], old, (int32_t)old > (int32_t)v ? old : v);
  uint32_t bit = 1u << (v & 31);
  __atomic_fetch_and(&ctr[7], (i & 7) == 0 ? ~bit : 0xffffffffu, __ATOMIC_SEQ_CST);
  __atomic_fetch_or(&ctr[8], (i & 7) == 1 ? bit : 0, __ATOMIC_SEQ_CST);
  __atomic_fetch_xor(&ctr[9], v, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctr[10], ticket, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctr[11], inc, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctr[12], cas32(&ctr[13], 0, 0xc0ffeeu) == 0, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&ctr[15], __atomic_exchange_n(&ctr[14], 0xabcdu, __ATOMIC_SEQ_CST) == 0x5555u,
                     __ATOMIC_SEQ_CST);
  uint64_t *c64 = (uint64_t *)ctr;
  __atomic_fetch_add(&c64[8], (uint64_t)v * (v ^ i), __ATOMIC_SEQ_CST);
  uint64_t key = (uint64_t)v << 16 | i;
  RMW(&c64[9], old64, old64 < key ? old64 : key);
  __atomic_fetch_add(&ctr[20], -(v & 255), __ATOMIC_SEQ_CST);
  RMW(&ctr[21], old, old < v ? old : v);
  seen[ticket] = ticket * 2 + 1;

  uint32_t w = words[i];
  olds[4 * i] = cas32(&words[i], i % 3 == 0 ? w : w ^ 1, v ^ 0x5a5a5a5au);
  olds[4 * i + 1] = __atomic_exchange_n(&words[THREADS + i], v + i, __ATOMIC_SEQ_CST);
  uint64_t q = w64[i];
  uint64_t o64 = cas64(&w64[i], i & 1 ? q : ~q, (uint64_t)v << 32 | i);
  memcpy(&olds[4 * i + 2], &o64, 8);

  __atomic_fetch_add(&bins[v & 15], 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&bsum, v & 0xffff, __ATOMIC_SEQ_CST);
  HOST_BARRIER();
  if (t < 16) {
    hist[CTAID_X * 17 + t] = bins[t];
    __atomic_fetch_add(&ghist[t], bins[t], __ATOMIC_SEQ_CST);
  } else if (t == 16) {
    hist[CTAID_X * 17 + 16] = bsum;
  }
}

static uint32_t *g_in, *g_ctr, *g_seen, *g_words, *g_olds, *g_hist, *g_ghist;
static uint64_t *g_w64;
static void body(void) { atomics(g_in, g_ctr, g_seen, g_words, g_w64, g_olds, g_hist, g_ghist); }
int main(int argc, char **argv) {
  host_begin(argc, argv, "atomics_nvcc", 4, 1, 1, 64, 1, 1);
  g_in = host_in("in", THREADS * 4);
  for (uint32_t i = 0; i < THREADS; i++) g_in[i] = (uint32_t)host_mix64(i + 777);
  g_ctr = host_in("ctr", NCTR * 4);
  static const uint32_t init[NCTR] = {0, 0, 0, 0, 0x3f000000u /* 0.5f */, 0x7fffffffu, 0x80000000u, 0xffffffffu,
                                      0, 0x12345678u, 0, 0, 0, 0, 0x5555u, 0,
                                      0x89abcdefu, 0x01234567u, 0xffffffffu, 0xffffffffu, 1000000u, 0xffffffffu,
                                      0xdeadbeefu, 0xdeadbeefu};
  memcpy(g_ctr, init, sizeof init);
  g_seen = host_out("seen", THREADS * 4);
  g_words = host_in("words", 2 * THREADS * 4);
  for (uint32_t i = 0; i < 2 * THREADS; i++) g_words[i] = (uint32_t)host_mix64(i + 9000);
  g_w64 = host_in("w64", THREADS * 8);
  for (uint32_t i = 0; i < THREADS; i++) g_w64[i] = host_mix64(i + 12000);
  g_olds = host_out("olds", THREADS * 16);
  g_hist = host_out("hist", 4 * 17 * 4);
  g_ghist = host_out("ghist", 16 * 4);
  host_param_buf("in");
  host_param_buf("ctr");
  host_param_buf("seen");
  host_param_buf("words");
  host_param_buf("w64");
  host_param_buf("olds");
  host_param_buf("hist");
  host_param_buf("ghist");
  return host_launch_threads(body);
}
