"""CPU speed and peak memory of complexext's complex32 convolution against torch.

    python benchmarks/conv.py [--quick] [--threads N] [--shapes conv1d conv2d ...]
                              [--no-memory] [--no-generic] [--backward]

Shapes (forward only, with bias):
  conv1d   (8, 64, 16000) by (64, 64, 3)
  conv2d   (8, 16, 64, 256) by (32, 16, 3, 3), padding 1
  enc      DCCRN encoder layer: (8, 64, 128, 200) by (128, 64, 5, 2),
           stride (2, 1), padding (2, 1)
  dec      its transposed decoder counterpart: conv_transpose2d of the
           encoder's output (8, 128, 64, 201) by (128, 64, 5, 2), stride
           (2, 1), padding (2, 1), output_padding (1, 0): back to
           (8, 64, 128, 200)

Peers, on the same data:
  cx c32       complexext.nn.functional on complex32 (fp32 inside)
  torch c32    torch.nn.functional on complex32 (three half convolutions, Gauss
               trick). On CPUs with AVX512-FP16 or AMX-FP16, torch runs them
               on oneDNN's fp16 kernels; elsewhere on its generic half path.
  torch c64    torch.nn.functional on complex64
  upcast       complex32 -> complex64 -> torch -> complex32, what torch offers
               for complex32 in practice
  torch c32 generic (timed once, skip with --no-generic): torch's complex32
               with oneDNN switched off for that call, the path torch takes
               on CPUs without fp16 hardware; seconds per call.
Time: median of several calls after warm-up; the peers take turns (one
call each per round), so a change in machine load falls on all of them
alike (a peer whose warm-up call takes over a second is timed once).
Ratios are peer time / cx c32 time: above 1 means complexext is faster.
Must: >= 10 against torch c32, and cx c32 time <= 1.25 times torch c64's
(torch c64 / cx c32 >= 0.8).

--backward adds forward + backward (gradients of input, weight and bias),
batch 2, cx c32 against torch c64 and torch c32.

Peak memory: each (shape, peer) runs in a fresh subprocess that makes the
inputs, makes one call on a single batch entry (oneDNN primitives and
thread pools set up), resets the kernel's peak-RSS mark
(/proc/self/clear_refs), makes the measured call and reads VmHWM: the
growth is everything the call touched (output, temporaries, scratch),
inputs excluded. The output size is printed alongside.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
warnings.filterwarnings("ignore", message="TF32 acceleration on top of oneDNN")

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

import complexext  # noqa: E402,F401  (loads the kernels)
import complexext.nn.functional as CF  # noqa: E402

SHAPES = {  # name: (input shape, weight shape, transposed, kwargs)
    "conv1d": ((8, 64, 16000), (64, 64, 3), False, {}),
    "conv2d": ((8, 16, 64, 256), (32, 16, 3, 3), False, {"padding": 1}),
    "enc": ((8, 64, 128, 200), (128, 64, 5, 2), False, {"stride": (2, 1), "padding": (2, 1)}),
    "dec": ((8, 128, 64, 201), (128, 64, 5, 2), True,
            {"stride": (2, 1), "padding": (2, 1), "output_padding": (1, 0)}),
}
MiB = 1 << 20


def data(name, batch=None):
    xs, ws, transposed, kw = SHAPES[name]
    g = torch.Generator().manual_seed(len(name))
    cplx = lambda s: torch.complex(torch.randn(s, generator=g), torch.randn(s, generator=g))  # noqa
    x = cplx(((batch or xs[0]),) + xs[1:]).to(torch.chalf)
    fan = ws[1] * ws[2] * ws[3] if len(ws) == 4 else ws[1] * ws[2]
    w = (cplx(ws) / fan ** 0.5).to(torch.chalf)
    b = cplx((ws[1] if transposed else ws[0],)).to(torch.chalf)
    return x, w, b


def call(name, lib, x, w, b):
    xs, ws, transposed, kw = SHAPES[name]
    fn = ("conv_transpose%dd" if transposed else "conv%dd") % (len(ws) - 2)
    return getattr(lib, fn)(x, w, b, **kw)


def peers(name, x, w, b):
    x64, w64, b64 = (t.to(torch.complex64) for t in (x, w, b))
    return {
        "cx": lambda: call(name, CF, x, w, b),
        "torch32": lambda: call(name, TF, x, w, b),
        "torch64": lambda: call(name, TF, x64, w64, b64),
        "upcast": lambda: call(name, TF, *(t.to(torch.complex64) for t in (x, w, b))
                               ).to(torch.chalf),
    }


def generic_torch32(name, x, w, b):
    """torch's complex32 convolution without oneDNN (as on CPUs without fp16
    hardware)."""
    with torch.backends.mkldnn.flags(enabled=False):
        return call(name, TF, x, w, b)


def backward_peers(name):
    x, w, b = data(name, batch=2)

    def step(lib, dtype):
        args = [t.to(dtype).requires_grad_() for t in (x, w, b)]
        y = call(name, lib, *args)
        torch.autograd.grad(y, args, torch.ones_like(y))
    return {"cx": lambda: step(CF, torch.chalf), "torch32": lambda: step(TF, torch.chalf),
            "torch64": lambda: step(TF, torch.complex64)}


def timed_once(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(fns, reps):
    """Median wall time of each callable, in turns (one call each per round)
    after one warm-up call each. A peer whose warm-up call takes over a
    second is timed by that call alone."""
    first = {k: timed_once(fn) for k, fn in fns.items()}
    fast = {k: fn for k, fn in fns.items() if first[k] <= 1.0}
    times = {k: [] for k in fast}
    for _ in range(reps):
        for k, fn in fast.items():
            times[k].append(timed_once(fn))
    return {k: statistics.median(times[k]) if k in fast else first[k] for k in fns}


def _kib(field):
    return int(re.search(field + r":\s+(\d+) kB", open("/proc/self/status").read()).group(1))


def probe_memory(name, peer):
    """Runs in a fresh process: RSS growth of one call, in bytes."""
    x, w, b = data(name)
    fns = peers(name, x, w, b)
    peers(name, x[:1], w, b)[peer]()  # set-up costs paid before the mark
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # peak RSS := current RSS
    base = _kib("VmRSS")
    y = fns[peer]()
    return (_kib("VmHWM") - base) * 1024, y.numel() * y.element_size()


def measure_memory(name, peer, threads):
    cmd = [sys.executable, os.path.abspath(__file__), "--probe", peer, "--shapes", name,
           "--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    return int(out[-2]), int(out[-1])


def error_ratio(name, x, w, b, y):
    """cx c32's relative RMS error against complex128, over the floor."""
    ref = call(name, TF, *(t.to(torch.complex128) for t in (x, w, b)))
    err = lambda a: float((a.to(torch.complex128) - ref).norm() / ref.norm())  # noqa: E731
    return err(y) / err(ref.to(torch.chalf))


