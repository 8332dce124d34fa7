// GPGPU-Sim's side of the adapter: one kernel launch through the simulator's internal C++ API
// (the interface is sim.h). GPGPU-Sim's driver-API module loading (`cuModuleLoadData*`,
// `cuModuleGetFunction`) is empty stubs and its runtime path finds PTX with cuobjdump in a fat
// binary, so this does what `__cudaRegisterFatBinary` + `__cudaRegisterFunction` do on that path,
// from a string: parse the module, add it as binary 1 of the context, load its static globals and
// constants, register the entry under a host-side key, and give it zeroed resource usage where
// the normal path runs `ptxas -v` (functional simulation does not use it).
#include "sim.h"

#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "gpgpu_context.h"

// Defined in libcuda/cuda_runtime_api.cc (exported by libcudart.so), declared in no header.
CUctx_st *GPGPUSim_Context(gpgpu_context *ctx);

namespace {

// The "host function" the entry is registered under: any unique address.
char g_host_fun;
function_info *g_entry = nullptr;

CUctx_st *context() { return GPGPUSim_Context(GPGPU_Context()); }
gpgpu_t *gpu() { return context()->get_device()->get_gpgpu(); }

}  // namespace

extern "C" int ptxconf_gsim_load(const char *ptx, const char *entry, char *err, size_t err_len) {
  gpgpu_context *ctx = GPGPU_Context();
  CUctx_st *cu = context();
  symbol_table *symtab = ctx->gpgpu_ptx_sim_load_ptx_from_string(ptx, 1);
  cu->add_binary(symtab, 1);
  ctx->api->load_static_globals(symtab, STATIC_ALLOC_LIMIT, 0xFFFFFFFF, gpu());
  ctx->api->load_constants(symtab, STATIC_ALLOC_LIMIT, gpu());
  symbol *s = symtab->lookup(entry);
  function_info *f = s ? s->get_pc() : nullptr;
  if (!f || !f->is_entry_point()) {
    snprintf(err, err_len, "the module has no .entry `%s`", entry);
    return -1;
  }
  gpgpu_ptx_sim_info info;
  memset(&info, 0, sizeof info);
  f->set_kernel_info(info);
  cu->register_function(1, &g_host_fun, entry);
  g_entry = f;
  return (int)f->num_args();
}

extern "C" size_t ptxconf_gsim_param_size(unsigned i) {
  return g_entry->get_param_config(i).first;
}

extern "C" uint64_t ptxconf_gsim_malloc(size_t bytes) {
  return (uint64_t)(size_t)gpu()->gpu_malloc(bytes);
}

extern "C" void ptxconf_gsim_to_device(uint64_t dst, const void *src, size_t bytes) {
  gpu()->memcpy_to_gpu((size_t)dst, src, bytes);
}

extern "C" void ptxconf_gsim_from_device(void *dst, uint64_t src, size_t bytes) {
  gpu()->memcpy_from_gpu(dst, (size_t)src, bytes);
}

extern "C" int ptxconf_gsim_launch(const unsigned grid[3], const unsigned block[3],
                                   unsigned shared_bytes, void **args, char *err,
                                   size_t err_len) {
  CUresult r = cuLaunchKernel((CUfunction)&g_host_fun, grid[0], grid[1], grid[2], block[0],
                              block[1], block[2], shared_bytes, NULL, args, NULL);
  if (r != CUDA_SUCCESS) {
    snprintf(err, err_len, "cuLaunchKernel returned %d", (int)r);
    return -1;
  }
  GPGPU_Context()->synchronize();
  return 0;
}
