#!/usr/bin/env python3
"""Regenerates corpus/ptx/nvrtc: every NAME[.BUILD].ptx from NAME.cu with NVIDIA NVRTC 12.9,
and every launch, expected and compare file from the kernel table in kernels.py.

  python3 corpus/ptx/nvrtc/regen.py            rewrite the files in place
  python3 corpus/ptx/nvrtc/regen.py --out DIR  write them to DIR instead (for a determinism diff)

For each kernel of kernels.KERNELS and each of its builds, the source is compiled with
nvrtcCompileProgram (options in the table, plus -I for the CUDA headers), and the PTX is written
exactly as nvrtcGetPTX returns it, less the C string's terminating NUL byte. Every PTX must then
assemble with ptxas for its .target (no error, no warning). The program name is
/corpus/ptx/nvrtc/NAME.cu and the compiler runs in "/", so that -lineinfo / -G output (`.file`,
DWARF comp_dir) does not depend on where the checkout is. NVRTC 12.9's output can depend on the
address-space layout (local_array.ptx came out in five variants in twelve runs), so each build is
compiled in a fresh process with address-space randomisation turned off (personality
ADDR_NO_RANDOMIZE, as `setarch -R` does), which makes it reproducible.

For each launch, its inputs come from the table, and its expected buffers from the kernel's
model: a C twin (NAME.twin.c, built with gcc, fed the launch on stdin, see twin.h) or a Python
function in models.py -- never from the PTX. A "host" kernel (the ones that replaced the
hand-written PTX of ../nvcc) has no launch in the table: its host program NAME.host.c (built
with gcc and ../nvcc/host.h, the harness of the nvcc/ kernels) builds the inputs, runs the same computation in C
and writes the launch and the buffers after it, which regen.py reads and writes out again in
this directory's format.

Needs: the nvidia-cuda-nvrtc-cu12 12.9 wheel (libnvrtc.so.12), the nvidia-cuda-runtime-cu12,
nvidia-cuda-cccl-cu12 and nvidia-cuda-nvcc-cu12 wheels (headers, ptxas), gcc, mpmath.
Environment overrides: NVRTC_LIB (path of libnvrtc.so.12), CUDA_INCLUDE (colon-separated
include directories), PTXAS, CC.
"""

import ctypes
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the corpus directory

WANT_VERSION = (12, 9)
GENERATED = ("*.ptx", "*.launch.json", "*.expected.json", "*.compare.json")
TWIN_CFLAGS = ["-O2", "-std=gnu11", "-Wall", "-Werror", "-ffp-contract=off", "-fno-math-errno"]


def die(msg):
    sys.stderr.write("nvrtc/regen.py: error: %s\n" % msg)
    sys.exit(1)


def nvidia_root():
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        if os.path.isdir(loc):
            return loc
    return None


