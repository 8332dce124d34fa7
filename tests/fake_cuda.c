/* A fake CUDA driver library for tests/backends.rs: the entry points the `cuda` backend
 * resolves, with no GPU behind them. Memory is host memory (malloc); a "launch" writes what the
 * driver received into the first kernel parameter's buffer, so a test can check the bytes the
 * backend passed through the C ABI (the launch configuration, its attributes, the function
 * attributes it set, the tensor map it had encoded).
 *
 * Built twice: as a CUDA 12.8 driver, and with -DOLD_DRIVER as a CUDA 11.8 one, which lacks
 * cuLaunchKernelEx and the tensor-map encoders (they came with CUDA 12.0).
 *
 * The structures mirror cuda.h (CUDA 12.x): CUlaunchAttribute is { id; char pad[4]; union
 * value (64 bytes, clusterDim = 3 unsigned ints first) }, CUlaunchConfig is { 7 unsigned ints,
 * CUstream, CUlaunchAttribute *attrs, unsigned numAttrs }.
 *
 * The record a launch writes (little-endian 32-bit words at the buffer's start):
 *   0: 1 = cuLaunchKernel, 2 = cuLaunchKernelEx; 1-3: grid; 4-6: block; 7: shared bytes;
 *   8: numAttrs; 9: attrs[0].id; 10-12: attrs[0].value.clusterDim; 13: the last
 *   MAX_DYNAMIC_SHARED_SIZE_BYTES set; 14: the last NON_PORTABLE_CLUSTER_SIZE_ALLOWED set;
 *   bytes 64-71: the buffer's own address; bytes 128-255: the second parameter's 128 bytes when
 *   the kernel's name starts with "tmap".
 * The map a fake encoder writes (32-bit words): 0: 1 = tiled, 2 = im2col; 1: dataType; 2: rank;
 *   3: interleave; 4: swizzle; 5: l2Promotion; 6: oobFill; 8-9: globalAddress; 10-14:
 *   globalDim (rank entries, low 32 bits); 15-18: globalStrides (rank - 1, low 32 bits); tiled:
 *   19-23 boxDim (rank); im2col: 19-21 lower corner, 22-24 upper corner (rank - 2 each), 25
 *   channelsPerPixel, 26 pixelsPerColumn; 27-31: elementStrides (rank). A globalDim[0] of 999
 *   is refused with CUDA_ERROR_INVALID_VALUE, and so is a map address not 64-byte aligned.
 * Word 15 of the record: the process id, which tells the `cuda` backend's workers apart.
 *
 * A comment in the PTX text marks a job (read by cuModuleLoadDataEx, forgotten at
 * cuModuleUnload); the kernel's "run" is cuCtxSynchronize:
 *   "// fake: sticky": cuCtxSynchronize returns CUDA_ERROR_ILLEGAL_INSTRUCTION and poisons the
 *     process as a sticky error did on an H200 (driver 580.159.04): every later call fails,
 *     cuDevicePrimaryCtxRelease with CUDA_ERROR_INVALID_CONTEXT, every other one with the
 *     illegal instruction again (cuGetErrorName/String excepted);
 *   "// fake: die": the process kills itself (SIGKILL) in cuCtxSynchronize;
 *   "// fake: hang": cuCtxSynchronize never returns;
 *   "// fake: meet N DIR": cuCtxSynchronize leaves a file named after the process in DIR and
 *     waits until DIR holds N files (N processes in it at once), or fails with
 *     CUDA_ERROR_UNKNOWN after 60 s;
 *   "// fake: jit US": cuModuleLoadDataEx spends US microseconds of CPU time, as the driver's
 *     JIT does compiling a module (every module, with FAKE_CUDA_JIT_US=US in the environment);
 *   "// fake: wait US": cuCtxSynchronize sleeps US microseconds, as a host waits for a kernel;
 *   "// fake: reject": cuModuleLoadDataEx refuses the module (CUDA_ERROR_INVALID_PTX) with
 *     REJECTION in the JIT's error log.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
#define OK 0
#define INVALID_VALUE 1
#define INVALID_CONTEXT 201
#define ILLEGAL_INSTRUCTION 715
#define INVALID_PTX 218
#define UNKNOWN 999
#define REJECTION "ptxas application ptx input, line 2; error   : fake rejection"

/* The marked job in flight (see above), and whether a sticky error poisoned the process. */
enum { PLAIN, STICKY, DIE, HANG, MEET };
static int mode = PLAIN, poisoned = 0, meet_count = 0;
static long wait_us = 0;
static char meet_dir[512];