def cpu_fp16_hardware():
    flags = open("/proc/cpuinfo").read().split()
    return [f for f in ("avx512_fp16", "amx_fp16") if f in flags] or ["none"]


def forward_table(a, reps):
    print(f"{'shape':>6} | {'cx c32':>8} {'torch c32':>10} {'torch c64':>9} {'upcast':>8} "
          f"{'c32 generic':>11} | ratio to cx c32: {'torch c32':>9} {'torch c64':>9} "
          f"{'upcast':>7} {'c32 generic':>11} | {'err/floor':>9}")
    failed = []
    for name in a.shapes:
        x, w, b = data(name)
        fns = peers(name, x, w, b)
        t = interleaved(fns, reps)
        t["generic"] = float("nan") if a.no_generic else timed_once(
            lambda: generic_torch32(name, x, w, b))
        r = {k: v / t["cx"] for k, v in t.items()}
        err = error_ratio(name, x, w, b, fns["cx"]())
        ms = lambda k: f"{t[k] * 1e3:.0f}ms"  # noqa: E731
        print(f"{name:>6} | {ms('cx'):>8} {ms('torch32'):>10} {ms('torch64'):>9} "
              f"{ms('upcast'):>8} {ms('generic'):>11} | {'':>16} {r['torch32']:>8.1f}x "
              f"{r['torch64']:>8.2f}x {r['upcast']:>6.2f}x {r['generic']:>10.1f}x | "
              f"{err:>9.3f}", flush=True)
        failed += [f"{name} (torch c32 {r['torch32']:.1f}x < 10x)"] if r["torch32"] < 10 else []
        failed += [f"{name} (torch c64 {r['torch64']:.2f}x < 0.8x)"] if r["torch64"] < 0.8 else []
    print("ratio: peer time / cx c32 time (above 1: complexext faster). Must: torch c32 >= 10x, "
          "torch c64 >= 0.8x (cx c32 at most 1.25x torch c64's time).")
    print("err/floor: cx c32 relative RMS error against complex128 over that of the exact "
          "result rounded to complex32 (1.0 is the best possible).")
    return failed


def backward_table(a, reps):
    print(f"\nforward + backward, batch 2: {'shape':>6} | {'cx c32':>8} {'torch c32':>10} "
          f"{'torch c64':>9} | ratio to cx c32: {'torch c32':>9} {'torch c64':>9}")
    for name in a.shapes:
        t = interleaved(backward_peers(name), reps)
        print(f"{'':>28}{name:>6} | {t['cx'] * 1e3:>6.0f}ms {t['torch32'] * 1e3:>8.0f}ms "
              f"{t['torch64'] * 1e3:>7.0f}ms | {'':>16} {t['torch32'] / t['cx']:>8.2f}x "
              f"{t['torch64'] / t['cx']:>8.2f}x", flush=True)


def memory_table(a):
    print("\npeak memory growth of one call, MiB (fresh process each; inputs excluded)")
    print(f"{'shape':>6} | {'output':>7} | {'cx c32':>7} {'torch c32':>9} {'torch c64':>9} "
          f"{'upcast':>7}")
    for name in a.shapes:
        m = {k: measure_memory(name, k, a.threads) for k in ("cx", "torch32", "torch64",
                                                             "upcast")}
        print(f"{name:>6} | {m['cx'][1] / MiB:>7.0f} | {m['cx'][0] / MiB:>7.0f} "
              f"{m['torch32'][0] / MiB:>9.0f} {m['torch64'][0] / MiB:>9.0f} "
              f"{m['upcast'][0] / MiB:>7.0f}", flush=True)
    print("output: size of the complex32 output (torch c64's is twice that).")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory table")
    p.add_argument("--no-generic", action="store_true", help="skip torch c32 without oneDNN")
    p.add_argument("--backward", action="store_true", help="also time forward + backward")
    p.add_argument("--probe", help=argparse.SUPPRESS)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    if a.probe:
        print(*probe_memory(a.shapes[0], a.probe))
        return 0
    reps = 3 if a.quick else 7
    print(f"complexext convolution, CPU: torch {torch.__version__}, {a.threads} threads, "
          f"load average {os.getloadavg()[0]:.1f}, CPU fp16 hardware: "
          f"{', '.join(cpu_fp16_hardware())}; median of {reps} calls")
    failed = forward_table(a, reps)
    if a.backward:
        backward_table(a, reps)
    if not a.no_memory:
        memory_table(a)
    if failed:
        print("NOT MET: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
