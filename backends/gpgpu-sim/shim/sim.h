// The C interface between the adapter (adapter.cc: the cmd: protocol, no GPGPU-Sim code) and the
// shim (sim.cc, libptxconf-gpgpu-sim.so: GPGPU-Sim's internal C++ API, linked against its
// libcudart.so). The adapter opens the shim with dlopen in a child process, after it moved the
// simulator's stdout to a log, so nothing of GPGPU-Sim runs, or prints, before that.
#ifndef PTXCONF_GPGPU_SIM_SHIM_H
#define PTXCONF_GPGPU_SIM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Parses `ptx` (its module text; GPGPU-Sim aborts the process on a parse error after printing it),
// loads its globals and constants, and registers `entry` with zeroed resource usage (no ptxas).
// Returns the entry's number of parameters, or -1 with a message in `err` (no such entry).
int ptxconf_gsim_load(const char *ptx, const char *entry, char *err, size_t err_len);

// The size in bytes of parameter `i` of the loaded entry.
size_t ptxconf_gsim_param_size(unsigned i);

// Device memory: an allocation's address, and copies in and out (synchronous).
uint64_t ptxconf_gsim_malloc(size_t bytes);
void ptxconf_gsim_to_device(uint64_t dst, const void *src, size_t bytes);
void ptxconf_gsim_from_device(void *dst, uint64_t src, size_t bytes);

// Launches the loaded entry (functional simulation) and waits for it. `args[i]` points at
// parameter i's bytes. Returns 0, or -1 with a message in `err`.
int ptxconf_gsim_launch(const unsigned grid[3], const unsigned block[3], unsigned shared_bytes,
                        void **args, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