/* Every entry point but the error-name ones fails once the process is poisoned. */
#define GUARD                                                                                                       \
    if (poisoned)                                                                                                   \
    return ILLEGAL_INSTRUCTION

typedef struct {
    unsigned id;
    char pad[4];
    union {
        char pad[64];
        struct {
            unsigned x, y, z;
        } clusterDim;
        void *align;
    } value;
} CUlaunchAttribute;

typedef struct {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void *hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

typedef struct {
    int tmap;
} Func;

static Func plain = {0}, with_tmap = {1};
static unsigned max_dynamic_shared, non_portable;

CUresult cuInit(unsigned flags) { return OK; }
CUresult cuDriverGetVersion(int *v) {
#ifdef OLD_DRIVER
    *v = 11080;
#else
    *v = 12080;
#endif
    return OK;
}
CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r == INVALID_VALUE         ? "CUDA_ERROR_INVALID_VALUE"
         : r == INVALID_CONTEXT     ? "CUDA_ERROR_INVALID_CONTEXT"
         : r == ILLEGAL_INSTRUCTION ? "CUDA_ERROR_ILLEGAL_INSTRUCTION"
         : r == INVALID_PTX         ? "CUDA_ERROR_INVALID_PTX"
                                    : "CUDA_ERROR_UNKNOWN";
    return OK;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
    *s = "fake";
    return OK;
}
CUresult cuDeviceGetCount(int *n) {
    *n = 1;
    return OK;
}
CUresult cuDeviceGet(int *d, int k) {
    *d = 0;
    return OK;
}
CUresult cuDeviceGetName(char *name, int len, int d) {
    strncpy(name, "Fake GPU", len);
    return OK;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
    *v = attr == 75 ? 9 : 0; /* COMPUTE_CAPABILITY_MAJOR = 75, MINOR = 76: sm_90 */
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) {
    GUARD;
    *ctx = &plain;
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int d) { return poisoned ? INVALID_CONTEXT : OK; }
CUresult cuDevicePrimaryCtxReset_v2(int d) {
    GUARD;
    return OK;
}
CUresult cuCtxSetCurrent(void *ctx) {
    GUARD;
    return OK;
}

/* The number of entries in DIR but . and .., or -1. */
static int entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static CUresult meet(void) {
    char path[600];
    snprintf(path, sizeof path, "%s/%d", meet_dir, (int)getpid());
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0)
        return UNKNOWN;
    close(fd);
    for (int k = 0; k < 60000; k++) {
        if (entries(meet_dir) >= meet_count)
            return OK;
        usleep(1000);
    }
    return UNKNOWN;
}

CUresult cuCtxSynchronize(void) {
    GUARD;
    switch (mode) {
    case STICKY:
        poisoned = 1;
        return ILLEGAL_INSTRUCTION;
    case DIE:
        kill(getpid(), SIGKILL);
        return UNKNOWN;
    case HANG:
        for (;;)
            pause();
    case MEET:
        return meet();
    }
    if (wait_us > 0)
        usleep(wait_us);
    return OK;
}

