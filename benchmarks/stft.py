"""CPU speed and peak memory of complexext's complex32 STFT/ISTFT against torch.

    python benchmarks/stft.py [--quick] [--threads N] [--cpu-time] [--no-memory] [--keep-memory]

Workload: 8 signals of 4 s at 16 kHz (8 x 64000 samples), a periodic Hann
window, centred frames (reflect padding), at n_fft/hop 512/128 and 400/160.
Timed, in the same run and on the same data:
  stft   cx c32   complexext.stft of the float16 signal -> complex32
         cx f32   complexext.stft of the float32 signal -> complex64
         torch    torch.stft of the float32 signal -> complex64
         upcast   float16 -> float32 -> torch.stft -> complex32 (what torch
                  offers for half input on CPU: it has no half STFT)
  istft  the inverses: complex32 -> float16 (cx c32), complex64 -> float32
         (cx f32, torch), complex32 -> complex64 -> torch.istft -> float16
         (upcast)
--keep-memory makes glibc keep freed memory (complexext._tools.bench.
keep_freed_memory): with the default allocator a peer's output may or may
not fault in fresh pages depending on what ran before it, which moves
torch's times by up to 2x from run to run; with it, no peer faults and
each is timed at its allocation best.
Time: median of 21 calls after two warm-up calls; the peers take turns
(one call each per round, in a shuffled order each round), so a change
in machine load falls on all of them alike, and so does the cost of
following a given peer. Speed-up columns are peer time / cx c32 time (above 1: complexext
faster). On a machine shared with other work, a parallel region waits for
its second thread to be scheduled, which weighs on every peer (torch.stft
runs several such regions, complexext one: the kernel);
--threads 1 shows the cost without those waits, and --threads 1 --cpu-time
times each call by its thread's CPU time (time.thread_time), which leaves
out the time other processes hold the CPU. error/floor: relative RMS
error of cx c32 against torch in float64 on the same data, over that of the
exact result rounded to complex32 (stft) or float16 (istft); 1.0 is the
best possible.

Peak memory (the method of benchmarks/fft_cpu.py): for each call, a fresh
subprocess makes the inputs, runs the call once on one signal (plans built,
threads started), resets the kernel's peak-RSS mark (/proc/self/clear_refs),
makes the one measured call and reads VmHWM. The growth is everything the
call touched: padded signal, output, scratch, temporaries. glibc's mmap
threshold is pinned at 64 KiB (MALLOC_MMAP_THRESHOLD_) so that every large
buffer is fresh pages and no freed memory is silently reused. RSS counts
whole 4 KiB pages: +-0.1 MiB is noise.
"""
import argparse
import os
import re
import subprocess
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

import torch  # noqa: E402

import complexext  # noqa: E402
from complexext._tools.bench import interleaved_times, keep_freed_memory, memory_mode  # noqa: E402

SETTINGS = ((512, 128), (400, 160))
BATCH, SAMPLES = 8, 64000
MiB = 1 << 20


def signal(seed=0):
    g = torch.Generator().manual_seed(seed)
    return (0.1 * torch.randn(BATCH, SAMPLES, generator=g)).half()


def calls(n_fft, hop, x16):
    """name -> (callable, its input) for every measured call."""
    w = torch.hann_window(n_fft)
    st = dict(n_fft=n_fft, hop_length=hop, window=w, return_complex=True)
    ist = dict(n_fft=n_fft, hop_length=hop, window=w, length=SAMPLES)
    x32 = x16.float()
    s16 = complexext.stft(x16, **st)
    s64 = s16.to(torch.complex64)
    return {
        "stft cx c32": lambda: complexext.stft(x16, **st),
        "stft cx f32": lambda: complexext.stft(x32, **st),
        "stft torch": lambda: torch.stft(x32, **st),
        "stft upcast": lambda: torch.stft(x16.float(), **st).to(torch.complex32),
        "istft cx c32": lambda: complexext.istft(s16, **ist),
        "istft cx f32": lambda: complexext.istft(s64, **ist),
        "istft torch": lambda: torch.istft(s64, **ist),
        "istft upcast": lambda: torch.istft(s16.to(torch.complex64), **ist).half(),
    }


def accuracy(n_fft, hop, x16):
    """(stft, istft) error/floor of the complex32 path against torch in float64."""
    def rel(a, ref):
        return float((a.to(ref.dtype) - ref).norm() / ref.norm())
    w = torch.hann_window(n_fft, dtype=torch.float64)
    st = dict(n_fft=n_fft, hop_length=hop, return_complex=True)
    ref = torch.stft(x16.double(), window=w, **st)
    ours = complexext.stft(x16, window=w.float(), **st)
    spec = ours.to(torch.complex128)
    iref = torch.istft(spec, n_fft, hop, window=w, length=SAMPLES)
    iours = complexext.istft(ours, n_fft, hop, window=w.float(), length=SAMPLES)
    return (rel(ours, ref) / rel(ref.to(torch.complex32), ref),
            rel(iours, iref) / rel(iref.half(), iref))


def _kib(field):
    return int(re.search(field + r":\s+(\d+) kB", open("/proc/self/status").read()).group(1))


