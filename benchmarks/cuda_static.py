#!/usr/bin/env python3
"""Static speed proxies of the CUDA kernels on sm_90 (H100/H200), with no GPU.

    python benchmarks/cuda_static.py [FILE.cu ...] [--only PATTERN]
        [--enforce PATTERN ...] [--enforce-all] [--json FILE]
        [--nvcc PATH] [--cuobjdump PATH] [--jobs N]

Compiles each file (default: every csrc/cuda/*.cu, not csrc/cuda/check/)
once for sm_90 (nvcc -std=c++17 -O3 -cubin -arch=sm_90 -Xptxas -v -lineinfo
-Werror all-warnings -Icsrc; --jobs files at once, default the CPU count;
a warning fails the compile, so this is also the sm_90 warning check of the
register kernels' files) and reads, per kernel:

  ptxas -v     registers, stack frame, spill stores and loads, static shared
               memory
  PTX          the launch bounds: .maxntid / .reqntid (max threads per block)
               and .minnctapersm (min blocks per SM); EIATTR_MAX_THREADS and
               EIATTR_MAXREG_COUNT from `cuobjdump -elf` as well
  SASS         (`cuobjdump -sass`) LDL/STL instructions, calls of the 64-bit
               integer division and remainder helpers, 8- and 16-bit global
               loads and stores, static instruction count (NOPs excluded),
               bytes of global loads issued before the first floating-point
               butterfly instruction (FADD/FFMA/FMUL/DADD/DFMA/DMUL, in
               address order; conversions such as HADD2.F32 do not count)

and derives the occupancy on sm_90 of a block of the max-threads size
(registers, static plus manifest-given dynamic shared memory, warp and
block limits), the loads in flight per SM (resident threads x bytes each
thread loads before its first butterfly) and, for reg_fft_kernel<N, EPT,
RPB, ...> kernels, the static instructions per element (instructions / (N /
T), T = threads / RPB the threads of a row: EPT where no pass has idle
butterflies).

Checks, on every kernel that is not a float64 instantiation (no `double`
among the template arguments of its demangled name): stack frame 0; no
spills; no LDL/STL; no 64-bit division calls; no 8/16-bit global accesses;
registers within what the launch bounds allow; >= 16 resident warps per
SM; >= 16 KiB of global loads in flight per SM; for reg_fft_kernel with N
in {256, 400, 512, 1000, 1024} <= 60 instructions per element, N = 4096
<= 70, the two passes of a length above 16384 (MODE 5, 6) <= 90 each, and
Bluestein's kernels (MODE 7) <= 200 per element of N (a regression ceiling:
two FFTs of N >= 2n - 1 for n outputs cannot reach the copy rate); a complex
signal's frames (MODE 8) are printed, not held to a figure, as the real
kernels (their edge-frame path doubles the static count). A check is enforced only on kernels whose demangled name matches an
enforced pattern (MANIFEST below: the reg_fft_kernel family; --enforce
adds patterns, --enforce-all takes every kernel); the others are reported,
marked "not enforced (legacy)".

These are proxies, read from the code as laid out: "before the first
butterfly" is in address order, so a kernel that switches between code
paths gets the figure of whichever path comes first; the instruction count
takes in the helpers the kernel calls, counted once.

Exit status: 0 when every enforced check passes, 1 when one fails (each
failure is printed), 2 when the tool cannot run (no nvcc or cuobjdump, a
compile error, nothing matched --only). Imports nothing outside the
standard library (no torch); compiles in a temporary folder and leaves
nothing on disk but the --json file.

cuobjdump: PyPI's nvidia-cuda-cuobjdump (pip install nvidia-cuda-cuobjdump;
found inside site-packages/nvidia/...), else on PATH, in $CUDA_HOME/bin,
beside nvcc or in /usr/local/cuda*/bin. Its -sass runs nvdisasm (PyPI's
nvidia-cuda-nvdisasm), which it is shown beside itself (PATH and
NVDISASM_PATH).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# The readers of the binaries (tool finding, parsers, occupancy) live in
# cuda_sass.py beside this file. The tests and cuda_rtc.py load this file by
# its path, not as a package, so its folder goes on sys.path for the import;
# they reach the readers through this module's names.
sys.path.insert(0, HERE)
from cuda_sass import (SM90, ToolError, _disasm_env, _run, demangle, find_binary,  # noqa: E402
                       find_nvcc, occupancy, parse_elf, parse_ptx, parse_ptxas, parse_sass,
                       sass_figures)

NVCC_FLAGS = ["-std=c++17", "-O3", "-cubin", "-arch=sm_90", "-Xptxas", "-v", "-lineinfo",
              "-Werror", "all-warnings"]

MIN_WARPS = 16
MIN_INFLIGHT = 16 * 1024          # bytes of global loads in flight per SM
IPE_LIMITS = {256: 60, 400: 60, 512: 60, 1000: 60, 1024: 60, 4096: 70}
# The two passes of a length above 16384 (modes 5 and 6: CX_REG_COLS_TW,
# CX_REG_FLAT_COLS) each move 12 bytes a complex32 element (fp16 one way,
# the fp32 work buffer the other), 1.5 times a one-pass c2c's 8: the copy
# rate leaves them 1.5 x 62 instructions an element. Every length of theirs.
SPLIT_MODES = (5, 6)
SPLIT_IPE_LIMIT = 90
# Bluestein's kernels (mode 7, CX_REG_BLUESTEIN) run two FFTs of N >= 2n - 1
# for the n outputs of a row, with the chirp computed on the load and the
# store: they cannot reach the copy rate, and their figure per element of N
# is held to a ceiling against regression (measured 164-192 at N = 128 -
# 4096: two FFTs' worth of the c2c kernel, about 60 for the chirps and the
# filter, and at N <= 256 about 10 more for the flat copy of short rows).
BLUE_MODE = 7
BLUE_IPE_LIMIT = 200
# A complex signal's frames (mode 8, CX_REG_FRAMES) are held to no figure per
# element, as the real kernels are not: their edge-frame path (the first and
# last frames of a signal, each sample from its source) is code that the
# other frames skip, and it about doubles the static count.
FRAMES_MODE = 8

# Per kernel family: a regular expression searched in the demangled name,
# and what is known of it that the binary does not say.
#   enforce       the checks fail the run (default False: "legacy", reported)
#   threads       block size of the launch, for kernels without launch bounds
#   dynamic_smem  dynamic shared memory per block in bytes (invisible to ptxas)
#   open          {check: why}: a known miss, printed as OPEN and listed at the
#                 end instead of failing the run; each is work still to do
#                 (docs/cuda.md, "Open"), and any other miss fails
MANIFEST = {
    # 1000 = 5 * 10 * 20 takes three passes at 20 elements a thread: about
    # 62 instructions per element (95 before its twiddles were shared and
    # its exchanges' slots constant offsets). Of the 40 still to go, the
    # zeros beside the predicated loads of rows past the last are 40.
    r"\breg_fft_kernel<1000, 20, \d+, 0,": {
        "open": {"ipe": "three passes at 20 values a thread (about 62 per element)"}},
    # The column tiles (mode 2) of 1000: 67-71 instructions a value, three
    # passes and the tile's 64-bit row offsets. (Those of 1000, 1200 and 2000
    # fit 16 warps an SM, and 400's meets 60 a value, since their exchanges'
    # slots became constant offsets.)
    r"\breg_fft_kernel<1000, 20, \d+, 2,": {
        "open": {"ipe": "three passes, 64-bit row offsets per column"}},
    r"\breg_fft_kernel<(4096), 16, \d+, 2,": {
        "open": {"ipe": "column tile: 64-bit row offsets per column"}},
    # The staged copy of n = 32: ptxas schedules the second pass's twiddle
    # (a sincospi of the thread index, no data) above the loads, and this
    # tool takes its first FMUL for the first butterfly. (Since its
    # exchange's slots became constant offsets, 1097 -> 1026 instructions;
    # 64's, which did the same before, now issues its loads first.)
    r"\breg_fft_kernel<32, 16, \d+, 1,": {
        "open": {"inflight": "twiddle arithmetic scheduled above the staged loads"}},
    # The c2r of 960: 32 values a thread and the fold beside them take more
    # registers than 16 warps leave (12 warps). From fp16 bins it sat at
    # 128 registers, the limit, until cx_reg_args grew (the two-pass and
    # Bluestein fields): now it too takes more, in every pairing.
    r"\breg_real_kernel<480, 32, \d+, 4, float,": {
        "open": {"warps": "c2r of 960: registers at the 16-warp limit"}},
    r"\breg_fft_kernel<": {"enforce": True},
    r"\breg_real_kernel<": {"enforce": True},
    r"\breg_blue_kernel<": {"enforce": True},
    # ola.cu launches both with kThreads = 256 and no dynamic shared memory.
    r"\benvelope_kernel<": {"threads": 256, "dynamic_smem": 0},
    r"\bola_kernel<": {"threads": 256, "dynamic_smem": 0},
    # The two-sided r2c's mirror (cx_mirror.h): 256 threads, 4 bins each.
    r"\bmirror_kernel<": {"enforce": True, "threads": 256, "dynamic_smem": 0},
}

CHECKS = ["stack", "spill", "local", "div64", "g16", "regs", "warps", "inflight", "ipe"]

REG_FFT_RE = re.compile(
    r"\breg_(?:fft|blue)_kernel<\s*(?:\([^)]*\))?\s*(\d+)[uUlL]*\s*,\s*(?:\([^)]*\))?\s*(\d+)[uUlL]*"
    r"(?:\s*,\s*(?:\([^)]*\))?\s*(\d+)[uUlL]*)?")
REG_MODE_RE = re.compile(r"\breg_(?:fft|blue)_kernel<\s*\d+\s*,\s*\d+\s*,\s*\d+\s*,\s*(\d+)\s*,")


def reg_mode(name):
    """MODE of a reg_fft_kernel<N, EPT, RPB, MODE, ...> (cx_reg_fft.h), else None."""
    m = REG_MODE_RE.search(name)
    return int(m.group(1)) if m else None



# --- per file ---------------------------------------------------------------------

def analyse_file(path, nvcc, cuobjdump):
    with tempfile.TemporaryDirectory(prefix="cuda_static_") as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        cmd = [nvcc] + NVCC_FLAGS + ["-I" + os.path.join(REPO, "csrc"), "--keep",
                                     "--keep-dir", tmp, path, "-o", cubin]
        p = _run(cmd, cwd=tmp)
        ptxas = parse_ptxas(p.stdout + "\n" + p.stderr)
        ptx = {}
        for f in glob.glob(os.path.join(tmp, "*.ptx")):
            with open(f, encoding="utf-8", errors="replace") as fh:
                ptx.update(parse_ptx(fh.read()))
        label = os.path.relpath(path, REPO) if path.startswith(REPO) else path
        return analyse_cubin(cubin, cuobjdump, ptxas, ptx, label)


def _timed_analyse(path, nvcc, cuobjdump):
    t = time.monotonic()
    got = analyse_file(path, nvcc, cuobjdump)
    return got, time.monotonic() - t


def analyse_cubin(cubin, cuobjdump, ptxas=None, ptx=None, label=None):
    """The figures of every kernel of one cubin: ptxas's (parse_ptxas of its
    -v output, given as ptxas) and the PTX's (parse_ptx, given as ptx) where
    they are known (a cubin from NVRTC: its log under --ptxas-options=-v),
    the ELF's and the SASS's always."""
    ptxas, ptx = ptxas or {}, ptx or {}
    elf_kernels, funcs = parse_elf(_run([cuobjdump, "-elf", cubin]).stdout)
    sass = parse_sass(_run([cuobjdump, "-sass", cubin], env=_disasm_env(cuobjdump)).stdout)
    names = sorted(set(ptxas) | set(sass))
    dem = demangle(names)
    rows = []
    for mangled in names:
        e = elf_kernels.get(mangled, {})
        x = ptx.get(mangled, {})
        k = {"file": label or cubin, "mangled": mangled, "name": dem.get(mangled, mangled)}
        k.update({key: ptxas.get(mangled, {}).get(key) for key in
                  ("regs", "stack", "spill_stores", "spill_loads", "smem", "barriers")})
        k["max_threads"] = x.get("reqntid") or x.get("maxntid") or e.get("max_threads")
        k["max_threads_elf"] = e.get("max_threads")
        k["min_blocks"] = x.get("minnctapersm")
        k["maxreg"] = e.get("maxreg") or x.get("maxnreg")
        k.update(sass_figures(sass.get(mangled, []), funcs.get(e.get("section"), [])))
        rows.append(k)
    return rows


def manifest_for(name, extra_enforce=(), enforce_all=False):
    m = {}
    for pat, entry in MANIFEST.items():
        if re.search(pat, name):
            for key, val in entry.items():
                if key == "open":
                    m.setdefault("open", {}).update(val)
                else:
                    m.setdefault(key, val)
    m["enforce"] = bool(enforce_all or m.get("enforce") or
                        any(re.search(p, name) for p in extra_enforce))
    return m


def evaluate(k, manifest):
    """Derived figures and check verdicts (True, False, or None: not applicable)."""
    threads_src = "launch bounds"
    threads = k["max_threads"]
    if not threads:
        if manifest.get("threads"):
            threads, threads_src = manifest["threads"], "manifest"
        else:
            threads, threads_src = SM90["max_threads_per_block"], "assumed (no launch bounds)"
    k["threads"], k["threads_source"] = threads, threads_src
    k["dynamic_smem"] = manifest.get("dynamic_smem")
    regs = k["regs"] or 0
    occ = occupancy(regs, threads, (k["smem"] or 0) + (k["dynamic_smem"] or 0))
    k.update(occ)
    k["loads_in_flight"] = occ["threads_per_sm"] * k["load_bytes_before_butterfly"]
    m = REG_FFT_RE.search(k["name"])
    k["n"], k["ept"] = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    # values a thread transforms: N / T, T = block threads / rows per block
    # (EPT, the registers a thread holds, for a plan without idle butterflies)
    k["elements_per_thread"] = k["ept"]
    if m and m.group(3) and k["max_threads"]:
        k["elements_per_thread"] = k["n"] * int(m.group(3)) / k["max_threads"]
    k["instructions_per_element"] = (k["instructions"] / k["elements_per_thread"]
                                     if k["elements_per_thread"] else None)
    k["float64"] = is_float64(k["name"])
    k["enforced"] = manifest["enforce"] and not k["float64"]

    reg_cap = min(k["maxreg"] or SM90["max_regs_per_thread"], SM90["max_regs_per_thread"])
    need_blocks = max(1, k["min_blocks"] or 1)
    c = {
        "stack": k["stack"] == 0,
        "spill": (k["spill_stores"] or 0) + (k["spill_loads"] or 0) == 0,
        "local": k["ldl_stl"] == 0,
        "div64": k["div64_calls"] == 0,
        "g16": k["g16"] == 0,
        "regs": regs <= reg_cap and occ["limits"]["registers"] >= need_blocks,
        "warps": occ["warps_per_sm"] >= MIN_WARPS,
        "inflight": k["loads_in_flight"] >= MIN_INFLIGHT,
        "ipe": None,
    }
    # (a reg_fft_kernel<N, EPT, ...> that names no mode: a c2c of N, as mode 0)
    k["mode"] = reg_mode(k["name"]) if reg_mode(k["name"]) is not None else (
        0 if k["n"] is not None else None)
    k["ipe_limit"] = (SPLIT_IPE_LIMIT if k["mode"] in SPLIT_MODES
                      else BLUE_IPE_LIMIT if k["mode"] == BLUE_MODE
                      else None if k["mode"] == FRAMES_MODE
                      else IPE_LIMITS.get(k["n"]) if k["mode"] is not None else None)
    if k["ipe_limit"] is not None:
        c["ipe"] = k["instructions_per_element"] <= k["ipe_limit"]
    if k["float64"]:
        c = {name: None for name in c}
    k["checks"] = c
    opened = manifest.get("open", {})
    k["open"] = [name for name, ok in c.items() if ok is False and name in opened]
    k["open_why"] = {name: opened[name] for name in k["open"]}
    failed = [name for name, ok in c.items() if ok is False and name not in opened]
    k["failed"] = failed
    if k["float64"]:
        k["verdict"] = "float64 (not checked)"
    elif not manifest["enforce"]:
        k["verdict"] = "not enforced (legacy)"
    else:
        k["verdict"] = "FAIL" if failed else "OPEN" if k["open"] else "PASS"
    return k


def is_float64(name):
    """A float64 instantiation: `double` among the kernel's template
    arguments (its parameter list does not count: the ISTFT's float kernels
    read a double envelope)."""
    s = short_name(name)
    lt = s.find("<")
    return lt >= 0 and re.search(r"\bdouble\b", s[lt:]) is not None


def short_name(name):
    s = re.sub(r"\(anonymous namespace\)::", "", name)
    s = re.sub(r"^void\s+", "", s)
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i]
                break
    return s


def fail_detail(k, check):
    return {
        "stack": f"{k['stack']} bytes stack frame",
        "spill": f"{k['spill_stores']} bytes spill stores, {k['spill_loads']} bytes spill loads",
        "local": f"{k['ldl_stl']} LDL/STL",
        "div64": f"{k['div64_calls']} calls of {', '.join(k['div64_helpers'])}",
        "g16": f"{k['g16']} 8/16-bit global loads/stores",
        "regs": f"{k['regs']} registers; launch bounds {k['threads']} threads, min "
                f"{k['min_blocks'] or 1} blocks, max {k['maxreg']} registers",
        "warps": f"{k['warps_per_sm']} resident warps per SM < {MIN_WARPS} "
                 f"(limited by {k['limiter']})",
        "inflight": f"{k['loads_in_flight']} bytes of loads in flight per SM < {MIN_INFLIGHT}",
        "ipe": f"{k['instructions_per_element']:.1f} instructions per element > "
               f"{k['ipe_limit']} (n = {k['n']}, mode {k['mode']})" if k["ept"] else "",
    }[check]


def print_table(rows, out=sys.stdout):
    head = ["#", "kernel", "regs", "stack", "spill st/ld", "smem", "dyn", "thr", "minB",
            "warps/SM", "LDL/STL", "div64", "g16", "instrs", "B<bfly", "inflight", "ins/el"]
    head += ["|"] + CHECKS + ["verdict"]
    table = []
    for i, k in enumerate(rows, 1):
        thr = str(k["threads"]) + ("" if k["threads_source"] == "launch bounds" else
                                   "*" if k["threads_source"] == "manifest" else "?")
        r = [str(i), short_name(k["name"]), str(k["regs"]), str(k["stack"]),
             f"{k['spill_stores']}/{k['spill_loads']}", str(k["smem"]),
             "-" if k["dynamic_smem"] is None else str(k["dynamic_smem"]), thr,
             "-" if k["min_blocks"] is None else str(k["min_blocks"]),
             f"{k['warps_per_sm']} ({k['limiter'][:4]})", str(k["ldl_stl"]),
             str(k["div64_calls"]), str(k["g16"]), str(k["instructions"]),
             str(k["load_bytes_before_butterfly"]) + ("" if k["butterfly_found"] else "!"),
             f"{k['loads_in_flight'] / 1024:.1f}K",
             "-" if k["instructions_per_element"] is None else
             f"{k['instructions_per_element']:.1f}", "|"]
        for c in CHECKS:
            ok = k["checks"][c]
            if ok is None:
                r.append("-")
            elif k["enforced"]:
                r.append("PASS" if ok else "OPEN" if c in k["open"] else "FAIL")
            else:
                r.append("pass" if ok else "fail")
        r.append(k["verdict"])
        table.append(r)
    widths = [max(len(h), *(len(r[j]) for r in table)) for j, h in enumerate(head)]
    left = {1, len(head) - 1}
    for r in [head] + table:
        print("  ".join(c.ljust(widths[j]) if j in left else c.rjust(widths[j])
                        for j, c in enumerate(r)).rstrip(), file=out)


LEGEND = """\
regs, stack, spill st/ld (bytes), smem (static shared bytes): ptxas -v. dyn: dynamic shared
bytes from the manifest (- unknown, not counted). thr: max threads per block from the launch
bounds (* from the manifest, ? assumed 1024: no launch bounds). minB: min blocks per SM of the
launch bounds. warps/SM: resident warps of thr-thread blocks on sm_90 and what limits them
(regi(sters), shar(ed), warp(s), bloc(ks)). LDL/STL, div64 (calls of 64-bit division/remainder
helpers), g16 (8/16-bit global loads and stores), instrs (SASS, NOPs excluded): cuobjdump -sass.
B<bfly: bytes of global loads a thread issues before its first FADD/FFMA/FMUL/DADD/DFMA/DMUL
(! none found: all loads). inflight: resident threads x B<bfly, per SM. ins/el: instrs / EPT of
reg_fft_kernel<N, EPT, ...>. Checks: PASS/FAIL enforced; pass/fail measured, not enforced
(legacy); - not applicable (float64 instantiations are not checked).
Thresholds: stack 0, spills 0, no LDL/STL, no div64, no g16, registers within the launch
bounds, warps/SM >= %d, inflight >= %d KiB, ins/el <= 60 (N = 256, 400, 512, 1000, 1024),
<= 70 (N = 4096), <= %d for the two passes of a length above 16384 (modes 5, 6),
<= %d for Bluestein's kernels (mode 7, per element of N: two FFTs and the chirps).""" % (
    MIN_WARPS, MIN_INFLIGHT // 1024, SPLIT_IPE_LIMIT, BLUE_IPE_LIMIT)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="CUDA sources (default: csrc/cuda/*.cu)")
    ap.add_argument("--only", metavar="PATTERN",
                    help="report only kernels whose demangled name matches this regex")
    ap.add_argument("--enforce", metavar="PATTERN", action="append", default=[],
                    help="enforce the checks on kernels matching this regex too (repeatable)")
    ap.add_argument("--enforce-all", action="store_true", help="enforce the checks on every kernel")
    ap.add_argument("--json", metavar="FILE", help="write the figures and verdicts to FILE")
    ap.add_argument("--nvcc", help="nvcc to use (default: PATH, $CUDA_HOME/bin)")
    ap.add_argument("--cuobjdump", help="cuobjdump to use (default: PyPI's, PATH, toolkit)")
    ap.add_argument("--jobs", type=int, default=0,
                    help="files compiled at once (default: the CPU count)")
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    nvcc = find_nvcc(args.nvcc)
    if not nvcc:
        print("cuda_static: no nvcc found (PATH, $CUDA_HOME/bin)", file=sys.stderr)
        return 2
    cuobjdump = find_binary("cuobjdump", nvcc, args.cuobjdump)
    if not cuobjdump:
        print("cuda_static: no cuobjdump found (pip install nvidia-cuda-cuobjdump)",
              file=sys.stderr)
        return 2
    files = [os.path.abspath(f) for f in args.files] or \
        sorted(glob.glob(os.path.join(REPO, "csrc", "cuda", "*.cu")))
    if not files:
        print("cuda_static: no .cu files", file=sys.stderr)
        return 2
    print(f"cuda_static: sm_90, {nvcc} ({_tool_version(nvcc)}), {cuobjdump}")
    rows = []
    jobs = max(1, min(args.jobs or os.cpu_count() or 1, len(files)))
    try:
        # One process per file (nvcc, cuobjdump and the SASS parsing are
        # each single-threaded); the register kernels' files (hundreds of
        # unrolled instantiations, minutes each) start first, the rows keep
        # the files' order.
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            futs = {f: pool.submit(_timed_analyse, f, nvcc, cuobjdump)
                    for f in sorted(files, key=lambda f: not os.path.basename(f).startswith("fft_reg"))}
            for f in files:
                got, secs = futs[f].result()
                print(f"  {os.path.relpath(f, REPO) if f.startswith(REPO) else f}: "
                      f"{len(got)} kernels, {secs:.1f} s")
                rows += got
    except ToolError as e:
        print(f"cuda_static: {e}", file=sys.stderr)
        return 2
    if args.only:
        rows = [k for k in rows if re.search(args.only, k["name"])]
        if not rows:
            print(f"cuda_static: no kernel matches --only {args.only!r}", file=sys.stderr)
            return 2
    for k in rows:
        evaluate(k, manifest_for(k["name"], args.enforce, args.enforce_all))
    print()
    print_table(rows)
    print()
    print(LEGEND)
    print()
    enforced = [k for k in rows if k["enforced"]]
    failures = [(k, c) for k in enforced for c in k["failed"]]
    for i, k in enumerate(rows, 1):
        if k["failed"] and k["enforced"]:
            for c in k["failed"]:
                print(f"FAIL #{i} {short_name(k['name'])}: {c}: {fail_detail(k, c)}")
    opens = [(i, k, c) for i, k in enumerate(rows, 1) if k["enforced"] for c in k["open"]]
    for i, k, c in opens:
        print(f"OPEN #{i} {short_name(k['name'])}: {c}: {fail_detail(k, c)} "
              f"({k['open_why'][c]})")
    elapsed = time.monotonic() - t0
    print(f"cuda_static: {len(rows)} kernels, {len(enforced)} enforced, "
          f"{len(failures)} enforced checks failed, {len(opens)} open, "
          f"{sum(k['verdict'] == 'not enforced (legacy)' for k in rows)} legacy; "
          f"{elapsed:.1f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"arch": "sm_90", "nvcc": nvcc, "nvcc_flags": NVCC_FLAGS,
                       "cuobjdump": cuobjdump, "limits": SM90,
                       "thresholds": {"min_warps_per_sm": MIN_WARPS,
                                      "min_loads_in_flight_bytes": MIN_INFLIGHT,
                                      "max_instructions_per_element": IPE_LIMITS},
                       "seconds": round(elapsed, 2), "kernels": rows}, fh, indent=1)
    return 1 if failures else 0


def _tool_version(tool):
    try:
        p = subprocess.run([tool, "--version"], capture_output=True, text=True)
        m = re.search(r"release ([\d.]+)", p.stdout)
        return "release " + m.group(1) if m else "version unknown"
    except OSError:
        return "version unknown"


if __name__ == "__main__":
    sys.exit(main())
