"""CUDA speed and accuracy of complexext's complex32 FFT, convolution and
STFT against torch, with the targets checked line by line.

    python benchmarks/gpu.py [--mib 256] [--reps 7] [--sizes 256 400 ...]
                             [--only fft real conv stft] [--dry-run]
                             [--write-conv-table [PATH]]

Everything is measured in one run, on one device, on the same data: CUDA
events around each call, two warm-up calls, then the median of --reps
calls, the peers taking turns (one call each per round).

FFT: batched c2c along the last dim of a complex32 tensor of --mib MiB
(default 256: rows of length n). Columns:
  cx ms      complexext.fft.fft on complex32 (fp32 inside)
  GB/s       bytes read + written (2 x the tensor) / cx time
  copy %     share of the device-to-device copy bandwidth, a copy of the
             same bytes (y.copy_(x)) timed in the same run
  vs cuFFT half  torch.fft.fft on complex32 (cuFFT half: powers of two
             only, others n/a): its time / cx time
  vs c64     torch.fft.fft on complex64 (the same values), time / cx time
  vs upcast  complex32 -> complex64 -> torch.fft.fft -> complex32
  vs block   complexext with its register kernels switched off
             (COMPLEXEXT_CUDA_REG=0: the block kernels), time / cx time
  err/floor  relative RMS error against torch's complex128 FFT of the same
             values, over that of the exact result rounded to complex32
Targets (PASS/FAIL per line): n in {256, 512, 1024, 4096}: >= 80% of the
copy bandwidth and >= 1.05 times as fast as cuFFT half; n in {400, 1000}:
>= 70% of the copy bandwidth; every n: >= 1.6 times as fast as torch
complex64.

Convolution (forward, with bias): a DCCRN-like encoder conv2d (8, 64, 128,
200) by (128, 64, 5, 2), stride (2, 1), padding (2, 1); its transposed
decoder; a conv1d (8, 64, 16000) by (64, 64, 3), padding 1. Peers:
complexext complex32 (the CUDA kernel's default method), each method of
the layout (torch.ops.complexext._conv_real_layout: rows, rows32, wide,
wide32, gauss; see docs/gpu.md), torch complex32 (Gauss trick on half
convolutions), torch complex64, the upcast path. err/floor against torch's
complex128 convolution on the device. Target: complexext complex32 >= 1.5
times as fast as torch complex32, error <= 1.15 times the floor.
torch's cuDNN TF32 setting is left as it is and printed (it governs
torch's complex64 convolutions and complexext's complex64 ones alike).
Then, for the method table, each shape again with the methods and torch's
convolution alone: complex32 without a bias, complex64 with and without
(rows, wide, gauss: the 32 forms are rows and wide there).
--write-conv-table [PATH] writes these times (every method, every shape)
as the table that the CUDA convolution's "auto" method reads
(csrc/conv_cuda/conv_method_table.h by default; not from a --device cpu run) and
prints the method it picks for each shape.

Real rows and a strided long axis (informational, no targets): rfft
(onesided) and fft (two-sided: the r2c kernel and its mirror) of float16
rows of --mib MiB, n in 512, 1024, 4096, against torch.fft on the same
rows in float32 and the copy rate of the bytes moved (samples read,
bins written); and fft along dim 0 of a complex32 (65536, 8) signal (the
two register passes tiling across its 8 channels) against torch
complex64.

STFT: 8 signals of 4 s at 16 kHz, Hann window, n_fft/hop 512/128 and
400/160: complexext.stft of the float16 signal (complex32 out) against
torch.stft of the float32 signal; err/floor against torch.stft in float64.

Exit status: 0 all targets met, 1 some target missed, 2 no CUDA device or
complexext without CUDA kernels (a message says which).
--dry-run prints the plan and exits 0 without touching a device.
"""
import argparse
import os
import statistics
import sys
import time
import warnings
from datetime import datetime, timezone

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