class Nvrtc:
    def __init__(self):
        root = nvidia_root()
        path = os.environ.get("NVRTC_LIB") or (
            root and os.path.join(root, "cuda_nvrtc", "lib", "libnvrtc.so.12"))
        if not path or not os.path.exists(path):
            die("NVRTC not found: pip install nvidia-cuda-nvrtc-cu12==12.9.86 "
                "nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12 nvidia-cuda-nvcc-cu12 "
                "(or set NVRTC_LIB to libnvrtc.so.12)")
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            die("cannot load NVRTC %s: %s" % (path, e))
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.version = (major.value, minor.value)
        if self.version != WANT_VERSION and not os.environ.get("NVRTC_ANY_VERSION"):
            die("NVRTC %d.%d found at %s; the corpus was generated with %d.%d (set "
                "NVRTC_ANY_VERSION=1 to regenerate anyway)" % (self.version + (path,) + WANT_VERSION))
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        self.lib.nvrtcGetLoweredName.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                 ctypes.POINTER(ctypes.c_char_p)]
        inc = os.environ.get("CUDA_INCLUDE")
        if inc:
            self.includes = inc.split(":")
        else:
            self.includes = [os.path.join(root, d, "include")
                             for d in ("cuda_runtime", "cuda_cccl", "cuda_nvcc")] if root else []
        for d in self.includes:
            if not os.path.isdir(d):
                die("CUDA include directory %s missing (pip install nvidia-cuda-runtime-cu12 "
                    "nvidia-cuda-cccl-cu12 nvidia-cuda-nvcc-cu12, or set CUDA_INCLUDE)" % d)

    def check(self, r, what, prog=None):
        if r != 0:
            log = self.log(prog) if prog else ""
            die("%s: %s\n%s" % (what, self.lib.nvrtcGetErrorString(r).decode(), log))

    def log(self, prog):
        n = ctypes.c_size_t()
        self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        self.lib.nvrtcGetProgramLog(prog, buf)
        return buf.value.decode()

    def compile(self, src, name, options, name_expressions=()):
        """Returns (ptx bytes without the trailing NUL, log, {expression: lowered name})."""
        prog = ctypes.c_void_p()
        self.check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(),
                                               0, None, None), "nvrtcCreateProgram " + name)
        for e in name_expressions:
            self.check(self.lib.nvrtcAddNameExpression(prog, e.encode()), "nvrtcAddNameExpression")
        opts = [o.encode() for o in options]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        cwd = os.getcwd()
        os.chdir("/")  # -lineinfo/-G record the working directory
        try:
            r = self.lib.nvrtcCompileProgram(prog, len(opts), arr)
        finally:
            os.chdir(cwd)
        log = self.log(prog)
        if r != 0:
            die("NVRTC rejects %s (%s):\n%s" % (name, " ".join(options), log))
        n = ctypes.c_size_t()
        self.check(self.lib.nvrtcGetPTXSize(prog, ctypes.byref(n)), "nvrtcGetPTXSize")
        buf = ctypes.create_string_buffer(n.value)
        self.check(self.lib.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
        ptx = buf.raw
        if not ptx.endswith(b"\0") or b"\0" in ptx[:-1]:
            die("unexpected NUL layout in the PTX of " + name)
        lowered = {}
        for e in name_expressions:
            p = ctypes.c_char_p()
            self.check(self.lib.nvrtcGetLoweredName(prog, e.encode(), ctypes.byref(p)),
                       "nvrtcGetLoweredName")
            lowered[e] = p.value.decode()
        self.lib.nvrtcDestroyProgram(ctypes.byref(prog))
        return ptx[:-1], log, lowered


ADDR_NO_RANDOMIZE = 0x0040000


def _no_aslr():
    """Runs in the child before exec: turn address-space randomisation off for it."""
    libc = ctypes.CDLL(None, use_errno=True)
    cur = libc.personality(0xFFFFFFFF)
    if cur == -1 or libc.personality(cur | ADDR_NO_RANDOMIZE) == -1:
        os.write(2, b"nvrtc/regen.py: warning: cannot turn ASLR off; NVRTC output may vary\n")


def compile_in_child(job):
    """Compiles one build in a fresh process (see the module doc); returns compile()'s result."""
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--compile-one"],
                       input=json.dumps(job).encode(), capture_output=True,
                       preexec_fn=_no_aslr)
    sys.stderr.write(r.stderr.decode())
    if r.returncode != 0:
        sys.exit(r.returncode)
    out = json.loads(r.stdout)
    return bytes.fromhex(out["ptx"]), out["log"], out["lowered"], tuple(out["version"])


def compile_one():
    """The child: reads a job on stdin, writes the PTX (hex), log and lowered names."""
    job = json.loads(sys.stdin.read())
    nv = Nvrtc()
    ptx, log, lowered = nv.compile(job["src"], job["name"], job["options"],
                                   job["name_expressions"])
    sys.stdout.write(json.dumps({"ptx": ptx.hex(), "log": log, "lowered": lowered,
                                 "version": list(nv.version)}))


def find_ptxas():
    p = os.environ.get("PTXAS")
    if p:
        return p
    root = nvidia_root()
    if root and os.path.exists(os.path.join(root, "cuda_nvcc", "bin", "ptxas")):
        return os.path.join(root, "cuda_nvcc", "bin", "ptxas")
    return shutil.which("ptxas")


