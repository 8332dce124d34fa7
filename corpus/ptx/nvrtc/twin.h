/* twin.h: the host side of a C twin (corpus/ptx/nvrtc/NAME.twin.c).
 *
 * A twin computes, in plain C on the host, what the CUDA kernel NAME.cu computes, written
 * independently of the PTX (it never reads NAME.ptx). regen.py feeds it one launch on stdin and
 * reads the buffers after the launch from stdout:
 *
 *   stdin:  build TAG            (the build: sm80, sm90, fast, ...; "-" when there is one)
 *           launch TAG           (the launch's tag, "-" when the kernel has one launch)
 *           entry NAME
 *           grid X Y Z / block X Y Z / shared N
 *           buf NAME SIZE HEX    (every buffer, in launch order, with its initial bytes)
 *           param buf NAME | param TYPE 0xBITS   (in the kernel's parameter order)
 *   stdout: buf NAME HEX         (every buffer after the launch, in launch order)
 */
#ifndef NVRTC_TWIN_H
#define NVRTC_TWIN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWIN_MAX 24
static struct {
  char name[64];
  size_t size;
  unsigned char *data;
} twin_bufs[TWIN_MAX];
static int twin_nbufs;
static struct {
  char type[16];
  char buffer[64];
  uint64_t bits;
} twin_params[TWIN_MAX];
static int twin_nparams;
static char twin_build[32], twin_launch[32], twin_entry[128];
static uint32_t grid[3], block[3], shared_bytes;

__attribute__((noreturn)) static void twin_die(const char *what, const char *arg) {
  fprintf(stderr, "twin: %s %s\n", what, arg ? arg : "");
  exit(1);
}

__attribute__((unused)) static int twin_hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  twin_die("bad hex digit", NULL);
}

__attribute__((unused)) static void twin_begin(void) {
  static char line[1 << 22];
  while (fgets(line, sizeof line, stdin)) {
    char *nl = strchr(line, '\n');
    if (!nl) twin_die("input line too long", NULL);
    *nl = 0;
    char key[16];
    if (sscanf(line, "%15s", key) != 1) continue;
    if (!strcmp(key, "build")) {
      sscanf(line, "build %31s", twin_build);
    } else if (!strcmp(key, "launch")) {
      sscanf(line, "launch %31s", twin_launch);
    } else if (!strcmp(key, "entry")) {
      sscanf(line, "entry %127s", twin_entry);
    } else if (!strcmp(key, "grid")) {
      sscanf(line, "grid %u %u %u", &grid[0], &grid[1], &grid[2]);
    } else if (!strcmp(key, "block")) {
      sscanf(line, "block %u %u %u", &block[0], &block[1], &block[2]);
    } else if (!strcmp(key, "shared")) {
      sscanf(line, "shared %u", &shared_bytes);
    } else if (!strcmp(key, "buf")) {
      if (twin_nbufs == TWIN_MAX) twin_die("too many buffers", NULL);
      int off = 0;
      size_t size;
      if (sscanf(line, "buf %63s %zu %n", twin_bufs[twin_nbufs].name, &size, &off) != 2)
        twin_die("bad buf line", NULL);
      const char *hex = line + off;
      if (strlen(hex) != 2 * size) twin_die("buffer size mismatch", twin_bufs[twin_nbufs].name);
      /* 256-byte aligned like a device allocation, padded so vector reads never overrun */
      unsigned char *p = aligned_alloc(256, (size + 256) / 256 * 256);
      if (!p) twin_die("out of memory", NULL);
      memset(p, 0, (size + 256) / 256 * 256);
      for (size_t i = 0; i < size; i++) p[i] = (unsigned char)(twin_hexval(hex[2 * i]) << 4 | twin_hexval(hex[2 * i + 1]));
      twin_bufs[twin_nbufs].size = size;
      twin_bufs[twin_nbufs].data = p;
      twin_nbufs++;
    } else if (!strcmp(key, "param")) {
      if (twin_nparams == TWIN_MAX) twin_die("too many params", NULL);
      char a[64], b[64];
      if (sscanf(line, "param %63s %63s", a, b) != 2) twin_die("bad param line", NULL);
      if (!strcmp(a, "buf")) {
        strcpy(twin_params[twin_nparams].buffer, b);
      } else {
        strcpy(twin_params[twin_nparams].type, a);
        twin_params[twin_nparams].bits = strtoull(b, NULL, 16);
      }
      twin_nparams++;
    } else {
      twin_die("unknown input line", key);
    }
  }
}

/* The buffer NAME's bytes (the device memory the kernel sees). */
__attribute__((unused)) static void *twin_buf(const char *name) {
  for (int i = 0; i < twin_nbufs; i++)
    if (!strcmp(twin_bufs[i].name, name)) return twin_bufs[i].data;
  twin_die("no buffer", name);
}
__attribute__((unused)) static size_t twin_size(const char *name) {
  for (int i = 0; i < twin_nbufs; i++)
    if (!strcmp(twin_bufs[i].name, name)) return twin_bufs[i].size;
  twin_die("no buffer", name);
}
/* The bits of scalar parameter I (0-based, in the kernel's order). */
__attribute__((unused)) static uint64_t twin_param(int i) {
  if (i >= twin_nparams || twin_params[i].buffer[0]) twin_die("not a scalar parameter", NULL);
  return twin_params[i].bits;
}
__attribute__((unused)) static float twin_param_f32(int i) {
  uint32_t b = (uint32_t)twin_param(i);
  float f;
  memcpy(&f, &b, 4);
  return f;
}
__attribute__((unused)) static double twin_param_f64(int i) {
  uint64_t b = twin_param(i);
  double f;
  memcpy(&f, &b, 8);
  return f;
}
__attribute__((unused)) static int twin_is(const char *entry) { return !strcmp(twin_entry, entry); }

__attribute__((unused)) static void twin_end(void) {
  static const char d[] = "0123456789abcdef";
  for (int i = 0; i < twin_nbufs; i++) {
    printf("buf %s ", twin_bufs[i].name);
    for (size_t j = 0; j < twin_bufs[i].size; j++) {
      putchar(d[twin_bufs[i].data[j] >> 4]);
      putchar(d[twin_bufs[i].data[j] & 15]);
    }
    putchar('\n');
  }
  fflush(stdout);
}

static inline uint32_t f32_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline float bits_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline uint64_t f64_bits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }
static inline double bits_f64(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }

#endif
