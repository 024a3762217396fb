"""The benchmark report: every CPU benchmark in one run, written to docs/performance.md.

    python benchmarks/report.py [--quick] [--out DIR] [--threads N]
    python -m complexext bench   (the same, from a source checkout)

Runs, in one process and with the peers of each table timed in the same
run: the FFT workload of benchmarks/fft_cpu.py (fft, and rfft the same way)
at every n, the accuracy of the 1-D FFT family as a ratio to the floor at
every n (the measure of complexext._tools.selfcheck), the STFT/ISTFT of
benchmarks/stft.py and the convolutions of benchmarks/conv.py. Where torch
sees a CUDA or Apple GPU it also runs the GPU benchmark script and includes
its output. Writes DIR/performance.md and PNG plots in DIR/img (DIR:
docs/ of the checkout by default); progress goes to stderr. --quick: few
sizes and repeats, a small workload (for tests and CI; its figures are not
meant to be read).
"""
import argparse
import importlib.util
import os
import platform
import subprocess
import sys
import time
import warnings
from datetime import datetime, timezone

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name):
    """A sibling benchmark script, imported as a module."""
    spec = importlib.util.spec_from_file_location(f"complexext_bench_{name}",
                                                  os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


fft_cpu, stft_bench, conv_bench = _load("fft_cpu"), _load("stft"), _load("conv")

import scipy.fft  # noqa: E402
import torch  # noqa: E402

import complexext  # noqa: E402
from complexext._tools import bench as _bench, report as _report  # noqa: E402
from complexext._tools.bench import interleaved_times, random_chalf  # noqa: E402
from complexext._tools.selfcheck import _input, floor_of, rel_rms, to_numpy64  # noqa: E402

MiB = 1 << 20
PROFILES = {
    "full": dict(sizes=fft_cpu.SIZES, elements=4 * MiB, reps=9, acc_elements=MiB,
                 stft=stft_bench.SETTINGS, stft_reps=21, conv=tuple(conv_bench.SHAPES),
                 conv_batch=None, conv_reps=7, generic=True),
    "quick": dict(sizes=(256, 1000, 4099), elements=1 << 16, reps=3, acc_elements=1 << 14,
                  stft=stft_bench.SETTINGS[:1], stft_reps=2, conv=("conv2d",),
                  conv_batch=1, conv_reps=2, generic=False),
}
ACC_FUNCS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
C2R = ("irfft", "hfft")


def fft_row(n, prof, threads):
    """fft_cpu.py's measurement: complex32 fft of rows of length n against its peers."""
    t, _ = fft_cpu.bench(n, prof["elements"], threads, prof["reps"])
    return {"kind": "fft", "n": n, "rows": prof["elements"] // n, "times": t}


def rfft_row(n, prof, threads):
    """The same for rfft: float16 rows to complex32, against float32 peers."""
    x = random_chalf((prof["elements"] // n, n), seed=n).real.contiguous()
    x32 = x.float()
    xnp = x32.numpy()
    t = interleaved_times({
        "cx": lambda: complexext.fft.rfft(x),
        "torch": lambda: torch.fft.rfft(x32),
        "upcast": lambda: torch.fft.rfft(x.float()).to(torch.chalf),
        "scipy": lambda: scipy.fft.rfft(xnp, workers=threads),
    }, reps=prof["reps"])
    return {"kind": "rfft", "n": n, "rows": prof["elements"] // n, "times": t}


def accuracy_row(n, prof):
    """Error / floor of each 1-D function in complex32 at length n, against
    scipy.fft in float64 on the same rounded input (as the self-check)."""
    errors = {}
    for name in ACC_FUNCS:
        gen = torch.Generator().manual_seed(n)
        shape = (max(2, prof["acc_elements"] // n), n // 2 + 1 if name in C2R else n)
        kw = {"n": n} if name in C2R else {}
        x = _input(name, shape, "c32", gen, "cpu")
        y = getattr(complexext.fft, name)(x, **kw)
        ref = getattr(scipy.fft, name)(to_numpy64(x), **kw)
        errors[name] = rel_rms(to_numpy64(y), ref) / floor_of(ref, y.dtype)
    return {"n": n, "errors": errors}


def stft_rows(n_fft, hop, prof):
    """stft.py's calls and accuracy: one row for stft, one for istft."""
    x16 = stft_bench.signal()
    t = interleaved_times(stft_bench.calls(n_fft, hop, x16), reps=prof["stft_reps"])
    err = stft_bench.accuracy(n_fft, hop, x16)
    return [{"setting": f"{n_fft}/{hop}", "call": kind, "err": err[i],
             "times": {k[len(kind) + 1:]: v for k, v in t.items() if k.startswith(kind + " ")}}
            for i, kind in enumerate(("stft", "istft"))]


def conv_row(name, prof):
    """conv.py's peers on one shape; torch's generic complex32 path timed once."""
    x, w, b = conv_bench.data(name, batch=prof["conv_batch"])
    fns = conv_bench.peers(name, x, w, b)
    t = conv_bench.interleaved(fns, prof["conv_reps"])
    if prof["generic"]:
        t["generic"] = conv_bench.timed_once(lambda: conv_bench.generic_torch32(name, x, w, b))
    xs, ws, transposed, kw = conv_bench.SHAPES[name]
    op = ("conv_transpose%dd" if transposed else "conv%dd") % (len(ws) - 2)
    return {"shape": name, "call": f"{op} {tuple(x.shape)} by {ws}", "times": t,
            "err": conv_bench.error_ratio(name, x, w, b, fns["cx"]())}


# the GPU benchmark of each kind of device, and its arguments in the quick profile
GPU_SCRIPTS = {"cuda": ("gpu.py", ["--mib", "16", "--reps", "3"]), "mps": ("mps.py", ["--quick"])}


def gpu_section(quick):
    """The GPU benchmark's output where torch sees a GPU, else why none ran."""
    mps = getattr(torch.backends, "mps", None)
    if torch.cuda.is_available():
        kind, device = "cuda", f"CUDA: {torch.cuda.get_device_name(0)}"
    elif mps is not None and mps.is_available():
        kind, device = "mps", f"Apple GPU (MPS): {_apple_chip()}"
    else:
        return {"used": False, "why": "torch sees no CUDA or MPS device on this machine"}
    script, quick_args = GPU_SCRIPTS[kind]
    path = os.path.join(HERE, script)
    if not os.path.exists(path):
        return {"used": False, "why": f"{device} present, but benchmarks/{script} is missing"}
    cmd = ["python", f"benchmarks/{script}"] + (quick_args if quick else [])
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        r = subprocess.run([sys.executable, path] + cmd[2:], capture_output=True, text=True,
                           cwd=os.path.dirname(HERE), timeout=3600)
        rc, output = r.returncode, (r.stdout + r.stderr).strip()
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""  # bytes even with text=True
        rc, output = "timed out after 3600 s", out.decode(errors="replace") if isinstance(
            out, bytes) else out
    return {"used": True, "device": device, "date": date, "script": " ".join(cmd),
            "rc": rc, "output": output}


def _apple_chip():
    try:
        return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or platform.machine()
    except OSError:
        return platform.machine()


def _fp16_hardware():
    try:
        return ", ".join(conv_bench.cpu_fp16_hardware())
    except OSError:  # no /proc/cpuinfo
        return "unknown"


def tasks(prof, threads, quick):
    """(label, callable) for every step; each callable returns (section, rows)."""
    out = []
    for n in prof["sizes"]:
        out += [(f"fft n={n}", lambda n=n: ("fft", [fft_row(n, prof, threads)])),
                (f"rfft n={n}", lambda n=n: ("fft", [rfft_row(n, prof, threads)])),
                (f"accuracy n={n}", lambda n=n: ("accuracy", [accuracy_row(n, prof)]))]
    for n_fft, hop in prof["stft"]:
        out.append((f"stft/istft {n_fft}/{hop}",
                    lambda n_fft=n_fft, hop=hop: ("stft", stft_rows(n_fft, hop, prof))))
    for name in prof["conv"]:
        out.append((f"conv {name}", lambda name=name: ("conv", [conv_row(name, prof)])))
    out.append(("gpu", lambda: ("gpu", gpu_section(quick))))
    return out


def parse(argv, prog=None):
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="few sizes and repeats, a small workload (tests, CI)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "docs"),
                   help="folder for performance.md and img/ (default: docs/ of the checkout)")
    p.add_argument("--threads", type=int, default=torch.get_num_threads(),
                   help="torch threads and scipy workers (default: torch's)")
    p.add_argument("--keep-memory", action="store_true",
                   help="glibc keeps freed memory: no peer's output faults in fresh pages")
    a = p.parse_args(argv)
    if a.threads < 1:
        p.error(f"--threads must be at least 1, got {a.threads}")
    try:  # before the run, not after it
        os.makedirs(os.path.join(a.out, "img"), exist_ok=True)
    except OSError as e:
        p.error(f"--out {a.out}: cannot make the folder and its img/ ({e.strerror})")
    return a


def main(argv=None, prog=None):
    a = parse(sys.argv[1:] if argv is None else argv, prog)
    torch.set_num_threads(a.threads)
    kept = a.keep_memory and _bench.keep_freed_memory()
    profile = "quick" if a.quick else "full"
    prof = PROFILES[profile]
    results = {"profile": profile, "threads": a.threads, "elements": prof["elements"],
               "reps": prof["reps"], "stft_reps": prof["stft_reps"],
               "conv_reps": prof["conv_reps"], "conv_batch": prof["conv_batch"],
               "machine": dict(_report.machine_info(a.threads), fp16=_fp16_hardware()),
               "fft": [], "accuracy": [], "stft": [], "conv": [], "gpu": None,
               "memory": _bench.memory_mode(kept)}
    start = time.perf_counter()
    steps = tasks(prof, a.threads, a.quick)
    for i, (label, fn) in enumerate(steps, 1):
        _report.progress(i, len(steps), label, time.perf_counter() - start)
        section, rows = fn()
        if section == "gpu":
            results["gpu"] = rows
        else:
            results[section] += rows
    results["seconds"] = time.perf_counter() - start
    results["load_end"] = os.getloadavg()
    for path in _report.write(results, a.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
