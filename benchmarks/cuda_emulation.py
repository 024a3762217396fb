"""What the CUDA FFT kernels do to memory, measured without a GPU.

    python benchmarks/cuda_emulation.py [--n 256 400 ...] [--rows R] [--check]

Runs the CUDA ops' code with every kernel launch emulated on the CPU
(torch.ops.complexext._gpu_emulated_fft_c2c, sm_90's 227 KiB of shared
memory per block): the register kernels' threads run as real threads
between real barriers, and every global and shared access is counted per
warp as the hardware serves it (csrc/emulation/reg_emulation.h). For each n it
prints, for a complex32 c2c of contiguous rows and for a strided axis (the
transform along dim 0 of an (n, 64) tensor):

  kernel    reg: the register kernel (elements per thread x threads per row,
            radices); block: the earlier shared-memory kernel
  sectors   global 32-byte sectors touched / the fewest the bytes need
  wavefr.   shared-memory bank wavefronts / the fewest (1 per half warp for
            8-byte accesses)
  B/elem    global bytes read + written per element of the transform
  races     shared words touched by two threads between two barriers
  err/floor error against scipy in float64, over the complex32 rounding floor

Then the real transforms (rfft of float16 rows, irfft back to them) on the
register kernels of half their length, with bytes per real sample, and the
stft and istft (float16 signals, 8 x 4 s at 16 kHz by default) with the
distinct bytes a launch moves (an L2 that keeps what it touches: DRAM
traffic) over the signal's and the output's bytes.

Then the lengths above 16384 (--large-n), which take two register passes
(n = n1 x n2: the columns of n1 with their twiddles into an fp32 work
buffer, then the rows of n2 stored transposed; along a unit-stride axis,
and along a strided one with the tiles across 8 adjacent batch rows), with their global bytes
per element: 4 + 8 in pass 1, 8 + 4 in pass 2, 24 in all for complex32,
where the four-step of the block kernels moves 56 (a load pass into fp32,
a column pass, a row pass, a store pass: 12 + 16 + 16 + 12).

And the lengths without a register plan up to 4096 (--blue-n), which take
Bluestein's algorithm in one register kernel of the power of two N >= 2n-1,
with the distinct bytes a launch moves per element (the rows once each
way, and the chirp's spectrum, N values read by every row from L2).

--check exits 1 unless, for every n with a register kernel: the sector
ratio is 1.0 (contiguous rows; printed for the strided axis), wavefronts
<= 1.05, 8 bytes per element for complex32 c2c, no races, error <= 1.15 x
the floor; the stft moves at most 1.1 x (signal + output) bytes; a
length above 16384 with a split takes two launches of whole sectors,
<= 1.05 wavefronts and 24 bytes per element; a Bluestein length takes one
launch of whole sectors and <= 1.05 wavefronts. The
sector and wavefront figures of the real transforms are printed, not
checked (their c2c kernels' figures are).
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.fft as sf
import torch

import complexext  # noqa: F401

ops = torch.ops.complexext
SMEM = 227 * 1024
DEFAULT_N = [16, 64, 160, 256, 400, 512, 1000, 1024, 2048, 4096, 16384]
FIELDS = ["launches", "blocks", "barriers", "gld_bytes", "gst_bytes", "g_accesses", "g_sectors",
          "g_min_sectors", "s_accesses", "s_wavefronts", "s_ideal", "races", "divergent",
          "g_unique_ld_bytes", "g_unique_st_bytes"]


def counters(reset=True):
    return dict(zip(FIELDS, ops._gpu_emulation_counters(reset)))


def rel_rms(a, ref):
    return float(np.linalg.norm(a - ref) / np.linalg.norm(ref))


def floor_of(ref):
    r = torch.from_numpy(ref).to(torch.complex32).to(torch.complex128).numpy()
    return rel_rms(r, ref)


def measure(n, rows, strided, dtype=torch.complex32):
    g = torch.Generator().manual_seed(n)
    shape = (n, rows) if strided else (rows, n)
    x = torch.randn(shape, dtype=torch.complex128, generator=g).to(dtype)
    dim = 0 if strided else 1
    counters(True)
    t0 = time.perf_counter()
    y = ops._gpu_emulated_fft_c2c(x, [dim], 0, True, SMEM, 256, 1)
    secs = time.perf_counter() - t0
    c = counters(True)
    ref = sf.fft(x.to(torch.complex128).numpy(), axis=dim)
    err = rel_rms(y.to(torch.complex128).numpy(), ref)
    flo = floor_of(ref) if dtype == torch.complex32 else float("nan")
    elems = x.numel()
    return {
        "reg": c["launches"] > 0,
        "sectors": c["g_sectors"] / c["g_min_sectors"] if c["g_min_sectors"] else float("nan"),
        "wavefronts": c["s_wavefronts"] / c["s_ideal"] if c["s_ideal"] else 1.0,
        "bytes": (c["gld_bytes"] + c["gst_bytes"]) / elems if c["launches"] else float("nan"),
        "races": c["races"] + c["divergent"],
        "err": err / flo if dtype == torch.complex32 else err,
        "secs": secs,
        "launches_n": c["launches"],
        "moved": (c["g_unique_ld_bytes"] + c["g_unique_st_bytes"]) / elems,
    }


def measure_real(n, rows):
    g = torch.Generator().manual_seed(n)
    x = torch.randn((rows, n), dtype=torch.float64, generator=g).to(torch.float16)
    counters(True)
    y = ops._gpu_emulated_fft_r2c(x, [1], 0, True, SMEM, 256, 1)
    c = counters(True)
    ref = sf.rfft(x.double().numpy(), axis=1)
    out = {"r2c": row_figures(c, y, ref, x.numel())}
    h = y
    counters(True)
    z = ops._gpu_emulated_fft_c2r(h, [1], 2, n, SMEM, 256, 1)  # by n: irfft's backward
    c = counters(True)
    ref = sf.irfft(h.to(torch.complex128).numpy(), n=n, axis=1)
    out["c2r"] = row_figures(c, z, ref, x.numel())
    return out


def row_figures(c, got, ref, samples):
    err = rel_rms(got.to(torch.complex128 if got.is_complex() else torch.float64).numpy(), ref)
    r = torch.from_numpy(ref).to(got.dtype)
    flo = rel_rms(r.to(torch.complex128 if r.is_complex() else torch.float64).numpy(), ref)
    return {
        "reg": c["launches"] > 0,
        "sectors": c["g_sectors"] / c["g_min_sectors"] if c["g_min_sectors"] else float("nan"),
        "wavefronts": c["s_wavefronts"] / c["s_ideal"] if c["s_ideal"] else 1.0,
        "bytes": (c["gld_bytes"] + c["gst_bytes"]) / samples if c["launches"] else float("nan"),
        "races": c["races"] + c["divergent"],
        "err": err / flo,
    }


def measure_stft(n_fft, hop, batch, length):
    g = torch.Generator().manual_seed(n_fft)
    x = torch.randn((batch, length), dtype=torch.float64, generator=g).to(torch.float16)
    win = torch.hann_window(n_fft, dtype=torch.float64)
    counters(True)
    y = ops._gpu_emulated_stft(x, win, n_fft, hop, 0, True, n_fft // 2, "reflect", SMEM, 256, 1)
    c = counters(True)
    xp = np.pad(x.double().numpy(), ((0, 0), (n_fft // 2, n_fft // 2)), mode="reflect")
    T = y.shape[2]
    idx = np.arange(T)[:, None] * hop + np.arange(n_fft)[None, :]
    w32 = win.numpy().astype(np.float32)
    ref = np.fft.rfft(xp[:, idx] * w32, axis=-1).transpose(0, 2, 1)
    fig = row_figures(c, y, ref, y.shape[0] * T * n_fft)
    signal, out = x.numel() * 2, y.numel() * 4
    fig["moved"] = (c["g_unique_ld_bytes"] + c["g_unique_st_bytes"]) / (signal + out)
    counters(True)
    z = ops._gpu_emulated_istft(y, win, n_fft, hop, 2, True, n_fft // 2, length, SMEM, 256, 1)
    c = counters(True)
    fig["istft_reg"] = c["launches"] > 0
    fig["istft_err"] = rel_rms(z.double().numpy(), x.double().numpy())
    return fig


def kernel_name(n):
    p = ops._gpu_reg_plan(n)
    if not p:
        return "block"
    np_ = (len(p) - 5) // 2  # [E, T, rows per block x3, radices, butterflies a thread]
    idle = any(r * b * p[1] != n for r, b in zip(p[5:5 + np_], p[5 + np_:]))
    return (f"reg {p[0]}x{p[1]} " + "*".join(str(r) for r in p[5:5 + np_]) +
            (" (idle)" if idle else ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=DEFAULT_N)
    ap.add_argument("--rows", type=int, default=0,
                    help="rows per transform (default: enough for about 8192 elements)")
    ap.add_argument("--real-n", type=int, nargs="+", default=[256, 400, 512, 1024, 2048, 4096],
                    help="lengths of the real transforms")
    ap.add_argument("--stft-signals", type=int, nargs=2, default=[8, 64000],
                    metavar=("B", "L"), help="signals and samples of the stft")
    ap.add_argument("--large-n", type=int, nargs="+", default=[32768, 65536],
                    help="lengths above 16384 (two register passes)")
    ap.add_argument("--blue-n", type=int, nargs="+", default=[17, 101, 1009, 2039, 4093],
                    help="lengths without a register plan (Bluestein in one kernel)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    print(f"complex32 c2c, emulated launches (shared memory {SMEM // 1024} KiB a block); "
          f"COMPLEXEXT_CUDA_REG={os.environ.get('COMPLEXEXT_CUDA_REG', '1')}")
    head = (f"{'n':>6} {'kernel':<22} | {'sectors':>7} {'wavefr.':>7} {'B/elem':>6} "
            f"{'races':>5} {'err/fl':>6} | strided: {'sectors':>7} {'wavefr.':>7} {'B/elem':>6} "
            f"{'err/fl':>6}")
    print(head)
    print("-" * len(head))
    bad = []
    for n in args.n:
        rows = args.rows or max(2, 8192 // n)
        a = measure(n, rows, False)
        s = measure(n, 64, True)
        print(f"{n:>6} {kernel_name(n):<22} | {a['sectors']:>7.3f} {a['wavefronts']:>7.3f} "
              f"{a['bytes']:>6.2f} {a['races']:>5.0f} {a['err']:>6.3f} | "
              f"         {s['sectors']:>7.3f} {s['wavefronts']:>7.3f} {s['bytes']:>6.2f} "
              f"{s['err']:>6.3f}")
        for name, m in (("contiguous", a), ("strided", s)):
            if m["err"] > 1.15:
                bad.append(f"n={n} {name}: error {m['err']:.3f} x the floor")
            if not m["reg"]:
                continue
            if m["races"]:
                bad.append(f"n={n} {name}: {m['races']:.0f} races or divergent barriers")
            if m["wavefronts"] > 1.05:
                bad.append(f"n={n} {name}: {m['wavefronts']:.3f} wavefronts per shared access")
            if name == "contiguous" and abs(m["sectors"] - 1.0) > 1e-9:
                bad.append(f"n={n}: sector ratio {m['sectors']:.3f}")
            if abs(m["bytes"] - 8.0) > 1e-9:
                bad.append(f"n={n} {name}: {m['bytes']:.2f} bytes per element")
    print(f"\nreal transforms of float16 rows (rfft to complex32 and irfft back), on the "
          f"kernel of n/2")
    head = (f"{'n':>6} {'kernel':<22} | r2c: {'sectors':>7} {'wavefr.':>7} {'B/sample':>8} "
            f"{'err/fl':>6} | c2r: {'sectors':>7} {'wavefr.':>7} {'B/sample':>8} {'err/fl':>6}")
    print(head)
    print("-" * len(head))
    for n in args.real_n:
        m = measure_real(n, max(2, 16384 // n))
        a, b = m["r2c"], m["c2r"]
        name = kernel_name(n // 2) if a["reg"] else "block"
        print(f"{n:>6} {name:<22} |      {a['sectors']:>7.3f} {a['wavefronts']:>7.3f} "
              f"{a['bytes']:>8.2f} {a['err']:>6.3f} |      {b['sectors']:>7.3f} "
              f"{b['wavefronts']:>7.3f} {b['bytes']:>8.2f} {b['err']:>6.3f}")
        for name, f in (("r2c", a), ("c2r", b)):
            if f["err"] > 1.15:
                bad.append(f"{name} n={n}: error {f['err']:.3f} x the floor")
            if f["races"]:
                bad.append(f"{name} n={n}: {f['races']:.0f} races or divergent barriers")
    B, L = args.stft_signals
    print(f"\nstft of {B} float16 signals of {L} samples (centre, reflect), and istft back")
    head = (f"{'n_fft':>6} {'hop':>4} | {'kernel':<8} {'sectors':>7} {'wavefr.':>7} "
            f"{'moved/(signal+out)':>18} {'err/fl':>6} | istft {'kernel':<8} {'err':>8}")
    print(head)
    print("-" * len(head))
    for n_fft, hop in ((512, 128), (400, 160)):
        f = measure_stft(n_fft, hop, B, L)
        print(f"{n_fft:>6} {hop:>4} | {'reg' if f['reg'] else 'block':<8} {f['sectors']:>7.3f} "
              f"{f['wavefronts']:>7.3f} {f['moved']:>18.3f} {f['err']:>6.3f} | "
              f"      {'reg' if f['istft_reg'] else 'block':<8} {f['istft_err']:>8.1e}")
        if f["err"] > 1.15:
            bad.append(f"stft {n_fft}/{hop}: error {f['err']:.3f} x the floor")
        if not f["reg"] or f["moved"] > 1.1:
            bad.append(f"stft {n_fft}/{hop}: {f['moved']:.3f} x (signal + output) bytes moved")
    print("\ncomplex32 c2c above 16384: two register passes (n1 columns with twiddles, "
          "n2 rows stored transposed)")
    print("(axis: 'unit' rows (2, n) along dim 1; 'strided' a signal (n, 8) along dim 0, "
          "the tiles across its 8 adjacent rows)")
    head = (f"{'n':>8} {'axis':<8} {'n1 x n2':<12} | {'launches':>8} {'sectors':>7} "
            f"{'wavefr.':>7} {'B/elem':>6} {'races':>5} {'err/fl':>6}")
    print(head)
    print("-" * len(head))
    for n in args.large_n:
        split = ops._gpu_reg_split(n)
        name = f"{split[0]} x {split[1]}" if split else "none"
        for strided in (False, True):
            rows = args.rows or (8 if strided else 2)
            a = measure(n, rows, strided)
            axis = "strided" if strided else "unit"
            print(f"{n:>8} {axis:<8} {name:<12} | {a['launches_n']:>8.0f} {a['sectors']:>7.3f} "
                  f"{a['wavefronts']:>7.3f} {a['bytes']:>6.2f} {a['races']:>5.0f} "
                  f"{a['err']:>6.3f}")
            what = f"n={n} ({axis})"
            if a["err"] > 1.15:
                bad.append(f"{what}: error {a['err']:.3f} x the floor")
            if split:
                if a["launches_n"] != 2:
                    bad.append(f"{what}: {a['launches_n']:.0f} launches, not the two passes")
                if a["races"]:
                    bad.append(f"{what}: {a['races']:.0f} races or divergent barriers")
                if abs(a["sectors"] - 1.0) > 1e-9:
                    bad.append(f"{what}: sector ratio {a['sectors']:.3f}")
                if a["wavefronts"] > 1.05:
                    bad.append(f"{what}: {a['wavefronts']:.3f} wavefronts per shared access")
                if abs(a["bytes"] - 24.0) > 1e-9:
                    bad.append(f"{what}: {a['bytes']:.2f} bytes per element, not 24")
    print("\ncomplex32 c2c of lengths without a plan: Bluestein in one register kernel")
    head = (f"{'n':>8} {'N':>6} | {'launches':>8} {'sectors':>7} {'wavefr.':>7} "
            f"{'moved B/elem':>12} {'races':>5} {'err/fl':>6}")
    print(head)
    print("-" * len(head))
    for n in args.blue_n:
        big = ops._gpu_reg_bluestein(n)
        rows = args.rows or max(2, 8192 // n)
        a = measure(n, rows, False)
        print(f"{n:>8} {big or '-':>6} | {a['launches_n']:>8.0f} {a['sectors']:>7.3f} "
              f"{a['wavefronts']:>7.3f} {a['moved']:>12.2f} {a['races']:>5.0f} {a['err']:>6.3f}")
        if a["err"] > 1.15:
            bad.append(f"n={n}: error {a['err']:.3f} x the floor")
        if big:
            if a["launches_n"] != 1 or a["races"]:
                bad.append(f"n={n}: {a['launches_n']:.0f} launches, {a['races']:.0f} races")
            if abs(a["sectors"] - 1.0) > 1e-9:
                bad.append(f"n={n}: sector ratio {a['sectors']:.3f}")
            if a["wavefronts"] > 1.05:
                bad.append(f"n={n}: {a['wavefronts']:.3f} wavefronts per shared access")
    if bad:
        print("\nmissed:\n  " + "\n  ".join(bad))
    else:
        print("\nall targets met")
    return 1 if (args.check and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
