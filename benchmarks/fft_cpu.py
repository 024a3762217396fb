"""CPU speed of complexext's complex32 FFT against its peers, and its peak memory.

    python benchmarks/fft_cpu.py [--kind c2c|r2c|rfft2] [--quick] [--threads N]
                                 [--n 256 4099 ...] [--no-memory] [--keep-memory]

--kind c2c (default): complexext.fft.fft of complex32 against complex64
peers. Each call transforms 4 Mi complex values (1 Mi with --quick): rows
of length n, batch = 4 Mi // n, along the last dim.
--kind r2c: complexext.fft.rfft of float16 against float32 peers, rows as
for c2c (4 Mi real values a call).
--kind rfft2: one 2-D rfft2 of a (4, 512, 768) float16 tensor (over the last
two dims) against float32 peers; --n and --quick do not change the shape.

Timed, in the same run and on the same data (c32/c64 for c2c, f16/f32 for
r2c and rfft2):
  cx        complexext.fft.fft / rfft / rfft2 (fp32 compute inside)
  torch     torch.fft.fft / rfft / rfft2
  ducc0     ducc0.fft.c2c / r2c, nthreads = thread count; r2c over axes
            (1, 2) for rfft2. ducc0 (pip install ducc0, the `bench` extra)
            is optional: without it its columns are left out.
  scipy     scipy.fft.fft / rfft / rfft2, workers = thread count
  upcast    to complex64 / float32 -> torch.fft -> complex32 (what torch
            offers for complex32 and float16 on CPU)
Outputs: cx, torch and ducc0 write into a preallocated output (out=) made
once before timing; scipy.fft (no out=) and the upcast path (two
conversions) allocate theirs in every call. complexext and torch are also
timed without out= (allocating). complexext's out= on the CPU is written by
the kernel itself (the fft_*_out ops: a contiguous out of the
result's shape and dtype), so it costs neither an allocation nor a copy.
  copy      a plain copy of the input's bytes into a preallocated tensor of
            the same dtype and shape (torch's copy_, thread count as set):
            copy c32 moves 4 B a value each way, as the complex32 fft does
            (rfft of float16: 2 B in, about 2 B out per input value, as copy
            f16); copy c64 / f32 does the same for the complex64 / float32
            peers. It is the transform's memory floor: "copy share" is copy
            time / transform time (100% would be a transform as fast as
            moving its bytes once).
  cx hot    complexext with out= on the first HOT_ELEMENTS (1 Mi) values of
            the same input, called back to back (its 4 MiB in and 4 MiB out
            stay in the last-level cache), scaled to the full call: the time
            the transform takes when its bytes do not come from memory, timed
            after the peers. "hot share" is copy time / that time: the
            copy share complexext would reach were its memory traffic free,
            so a copy share above it asks for less arithmetic, not for
            better memory access (c2c and r2c only). Left out ("-") where
            the hot call would have fewer than 64 rows (65536), which takes
            the few-row paths; with 2 threads the fixed cost of a call
            weighs more on the shorter hot call, so there it errs low.
--keep-memory makes glibc keep freed memory (complexext._tools.bench.
keep_freed_memory): with the default allocator a peer's output may or may
not fault in fresh pages depending on what ran before it, which moves
the allocating peers' times by up to 2x from run to run; with it, no peer
faults and each is timed at its allocation best.
Time: median of several calls after two warm-up calls; the peers take turns
(one call each per round, in a shuffled order each round), so a change
in load falls on all of them alike, and so does the cost of following a
given peer. The load average is printed at the start and at the end: on a
shared machine other work skews the ratios, most of all with 2 threads.
Speed-up columns are peer time / complexext time (complexext with out=):
above 1 means complexext is faster; "ducc0 c64 / cx c32" below 1.3 is
marked.

Peak memory (--kind c2c only): for each n, a fresh subprocess makes the
input, runs one call on a single row (plans built), resets the kernel's
peak-RSS mark (/proc/self/clear_refs), makes the one measured call and
reads VmHWM. The growth is everything the call touched: output, scratch of
every thread, temporaries. It is compared with the output size: a complex64
copy of the whole input or output would add twice the input size on top.

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, where set (older OpenBLAS builds need
them on some CPUs), slow a current numpy; they are dropped inside this
process only. scipy.fft itself runs pocketfft, not BLAS.
"""
import argparse
import os
import re
import subprocess
import sys
import time

