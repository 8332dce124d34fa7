/* ptxk.h: one kernel source, two builds.
 *
 * Under __NVPTX__ (clang-19 --target=nvptx64-nvidia-cuda) the macros map to NVPTX builtins and
 * the file is only a kernel. Otherwise (gcc, x86-64) the same kernel runs natively: each block of
 * the grid in turn, each CUDA thread of the block as a pthread, BARRIER as a pthread_barrier over
 * the block, SHARED variables as plain statics (one block runs at a time), and the host part of
 * the kernel's file (under PTXK_HOST) builds the inputs, writes NAME.launch.json, runs the grid
 * and writes NAME.expected.json in the launch contract of issue 4.
 */
#ifndef PTXK_H
#define PTXK_H

#include <stdint.h>

#ifdef __NVPTX__

#define KERNEL __attribute__((nvptx_kernel))
#define SHARED __attribute__((address_space(3)))
#define CONSTANT __attribute__((address_space(4)))
#define TID_X __nvvm_read_ptx_sreg_tid_x()
#define TID_Y __nvvm_read_ptx_sreg_tid_y()
#define TID_Z __nvvm_read_ptx_sreg_tid_z()
#define NTID_X __nvvm_read_ptx_sreg_ntid_x()
#define NTID_Y __nvvm_read_ptx_sreg_ntid_y()
#define NTID_Z __nvvm_read_ptx_sreg_ntid_z()
#define CTAID_X __nvvm_read_ptx_sreg_ctaid_x()
#define CTAID_Y __nvvm_read_ptx_sreg_ctaid_y()
#define CTAID_Z __nvvm_read_ptx_sreg_ctaid_z()
#define NCTAID_X __nvvm_read_ptx_sreg_nctaid_x()
#define NCTAID_Y __nvvm_read_ptx_sreg_nctaid_y()
#define NCTAID_Z __nvvm_read_ptx_sreg_nctaid_z()
#define BARRIER() __syncthreads()

#else /* native build */

#define PTXK_HOST 1
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL
#define SHARED
#define CONSTANT
extern __thread uint32_t ptxk_tid[3], ptxk_ctaid[3];
extern uint32_t ptxk_ntid[3], ptxk_nctaid[3];
extern pthread_barrier_t ptxk_barrier;
#define TID_X ptxk_tid[0]
#define TID_Y ptxk_tid[1]
#define TID_Z ptxk_tid[2]
#define NTID_X ptxk_ntid[0]
#define NTID_Y ptxk_ntid[1]
#define NTID_Z ptxk_ntid[2]
#define CTAID_X ptxk_ctaid[0]
#define CTAID_Y ptxk_ctaid[1]
#define CTAID_Z ptxk_ctaid[2]
#define NCTAID_X ptxk_nctaid[0]
#define NCTAID_Y ptxk_nctaid[1]
#define NCTAID_Z ptxk_nctaid[2]
#define BARRIER() pthread_barrier_wait(&ptxk_barrier)

__thread uint32_t ptxk_tid[3], ptxk_ctaid[3];
uint32_t ptxk_ntid[3], ptxk_nctaid[3];
pthread_barrier_t ptxk_barrier;

#define PTXK_MAX_BUFS 8
#define PTXK_MAX_PARAMS 8
static struct {
  const char *name;
  size_t size;
  int input; /* 1: hex in the launch file, 0: size only (zeroed) */
  unsigned char *data;
} ptxk_bufs[PTXK_MAX_BUFS];
static int ptxk_nbufs;
static struct {
  const char *buffer; /* NULL for a scalar */
  const char *type;
  char value[64];
} ptxk_params[PTXK_MAX_PARAMS];
static int ptxk_nparams;
static const char *ptxk_outdir, *ptxk_name;
static uint32_t ptxk_grid[3], ptxk_block[3];

static void ptxk_die(const char *what) {
  fprintf(stderr, "ptxk: %s\n", what);
  exit(1);
}

/* argv[1]: the directory the JSON files go to. */
static void ptxk_begin(int argc, char **argv, const char *name, uint32_t gx, uint32_t gy,
                       uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz) {
  if (argc != 2) ptxk_die("usage: PROGRAM OUTDIR");
  ptxk_outdir = argv[1];
  ptxk_name = name;
  ptxk_grid[0] = gx, ptxk_grid[1] = gy, ptxk_grid[2] = gz;
  ptxk_block[0] = bx, ptxk_block[1] = by, ptxk_block[2] = bz;
}

__attribute__((unused)) static void *ptxk_buffer(const char *name, size_t size, int input) {
  if (ptxk_nbufs == PTXK_MAX_BUFS) ptxk_die("too many buffers");
  size_t alloc = (size + 255) / 256 * 256;
  unsigned char *p = aligned_alloc(256, alloc ? alloc : 256);
  if (!p) ptxk_die("out of memory");
  memset(p, 0, alloc ? alloc : 256);
  ptxk_bufs[ptxk_nbufs].name = name;
  ptxk_bufs[ptxk_nbufs].size = size;
  ptxk_bufs[ptxk_nbufs].input = input;
  ptxk_bufs[ptxk_nbufs].data = p;
  ptxk_nbufs++;
  return p;
}
/* An input buffer: filled by the caller before ptxk_launch, written as hex. */
__attribute__((unused)) static void *ptxk_in(const char *name, size_t size) { return ptxk_buffer(name, size, 1); }
/* An output buffer: starts zeroed, given by size only. */
__attribute__((unused)) static void *ptxk_out(const char *name, size_t size) { return ptxk_buffer(name, size, 0); }

