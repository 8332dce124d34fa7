/* host.h: the host side of the nvcc/ kernels (host-only; the device side is the hand-written
 * NAME.ptx next to NAME.c), and of the nvrtc/ "host" kernels (NAME.host.c beside NAME.cu, built
 * by ../nvrtc/regen.py with this directory on the include path).
 *
 * NAME.c computes in plain C what NAME.ptx computes, builds the inputs, and through this header
 * writes NAME.launch.json (issue 4's launch contract, the same as ../llvm/ptxk.h writes, plus the
 * optional "shared_bytes") before the run and NAME.expected.json after it.
 *
 * Two ways to run the grid (blocks one after another, in x-major order):
 *   host_launch_threads(body): each CUDA thread of a block is a pthread; HOST_BARRIER() is a
 *     pthread_barrier over the block (for kernels with bar.sync and atomics: every such kernel is
 *     race-free or uses only order-independent atomics, so the result does not depend on the
 *     scheduling);
 *   host_launch_blocks(block): one call per block, the C code walks the block's threads (and
 *     warps, for warp-level collectives modelled as 32-lane arrays) itself.
 */
#ifndef NVCC_HOST_H
#define NVCC_HOST_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern __thread uint32_t host_tid[3], host_ctaid[3];
extern uint32_t host_ntid[3], host_nctaid[3];
extern pthread_barrier_t host_barrier;
#define TID_X host_tid[0]
#define CTAID_X host_ctaid[0]
#define NTID_X host_ntid[0]
#define NCTAID_X host_nctaid[0]
#define HOST_BARRIER() pthread_barrier_wait(&host_barrier)

__thread uint32_t host_tid[3], host_ctaid[3];
uint32_t host_ntid[3], host_nctaid[3];
pthread_barrier_t host_barrier;

#define HOST_MAX_BUFS 12
#define HOST_MAX_PARAMS 12
static struct {
  const char *name;
  size_t size;
  int input; /* 1: hex in the launch file, 0: size only (zeroed) */
  unsigned char *data;
} host_bufs[HOST_MAX_BUFS];
static int host_nbufs;
static struct {
  const char *buffer; /* NULL for a scalar */
  const char *type;
  char value[64];
} host_params[HOST_MAX_PARAMS];
static int host_nparams;
static const char *host_outdir, *host_name;
static uint32_t host_grid[3], host_block[3], host_shared_bytes;

static void host_die(const char *what) {
  fprintf(stderr, "host: %s\n", what);
  exit(1);
}

/* argv[1]: the directory the JSON files go to. */
static void host_begin(int argc, char **argv, const char *name, uint32_t gx, uint32_t gy, uint32_t gz,
                       uint32_t bx, uint32_t by, uint32_t bz) {
  if (argc != 2) host_die("usage: PROGRAM OUTDIR");
  host_outdir = argv[1];
  host_name = name;
  host_grid[0] = gx, host_grid[1] = gy, host_grid[2] = gz;
  host_block[0] = bx, host_block[1] = by, host_block[2] = bz;
}

/* Bytes of dynamic shared memory (the .extern .shared array) the launch provides. */
__attribute__((unused)) static void host_shared(uint32_t bytes) { host_shared_bytes = bytes; }

static void *host_buffer(const char *name, size_t size, int input) {
  if (host_nbufs == HOST_MAX_BUFS) host_die("too many buffers");
  size_t alloc = (size + 255) / 256 * 256;
  unsigned char *p = aligned_alloc(256, alloc ? alloc : 256);
  if (!p) host_die("out of memory");
  memset(p, 0, alloc ? alloc : 256);
  host_bufs[host_nbufs].name = name;
  host_bufs[host_nbufs].size = size;
  host_bufs[host_nbufs].input = input;
  host_bufs[host_nbufs].data = p;
  host_nbufs++;
  return p;
}
/* An input buffer: filled by the caller before the launch, written as hex. */
__attribute__((unused)) static void *host_in(const char *name, size_t size) { return host_buffer(name, size, 1); }
/* An output buffer: starts zeroed, given by size only. */
__attribute__((unused)) static void *host_out(const char *name, size_t size) { return host_buffer(name, size, 0); }

__attribute__((unused)) static void host_param_buf(const char *name) {
  if (host_nparams == HOST_MAX_PARAMS) host_die("too many params");
  host_params[host_nparams++].buffer = name;
}
__attribute__((unused)) static void host_param_scalar(const char *type, unsigned long long bits) {
  if (host_nparams == HOST_MAX_PARAMS) host_die("too many params");
  host_params[host_nparams].type = type;
  snprintf(host_params[host_nparams].value, sizeof host_params[0].value, "0x%llx", bits);
  host_nparams++;
}