from conv_table import CONV_TABLE, METHODS, conv_table_line, write_conv_table  # noqa: E402

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
SIZES = [256, 400, 512, 1000, 1024, 4096, 4099, 65536]
COPY_80 = {256, 512, 1024, 4096}
COPY_70 = {400, 1000}
CONV = {  # name: (function, input shape, weight shape, kwargs)
    "enc": ("conv2d", (8, 64, 128, 200), (128, 64, 5, 2), {"stride": (2, 1), "padding": (2, 1)}),
    "dec": ("conv_transpose2d", (8, 128, 64, 201), (128, 64, 5, 2),
            {"stride": (2, 1), "padding": (2, 1), "output_padding": (1, 0)}),
    "conv1d": ("conv1d", (8, 64, 16000), (64, 64, 3), {"padding": 1}),
}
# The method table (csrc/conv_cuda/conv_method_table.h): besides complex32 with a bias
# (the benchmark's own call), these calls of each shape; the methods each runs.
TABLE_VARIANTS = [(C32, False), (C64, True), (C64, False)]
TABLE_METHODS = {C32: METHODS, C64: ["rows", "wide", "gauss"]}
STFT = [(512, 128), (400, 160)]
REAL = [512, 1024, 4096]


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="See the module docstring (and docs/gpu.md) for columns.")
    p.add_argument("--mib", type=int, default=256, help="FFT data size in MiB (default 256)")
    p.add_argument("--reps", type=int, default=7, help="timed calls per peer (median kept)")
    p.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="FFT lengths")
    p.add_argument("--only", nargs="+", choices=["fft", "real", "conv", "stft"],
                   default=["fft", "real", "conv", "stft"], help="sections to run")
    p.add_argument("--batch", type=int, default=8,
                   help="batch of the convolution shapes and signals of the STFT (default 8)")
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                   help="cpu: a smoke run of this script itself (small --mib and --batch); "
                        "its numbers say nothing about the GPU targets")
    p.add_argument("--dry-run", action="store_true", help="print the plan, touch no device")
    p.add_argument("--write-conv-table", nargs="?", const=CONV_TABLE, metavar="PATH",
                   help="write the convolution method table from this run's times "
                        "(default csrc/conv_cuda/conv_method_table.h)")
    args = p.parse_args(argv)
    if args.write_conv_table and "conv" not in args.only:
        p.error("--write-conv-table needs the conv section (--only ... conv)")
    return args


class Targets:
    def __init__(self):
        self.failed = 0

    def check(self, what, ok, detail):
        self.failed += not ok
        print(f"  {'PASS' if ok else 'FAIL'}  {what}: {detail}")


def times(fns, reps, warmup=2):
    """Median seconds per callable, CUDA events around each call (wall time
    on the CPU), in turns."""
    cuda = torch.cuda.is_available() and torch.cuda.is_initialized()
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    if cuda:
        torch.cuda.synchronize()
    out = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            if not cuda:
                t0 = time.perf_counter()
                fn()
                out[k].append(time.perf_counter() - t0)
                continue
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            out[k].append(start.elapsed_time(end) / 1e3)
    return {k: statistics.median(v) for k, v in out.items()}


def empty_cache():
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.empty_cache()


def rel_rms(y, ref):
    d = y.to(ref.dtype) - ref
    return float(torch.linalg.vector_norm(d) / torch.linalg.vector_norm(ref))


def floor_ratio(y, ref, dtype=C32):
    return rel_rms(y, ref) / rel_rms(ref.to(dtype), ref)


def randc(shape, dev, seed):
    g = torch.Generator(device=dev).manual_seed(seed)
    return torch.complex(torch.randn(shape, generator=g, device=dev),
                         torch.randn(shape, generator=g, device=dev)).to(C32)


def runnable(fn):
    """fn, or None when it raises (a peer torch does not offer here)."""
    try:
        fn()
        return fn
    except Exception as e:  # noqa: BLE001  (any failure: the peer is reported missing)
        print(f"    ({type(e).__name__}: {(str(e).splitlines() or [''])[0][:100]})")
        return None


def ratio(t, key, base):
    return f"{t[key] / t[base]:.2f}x" if key in t else "n/a"


def block_kernels(x):
    """complexext's FFT with the register kernels switched off (the block
    kernels take every length), timed beside them in the same run."""
    import complexext
    os.environ["COMPLEXEXT_CUDA_REG"] = "0"
    try:
        return complexext.fft.fft(x)
    finally:
        del os.environ["COMPLEXEXT_CUDA_REG"]