def ptxas_check(ptxas, path, tmp):
    text = open(path).read()
    m = re.search(r"^\.target\s+(sm_\w+)", text, re.M)
    if not m:
        die("%s has no .target" % path)
    arch = m.group(1)
    args = [ptxas, "-arch=" + arch, path, "-o", os.path.join(tmp, "out.cubin")]
    r = subprocess.run(args, capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    if r.returncode != 0:
        die("ptxas -arch=%s rejects %s:\n%s" % (arch, os.path.basename(path), out))
    if out:
        die("ptxas -arch=%s warns on %s:\n%s" % (arch, os.path.basename(path), out))
    return arch


def hexs(b):
    return bytes(b).hex()


def launch_json(ptx, L):
    out = ['{', '  "ptx": %s,' % json.dumps(ptx), '  "entry": %s,' % json.dumps(L.entry),
           '  "grid": [%d, %d, %d],' % tuple(L.grid), '  "block": [%d, %d, %d],' % tuple(L.block)]
    if L.shared:
        out.append('  "shared_bytes": %d,' % L.shared)
    out.append('  "buffers": [')
    rows = []
    for name, init in L.buffers:
        if isinstance(init, int):
            rows.append('    {"name": %s, "size": %d}' % (json.dumps(name), init))
        else:
            rows.append('    {"name": %s, "hex": "%s"}' % (json.dumps(name), hexs(init)))
    out.append(",\n".join(rows))
    out.append('  ],')
    out.append('  "params": [')
    rows = []
    for p in L.params:
        if p[0] == "buf":
            rows.append('    {"buffer": %s}' % json.dumps(p[1]))
        else:
            rows.append('    {"type": "%s", "value": "%s"}' % (p[0], p[1]))
    out.append(",\n".join(rows))
    out.append('  ]')
    out.append('}')
    return "\n".join(out) + "\n"


def expected_json(bufs):
    rows = ['  {"name": %s, "hex": "%s"}' % (json.dumps(n), hexs(b)) for n, b in bufs]
    return '{"status": "ok", "buffers": [\n' + ",\n".join(rows) + "\n]}\n"


def compare_json(rules):
    rows = []
    for name in rules:
        r = rules[name]
        rows.append('  %s: {"elem": %s, "rule": %s, "why": %s}' % (
            json.dumps(name), json.dumps(r["elem"]), json.dumps(r["rule"]), json.dumps(r["why"])))
    return "{\n" + ",\n".join(rows) + "\n}\n"


def scalar_bits(p):
    """A scalar parameter's bits as hex, for the twin."""
    ty, v = p
    width = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "b32": 32, "f32": 32,
             "u64": 64, "s64": 64, "b64": 64, "f64": 64}[ty]
    n = int(v, 16) if v.startswith("0x") else int(v)
    return "0x%x" % (n & ((1 << width) - 1))


class Twins:
    def __init__(self, tmp):
        self.tmp = tmp
        self.built = {}
        self.cc = os.environ.get("CC", "gcc")
        if not shutil.which(self.cc):
            die("host C compiler %s not found (set CC)" % self.cc)

    def build(self, name, extra):
        if name not in self.built:
            src = os.path.join(HERE, name + ".twin.c")
            exe = os.path.join(self.tmp, name + ".twin")
            args = [self.cc] + TWIN_CFLAGS + list(extra) + ["-I", HERE, src, "-o", exe, "-lm",
                                                            "-lpthread"]
            r = subprocess.run(args, capture_output=True, text=True)
            if r.returncode != 0:
                die("cannot build %s:\n%s" % (src, r.stdout + r.stderr))
            self.built[name] = exe
        return self.built[name]

    def run(self, kernel, build_tag, L):
        exe = self.build(kernel.name, kernel.twin_cflags)
        lines = ["build %s" % (build_tag or "-"), "launch %s" % (L.tag or "-"),
                 "entry %s" % L.entry, "grid %d %d %d" % tuple(L.grid),
                 "block %d %d %d" % tuple(L.block), "shared %d" % L.shared]
        for name, init in L.buffers:
            data = bytes(init) if not isinstance(init, int) else bytes(init)
            lines.append("buf %s %d %s" % (name, len(data), data.hex()))
        for p in L.params:
            if p[0] == "buf":
                lines.append("param buf %s" % p[1])
            else:
                lines.append("param %s %s" % (p[0], scalar_bits(p)))
        r = subprocess.run([exe], input="\n".join(lines) + "\n", capture_output=True, text=True)
        if r.returncode != 0:
            die("twin %s failed on launch %s:\n%s" % (kernel.name, L.tag, r.stderr))
        out = []
        for line in r.stdout.splitlines():
            _, name, hx = line.split(" ")
            out.append((name, bytes.fromhex(hx)))
        return out