def probe_memory(name, n_fft, hop, threads):
    """Runs in a fresh process: RSS growth of one call, in bytes."""
    torch.set_num_threads(threads)
    x16 = signal()
    fn = calls(n_fft, hop, x16[:1])[name]
    fn()  # plans, threads and their scratch made before the measured call
    fn = calls(n_fft, hop, x16)[name]
    complexext.backends.output_cache.clear()  # no freed block to reuse: fresh memory
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # peak RSS := current RSS
    base = _kib("VmRSS")
    y = fn()
    growth = (_kib("VmHWM") - base) * 1024
    assert y.shape[0] == BATCH
    return growth


def measure_memory(name, n_fft, hop, threads):
    cmd = [sys.executable, os.path.abspath(__file__), "--probe", name, "--setting",
           f"{n_fft}/{hop}", "--threads", str(threads)]
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
    return int(out.split()[-1])


def sizes(n_fft, hop):
    """Bytes of the padded float16 signal and of the complex32 spectrum."""
    padded = SAMPLES + 2 * (n_fft // 2)
    frames = 1 + (padded - n_fft) // hop
    return BATCH * padded * 2, BATCH * (n_fft // 2 + 1) * frames * 4


def speed_table(threads, reps, cpu_time):
    x16 = signal()
    ratios = []
    print(f"{'n_fft/hop':>9} {'call':>6} | {'cx c32':>7} {'cx f32':>7} {'torch':>7} "
          f"{'upcast':>7} | {'torch/cx c32':>12} {'upcast/cx c32':>13} | {'error/floor':>11}")
    for n_fft, hop in SETTINGS:
        # --cpu-time: the calling thread's CPU time, which leaves out the time
        # other processes hold the CPU (meaningful with one thread)
        clock = time.thread_time if cpu_time else time.perf_counter
        t = interleaved_times(calls(n_fft, hop, x16), reps=reps, clock=clock)
        err = accuracy(n_fft, hop, x16)
        for i, kind in enumerate(("stft", "istft")):
            ms = {k[len(kind) + 1:]: v * 1e3 for k, v in t.items() if k.startswith(kind + " ")}
            print(f"{n_fft:>5}/{hop:<3} {kind:>6} | {ms['cx c32']:>7.2f} {ms['cx f32']:>7.2f} "
                  f"{ms['torch']:>7.2f} {ms['upcast']:>7.2f} | "
                  f"{ms['torch'] / ms['cx c32']:>11.2f}x {ms['upcast'] / ms['cx c32']:>12.2f}x | "
                  f"{err[i]:>11.3f}", flush=True)
        ratios.append(t["stft torch"] / t["stft cx c32"])
    print(f"{'CPU' if cpu_time else 'wall'} times in ms; speed-up: peer time / cx c32 time "
          f"(above 1: complexext faster)")
    return min(ratios) >= 2


def memory_table(threads):
    print(f"\nPeak memory of one call, MiB (RSS growth in a fresh process; input already "
          f"allocated)")
    print(f"{'n_fft/hop':>9} | {'padded':>6} {'c32 out':>7} | {'stft cx c32':>11} "
          f"{'torch':>6} {'upcast':>6} | {'istft cx c32':>12} {'torch':>6} {'upcast':>6}")
    within = True
    for n_fft, hop in SETTINGS:
        padded, out = sizes(n_fft, hop)
        m = {k: measure_memory(k, n_fft, hop, threads) / MiB
             for k in ("stft cx c32", "stft torch", "stft upcast", "istft cx c32",
                       "istft torch", "istft upcast")}
        within &= m["stft cx c32"] * MiB <= padded + out
        print(f"{n_fft:>5}/{hop:<3} | {padded / MiB:>6.2f} {out / MiB:>7.2f} | "
              f"{m['stft cx c32']:>11.2f} {m['stft torch']:>6.2f} {m['stft upcast']:>6.2f} | "
              f"{m['istft cx c32']:>12.2f} {m['istft torch']:>6.2f} {m['istft upcast']:>6.2f}",
              flush=True)
    print("padded: the centre-padded float16 signal; c32 out: the complex32 spectrum")
    return within


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer repeats")
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory table")
    p.add_argument("--cpu-time", action="store_true",
                   help="with --threads 1: time each call by the thread's CPU time")
    p.add_argument("--keep-memory", action="store_true",
                   help="glibc keeps freed memory (no peer's output faults in fresh pages)")
    p.add_argument("--probe", help=argparse.SUPPRESS)
    p.add_argument("--setting", default="512/128", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.probe:
        n_fft, hop = map(int, a.setting.split("/"))
        print(probe_memory(a.probe, n_fft, hop, a.threads))
        return 0
    if a.cpu_time and a.threads != 1:
        p.error("--cpu-time needs --threads 1 (it times the calling thread only)")
    torch.set_num_threads(a.threads)
    kept = a.keep_memory and keep_freed_memory()
    reps = 5 if a.quick else 21
    print(f"complexext STFT/ISTFT, CPU: {BATCH} x {SAMPLES} samples (4 s at 16 kHz), Hann, "
          f"centred; torch {torch.__version__}, ISA {torch.ops.complexext.cpu_isa()}, "
          f"{a.threads} threads; median of {reps} calls; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (other work skews ratios)")
    print(memory_mode(kept))
    fast = speed_table(a.threads, reps, a.cpu_time)
    print("complex32 stft at least 2x faster than torch.stft float32 at both settings: "
          + ("yes" if fast else "NO"))
    if not a.no_memory:
        within = memory_table(a.threads)
        print("complex32 stft peak memory <= padded signal + output at both settings: "
              + ("yes" if within else "NO"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