_T0 = time.perf_counter()  # the run time printed at the end counts the imports

for _v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(_v, None)

import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

import scipy.fft  # noqa: E402
import torch  # noqa: E402

import complexext  # noqa: E402
from complexext._tools.bench import (interleaved_times, keep_freed_memory, memory_mode,  # noqa: E402
                               random_chalf, upcast_fft)

try:  # an optional peer: the fastest CPU FFT a user can pick
    import ducc0  # noqa: E402
except ImportError:
    ducc0 = None

SIZES = (256, 400, 512, 1000, 1024, 4096, 4099, 65536)
# primes (2053, 10007), odd composites (1155 = 3*5*7*11, 2187 = 3^7) and a
# large prime factor (6126 = 6*1021)
ODD_SIZES = (1155, 2053, 2187, 6126, 10007)
DEFAULT_SIZES = tuple(sorted(SIZES + ODD_SIZES))
RFFT2_SHAPE = (4, 512, 768)
DUCC0_MARK = 1.3  # "ducc0 / cx" below this is marked
HOT_ELEMENTS = 1 << 20  # values of the cache-resident "cx hot" call
HOT_MIN_ROWS = 64  # fewer rows take the few-row paths: no "cx hot" there
MiB = 1 << 20


def _kib(field):
    return int(re.search(field + r":\s+(\d+) kB", open("/proc/self/status").read()).group(1))


