"""Speed of complexext's Metal kernels on an Apple GPU (MPS) against torch.

    python benchmarks/mps.py [--quick]

Runs only where torch sees an MPS device; elsewhere it says so and exits
with status 2. Timed in the same run, on the same data, on the GPU:

  cx c32    complexext, complex32 (or float16) in and out, fp32 inside
  cx c64    complexext, complex64
  torch     torch's own op in complex64 on MPS
  upcast    complex32 -> complex64 -> torch's op -> complex32 (what torch
            offers for half data: it has no half FFT or STFT on MPS)

for the FFT (rows of length n, 4 Mi complex values a call), rfft, the STFT
and ISTFT (8 signals of 4 s at 16 kHz, 512/128 and 400/160, Hann window)
and complex conv2d (the shapes of benchmarks/conv.py). Time: median of the
calls after a warm-up, each call followed by torch.mps.synchronize(), the
peers taking turns. Ratios are peer time / cx c32 time (above 1: complexext
faster). err/floor: relative RMS error of cx c32 against a float64 CPU
reference over that of the exact result rounded to complex32 (1.0: the
best possible). copy: the share of the device's copy bandwidth (a clone of
the same bytes, timed in the same run) that cx c32 reaches, counting one
read and one write of its input and output.
"""
import argparse
import sys
import warnings

import torch

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

import complexext  # noqa: E402
import complexext.nn.functional as cnf  # noqa: E402
from complexext import _mps as _metal  # noqa: E402
from complexext._tools.bench import interleaved_times  # noqa: E402
from complexext._tools.selfcheck import floor_of, rel_rms, to_numpy64  # noqa: E402


DEVICE = "mps"


def sync():
    torch.mps.synchronize()


def dev(t, dtype=None):
    """t on the device, complex ones through their real view."""
    if t.is_complex():
        r = torch.view_as_real(t).to(DEVICE)
        return torch.view_as_complex(r.to(dtype) if dtype is not None else r)
    return t.to(DEVICE, dtype) if dtype is not None else t.to(DEVICE)


def cast(t, real_dtype):
    """A complex MPS tensor converted through its real view (c32 <-> c64)."""
    return torch.view_as_complex(torch.view_as_real(t).to(real_dtype).contiguous())


def cpu(t):
    return torch.view_as_complex(torch.view_as_real(t).cpu()) if t.is_complex() else t.cpu()


def timed(fns, reps):
    def synced(fn):
        def run():
            fn()
            sync()
        return run
    return interleaved_times({k: synced(f) for k, f in fns.items()}, reps=reps)


