"""The cost of a tiny eager call: complexext against torch's own, at 1 thread.

    python benchmarks/overhead.py [--rounds R] [--calls N] [--threads T]

Each case is small enough that the arithmetic is a fraction of the call, so
the time is mostly the way in and out: Python argument handling, the
dispatcher, the op's kernels, output allocation.

  fft     complexext.fft.fft of a 64-point complex32 row  vs torch.fft.fft, complex64
  fft out=  the same, each into a preallocated out       vs torch.fft.fft(out=), complex64
  rfft    complexext.fft.rfft of a 64-point float32 row   vs torch.fft.rfft, float32
  stft    complexext.stft of 4000 float32 samples, n_fft 256, hop 64, Hann,
          centred (reflect)                               vs torch.stft, same arguments
  conv1d  complexext.nn.functional.conv1d of (1, 2, 64) by (2, 2, 3), complex64
                                                          vs torch's F.conv1d, complex64

Also, without ratios, the parts of complexext's fft call: the op called
through torch.ops (its Python Autograd kernel included, as a user calling
torch.ops.complexext.fft_c2c pays it) and the op below autograd (no
Autograd kernel: what complexext.fft.fft reaches when no derivative can be
asked for).

Time: the best of R rounds of N calls each (the best, not the median: the
question is what a call costs, and on a shared machine everything else
only adds); the peers take turns round by round. ratio = complexext time /
torch time (1.0: as cheap as torch; the target is at most 1.5). No
gradients: inputs do not require grad.
"""
import argparse
import time
import warnings

import torch

import complexext
import complexext.nn.functional as cxf


def cases():
    warnings.filterwarnings("ignore", "ComplexHalf support is experimental")
    g = torch.Generator().manual_seed(0)
    z64 = torch.randn(64, dtype=torch.complex64, generator=g)
    z32 = z64.to(torch.complex32)
    r64 = torch.randn(64, dtype=torch.float32, generator=g)
    sig = torch.randn(4000, dtype=torch.float32, generator=g)
    win = torch.hann_window(256)
    x = torch.randn(1, 2, 64, dtype=torch.complex64, generator=g)
    w = torch.randn(2, 2, 3, dtype=torch.complex64, generator=g)
    st = dict(n_fft=256, hop_length=64, window=win, center=True, pad_mode="reflect",
              return_complex=True)
    o32, o64 = torch.empty_like(z32), torch.empty_like(z64)
    return [
        ("fft", lambda: complexext.fft.fft(z32), lambda: torch.fft.fft(z64)),
        ("fft out=", lambda: complexext.fft.fft(z32, out=o32), lambda: torch.fft.fft(z64, out=o64)),
        ("rfft", lambda: complexext.fft.rfft(r64), lambda: torch.fft.rfft(r64)),
        ("stft", lambda: complexext.stft(sig, **st), lambda: torch.stft(sig, **st)),
        ("conv1d", lambda: cxf.conv1d(x, w), lambda: torch.nn.functional.conv1d(x, w)),
    ], z32


def best(fn, calls):
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows, z32 = cases()
    op = torch.ops.complexext.fft_c2c.default

    def below():
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return op(z32, [0], 0, True)

    parts = [("torch.ops.complexext.fft_c2c", lambda: op(z32, [0], 0, True)),
             ("  the same, below autograd", below)]
    fns = [f for _, a, b in rows for f in (a, b)] + [f for _, f in parts]
    for f in fns:  # warm-up: plans, thread pools, first allocations
        for _ in range(50):
            f()
    times = [float("inf")] * len(fns)
    for _ in range(args.rounds):
        for i, f in enumerate(fns):
            times[i] = min(times[i], best(f, args.calls))
    us = [t * 1e6 for t in times]
    print(f"tiny eager calls, {args.threads} thread(s), torch {torch.__version__}, "
          f"best of {args.rounds} rounds x {args.calls} calls")
    print(f"{'case':8} {'complexext us':>14} {'torch us':>9} {'ratio':>6}")
    for k, (name, _, _) in enumerate(rows):
        cx, th = us[2 * k], us[2 * k + 1]
        print(f"{name:8} {cx:14.2f} {th:9.2f} {cx / th:6.2f}")
    print()
    for j, (name, _) in enumerate(parts):
        print(f"{name:36} {us[2 * len(rows) + j]:8.2f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