def probe_memory(n, elements, threads, method):
    """Runs in a fresh process: RSS growth of one call, in bytes."""
    torch.set_num_threads(threads)
    x = random_chalf((elements // n, n), seed=n)
    fn = {"cx": complexext.fft.fft, "cx-cold": complexext.fft.fft, "upcast": upcast_fft}[method]
    if method != "cx-cold":
        fn(x[:1])  # plans, twiddles and this thread's scratch made before
    complexext.backends.output_cache.clear()  # no freed block to reuse: fresh memory
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # peak RSS := current RSS
    base = _kib("VmRSS")
    y = fn(x)
    growth = (_kib("VmHWM") - base) * 1024
    assert y.shape == x.shape
    return growth


def measure_memory(n, elements, threads, method):
    cmd = [sys.executable, os.path.abspath(__file__), "--probe", method,
           "--n", str(n), "--elements", str(elements), "--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1])


def _rel(a, b):
    a, b = torch.as_tensor(a).to(torch.complex128), torch.as_tensor(b).to(torch.complex128)
    return float((a - b).norm() / b.norm())


def _half(shape, seed):
    """Standard normal data, rounded to float16."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g).to(torch.float16)


# kind: complexext / torch / scipy function, ducc0's function name, dims
# transformed (the last ones), labels of the complexext and peer dtypes
KINDS = {
    "c2c": ("fft", "c2c", 1, "c32", "c64"),
    "r2c": ("rfft", "r2c", 1, "f16", "f32"),
    "rfft2": ("rfft2", "r2c", 2, "f16", "f32"),
}


def bench(n, elements, threads, reps):
    """complex32 fft of rows of length n against the allocating peers, as
    benchmarks/report.py times them (no out=, no ducc0): times in seconds by
    peer ("cx", "torch", "upcast", "scipy") and the relative RMS difference
    between the complexext and the upcast results."""
    x = random_chalf((elements // n, n), seed=n)
    x64 = x.to(torch.complex64)
    xnp = x64.numpy()
    y_cx = complexext.fft.fft(x)
    y_up = upcast_fft(x)
    # sanity: the two complex32 results agree to about the rounding floor
    diff = float((y_cx.to(torch.complex64) - y_up.to(torch.complex64)).norm()
                 / y_up.to(torch.complex64).norm())
    t = interleaved_times({
        "cx": lambda: complexext.fft.fft(x),
        "torch": lambda: torch.fft.fft(x64),
        "upcast": lambda: upcast_fft(x),
        "scipy": lambda: scipy.fft.fft(xnp, workers=threads),
    }, reps=reps)
    return t, diff


def bench_row(kind, shape, threads, reps):
    """One row of this script's tables: times in seconds by column key (the
    peers with out=, allocating, ducc0 where installed, the two copies) and
    the relative RMS difference between the complexext and the upcast
    results."""
    name, ducc_name, ndims, _, _ = KINDS[kind]
    cx_fn, torch_fn, scipy_fn = (getattr(m, name) for m in (complexext.fft, torch.fft, scipy.fft))
    if kind == "c2c":
        x = random_chalf(shape, seed=shape[-1])
        xp = x.to(torch.complex64)
        upcast = upcast_fft
    else:
        x = _half(shape, seed=shape[-1])
        xp = x.to(torch.float32)
        upcast = lambda v: torch_fn(v.to(torch.float32)).to(torch.chalf)  # noqa: E731
    xnp = xp.numpy()
    ref = torch_fn(xp)
    out_cx = torch.empty(ref.shape, dtype=torch.chalf)
    out_torch = torch.empty_like(ref)
    copy_in, copy_peer = torch.empty_like(x), torch.empty_like(xp)
    fns = {
        "cx": lambda: cx_fn(x, out=out_cx),
        "torch": lambda: torch_fn(xp, out=out_torch),
        "cx alloc": lambda: cx_fn(x),
        "torch alloc": lambda: torch_fn(xp),
        "scipy": lambda: scipy_fn(xnp, workers=threads),
        "upcast": lambda: upcast(x),
        "copy in": lambda: copy_in.copy_(x),
        "copy peer": lambda: copy_peer.copy_(xp),
    }
    # the peers compute the same transform (ducc0's axes, scipy's default dims)
    checks = {"scipy": fns["scipy"]()}
    if ducc0 is not None:
        out_ducc = torch.empty_like(ref).numpy()
        ducc_fn, axes = getattr(ducc0.fft, ducc_name), tuple(range(x.dim() - ndims, x.dim()))
        fns["ducc0"] = lambda: ducc_fn(xnp, axes=axes, forward=True, nthreads=threads,
                                       out=out_ducc)
        checks["ducc0"] = fns["ducc0"]()
    for k, y in checks.items():
        if _rel(y, ref) > 1e-4:
            raise RuntimeError(f"{k} and torch.fft.{name} disagree: {_rel(y, ref):.1e}")
    y_cx, y_up = fns["cx"](), upcast(x)
    # sanity: the two complex32 results agree to about the rounding floor
    diff = _rel(y_cx, y_up)
    t = interleaved_times(fns, reps=reps)
    rows = min(shape[0], HOT_ELEMENTS // shape[1])
    if kind != "rfft2" and rows >= HOT_MIN_ROWS:
        # cache-resident: its own calls back to back, after the peers
        x_hot, out_hot = x[:rows], out_cx[:rows]
        hot = interleaved_times({"hot": lambda: cx_fn(x_hot, out=out_hot)}, reps=2 * reps)
        t["cx hot"] = hot["hot"] * shape[0] / rows
    return t, diff


def _share(t, copy_key, key):
    return f"{100 * t[copy_key] / t[key]:.0f}%"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", choices=tuple(KINDS), default="c2c",
                   help="c2c: fft of complex32 (default); r2c: rfft of float16; "
                        f"rfft2: rfft2 of a {RFFT2_SHAPE} float16 tensor")
    p.add_argument("--quick", action="store_true", help="1 Mi values a call, fewer repeats")
    p.add_argument("--threads", type=int, default=torch.get_num_threads(),
                   help="torch threads, scipy workers and ducc0 nthreads (default: torch's)")
    p.add_argument("--n", type=int, nargs="+", default=None,
                   help=f"row lengths (default: {' '.join(map(str, DEFAULT_SIZES))})")
    p.add_argument("--elements", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--probe", choices=("cx", "cx-cold", "upcast"), help=argparse.SUPPRESS)
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory table")
    p.add_argument("--keep-memory", action="store_true",
                   help="glibc keeps freed memory (no peer's output faults in fresh pages)")
    a = p.parse_args()
    if a.kind == "rfft2" and a.n:
        p.error("--n sets row lengths of --kind c2c and r2c; rfft2 has one shape")
    sizes = a.n or list(DEFAULT_SIZES)
    elements = a.elements or (MiB if a.quick else 4 * MiB)
    if a.probe:
        print(probe_memory(sizes[0], elements, a.threads, a.probe))
        return 0
    torch.set_num_threads(a.threads)
    kept = a.keep_memory and keep_freed_memory()
    reps = 5 if a.quick else 9
    name, _, _, c, pc = KINDS[a.kind]
    what = {"c2c": f"fft, {elements // MiB} Mi complex values a call, rows of length n",
            "r2c": f"rfft, {elements // MiB} Mi real values a call, rows of length n",
            "rfft2": "rfft2 of one {} tensor over its last two dims".format(
                "x".join(map(str, RFFT2_SHAPE)))}[a.kind]
    print(f"complexext {name} ({c}) against {pc} peers, CPU: {what}; "
          f"torch {torch.__version__}, ISA {torch.ops.complexext.cpu_isa()}, "
          f"{a.threads} threads (torch threads, scipy workers, ducc0 nthreads); "
          f"median of {reps} calls")
    print(f"load average at start: {_load()} on {os.cpu_count()} CPUs "
          f"(other work skews the ratios)")
    print("ducc0: " + (f"{ducc0.__version__}" if ducc0 is not None else
                       "not installed (pip install ducc0): its columns are left out"))
    print(memory_mode(kept))
    print(f"out=: cx, torch{', ducc0' if ducc0 is not None else ''} write into a preallocated "
          f"output; scipy (no out=) and upcast allocate theirs in every call")

    has_ducc = ducc0 is not None
    cx, tc, dc, sc = f"cx {c}", f"torch {pc}", f"ducc0 {pc}", f"scipy {pc}"
    # table 1: times in ms
    out_keys = ["cx", "torch"] + (["ducc0"] if has_ducc else [])
    out_heads = [cx, tc] + ([dc] if has_ducc else [])
    alloc_keys, alloc_heads = ["cx alloc", "torch alloc", "scipy", "upcast"], [cx, tc, sc, "upcast"]
    copy_keys, copy_heads = ["copy in", "copy peer"], [f"copy {c}", f"copy {pc}"]
    w = 9

    def group(heads, title):
        width = (w + 1) * len(heads) - 1
        return f"{title:^{width}}"[:width]

    def cells(vals):
        return " ".join(f"{v:>{w}}" for v in vals)

    label_head = f"{'n':>6} {'rows':>6}" if a.kind != "rfft2" else f"{'shape':>13}"
    print(f"\n{'':>13} | {group(out_heads, 'out= (ms)')} | {group(alloc_heads, 'allocating (ms)')}"
          f" | {group(copy_heads, 'plain copy (ms)')} |")
    print(f"{label_head} | {cells(out_heads)} | {cells(alloc_heads)} | {cells(copy_heads)} | "
          f"{'diff':>7}")
    shapes = ([RFFT2_SHAPE] if a.kind == "rfft2" else
              [(elements // n, n) for n in sizes])
    results = []
    for shape in shapes:
        t, diff = bench_row(a.kind, shape, a.threads, reps)
        label = (f"{shape[1]:>6} {shape[0]:>6}" if a.kind != "rfft2" else
                 f"{'x'.join(map(str, shape)):>13}")
        results.append((label, shape, t))
        ms = lambda keys: cells(f"{t[k] * 1e3:.2f}" for k in keys)  # noqa: E731
        print(f"{label} | {ms(out_keys)} | {ms(alloc_keys)} | {ms(copy_keys)} | {diff:>7.1e}",
              flush=True)
    print("diff: relative RMS difference between the complexext and the upcast complex32 "
          "results;\n      both round an fp32 result once, so they agree far below the 2e-4 floor")

    # table 2: ratios
    ratio_head = f"{dc} / {cx}"
    share_heads = [cx, tc] + ([dc] if has_ducc else []) + [sc]
    share_keys = ["cx", "torch"] + (["ducc0"] if has_ducc else []) + ["scipy"]
    has_hot = a.kind != "rfft2"
    if has_hot:
        share_heads.append("cx hot")
    speed_heads = [tc, sc, "upcast"]
    print((f"\n{'':>13} | {group(speed_heads, f'speed-up of {cx} over')} |"
           + (f" {'':>{len(ratio_head) + 2}} |" if has_ducc else "")
           + f" {group(share_heads, 'copy share')}").rstrip())
    print(f"{label_head} | {cells(speed_heads)} |"
          + (f" {ratio_head}   |" if has_ducc else "") + f" {cells(share_heads)}")
    slower, marked = [], []
    for label, shape, t in results:
        speed = cells(f"{t[k] / t['cx']:.2f}x" for k in ("torch", "scipy", "upcast"))
        row = f"{label} | {speed} |"
        if has_ducc:
            r = t["ducc0"] / t["cx"]
            mark = " *" if r < DUCC0_MARK else "  "
            row += f" {r:>{len(ratio_head)}.2f}{mark} |"
            if r < DUCC0_MARK:
                marked.append(label.split()[0])
        shares = [_share(t, "copy in", "cx")] + [_share(t, "copy peer", k) for k in share_keys[1:]]
        if has_hot:
            shares.append(_share(t, "copy in", "cx hot") if "cx hot" in t else "-")
        print(row + " " + cells(shares), flush=True)
        if t["cx"] > t["torch"] or t["cx alloc"] > t["torch alloc"]:
            slower.append(label.split()[0])
    print("speed-up: peer time / complexext time, complexext with out= (above 1: complexext "
          "faster)")
    if has_ducc:
        print(f"{ratio_head}: ducc0 time / complexext time; * below {DUCC0_MARK}: "
              + (f"at {', '.join(marked)}" if marked else "nowhere"))
    print(f"copy share: copy time / transform time; copy {c} for {cx}, copy {pc} for the "
          f"{pc} peers (the bytes each reads and writes: its memory floor)")
    if has_hot:
        print(f"cx hot: copy {c} time / the time of complexext's call on "
              f"{HOT_ELEMENTS // MiB} Mi values in cache, scaled\n"
              f"        (the copy share were the transform's memory traffic free)")
    at = "the shape" if a.kind == "rfft2" else "every n"
    print(f"complexext {c} no slower than torch {pc} at {at} (out= and allocating): "
          + ("yes" if not slower else f"NO (slower at {', '.join(slower)})"))
    if not a.no_memory:
        if a.kind == "c2c":
            memory_table(sizes, elements, a.threads)
        else:
            print("\n(peak-memory table: --kind c2c only)")
    print(f"\nload average at end: {_load()}; the run took {time.perf_counter() - _T0:.0f} s")
    return 0


def _load():
    return " ".join(f"{v:.2f}" for v in os.getloadavg()) + " (1, 5, 15 min)"


def memory_table(sizes, elements, threads):
    print(f"\nPeak memory of one call (RSS growth in a fresh process; "
          f"input {elements * 4 / MiB:.0f} MiB complex32, already allocated)")
    print(f"{'n':>6} | {'cx c32 MiB':>10} {'of which output':>15} {'scratch etc.':>12} | "
          f"{'first call':>10} | {'upcast MiB':>10} | no complex64 copy")
    for n in sizes:
        cx = measure_memory(n, elements, threads, "cx")
        cold = measure_memory(n, elements, threads, "cx-cold")
        up = measure_memory(n, elements, threads, "upcast")
        out = elements * 4
        c64_copy = elements * 8
        ok = cx - out < c64_copy / 2
        print(f"{n:>6} | {cx / MiB:>10.1f} {out / MiB:>15.1f} {(cx - out) / MiB:>12.1f} | "
              f"{cold / MiB:>10.1f} | {up / MiB:>10.1f} | {'yes' if ok else 'NO'}", flush=True)
    print(f"A complex64 copy of the input or output would add {elements * 8 / MiB:.0f} MiB; "
          f"'yes': the call's memory beyond its output is under half that.\n"
          f"first call: the same, in a process that never ran an FFT (plans and every "
          f"thread's scratch\nmade inside the call). Page-granular RSS: +-0.1 MiB is noise.")


if __name__ == "__main__":
    sys.exit(main())
