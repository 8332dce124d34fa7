#!/usr/bin/env python3
"""Regenerates corpus/ptx/triton: for every kernel module NAME.py (listed in KERNELS) and every
architecture it lists (80 -> sm_80, 90 -> sm_90a):

  NAME.ARCH.ptx            Triton 3.9's PTX, as emitted (triton.compile without a GPU), for PTX ISA 8.7
  NAME.ARCH.launch.json    the launch (grid, block, buffers, params, shared_bytes)
  NAME.ARCH.expected.json  every buffer after the run, computed on the host with numpy
  NAME.ARCH.compare.json   only where some buffer is not compared bit for bit

Needs triton 3.9.x and numpy (python3 -m pip install 'triton==3.9.*' numpy). No GPU, no
torch. Deterministic: two runs give byte-identical files.

The kernel sources are copied to the fixed directory STAGE and imported from there, because
Triton writes the absolute path of the kernel's source file into the PTX (`.file 1 "..."` and
the DWARF DW_AT_comp_dir); the fixed path keeps the output independent of where the checkout
lives.

With --ptxas (or when $PTXAS names a ptxas), every .ptx is also assembled with
`ptxas -arch=sm_80|sm_90a` and must give no error and no warning.
"""
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
STAGE = "/tmp/ptxconf-triton-corpus"

KERNELS = [
    "vector_add",
    "softmax",
    "layer_norm",
    "matmul_f16",
    "matmul_bf16",
    "matmul_tf32",
    "matmul_i8",
    "matmul_fp8e5",
    "matmul_fp8e4nv",
    "matmul_tma",
    "tma_transpose",
    # "matmul_ws": its output passes phaseParity -1 to mbarrier.try_wait.parity, outside the
    # manual's valid values (L19053): corpus/findings/triton-3.9.0-mbarrier-parity/ holds it.
    "flash_attn",
    "dropout",
    "cumsum",
    "argmax",
    "histogram",
    "gather_scatter",
    "sort",
    "topk",
    "convert",
    "math_ops",
]

ARCH_NAME = {80: "sm80", 90: "sm90a"}
ARCH_PTXAS = {80: "sm_80", 90: "sm_90a"}
SCRATCH_BYTES = 256


def die(msg):
    print(f"regen.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def check_tools():
    # Import triton through a symlink under STAGE: Triton writes the path of its own
    # triton/language/*.py (inlined tl.max, tl.sum, ...) into the PTX as `.file N "..."`.
    import importlib.util
    spec = importlib.util.find_spec("triton")
    if spec is not None and spec.submodule_search_locations:
        site = os.path.join(STAGE, "site")
        os.makedirs(site)
        os.symlink(list(spec.submodule_search_locations)[0], os.path.join(site, "triton"))
        sys.path.insert(0, site)
    try:
        import triton  # noqa: F401
    except ImportError:
        die("triton is not installed; this corpus needs Triton 3.9.x: "
            "python3 -m pip install 'triton==3.9.*' numpy")
    import triton
    if not re.match(r"^3\.9\.\d+$", triton.__version__):
        die(f"triton {triton.__version__} is installed; this corpus needs Triton 3.9.x "
            "(python3 -m pip install 'triton==3.9.*', or run from a venv that has it)")
    try:
        import numpy  # noqa: F401
    except ImportError:
        die("numpy is not installed: python3 -m pip install numpy")
    return triton


def stage_sources():
    for name in ["common"] + KERNELS:
        src = os.path.join(HERE, name + ".py")
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(STAGE, name + ".py"))
    sys.path.insert(0, STAGE)


def entry_params(ptx):
    """(entry name, [(kind, type)]) of the single .entry: kind 'ptr' or 'scalar'."""
    m = re.search(r"\.visible \.entry (\w+)\(\n(.*?)\n\)", ptx, re.S)
    if not m or len(re.findall(r"\.entry ", ptx)) != 1:
        die("expected exactly one .visible .entry")
    params = []
    for line in m.group(2).split("\n"):
        line = line.strip().rstrip(",")
        p = re.match(r"\.param \.(\w+)( \.ptr \.global \.align \d+)? \w+_param_\d+$", line)
        if not p:
            die(f"unexpected parameter line {line!r}")
        params.append(("ptr" if p.group(2) else "scalar", p.group(1)))
    return m.group(1), params