/* Spends `us` microseconds of this thread's CPU time. */
static void burn(long us) {
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

CUresult cuModuleLoadDataEx(void **m, const void *ptx, unsigned n, int *opts, void **vals) {
    GUARD;
    const char *text = ptx, *p;
    mode = strstr(text, "// fake: sticky") ? STICKY
           : strstr(text, "// fake: die")  ? DIE
           : strstr(text, "// fake: hang") ? HANG
                                           : PLAIN;
    if ((p = strstr(text, "// fake: meet ")) != NULL &&
        sscanf(p, "// fake: meet %d %511s", &meet_count, meet_dir) == 2)
        mode = MEET;
    if ((p = strstr(text, "// fake: jit ")) != NULL)
        burn(atol(p + strlen("// fake: jit ")));
    else if ((p = getenv("FAKE_CUDA_JIT_US")) != NULL)
        burn(atol(p));
    wait_us = (p = strstr(text, "// fake: wait ")) != NULL ? atol(p + strlen("// fake: wait ")) : 0;
    if (strstr(text, "// fake: reject")) {
        /* CU_JIT_ERROR_LOG_BUFFER = 5, its size (the value itself, in the pointer) = 6. */
        char *log = NULL;
        size_t size = 0;
        for (unsigned i = 0; i < n; i++) {
            if (opts[i] == 5)
                log = vals[i];
            else if (opts[i] == 6)
                size = (size_t)(uintptr_t)vals[i];
        }
        if (log && size > 0)
            snprintf(log, size, "%s", REJECTION);
        mode = PLAIN;
        return INVALID_PTX;
    }
    *m = &plain;
    return OK;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    GUARD;
    *f = strncmp(name, "tmap", 4) == 0 ? &with_tmap : &plain;
    max_dynamic_shared = 0;
    non_portable = 0;
    return OK;
}
CUresult cuModuleUnload(void *m) {
    mode = PLAIN;
    wait_us = 0;
    GUARD;
    return OK;
}
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) {
    GUARD;
    /* At least the 256 bytes a launch record takes, so that any job's first buffer holds it. */
    void *q = calloc(1, n < 256 ? 256 : n);
    *p = (uint64_t)(uintptr_t)q;
    return q ? OK : 2;
}
CUresult cuMemFree_v2(uint64_t p) {
    GUARD;
    free((void *)(uintptr_t)p);
    return OK;
}
CUresult cuMemcpyHtoD_v2(uint64_t d, const void *h, size_t n) {
    GUARD;
    memcpy((void *)(uintptr_t)d, h, n);
    return OK;
}
CUresult cuMemcpyDtoH_v2(void *h, uint64_t d, size_t n) {
    GUARD;
    memcpy(h, (void *)(uintptr_t)d, n);
    return OK;
}
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) {
    GUARD;
    memset((void *)(uintptr_t)d, v, n);
    return OK;
}
CUresult cuFuncSetAttribute(void *f, int attr, int v) {
    GUARD;
    if (attr == 8) /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
        max_dynamic_shared = (unsigned)v;
    else if (attr == 14) /* CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
        non_portable = (unsigned)v;
    else
        return INVALID_VALUE;
    return OK;
}

/* Writes the record into the first parameter's buffer. */
static CUresult record(unsigned kind, const unsigned dims[7], const CUlaunchAttribute *attrs, unsigned n,
                       void *f, void **params) {
    uint64_t out;
    memcpy(&out, params[0], 8);
    uint32_t *w = (uint32_t *)(uintptr_t)out;
    w[0] = kind;
    memcpy(&w[1], dims, 7 * 4);
    w[8] = n;
    if (n > 0) {
        w[9] = attrs[0].id;
        w[10] = attrs[0].value.clusterDim.x;
        w[11] = attrs[0].value.clusterDim.y;
        w[12] = attrs[0].value.clusterDim.z;
    }
    w[13] = max_dynamic_shared;
    w[14] = non_portable;
    memcpy((char *)w + 64, &out, 8);
    w[15] = (uint32_t)getpid();
    if (((Func *)f)->tmap)
        memcpy((char *)w + 128, params[1], 128);
    return OK;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
    GUARD;
    unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
    return record(1, dims, NULL, 0, f, params);
}

#ifndef OLD_DRIVER
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, void *f, void **params, void **extra) {
    GUARD;
    unsigned dims[7] = {c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                        c->sharedMemBytes};
    if (c->hStream != NULL)
        return INVALID_VALUE;
    return record(2, dims, c->attrs, c->numAttrs, f, params);
}

