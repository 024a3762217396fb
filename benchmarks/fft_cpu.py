"""CPU speed of complexext's complex32 FFT against its peers, and its peak memory.

    python benchmarks/fft_cpu.py [--quick] [--threads N] [--n 256 4099 ...] [--keep-memory]

Each call transforms 4 Mi complex values (1 Mi with --quick): rows of
length n, batch = 4 Mi // n, along the last dim. Timed, in the same run and
on the same data:
  cx c32    complexext.fft.fft on complex32 (fp32 compute inside)
  torch c64 torch.fft.fft on complex64
  upcast    chalf -> complex64 -> torch.fft.fft -> chalf (what torch offers
            for complex32 on CPU)
  scipy c64 scipy.fft.fft on complex64 numpy data, workers = thread count
--keep-memory makes glibc keep freed memory (complexext._tools.bench.
keep_freed_memory): with the default allocator a peer's output may or may
not fault in fresh pages depending on what ran before it, which moves
torch's times by up to 2x from run to run; with it, no peer faults and
each is timed at its allocation best.
Time: median of several calls after two warm-up calls; the peers take turns
(one call each per round, in a shuffled order each round), so a change
in load falls on all of them alike, and so does the cost of following a
given peer.
Speed-up columns are peer time / complexext time: above 1 means complexext
complex32 is faster.

Peak memory: for each n, a fresh subprocess makes the input, runs one call
on a single row (plans built), resets the kernel's peak-RSS mark
(/proc/self/clear_refs), makes the one measured call and reads VmHWM. The
growth is everything the call touched: output, scratch of every thread,
temporaries. It is compared with the output size: a complex64 copy of the
whole input or output would add twice the input size on top.

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, where set (older OpenBLAS builds need
them on some CPUs), slow a current numpy; they are dropped inside this
process only. scipy.fft itself runs pocketfft, not BLAS.
"""
import argparse
import os
import re
import subprocess
import sys

for _v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(_v, None)

import warnings  # noqa: E402

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

import scipy.fft  # noqa: E402
import torch  # noqa: E402

import complexext  # noqa: E402
from complexext._tools.bench import (interleaved_times, keep_freed_memory, memory_mode,  # noqa: E402
                               random_chalf, upcast_fft)

SIZES = (256, 400, 512, 1000, 1024, 4096, 4099, 65536)
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


def bench(n, elements, threads, reps):
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


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="1 Mi values a call, fewer repeats")
    p.add_argument("--threads", type=int, default=torch.get_num_threads(),
                   help="torch threads and scipy workers (default: torch's)")
    p.add_argument("--n", type=int, nargs="+", default=list(SIZES), help="row lengths")
    p.add_argument("--elements", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--probe", choices=("cx", "cx-cold", "upcast"), help=argparse.SUPPRESS)
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory table")
    p.add_argument("--keep-memory", action="store_true",
                   help="glibc keeps freed memory (no peer's output faults in fresh pages)")
    a = p.parse_args()
    elements = a.elements or (MiB if a.quick else 4 * MiB)
    if a.probe:
        print(probe_memory(a.n[0], elements, a.threads, a.probe))
        return 0
    torch.set_num_threads(a.threads)
    kept = a.keep_memory and keep_freed_memory()
    reps = 5 if a.quick else 9
    print(f"complexext FFT, CPU: {elements // MiB} Mi complex values a call, rows of length n; "
          f"torch {torch.__version__}, ISA {torch.ops.complexext.cpu_isa()}, "
          f"{a.threads} threads; median of {reps} calls; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (other work skews ratios)")
    print(memory_mode(kept))
    print(f"{'n':>6} {'rows':>6} | {'cx c32':>8} {'torch c64':>9} {'upcast':>8} {'scipy c64':>9}"
          f" | {'speed-up of cx c32 over':^28} | {'diff':>7}")
    print(f"{'':>6} {'':>6} | {'ms':>8} {'ms':>9} {'ms':>8} {'ms':>9}"
          f" | {'torch c64':>9} {'upcast':>8} {'scipy c64':>9} | {'':>7}")
    slower = []
    for n in a.n:
        t, diff = bench(n, elements, a.threads, reps)
        ms = {k: v * 1e3 for k, v in t.items()}
        print(f"{n:>6} {elements // n:>6} | {ms['cx']:>8.2f} {ms['torch']:>9.2f} "
              f"{ms['upcast']:>8.2f} {ms['scipy']:>9.2f} | {t['torch'] / t['cx']:>8.2f}x "
              f"{t['upcast'] / t['cx']:>7.2f}x {t['scipy'] / t['cx']:>8.2f}x | {diff:>7.1e}",
              flush=True)
        if t["cx"] > t["torch"]:
            slower.append(n)
    print("diff: relative RMS difference between the complexext and the upcast complex32 "
          "results;\n      both round an fp32 result once, so they agree far below the 2e-4 floor")
    print("complexext c32 no slower than torch c64 at every n: "
          + ("yes" if not slower else f"NO (slower at n = {slower})"))
    if not a.no_memory:
        memory_table(a.n, elements, a.threads)
    return 0


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