__attribute__((unused)) static void ptxk_param_buf(const char *name) {
  if (ptxk_nparams == PTXK_MAX_PARAMS) ptxk_die("too many params");
  ptxk_params[ptxk_nparams++].buffer = name;
}
__attribute__((unused)) static void ptxk_param_scalar(const char *type, unsigned long long bits) {
  if (ptxk_nparams == PTXK_MAX_PARAMS) ptxk_die("too many params");
  ptxk_params[ptxk_nparams].type = type;
  snprintf(ptxk_params[ptxk_nparams].value, sizeof ptxk_params[0].value, "0x%llx", bits);
  ptxk_nparams++;
}

static FILE *ptxk_open(const char *suffix) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s%s", ptxk_outdir, ptxk_name, suffix);
  FILE *f = fopen(path, "w");
  if (!f) ptxk_die("cannot write output file");
  return f;
}
static void ptxk_hex(FILE *f, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

static void ptxk_write_launch(void) {
  FILE *f = ptxk_open(".launch.json");
  fprintf(f, "{\n  \"ptx\": \"%s.ptx\",\n  \"entry\": \"%s\",\n", ptxk_name, ptxk_name);
  fprintf(f, "  \"grid\": [%u, %u, %u],\n  \"block\": [%u, %u, %u],\n", ptxk_grid[0],
          ptxk_grid[1], ptxk_grid[2], ptxk_block[0], ptxk_block[1], ptxk_block[2]);
  fprintf(f, "  \"buffers\": [\n");
  for (int i = 0; i < ptxk_nbufs; i++) {
    if (ptxk_bufs[i].input) {
      fprintf(f, "    {\"name\": \"%s\", \"hex\": \"", ptxk_bufs[i].name);
      ptxk_hex(f, ptxk_bufs[i].data, ptxk_bufs[i].size);
      fprintf(f, "\"}");
    } else {
      fprintf(f, "    {\"name\": \"%s\", \"size\": %zu}", ptxk_bufs[i].name, ptxk_bufs[i].size);
    }
    fprintf(f, i + 1 < ptxk_nbufs ? ",\n" : "\n");
  }
  fprintf(f, "  ],\n  \"params\": [\n");
  for (int i = 0; i < ptxk_nparams; i++) {
    if (ptxk_params[i].buffer)
      fprintf(f, "    {\"buffer\": \"%s\"}", ptxk_params[i].buffer);
    else
      fprintf(f, "    {\"type\": \"%s\", \"value\": \"%s\"}", ptxk_params[i].type,
              ptxk_params[i].value);
    fprintf(f, i + 1 < ptxk_nparams ? ",\n" : "\n");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);
}

static void ptxk_write_expected(void) {
  FILE *f = ptxk_open(".expected.json");
  fprintf(f, "{\"status\": \"ok\", \"buffers\": [\n");
  for (int i = 0; i < ptxk_nbufs; i++) {
    fprintf(f, "  {\"name\": \"%s\", \"hex\": \"", ptxk_bufs[i].name);
    ptxk_hex(f, ptxk_bufs[i].data, ptxk_bufs[i].size);
    fprintf(f, i + 1 < ptxk_nbufs ? "\"},\n" : "\"}\n");
  }
  fprintf(f, "]}\n");
  fclose(f);
}

struct ptxk_thread {
  void (*body)(void);
  uint32_t tid[3], ctaid[3];
};
static void *ptxk_thread_main(void *arg) {
  struct ptxk_thread *t = arg;
  memcpy(ptxk_tid, t->tid, sizeof ptxk_tid);
  memcpy(ptxk_ctaid, t->ctaid, sizeof ptxk_ctaid);
  t->body();
  return NULL;
}

/* Writes the launch file, runs the grid (blocks one after another in x-major order, each block's
 * threads concurrently so that barriers work), writes the expected file. body() calls the kernel
 * with the arguments the params describe. */
static int ptxk_launch(void (*body)(void)) {
  ptxk_write_launch();
  memcpy(ptxk_ntid, ptxk_block, sizeof ptxk_ntid);
  memcpy(ptxk_nctaid, ptxk_grid, sizeof ptxk_nctaid);
  uint32_t nthreads = ptxk_block[0] * ptxk_block[1] * ptxk_block[2];
  struct ptxk_thread *ts = calloc(nthreads, sizeof *ts);
  pthread_t *ps = calloc(nthreads, sizeof *ps);
  if (!ts || !ps) ptxk_die("out of memory");
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  for (uint32_t cz = 0; cz < ptxk_grid[2]; cz++)
    for (uint32_t cy = 0; cy < ptxk_grid[1]; cy++)
      for (uint32_t cx = 0; cx < ptxk_grid[0]; cx++) {
        if (pthread_barrier_init(&ptxk_barrier, NULL, nthreads)) ptxk_die("barrier init");
        for (uint32_t i = 0; i < nthreads; i++) {
          ts[i].body = body;
          ts[i].tid[0] = i % ptxk_block[0];
          ts[i].tid[1] = i / ptxk_block[0] % ptxk_block[1];
          ts[i].tid[2] = i / ptxk_block[0] / ptxk_block[1];
          ts[i].ctaid[0] = cx, ts[i].ctaid[1] = cy, ts[i].ctaid[2] = cz;
          if (pthread_create(&ps[i], &attr, ptxk_thread_main, &ts[i])) ptxk_die("pthread_create");
        }
        for (uint32_t i = 0; i < nthreads; i++) pthread_join(ps[i], NULL);
        pthread_barrier_destroy(&ptxk_barrier);
      }
  free(ts);
  free(ps);
  ptxk_write_expected();
  return 0;
}

/* Bit patterns of floats for the scalar params. */
static inline uint32_t ptxk_f32_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}
static inline uint64_t ptxk_f64_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}

#endif /* __NVPTX__ */

/* A deterministic input generator shared by the host parts (splitmix64). */
static inline uint64_t ptxk_mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#endif /* PTXK_H */