static CUresult common(uint32_t *w, unsigned kind, unsigned type, unsigned rank, void *address, const uint64_t *dim,
                       const uint64_t *strides, const uint32_t *estrides, unsigned il, unsigned sw, unsigned l2,
                       unsigned oob) {
    if (((uintptr_t)w) % 64 != 0 || rank < 1 || rank > 5 || dim[0] == 999)
        return INVALID_VALUE;
    memset(w, 0, 128);
    w[0] = kind;
    w[1] = type;
    w[2] = rank;
    w[3] = il;
    w[4] = sw;
    w[5] = l2;
    w[6] = oob;
    uint64_t a = (uint64_t)(uintptr_t)address;
    memcpy(&w[8], &a, 8);
    for (unsigned i = 0; i < rank; i++) {
        w[10 + i] = (uint32_t)dim[i];
        w[27 + i] = estrides[i];
    }
    for (unsigned i = 0; i + 1 < rank; i++)
        w[15 + i] = (uint32_t)strides[i];
    return OK;
}

CUresult cuTensorMapEncodeTiled(void *map, unsigned type, unsigned rank, void *address, const uint64_t *dim,
                                const uint64_t *strides, const uint32_t *box, const uint32_t *estrides, unsigned il,
                                unsigned sw, unsigned l2, unsigned oob) {
    uint32_t *w = map;
    CUresult r = common(w, 1, type, rank, address, dim, strides, estrides, il, sw, l2, oob);
    if (r != OK)
        return r;
    for (unsigned i = 0; i < rank; i++)
        w[19 + i] = box[i];
    return OK;
}

CUresult cuTensorMapEncodeIm2col(void *map, unsigned type, unsigned rank, void *address, const uint64_t *dim,
                                 const uint64_t *strides, const int *lower, const int *upper, unsigned channels,
                                 unsigned pixels, const uint32_t *estrides, unsigned il, unsigned sw, unsigned l2,
                                 unsigned oob) {
    uint32_t *w = map;
    if (rank < 3)
        return INVALID_VALUE;
    CUresult r = common(w, 2, type, rank, address, dim, strides, estrides, il, sw, l2, oob);
    if (r != OK)
        return r;
    for (unsigned i = 0; i + 2 < rank; i++) {
        w[19 + i] = (uint32_t)lower[i];
        w[22 + i] = (uint32_t)upper[i];
    }
    w[25] = channels;
    w[26] = pixels;
    return OK;
}

/* CUDA 12.8 (cuda.h): the W corners by value, the mode between interleave and swizzle. The
   record: kind 3, the corners at words 19 and 22, the mode at 24. */
CUresult cuTensorMapEncodeIm2colWide(void *map, unsigned type, unsigned rank, void *address, const uint64_t *dim,
                                     const uint64_t *strides, int lower, int upper, unsigned channels,
                                     unsigned pixels, const uint32_t *estrides, unsigned il, unsigned mode,
                                     unsigned sw, unsigned l2, unsigned oob) {
    uint32_t *w = map;
    if (rank < 3 || mode > 1)
        return INVALID_VALUE;
    CUresult r = common(w, 3, type, rank, address, dim, strides, estrides, il, sw, l2, oob);
    if (r != OK)
        return r;
    w[19] = (uint32_t)lower;
    w[22] = (uint32_t)upper;
    w[24] = mode;
    w[25] = channels;
    w[26] = pixels;
    return OK;
}
#endif