def compile_case(triton, case, cap):
    from triton.backends.compiler import GPUTarget
    args = case["args"]
    signature = {n: t for n, t, _ in args}
    constexprs = {n: v for n, t, v in args if t == "constexpr"}
    attrs = {}
    # What Triton's launcher would specialize for buffers from cudaMalloc (256-byte aligned) and
    # integer arguments that are multiples of 16: tt.divisibility = 16.
    for i, (n, t, v) in enumerate(args):
        if t.startswith("*") or (t in ("i32", "i64") and v % 16 == 0):
            attrs[(i, )] = [["tt.divisibility", 16]]
    src = triton.compiler.ASTSource(fn=case["kernel"], signature=signature, constexprs=constexprs,
                                    attrs=attrs)
    # PTX ISA 8.7, the manual ptxconf implements: Triton 3.9 would otherwise take the version
    # from its bundled ptxas (13.x: `.version 9.4`).
    options = {"num_warps": case["num_warps"], "ptx_version": 87}
    if "num_stages" in case:
        options["num_stages"] = case["num_stages"]
    if "options" in case:
        options.update(case["options"])
    return triton.compile(src, target=GPUTarget("cuda", cap, 32), options=options)


def scalar_value(t, v):
    import numpy as np
    if t == "f32":
        return "0x%08x" % int(np.array([v], dtype=np.float32).view(np.uint32)[0])
    if t == "f64":
        return "0x%016x" % int(np.array([v], dtype=np.float64).view(np.uint64)[0])
    bits = {"u32": 32, "s32": 32, "b32": 32, "u64": 64, "s64": 64, "b64": 64}[t]
    return str(v & ((1 << bits) - 1))


def write(path, text):
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)


def buffers_json(rows):
    return ",\n".join("    " + json.dumps(r) for r in rows)


def emit(triton, mod, cap, ptxas):
    import numpy as np
    from common import hexof
    name = mod.__name__
    stem = f"{name}.{ARCH_NAME[cap]}"
    case = mod.case(cap)
    k = compile_case(triton, case, cap)
    md = k.metadata
    ptx = k.asm["ptx"]
    target = re.search(r"^\.target (\S+)$", ptx, re.M).group(1)
    if target != ARCH_PTXAS[cap]:
        die(f"{stem}: .target {target}, expected {ARCH_PTXAS[cap]}")
    if md.profile_scratch_size:
        die(f"{stem}: needs profile scratch memory ({md.profile_scratch_size})")
    if md.global_scratch_align > 256:
        die(f"{stem}: global scratch alignment {md.global_scratch_align} > 256")
    # (Triton 3.9's metadata has no cluster_dims when the kernel uses no cluster.)
    if tuple(getattr(md, "cluster_dims", (1, 1, 1))) != (1, 1, 1) or getattr(md, "num_ctas", 1) != 1:
        die(f"{stem}: clusters are not part of the launch contract")
    entry, params = entry_params(ptx)
    if entry != name:
        die(f"{stem}: entry {entry}, expected {name}")

    # Buffers in launch order: the case's, then Triton's two scratch pointers. Triton's launcher
    # gives global_scratch global_scratch_size bytes per program (the kernel indexes it by its
    # linear program id); kernels that need none get a small zeroed buffer they never touch.
    grid = list(case["grid"]) + [1] * (3 - len(case["grid"]))
    scratch = max(SCRATCH_BYTES, md.global_scratch_size * grid[0] * grid[1] * grid[2])
    bufs = list(case["buffers"]) + [("scratch", scratch), ("profile", SCRATCH_BYTES)]
    init = {}
    rows = []
    for bname, spec in bufs:
        if isinstance(spec, int):
            init[bname] = np.zeros(spec, dtype=np.uint8)
            rows.append({"name": bname, "size": spec})
        else:
            init[bname] = spec
            rows.append({"name": bname, "hex": hexof(spec)})

    # Parameters: every non-constexpr argument in order, then global_scratch and profile_scratch.
    runtime = [(n, t, v) for n, t, v in case["args"] if t != "constexpr"]
    runtime += [("global_scratch", "*i8", "scratch"), ("profile_scratch", "*i8", "profile")]
    if len(runtime) != len(params):
        die(f"{stem}: {len(params)} .param in the PTX, {len(runtime)} arguments")
    pjson = []
    for (n, t, v), (kind, ptype) in zip(runtime, params):
        if t.startswith("*"):
            if kind != "ptr" or ptype != "u64" or v not in init:
                die(f"{stem}: argument {n} ({t}) is .param .{ptype} {kind}")
            pjson.append({"buffer": v})
        else:
            want = {"i32": "u32", "i64": "u64", "fp32": "f32"}[t]
            if kind != "scalar" or ptype != want:
                die(f"{stem}: argument {n} ({t}) is .param .{ptype}, expected .{want}")
            pjson.append({"type": ptype, "value": scalar_value(ptype, v)})

    block = [md.num_warps * 32, 1, 1]
    reqntid = re.search(r"^\.reqntid (\d+)$", ptx, re.M)
    if not reqntid or int(reqntid.group(1)) != block[0]:
        die(f"{stem}: .reqntid does not match num_warps * 32 = {block[0]}")
    launch = ("{\n"
              f'  "ptx": "{stem}.ptx",\n'
              f'  "entry": "{entry}",\n'
              f'  "grid": {json.dumps(grid)},\n'
              f'  "block": {json.dumps(block)},\n'
              f'  "shared_bytes": {md.shared},\n'
              '  "buffers": [\n' + buffers_json(rows) + "\n  ],\n"
              '  "params": [\n' + ",\n".join("    " + json.dumps(p) for p in pjson) + "\n  ]\n"
              "}\n")

    expected = case["expected"]
    out_rows = []
    for bname, _ in bufs:
        data = expected.get(bname, init[bname])
        a = np.ascontiguousarray(data)
        if a.nbytes != init[bname].nbytes:
            die(f"{stem}: expected {bname} has {a.nbytes} bytes, the buffer {init[bname].nbytes}")
        out_rows.append({"name": bname, "hex": hexof(a)})
    for bname in expected:
        if bname not in init:
            die(f"{stem}: expected value for unknown buffer {bname}")
    exp = '{"status": "ok", "buffers": [\n' + ",\n".join(
        "  " + json.dumps(r) for r in out_rows) + "\n]}\n"

    files = {f"{stem}.ptx": ptx, f"{stem}.launch.json": launch, f"{stem}.expected.json": exp}
    compare = dict(case.get("compare") or {})
    if md.global_scratch_size:
        compare["scratch"] = {
            "rule": "any",
            "why": f"Triton's global scratch: {md.global_scratch_size} bytes per program, where the "
                   "kernel builds its TMA tensor descriptors (tensormap.replace on a 128-byte "
                   "CUtensorMap copied from shared memory); the descriptor encoding is opaque, so "
                   "the content after the run is not determined here."}
    for bname, rule in compare.items():
        if bname not in init or rule.get("rule") != "exact" and not rule.get("why") \
                or rule.get("rule") not in ("exact", "nan", "any") and "elem" not in rule:
            die(f"{stem}: bad compare rule for {bname}")
    if compare:
        files[f"{stem}.compare.json"] = "{\n" + ",\n".join(
            f"  {json.dumps(b)}: {json.dumps(r)}" for b, r in compare.items()) + "\n}\n"
    for fname, text in files.items():
        write(os.path.join(HERE, fname), text)

    note = ""
    if ptxas:
        r = subprocess.run([ptxas, f"-arch={ARCH_PTXAS[cap]}", os.path.join(HERE, f"{stem}.ptx"),
                            "-o", os.devnull], capture_output=True, text=True)
        if r.returncode != 0 or r.stdout or r.stderr:
            die(f"{stem}: ptxas -arch={ARCH_PTXAS[cap]} failed:\n{r.stdout}{r.stderr}")
        note = ", ptxas ok"
    ops = sorted({op for op in ("mma.sync", "ldmatrix", "cp.async", "cp.async.bulk", "wgmma",
                                "stmatrix", "fence.proxy", "mbarrier", "tensormap", "elect.sync",
                                "atom.", "red.", "shfl.sync", "vote.sync", "redux.sync",
                                "bar.sync", "ld.local")
                  if re.search(r"^\s*(@!?%p\d+\s+)?" + re.escape(op), ptx, re.M)})
    print(f"{stem}: grid {grid}, block {block[0]}, shared {md.shared}, "
          f"{len(params)} params{note}; {' '.join(ops)}")


