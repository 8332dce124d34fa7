/* C twin of switch_vm.cu: the same interpreter. */
#include "twin.h"

static uint32_t sparse(uint32_t h) {
  switch (h % 97u) {
  case 3: return h * 3u;
  case 17: return h ^ 0xdeadbeefu;
  case 42: return h + 42u;
  case 64: return ~h;
  case 90: return h >> 3;
  default: return h;
  }
}

int main(void) {
  twin_begin();
  const uint8_t *code = twin_buf("code");
  const uint32_t *args = twin_buf("args");
  uint32_t *out = twin_buf("out");
  int proglen = (int)twin_param(3);
  int nthreads = grid[0] * block[0];
  for (int i = 0; i < nthreads; i++) {
    const uint8_t *prog = code + (i % 4) * proglen;
    uint32_t st[16];
    for (int k = 0; k < 16; k++) st[k] = (uint32_t)k * 0x9e3779b9u;
    int sp = 0, pc = 0, steps = 0;
    st[sp++] = args[i];
    while (pc < proglen && steps < 200) {
      uint8_t ins = prog[pc++];
      steps++;
      uint32_t *top = &st[(sp - 1) & 15];
      switch (ins & 15) {
      case 0: st[sp++ & 15] = ins >> 4; break;
      case 1: sp--; st[(sp - 1) & 15] += st[sp & 15]; break;
      case 2: sp--; st[(sp - 1) & 15] -= st[sp & 15]; break;
      case 3: sp--; st[(sp - 1) & 15] *= st[sp & 15]; break;
      case 4: sp--; st[(sp - 1) & 15] ^= st[sp & 15]; break;
      case 5: *top <<= (ins >> 4); break;
      case 6: st[sp & 15] = *top; sp++; break;
      case 7: { uint32_t t = *top; *top = st[(sp - 2) & 15]; st[(sp - 2) & 15] = t; break; }
      case 8: if (*top != 0) pc = ins >> 4; break;
      case 9: *top -= 1; break;
      case 10: pc = proglen; break;
      case 11: *top = (*top << 7) | (*top >> 25); break;
      case 12: *top = ~*top; break;
      case 13: *top = sparse(*top + ins); break;
      case 14: *top >>= (ins >> 4); break;
      case 15: sp--; st[(sp - 1) & 15] |= st[sp & 15]; break;
      }
    }
    out[2 * i] = st[(sp - 1) & 15];
    out[2 * i + 1] = (uint32_t)(sp & 255) | (uint32_t)steps << 8;
  }
  twin_end();
  return 0;
}
