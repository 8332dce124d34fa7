"""Compiles a CUDA C++ file with NVRTC and prints the PTX: python3 nvrtc.py FILE.cu OPTIONS..."""
import ctypes,sys,glob
# NVRTC from the nvidia-cuda-nvrtc-cu12 wheel (12.9): NVRTC_LIB=.../nvidia/cuda_nvrtc/lib/libnvrtc.so.12
import os
lib=ctypes.CDLL(os.environ['NVRTC_LIB'])
src=open(sys.argv[1],'rb').read()
p=ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(p),src,b'k.cu',0,None,None)==0
opts=[o.encode() for o in sys.argv[2:]]
arr=(ctypes.c_char_p*len(opts))(*opts)
r=lib.nvrtcCompileProgram(p,len(opts),arr)
n=ctypes.c_size_t(); lib.nvrtcGetProgramLogSize(p,ctypes.byref(n)); log=ctypes.create_string_buffer(n.value); lib.nvrtcGetProgramLog(p,log); sys.stderr.write(log.value.decode())
if r: sys.exit(r)
lib.nvrtcGetPTXSize(p,ctypes.byref(n)); b=ctypes.create_string_buffer(n.value); lib.nvrtcGetPTX(p,b); print(b.value.decode())