def host_run(kernel, tmp):
    """Builds and runs NAME.host.c (a host.h program); returns ([Launch], [buffers after])."""
    import kernels
    src = os.path.join(HERE, kernel.name + ".host.c")
    exe = os.path.join(tmp, kernel.name + ".host")
    cc = os.environ.get("CC", "gcc")
    # host.h is the nvcc/ kernels' harness, shared with them (../nvcc/host.h).
    r = subprocess.run([cc] + TWIN_CFLAGS + ["-pthread", "-I", os.path.join(HERE, "..", "nvcc"), src, "-o", exe, "-lm"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("cannot build %s:\n%s" % (src, r.stdout + r.stderr))
    out = os.path.join(tmp, kernel.name + ".out")
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([exe, out], capture_output=True, text=True)
    if r.returncode != 0:
        die("host program %s failed:\n%s" % (src, r.stderr))
    stem = os.path.join(out, kernel.name)
    try:
        lj = json.load(open(stem + ".launch.json"))
        ej = json.load(open(stem + ".expected.json"))
    except (OSError, ValueError) as e:
        die("%s wrote no usable launch/expected file: %s" % (src, e))
    if lj["entry"] != kernel.name:
        die("%s launches %s, not %s" % (src, lj["entry"], kernel.name))
    buffers = [(b["name"], bytes.fromhex(b["hex"]) if "hex" in b else b["size"])
               for b in lj["buffers"]]
    params = [("buf", p["buffer"]) if "buffer" in p else (p["type"], p["value"])
              for p in lj["params"]]
    L = kernels.Launch(lj["entry"], lj["grid"], lj["block"], buffers, params,
                       shared=lj.get("shared_bytes", 0))
    if ej.get("status") != "ok":
        die("%s: status %s" % (src, ej.get("status")))
    return [L], [(b["name"], bytes.fromhex(b["hex"])) for b in ej["buffers"]]


def main():
    args = sys.argv[1:]
    if args == ["--compile-one"]:
        return compile_one()
    import kernels  # the table (builds the inputs): not needed by the compiling child
    outdir = HERE
    if args[:1] == ["--out"] and len(args) == 2:
        outdir = os.path.abspath(args[1])
        os.makedirs(outdir, exist_ok=True)
    elif args:
        die("usage: regen.py [--out DIR]")
    nv = Nvrtc()
    ptxas = find_ptxas()
    if not ptxas or not os.path.exists(ptxas):
        die("ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set PTXAS)")
    written = set()

    def write(fname, data):
        if fname in written:
            die("two outputs named " + fname)
        written.add(fname)
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(os.path.join(outdir, fname), mode) as f:
            f.write(data)

    include_opts = ["-I" + d for d in nv.includes]
    header = None
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        twins = Twins(tmp)
        for k in kernels.KERNELS:
            src = open(os.path.join(HERE, k.name + ".cu")).read()
            ptx_names = {}
            for b in k.builds:
                pname = k.ptx_name(b)
                ptx, log, lowered, version = compile_in_child({
                    "src": src, "name": "/corpus/ptx/nvrtc/%s.cu" % k.name,
                    "options": b.options + include_opts,
                    "name_expressions": list(k.name_expressions)})
                if version != nv.version:
                    die("the compiling child found NVRTC %d.%d" % version)
                if log.strip():
                    die("NVRTC warns on %s (%s):\n%s" % (k.name, " ".join(b.options), log))
                for e, low in lowered.items():
                    if k.name_expressions[e] != low:
                        die("%s: %s lowers to %s, the table says %s" % (
                            k.name, e, low, k.name_expressions[e]))
                write(pname, ptx)
                m = re.search(rb"^// (Cuda compilation tools.*)$", ptx, re.M)
                if m:
                    header = m.group(1).decode()
                arch = ptxas_check(ptxas, os.path.join(outdir, pname), tmp)
                ptx_names[b.tag] = pname
                summary.append("%-34s %-8s %s" % (pname, arch, " ".join(b.options)))
            launches = k.launches
            if k.model == "host":
                launches, host_bufs = host_run(k, tmp)
            for L in launches:
                for b in k.builds:
                    if L.builds is not None and b.tag not in L.builds:
                        continue
                    stem = k.stem(L, b)
                    write(stem + ".launch.json", launch_json(ptx_names[b.tag], L))
                    if k.model == "twin":
                        bufs = twins.run(k, b.tag if len(k.builds) > 1 else None, L)
                    elif k.model == "host":
                        bufs = host_bufs
                    else:
                        bufs = k.model(L, b.tag)
                    names = [n for n, _ in L.buffers]
                    if [n for n, _ in bufs] != names:
                        die("%s: the model returns buffers %s, the launch has %s" % (
                            stem, [n for n, _ in bufs], names))
                    for (n, init), (_, after) in zip(L.buffers, bufs):
                        size = init if isinstance(init, int) else len(init)
                        if len(after) != size:
                            die("%s: buffer %s has %d bytes after the run, %d before" % (
                                stem, n, len(after), size))
                    write(stem + ".expected.json", expected_json(bufs))
                    rules = k.compare_for(L, b)
                    if rules:
                        for n in rules:
                            if n not in names:
                                die("%s: compare rule for unknown buffer %s" % (stem, n))
                        write(stem + ".compare.json", compare_json(rules))
    # drop generated files no kernel produces any more
    for pat in GENERATED:
        for f in glob.glob(os.path.join(outdir, pat)):
            if os.path.basename(f) not in written:
                os.remove(f)
    sys.stdout.write("NVRTC %d.%d (%s); every PTX assembles with %s:\n" % (
        nv.version + (header, ptxas)))
    sys.stdout.write("\n".join(summary) + "\n")
    sys.stdout.write("%d files written to %s\n" % (len(written), outdir))


if __name__ == "__main__":
    main()