static FILE *host_open(const char *suffix) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s%s", host_outdir, host_name, suffix);
  FILE *f = fopen(path, "w");
  if (!f) host_die("cannot write output file");
  return f;
}
static void host_hex(FILE *f, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

static void host_write_launch(void) {
  FILE *f = host_open(".launch.json");
  fprintf(f, "{\n  \"ptx\": \"%s.ptx\",\n  \"entry\": \"%s\",\n", host_name, host_name);
  fprintf(f, "  \"grid\": [%u, %u, %u],\n  \"block\": [%u, %u, %u],\n", host_grid[0], host_grid[1],
          host_grid[2], host_block[0], host_block[1], host_block[2]);
  if (host_shared_bytes) fprintf(f, "  \"shared_bytes\": %u,\n", host_shared_bytes);
  fprintf(f, "  \"buffers\": [\n");
  for (int i = 0; i < host_nbufs; i++) {
    if (host_bufs[i].input) {
      fprintf(f, "    {\"name\": \"%s\", \"hex\": \"", host_bufs[i].name);
      host_hex(f, host_bufs[i].data, host_bufs[i].size);
      fprintf(f, "\"}");
    } else {
      fprintf(f, "    {\"name\": \"%s\", \"size\": %zu}", host_bufs[i].name, host_bufs[i].size);
    }
    fprintf(f, i + 1 < host_nbufs ? ",\n" : "\n");
  }
  fprintf(f, "  ],\n  \"params\": [\n");
  for (int i = 0; i < host_nparams; i++) {
    if (host_params[i].buffer)
      fprintf(f, "    {\"buffer\": \"%s\"}", host_params[i].buffer);
    else
      fprintf(f, "    {\"type\": \"%s\", \"value\": \"%s\"}", host_params[i].type, host_params[i].value);
    fprintf(f, i + 1 < host_nparams ? ",\n" : "\n");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);
}

static void host_write_expected(void) {
  FILE *f = host_open(".expected.json");
  fprintf(f, "{\"status\": \"ok\", \"buffers\": [\n");
  for (int i = 0; i < host_nbufs; i++) {
    fprintf(f, "  {\"name\": \"%s\", \"hex\": \"", host_bufs[i].name);
    host_hex(f, host_bufs[i].data, host_bufs[i].size);
    fprintf(f, i + 1 < host_nbufs ? "\"},\n" : "\"}\n");
  }
  fprintf(f, "]}\n");
  fclose(f);
}

static void host_set_dims(void) {
  memcpy(host_ntid, host_block, sizeof host_ntid);
  memcpy(host_nctaid, host_grid, sizeof host_nctaid);
}

struct host_thread {
  void (*body)(void);
  uint32_t tid[3], ctaid[3];
};
static void *host_thread_main(void *arg) {
  struct host_thread *t = arg;
  memcpy(host_tid, t->tid, sizeof host_tid);
  memcpy(host_ctaid, t->ctaid, sizeof host_ctaid);
  t->body();
  return NULL;
}

/* Writes the launch file, runs every block's threads as pthreads (blocks one after another),
 * writes the expected file. body() calls the kernel with the arguments the params describe. */
__attribute__((unused)) static int host_launch_threads(void (*body)(void)) {
  host_write_launch();
  host_set_dims();
  uint32_t nthreads = host_block[0] * host_block[1] * host_block[2];
  struct host_thread *ts = calloc(nthreads, sizeof *ts);
  pthread_t *ps = calloc(nthreads, sizeof *ps);
  if (!ts || !ps) host_die("out of memory");
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  for (uint32_t cz = 0; cz < host_grid[2]; cz++)
    for (uint32_t cy = 0; cy < host_grid[1]; cy++)
      for (uint32_t cx = 0; cx < host_grid[0]; cx++) {
        if (pthread_barrier_init(&host_barrier, NULL, nthreads)) host_die("barrier init");
        for (uint32_t i = 0; i < nthreads; i++) {
          ts[i].body = body;
          ts[i].tid[0] = i % host_block[0];
          ts[i].tid[1] = i / host_block[0] % host_block[1];
          ts[i].tid[2] = i / host_block[0] / host_block[1];
          ts[i].ctaid[0] = cx, ts[i].ctaid[1] = cy, ts[i].ctaid[2] = cz;
          if (pthread_create(&ps[i], &attr, host_thread_main, &ts[i])) host_die("pthread_create");
        }
        for (uint32_t i = 0; i < nthreads; i++) pthread_join(ps[i], NULL);
        pthread_barrier_destroy(&host_barrier);
      }
  free(ts);
  free(ps);
  host_write_expected();
  return 0;
}

/* Writes the launch file, calls block(ctaid_x) once per block (1-D grids only), writes the
 * expected file. */
__attribute__((unused)) static int host_launch_blocks(void (*block)(uint32_t ctaid)) {
  if (host_grid[1] != 1 || host_grid[2] != 1) host_die("host_launch_blocks: 1-D grids only");
  host_write_launch();
  host_set_dims();
  for (uint32_t cx = 0; cx < host_grid[0]; cx++) block(cx);
  host_write_expected();
  return 0;
}

/* Bit patterns of floats. */
static inline uint32_t host_f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
static inline float host_bits_f32(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* A deterministic input generator (splitmix64, the same as ../llvm/ptxk.h's ptxk_mix64). */
static inline uint64_t host_mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#endif /* NVCC_HOST_H */