def report(name, fns, y, ref, nbytes, reps):
    missing = []
    for k in list(fns):  # a peer torch lacks on MPS (e.g. complex convolution) is left out
        try:
            fns[k]()
        except (RuntimeError, NotImplementedError, TypeError) as e:
            missing.append(f"{k}: n/a ({str(e).splitlines()[0][:60]})")
            del fns[k]
    t = timed(dict(fns, copy=lambda: torch.empty(nbytes // 2, dtype=torch.uint8,
                                                 device=DEVICE).copy_(buf[: nbytes // 2])), reps)
    err = rel_rms(to_numpy64(cpu(y)), ref) / floor_of(ref, cpu(y).dtype)
    base = t["cx c32"]
    cells = "  ".join([f"{k} {v * 1e3:7.3f} ms ({v / base:5.2f}x)" for k, v in t.items()
                       if k != "copy"] + missing)
    print(f"{name:<28} err/floor {err:5.3f}  copy {t['copy'] / base:4.0%}  {cells}")


def fft_rows(n, elements, reps):
    import scipy.fft
    g = torch.Generator().manual_seed(n)
    x = torch.randn(max(1, elements // n), n, dtype=torch.complex64, generator=g)
    x16, x64 = dev(x, torch.float16), dev(x)
    report(f"fft n={n}", {
        "cx c32": lambda: complexext.fft.fft(x16),
        "cx c64": lambda: complexext.fft.fft(x64),
        "torch": lambda: torch.fft.fft(x64),
        "upcast": lambda: cast(torch.fft.fft(cast(x16, torch.float32)), torch.float16),
    }, complexext.fft.fft(x16), scipy.fft.fft(to_numpy64(cpu(x16)), axis=-1),
        4 * x16.numel() * 2, reps)
    r16, r32 = dev(x.real.contiguous(), torch.float16), dev(x.real.contiguous())
    report(f"rfft n={n}", {
        "cx c32": lambda: complexext.fft.rfft(r16),
        "cx c64": lambda: complexext.fft.rfft(r32),
        "torch": lambda: torch.fft.rfft(r32),
        "upcast": lambda: cast(torch.fft.rfft(r16.float()), torch.float16),
    }, complexext.fft.rfft(r16), scipy.fft.rfft(r16.cpu().double().numpy(), axis=-1),
        2 * r16.numel() * 2, reps)


def stft(n_fft, hop, reps):
    g = torch.Generator().manual_seed(n_fft)
    x = 0.1 * torch.randn(8, 64000, generator=g)
    x16, x32, w = dev(x.half()), dev(x), torch.hann_window(n_fft, device=DEVICE)
    kw = dict(n_fft=n_fft, hop_length=hop, window=w, return_complex=True)
    ref = torch.stft(x.half().double(), n_fft, hop, window=w.cpu().double(),
                     return_complex=True).numpy()
    y = complexext.stft(x16, **kw)
    report(f"stft {n_fft}/{hop}", {
        "cx c32": lambda: complexext.stft(x16, **kw),
        "cx c64": lambda: complexext.stft(x32, **kw),
        "torch": lambda: torch.stft(x32, **kw),
        "upcast": lambda: cast(torch.stft(x16.float(), **kw), torch.float16),
    }, y, ref, 2 * x16.numel() + 4 * y.numel(), reps)
    ikw = dict(n_fft=n_fft, hop_length=hop, window=w, length=64000)
    y64 = cast(y, torch.float32)
    ref = torch.istft(cpu(y).to(torch.complex128), n_fft, hop, window=w.cpu().double(),
                      length=64000).numpy()
    report(f"istft {n_fft}/{hop}", {
        "cx c32": lambda: complexext.istft(y, **ikw),
        "cx c64": lambda: complexext.istft(y64, **ikw),
        "torch": lambda: torch.istft(y64, **ikw),
        "upcast": lambda: torch.istft(cast(y, torch.float32), **ikw).half(),
    }, complexext.istft(y, **ikw), ref, 4 * y.numel() + 2 * x16.numel(), reps)


def conv(xs, ws, kw, reps, transposed=False):
    g = torch.Generator().manual_seed(len(xs))
    x = torch.randn(xs, dtype=torch.complex64, generator=g) * 0.1
    w = torch.randn(ws, dtype=torch.complex64, generator=g) * 0.1
    f = cnf.conv_transpose2d if transposed else cnf.conv2d
    tf = torch.nn.functional.conv_transpose2d if transposed else torch.nn.functional.conv2d
    x16, w16, x64, w64 = dev(x, torch.float16), dev(w, torch.float16), dev(x), dev(w)
    y = f(x16, w16, **kw)
    ref = tf(cpu(x16).to(torch.complex128), cpu(w16).to(torch.complex128), **kw).numpy()
    report(f"{'conv_t' if transposed else 'conv'}2d {tuple(xs)}", {
        "cx c32": lambda: f(x16, w16, **kw),
        "cx c64": lambda: f(x64, w64, **kw),
        "torch": lambda: tf(x64, w64, **kw),
        "upcast": lambda: cast(tf(cast(x16, torch.float32), cast(w16, torch.float32), **kw),
                               torch.float16),
    }, y, ref, 4 * (x16.numel() + y.numel()), reps)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer sizes and repetitions")
    args = p.parse_args()
    if not _metal.available():
        print("benchmarks/mps.py: no Apple GPU here (torch.backends.mps.is_available() is "
              "False, or torch lacks torch.mps.compile_shader); this benchmark runs only on "
              "Apple silicon with torch >= 2.7.", file=sys.stderr)
        sys.exit(2)
    global buf
    buf = torch.empty(1 << 28, dtype=torch.uint8, device=DEVICE)
    reps = 5 if args.quick else 21
    print(f"complexext {complexext.__version__}, torch {torch.__version__}, MPS; "
          f"ratios: peer time / cx c32 time")
    sizes = (256, 1000, 4099) if args.quick else (256, 400, 512, 1000, 1024, 4096, 4099, 65536)
    for n in sizes:
        fft_rows(n, 1 << 22, reps)
    for n_fft, hop in ((512, 128), (400, 160)):
        stft(n_fft, hop, reps)
    conv((8, 16, 64, 256), (32, 16, 3, 3), dict(padding=1), reps)
    conv((8, 64, 128, 200), (128, 64, 5, 2), dict(stride=(2, 1), padding=(2, 1)), reps)
    conv((8, 128, 64, 200), (128, 64, 5, 2), dict(stride=(2, 1), padding=(2, 1)), reps,
         transposed=True)


buf = None

if __name__ == "__main__":
    main()
