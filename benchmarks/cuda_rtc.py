#!/usr/bin/env python3
"""The register kernels the CUDA binding compiles at first use (NVRTC), read
without a GPU: per length, its plan, and the static figures of the code
NVRTC makes for sm_90 (registers, stack, local memory, instructions per
element, resident warps per SM), with the checks of cuda_static.py.

    python benchmarks/cuda_rtc.py [--n N ...] [--mode direct|staged|columns|r2c|c2r]
        [--types hh|hf|fh|ff|dd] [--arch 90] [--all]

Default lengths: the 5-smooth and 7-smooth lengths of speech and audio
frames that the ahead-of-time table leaves out; --all takes every length
up to 16384 that has a register plan and no kernel in the table (a long
run: about a second a kernel). Lengths without a plan (a prime factor above
13, or factors no one count of elements per thread can hold) take the block
kernels and are listed as such. Needs libnvrtc (pip install
nvidia-cuda-nvrtc) and cuobjdump (pip install nvidia-cuda-cuobjdump
nvidia-cuda-nvdisasm); exit status 1 if a kernel fails a check of
cuda_static.py other than occupancy and instructions per element, which
are printed.
"""
import argparse
import importlib.util
import os
import sys
import tempfile

import torch

import complexext  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("cuda_static", os.path.join(HERE, "cuda_static.py"))
cs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cs)

ops = torch.ops.complexext
MODES = {"direct": 0, "staged": 1, "columns": 2, "r2c": 3, "c2r": 4}
TYPES = {"hh": (0, 0, 0), "hf": (0, 0, 1), "fh": (0, 1, 0), "ff": (0, 1, 1), "dd": (1, 2, 2)}
DEFAULT = [96, 192, 243, 288, 384, 448, 480, 576, 600, 720, 768, 882, 960, 1152, 1200, 1280,
           1440, 1536, 1920, 2400, 3000, 3072, 4800, 6144, 9600, 12288]
HARD = ("stack", "spill", "local", "div64", "g16", "regs")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="*")
    ap.add_argument("--mode", choices=sorted(MODES), default=None,
                    help="default: direct, or staged where a row has fewer than 8 threads")
    ap.add_argument("--types", choices=sorted(TYPES), default="hh")
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args(argv)
    version, where, archs = ops._rtc_nvrtc()
    if version == 0:
        print("no libnvrtc:", where)
        return 2
    cuobjdump = cs.find_binary("cuobjdump", cs.find_nvcc())
    if cuobjdump is None:
        print("no cuobjdump (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)")
        return 2
    lengths = a.n or ([n for n in range(2, 16385) if ops._gpu_reg_plan(n) and not ops._gpu_reg_ahead_of_time(n)]
                      if a.all else DEFAULT)
    scalar, ti, to = TYPES[a.types]
    print(f"NVRTC {version // 1000}.{version % 1000 // 10} ({where}), sm_{a.arch}, "
          f"storage {a.types}")
    hdr = ("n", "mode", "E x T, radix/butterflies", "regs", "stack", "instr", "instr/elem", "warps/SM",
           "checks")
    rows, bad = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in lengths:
            plan = ops._gpu_reg_plan(n)
            if not plan:
                rows.append((n, "-", "no plan: block kernels", "", "", "", "", "", ""))
                continue
            e, t = plan[0], plan[1]
            mode = MODES[a.mode] if a.mode else (1 if t < 8 else 0)
            np_ = (len(plan) - 5) // 2
            shape = f"{e} x {t}, " + " ".join(
                f"{r}" + (f"/{b}" if b * r != e else "")
                for r, b in zip(plan[5:5 + np_], plan[5 + np_:]))
            try:
                ok, log, lowered, cubin, _, _, image = ops._rtc_compile(n, mode, scalar, ti, to,
                                                                        a.arch, True)
            except RuntimeError as err:  # no kernel in this mode
                rows.append((n, mode, shape, "", "", "", "", "", str(err).split("\n")[0][:40]))
                continue
            if not ok:
                rows.append((n, mode, shape, "", "", "", "", "", "COMPILE FAILED"))
                print(log, file=sys.stderr)
                bad += 1
                continue
            path = os.path.join(tmp, f"k{n}.cubin")
            with open(path, "wb") as f:
                f.write(image.numpy().tobytes())
            (k,) = cs.analyse_cubin(path, cuobjdump, cs.parse_ptxas(log))
            k = cs.evaluate(k, cs.manifest_for(k["name"]))
            failed = [c for c in HARD if k["checks"].get(c) is False]
            bad += bool(failed)
            soft = [c for c in ("warps", "inflight") if k["checks"].get(c) is False]
            verdict = ("FAIL " + ",".join(failed)) if failed else (
                "ok" + (" (low " + ",".join(soft) + ")" if soft else ""))
            if scalar == 1:
                verdict = "float64 (not checked)"
            ipe = k["instructions_per_element"]
            rows.append((n, mode, shape, k["regs"], k["stack"], k["instructions"], f"{ipe:.1f}",
                         k["warps_per_sm"], verdict))
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    for r in [hdr] + rows:
        print("  ".join(str(v).rjust(w) for v, w in zip(r, widths)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
