/* Dense switches lowered to jump tables (brx.idx over a .branchtargets list): the first table in
 * nvcc's layout (the label, then one target per line), the second in the one-line form of the
 * manual's example (§9.7.12.4, L16782). A bytecode loop runs over the eight 4-bit fields of each
 * thread's word: its 16-entry table sends fields 10..15 to the default block (six duplicate
 * targets, no range check: the index is masked to 4 bits) and case 2 falls through into case 3;
 * a second switch on x & 7 is range-checked (values 5..7 take the default) before its 5-entry
 * table. Neighbouring threads take different cases, so every brx.idx diverges within a warp and
 * reconverges at the loop latch. 2 blocks of 96 threads (3 warps each), n = 180: the last warp
 * has 12 exited lanes. */
#include "host.h"

static void jump_table(uint32_t *out, const uint32_t *code, uint32_t n) {
  uint32_t i = CTAID_X * NTID_X + TID_X;
  if (i >= n) return;
  uint32_t w = code[i], acc = i * 0x9e3779b9u, x = w;
  for (uint32_t k = 0; k < 32; k += 4) { /* #pragma unroll 1 */
    uint32_t op = (w >> k) & 15;
    switch (op) {
    case 0: acc += x; break;
    case 1: acc ^= acc >> 7; break;
    case 2: acc *= 0x01000193u; /* fall through */
    case 3: acc += 0x7f4a7c15u; break;
    case 4: acc = acc << 5 | acc >> 27; break;
    case 5: x = x * 3 + acc; break;
    case 6: acc -= x; break;
    case 7: acc = ~acc; break;
    case 8: x ^= acc; break;
    case 9: acc = (uint32_t)((int32_t)acc >> 3); break;
    default: acc += op; x += 1; break;
    }
  }
  uint32_t r;
  switch (x & 7) {
  case 0: r = acc; break;
  case 1: r = acc + x; break;
  case 2: r = acc ^ 0xdeadbeefu; break;
  case 3: r = x - acc; break;
  case 4: r = acc * x; break;
  default: r = 12345; break;
  }
  out[3 * i] = acc;
  out[3 * i + 1] = x;
  out[3 * i + 2] = r;
}

#define N 180
#define THREADS 192
static uint32_t *g_out, *g_code;
static void body(void) { jump_table(g_out, g_code, N); }
int main(int argc, char **argv) {
  host_begin(argc, argv, "jump_table", 2, 1, 1, 96, 1, 1);
  g_code = host_in("code", THREADS * 4);
  for (uint32_t i = 0; i < THREADS; i++) g_code[i] = (uint32_t)host_mix64(i + 4242);
  /* Uniform words: every lane of warp 0's first 8 threads runs one case 8 times. */
  for (uint32_t i = 0; i < 8; i++) g_code[i] = 0x11111111u * (i * 2 + 1 > 15 ? 15 : i * 2 + 1);
  g_code[8] = 0x22222222u; /* case 2 falling into 3, eight times */
  g_code[9] = 0xfedcba98u; /* every default field, then 9, 8 */
  g_code[10] = 0x76543210u;
  g_code[11] = 0;
  g_out = host_out("out", THREADS * 3 * 4);
  host_param_buf("out");
  host_param_buf("code");
  host_param_scalar("u32", N);
  return host_launch_threads(body);
}