def find_ptxas(want):
    p = os.environ.get("PTXAS")
    if p:
        return p
    if not want:
        return None
    try:
        import nvidia.cuda_nvcc as n
        cand = os.path.join(list(n.__path__)[0], "bin", "ptxas")
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    return shutil.which("ptxas") or die("--ptxas: no ptxas found (set $PTXAS)")


def main():
    argv = sys.argv[1:]
    only = [a for a in argv if not a.startswith("-")]
    ptxas = find_ptxas("--ptxas" in argv)
    # Fresh compilation cache, and Triton's bundled ptxas (its version sets .version).
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="ptxconf-triton-cache-")
    os.environ.pop("TRITON_PTXAS_PATH", None)
    shutil.rmtree(STAGE, ignore_errors=True)
    os.makedirs(STAGE)
    triton = check_tools()
    if not triton.__file__.startswith(STAGE + "/"):
        die(f"triton was imported from {triton.__file__}, not through {STAGE}")
    stage_sources()
    try:
        for name in KERNELS:
            if only and name not in only:
                continue
            if not os.path.exists(os.path.join(STAGE, name + ".py")):
                die(f"{os.path.join(HERE, name + '.py')} is missing")
            mod = importlib.import_module(name)
            for cap in mod.ARCHS:
                emit(triton, mod, cap, ptxas)
    finally:
        shutil.rmtree(os.environ["TRITON_CACHE_DIR"], ignore_errors=True)


if __name__ == "__main__":
    main()