def fft_section(args, dev, tg):
    import complexext
    print(f"\nFFT c2c, complex32, {args.mib} MiB a call (rows of length n)")
    print(f"  {'n':>6} {'cx ms':>8} {'GB/s':>7} {'copy %':>7} {'vs cuFFT half':>13} "
          f"{'vs c64':>7} {'vs upcast':>9} {'vs block':>8} {'err/floor':>9}")
    for n in args.sizes:
        rows = max(1, (args.mib << 20) // (4 * n))
        x = randc((rows, n), dev, n)
        x64, dst = x.to(C64), torch.empty_like(x)
        nbytes = 2 * x.numel() * 4
        fns = {"cx": lambda: complexext.fft.fft(x), "block": lambda: block_kernels(x),
               "copy": lambda: dst.copy_(x),
               "c64": lambda: torch.fft.fft(x64),
               "upcast": lambda: torch.fft.fft(x.to(C64)).to(C32)}
        if n & (n - 1) == 0:
            half = runnable(lambda: torch.fft.fft(x))
            if half is not None:
                fns["half"] = half
        if runnable(fns["cx"]) is None:
            tg.check(f"fft n={n}", False, "complexext.fft.fft failed on CUDA")
            continue
        t = times(fns, args.reps)
        y = complexext.fft.fft(x)
        err = floor_ratio(y, torch.fft.fft(x.to(C128)))
        del y
        share = t["copy"] / t["cx"]
        print(f"  {n:>6} {t['cx'] * 1e3:>8.3f} {nbytes / t['cx'] / 1e9:>7.0f} {share:>7.0%} "
              f"{ratio(t, 'half', 'cx'):>13} {ratio(t, 'c64', 'cx'):>7} "
              f"{ratio(t, 'upcast', 'cx'):>9} {ratio(t, 'block', 'cx'):>8} {err:>9.3f}")
        if n in COPY_80 or n in COPY_70:
            need = 0.80 if n in COPY_80 else 0.70
            tg.check(f"fft n={n} copy bandwidth", share >= need,
                     f"{share:.0%} of the D2D copy (need {need:.0%})")
        if n in COPY_80:
            tg.check(f"fft n={n} vs cuFFT half", "half" in t and t["half"] >= 1.05 * t["cx"],
                     f"cuFFT half / cx = {ratio(t, 'half', 'cx')} (need >= 1.05)")
        tg.check(f"fft n={n} vs torch c64", t["c64"] / t["cx"] >= 1.6,
                 f"torch c64 / cx = {t['c64'] / t['cx']:.2f}x (need >= 1.6)")
        del x, x64, dst
        empty_cache()


def real_section(args, dev, tg):
    import complexext
    print(f"\nReal rows (float16, {args.mib} MiB a call) and a strided long axis; "
          f"figures only, no targets")
    print(f"  {'what':<28} {'cx ms':>8} {'GB/s':>7} {'copy %':>7} {'vs f32':>7} "
          f"{'err/floor':>9}")

    def line(what, fns, nbytes, y, ref):
        src = torch.empty(nbytes // 2, dtype=torch.uint8, device=dev)
        dst = torch.empty_like(src)
        fns = dict(fns, copy=lambda: dst.copy_(src))
        t = times(fns, args.reps)
        print(f"  {what:<28} {t['cx'] * 1e3:>8.3f} {nbytes / t['cx'] / 1e9:>7.0f} "
              f"{t['copy'] / t['cx']:>7.0%} {ratio(t, 'f32', 'cx'):>7} "
              f"{floor_ratio(y, ref):>9.3f}")

    for n in REAL:
        rows = max(1, (args.mib << 20) // (2 * n))
        g = torch.Generator(device=dev).manual_seed(n)
        x = torch.randn((rows, n), generator=g, device=dev).half()
        x32 = x.float()
        for what, cx, peer, bins in (("rfft", complexext.fft.rfft, torch.fft.rfft, n // 2 + 1),
                                     ("fft of real (two-sided)", complexext.fft.fft,
                                      torch.fft.fft, n)):
            if runnable(lambda: cx(x)) is None:
                tg.check(f"{what} n={n}", False, "complexext failed on this device")
                continue
            y = cx(x)
            ref = peer(x.double())
            line(f"{what} {n}", {"cx": lambda: cx(x), "f32": lambda: peer(x32)},
                 x.numel() * 2 + rows * bins * 4, y, ref)
            del y, ref
        del x, x32
        empty_cache()
    n, ch = 65536, 8
    x = randc((n, ch), dev, 7)
    x64 = x.to(C64)
    if runnable(lambda: complexext.fft.fft(x, dim=0)) is None:
        tg.check("fft along a strided axis", False, "complexext failed on this device")
        return
    y = complexext.fft.fft(x, dim=0)
    line(f"fft dim 0 of ({n}, {ch})", {"cx": lambda: complexext.fft.fft(x, dim=0),
                                       "f32": lambda: torch.fft.fft(x64, dim=0)},
         2 * x.numel() * 4, y, torch.fft.fft(x.to(C128), dim=0))
    del x, x64, y
    empty_cache()


def conv_op_args(fname, xs, kw):
    """(stride, padding, dilation, transposed, output_padding, groups) of
    the ops for a CONV shape."""
    nsp = len(xs) - 2
    lst = lambda v: list(v) if isinstance(v, tuple) else [v] * nsp  # noqa: E731
    return (lst(kw.get("stride", 1)), lst(kw.get("padding", 0)), [1] * nsp,
            "transpose" in fname, lst(kw.get("output_padding", 0)), 1)


def conv_section(args, dev, tg):
    import complexext.nn.functional as CF
    ops = torch.ops.complexext
    print(f"\nConvolution, forward with bias (cuDNN allow_tf32={torch.backends.cudnn.allow_tf32})")
    calls = []  # (table line, the call's tensors' shapes and op arguments) per timed call
    for name, (fname, xs, ws, kw) in CONV.items():
        xs = (args.batch,) + xs[1:]
        x = randc(xs, dev, 1)
        fan = ws[1] * ws[2] * (ws[3] if len(ws) == 4 else 1)
        w = (randc(ws, dev, 2).to(C64) / fan ** 0.5).to(C32)
        cout = ws[1] if "transpose" in fname else ws[0]
        b = randc((cout,), dev, 3)
        x64, w64, b64 = x.to(C64), w.to(C64), b.to(C64)
        oa = conv_op_args(fname, xs, kw)
        fns = {"cx": lambda: getattr(CF, fname)(x, w, b, **kw)}
        for m in METHODS:
            fns[m] = lambda m=m: ops._conv_real_layout(x, w, b, *oa, m)
        fns["torch c32"] = lambda: getattr(TF, fname)(x, w, b, **kw)
        fns["torch c64"] = lambda: getattr(TF, fname)(x64, w64, b64, **kw)
        fns["upcast"] = lambda: getattr(TF, fname)(x.to(C64), w64, b64, **kw).to(C32)
        fns = {k: f for k, f in fns.items() if runnable(f) is not None}
        if "cx" not in fns:
            tg.check(f"conv {name}", False, "complexext convolution failed on CUDA")
            continue
        t = times(fns, args.reps)
        ref = getattr(TF, fname)(x.to(C128), w.to(C128), b.to(C128), **kw)
        print(f"  {name}: {fname} {xs} by {ws} {kw}")
        print(f"    {'peer':>10} {'ms':>9} {'peer/cx':>8} {'err/floor':>9}")
        errs = {}
        for k in fns:
            y = fns[k]()
            errs[k] = floor_ratio(y, ref)  # complex64 peers too, in units of the c32 floor
            print(f"    {k:>10} {t[k] * 1e3:>9.3f} {t[k] / t['cx']:>7.2f}x {errs[k]:>9.3f}")
            del y
        if "torch c32" in t:
            tg.check(f"conv {name} vs torch c32", t["torch c32"] / t["cx"] >= 1.5,
                     f"torch c32 / cx = {t['torch c32'] / t['cx']:.2f}x (need >= 1.5)")
        else:
            tg.check(f"conv {name} vs torch c32", False, "torch complex32 convolution failed")
        tg.check(f"conv {name} error", errs["cx"] <= 1.15,
                 f"{errs['cx']:.3f} x the complex32 floor (need <= 1.15)")
        t["torch"] = t.pop("torch c32", None)
        calls.append((conv_table_line(name, fname, xs, ws, C32, True, t), xs, ws, oa))
        del ref
        for dtype, bias in TABLE_VARIANTS:
            xd, wd, bd = (x, w, b) if dtype == C32 else (x64, w64, b64)
            t = conv_variant(args, fname, kw, oa, xd, wd, bd if bias else None, ops)
            calls.append((conv_table_line(name, fname, xs, ws, dtype, bias, t), xs, ws, oa))
        del x, w, b, x64, w64, b64
        empty_cache()
    if args.write_conv_table:
        meta = {"device": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu",
                "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
                "unit": f"ms, the median of {args.reps} calls",
                "source": f"benchmarks/gpu.py --write-conv-table --batch {args.batch} (torch "
                          f"{torch.__version__}, CUDA {torch.version.cuda}, cuDNN "
                          f"{torch.backends.cudnn.version()})",
                "notes": []}
        write_conv_table(args.write_conv_table, calls, meta)


def conv_variant(args, fname, kw, oa, x, w, b, ops):
    """One more call of a shape for the method table: each method of the
    dtype and torch's convolution ("torch"), timed; their errors printed.
    Returns the times (seconds)."""
    fns = {m: lambda m=m: ops._conv_real_layout(x, w, b, *oa, m) for m in TABLE_METHODS[x.dtype]}
    fns["torch"] = lambda: getattr(TF, fname)(x, w, b, **kw)
    fns = {k: f for k, f in fns.items() if runnable(f) is not None}
    t = times(fns, args.reps) if fns else {}
    ref = getattr(TF, fname)(x.to(C128), w.to(C128), None if b is None else b.to(C128), **kw)
    err = {k: floor_ratio(f(), ref) for k, f in fns.items()}
    print(f"    {'c32' if x.dtype == C32 else 'c64'}, {'with' if b is not None else 'no'} bias: "
          + ", ".join(f"{k} {t[k] * 1e3:.3f} ms ({err[k]:.3f})" for k in fns))
    return t


def stft_section(args, dev, tg):
    import complexext
    print(f"\nSTFT, {args.batch} signals of 4 s at 16 kHz, Hann window")
    print(f"  {'n_fft/hop':>9} {'cx c32 ms':>9} {'torch f32 ms':>12} {'torch/cx':>8} "
          f"{'err/floor':>9}")
    g = torch.Generator(device=dev).manual_seed(4)
    x = torch.randn(args.batch, 64000, generator=g, device=dev)
    x16 = x.half()
    for n_fft, hop in STFT:
        win = torch.hann_window(n_fft, device=dev)
        fns = {"cx": lambda: complexext.stft(x16, n_fft, hop, window=win, return_complex=True),
               "torch": lambda: torch.stft(x, n_fft, hop, window=win, return_complex=True)}
        if runnable(fns["cx"]) is None:
            tg.check(f"stft {n_fft}/{hop}", False, "complexext.stft failed on CUDA")
            continue
        t = times(fns, args.reps)
        ref = torch.stft(x16.double(), n_fft, hop, window=win.double(), return_complex=True)
        err = floor_ratio(fns["cx"](), ref)
        print(f"  {f'{n_fft}/{hop}':>9} {t['cx'] * 1e3:>9.3f} {t['torch'] * 1e3:>12.3f} "
              f"{t['torch'] / t['cx']:>7.2f}x {err:>9.3f}")
        tg.check(f"stft {n_fft}/{hop} error", err <= 1.15,
                 f"{err:.3f} x the complex32 floor (need <= 1.15)")


def dry_run(args):
    print("gpu.py dry run: nothing is measured")
    if "fft" in args.only:
        print(f"  fft: complex32 c2c, {args.mib} MiB a call, n in {args.sizes}; peers: copy, "
              f"cuFFT half (powers of two), torch c64, upcast, the block kernels")
    if "real" in args.only:
        print(f"  real: rfft and two-sided fft of float16 rows, n in {REAL}, against torch.fft "
              f"in float32; fft along dim 0 of a complex32 (65536, 8) against torch complex64 "
              f"(figures only)")
    if "conv" in args.only:
        for name, (fname, xs, ws, kw) in CONV.items():
            print(f"  conv {name}: {fname} {xs} by {ws} {kw}; methods {METHODS}; for the "
                  f"method table also complex32 without a bias, complex64 with and without")
        if args.write_conv_table:
            print(f"  conv method table: written to {args.write_conv_table}")
    if "stft" in args.only:
        print(f"  stft: (8, 64000), n_fft/hop {STFT}")
    return 0


def main(argv=None):
    args = parse(argv)
    if args.dry_run:
        return dry_run(args)
    if args.device == "cpu":
        print("gpu.py: CPU smoke run of the script; the numbers say nothing about the GPU")
        return run(args, torch.device("cpu"))
    if not torch.cuda.is_available():
        print("gpu.py: no CUDA device (torch.cuda.is_available() is False); nothing measured")
        return 2
    from complexext._ops import BUILT_WITH_CUDA
    if not BUILT_WITH_CUDA:
        print("gpu.py: complexext was built without CUDA kernels; rebuild with "
              "COMPLEXEXT_CUDA=1 pip install --no-build-isolation -e .")
        return 2
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(dev)}, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}")
    return run(args, dev)


def run(args, dev):
    tg = Targets()
    for section in args.only:
        {"fft": fft_section, "real": real_section, "conv": conv_section,
         "stft": stft_section}[section](args, dev, tg)
    print(f"\n{tg.failed} target(s) missed" if tg.failed else "\nall targets met")
    return 1 if tg.failed else 0


if __name__ == "__main__":
    sys.exit(main())
