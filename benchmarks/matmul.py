"""Speed and accuracy of complexext's complex32 matrix product against torch.

    python benchmarks/matmul.py [--sizes 256 512 ...] [--reps 5] [--threads N]
                                [--device cpu|cuda] [--quick]

Everything in one run, on the same data, the peers taking turns (one call
each per round after warm-up calls; complexext._tools.bench.interleaved_times)
and the median kept. Cases:
  square     (n, n) @ (n, n) for n = 256, 512, 1024, 2048, 4096
  beamform   a batched beamforming product: 257 frequency bins of an 8 x 8
             PSD matrix times an 8 x 512 block of frames, (257, 8, 8) @
             (257, 8, 512), and the PSD estimate itself by einsum,
             'fct,fdt->fcd' over 512 frames
Peers (time of each, and its time over complexext complex32's):
  cx c32     complexext.matmul / einsum on complex32 (fp32 accumulation)
  torch c64  torch.matmul / einsum on complex64 (the same values)
  upcast     complex32 -> complex64 -> torch -> complex32 (what torch offers
             for complex32 where it has no kernel, the CPU among them)
err/floor: relative RMS error of complexext's complex32 result against the
complex128 product of the same (rounded) inputs, over that of the exact
result rounded to complex32.
Targets (PASS/FAIL per line): CPU, complexext complex32 >= 0.9 x torch
complex64's speed; CUDA, >= 3 x at 4096^2; error <= 1.15 x the floor.
Exit status: 0 all targets met, 1 some missed.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import complexext  # noqa: E402
from complexext._tools.bench import interleaved_times  # noqa: E402

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128


def rand(shape, seed, device):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, dtype=C64, generator=g).to(C32).to(device)


def err_ratio(y, exact):
    """||y - exact|| / ||exact|| over the same for exact rounded to complex32."""
    e = exact.to(C128)
    num = (y.to(C128) - e).abs().norm() / e.abs().norm()
    den = (e.to(C32).to(C128) - e).abs().norm() / e.abs().norm()
    return float(num / den)


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def case(name, f_cx, f_torch, args, reps, device, target):
    a64 = [t.to(C64) for t in args]
    fns = {
        "cx": lambda: (f_cx(*args), sync(device)),
        "c64": lambda: (f_torch(*a64), sync(device)),
        "upcast": lambda: (f_torch(*[t.to(C64) for t in args]).to(C32), sync(device)),
    }
    t = interleaved_times(fns, reps=reps, warmup=1)
    exact = f_torch(*[x.to(C128) for x in args])
    err = err_ratio(f_cx(*args), exact)
    ratio = t["c64"] / t["cx"]
    ok = ratio >= target and err <= 1.15
    print(f"| {name} | {t['cx'] * 1e3:.2f} | {t['c64'] * 1e3:.2f} | {t['upcast'] * 1e3:.2f} | "
          f"{ratio:.2f} | {t['upcast'] / t['cx']:.2f} | {err:.3f} | {'PASS' if ok else 'FAIL'} |")
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048, 4096])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--quick", action="store_true", help="sizes 256-1024, 3 repeats")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.reps = [s for s in args.sizes if s <= 1024], 3
    if args.threads:
        torch.set_num_threads(args.threads)
    dev = args.device
    if dev == "cuda" and not torch.cuda.is_available():
        print("matmul.py: no CUDA device")
        return 2
    la = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"device {dev}, torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"load average {la}")
    print("| case | cx c32 ms | torch c64 ms | upcast ms | torch c64 / cx | upcast / cx | "
          "err/floor | target |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    ok = True
    for n in args.sizes:
        target = 0.9 if dev == "cpu" else (3.0 if n == 4096 else 0.0)
        a, b = rand((n, n), 1, dev), rand((n, n), 2, dev)
        reps = args.reps if n < 2048 else max(1, args.reps // 2)
        ok &= case(f"{n} x {n}", complexext.matmul, torch.matmul, (a, b), reps, dev, target)
    target = 0.9 if dev == "cpu" else 0.0
    w, x = rand((257, 8, 8), 3, dev), rand((257, 8, 512), 4, dev)
    ok &= case("beamform (257, 8, 8) @ (257, 8, 512)", complexext.matmul, torch.matmul, (w, x),
               args.reps, dev, target)
    y = rand((257, 8, 512), 5, dev)
    eq = "fct,fdt->fcd"
    ok &= case("PSD einsum 'fct,fdt->fcd', 512 frames",
               lambda p, q: complexext.einsum(eq, p, q), lambda p, q: torch.einsum(eq, p, q),
               (x, y), args.reps, dev, target)
    print("all targets met" if ok else "some target missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
