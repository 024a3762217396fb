"""Timing helpers and the short accuracy/speed table of `python -m complexext`.

Timing: each callable runs a few times to warm up (plans built, scratch
allocated, caches filled), then `reps` times; the median wall time is kept.
Peers are timed in the same run, on the same data and in turns, and only
ratios between them are meant to be compared across machines.
"""
import random
import statistics
import time

import torch

import complexext
from complexext._tools.selfcheck import floor_of, rel_rms, to_numpy64


def keep_freed_memory():
    """Makes glibc keep freed memory for reuse in this process (all
    allocations from the heap, never trimmed), so that no peer's output
    pays page faults for fresh pages after warm-up: every peer's allocation
    at its best. By default glibc serves big blocks with fresh mmaps and
    gives heap tops back, and whether a call's output faults then depends
    on what ran before it (torch.fft's complex64 output of 32 MiB: 8192
    faults, a few ms, in some runs and none in others). Returns False
    where this is not glibc."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    # a threshold of 1 GiB / 2 GiB - 1: blocks below it come from the heap,
    # and the heap top is given back only when that much is free
    return bool(mallopt(M_MMAP_THRESHOLD, 1 << 30)) and bool(mallopt(M_TRIM_THRESHOLD, (1 << 31) - 1))


def memory_mode(kept):
    """The benchmarks' header line on how memory was allocated."""
    return "memory: " + ("glibc keeps freed memory (--keep-memory): no peer faults in fresh pages"
                         if kept else "the default allocator: a peer's output may fault in fresh "
                         "pages, depending on what ran before (--keep-memory: none does)")


def interleaved_times(fns, reps=7, warmup=2, clock=time.perf_counter):
    """Median time in seconds of each callable in the dict fns, timed in
    turns (one call of each per round) so that a change in machine load
    during the run falls on every peer alike. Each round takes the peers in
    a fresh order (a shuffle seeded the same in every run), so a peer
    follows a different peer from round to round. On a virtual machine the
    call before matters: one that leaves the second CPU idle (a serial
    stretch, freeing large buffers) costs the next call 0.1-0.2 ms
    (measured behind complexext's stft: 0.48 -> 0.65 ms after a 1 ms
    sleep). A fixed order, even one rotated each round, puts a peer after
    the same predecessor in all rounds but the few it opens, so that cost
    fell on one peer only.
    clock: wall time by default; time.thread_time gives the calling thread's
    CPU time instead."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    items = list(fns.items())
    order = random.Random(0)
    times = {k: [] for k in fns}
    for _ in range(reps):
        order.shuffle(items)
        for k, fn in items:
            t0 = clock()
            fn()
            times[k].append(clock() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def random_chalf(shape, seed=0):
    """Standard complex normal data, rounded to complex32."""
    g = torch.Generator().manual_seed(seed)
    re = torch.randn(shape, generator=g)
    im = torch.randn(shape, generator=g)
    return torch.complex(re, im).to(torch.chalf)


def upcast_fft(x):
    """What torch offers for complex32 on CPU: convert, transform, convert."""
    return torch.fft.fft(x.to(torch.complex64)).to(torch.chalf)


def table(print_fn=print, sizes=(256, 1000, 4096, 4099, 65536), elements=1 << 20):
    """complex32 accuracy (ratio to the floor) and speed against torch
    complex64, for 1-D fft over rows of length n, `elements` values a call."""
    import scipy.fft

    print_fn(f"complexext.fft.fft, complex32, {elements // 1024} Ki elements a call "
             f"(rows of length n), {torch.get_num_threads()} threads")
    print_fn(f"  {'n':>6}  {'error/floor':>11}  {'cx c32 ms':>9}  {'torch c64 ms':>12}  "
             f"{'speed vs torch c64':>18}")
    for n in sizes:
        x = random_chalf((max(1, elements // n), n), seed=n)
        x64 = x.to(torch.complex64)
        y = complexext.fft.fft(x)
        ref = scipy.fft.fft(to_numpy64(x), axis=-1)
        ratio = rel_rms(to_numpy64(y), ref) / floor_of(ref, torch.chalf)
        t = interleaved_times({"ours": lambda: complexext.fft.fft(x),
                               "torch": lambda: torch.fft.fft(x64)}, reps=7)
        t_ours, t_torch = t["ours"], t["torch"]
        print_fn(f"  {n:>6}  {ratio:>11.3f}  {t_ours * 1e3:>9.2f}  {t_torch * 1e3:>12.2f}  "
                 f"{t_torch / t_ours:>17.2f}x")
    print_fn("  error/floor: relative RMS error against scipy.fft in float64, divided by that")
    print_fn("  of the exact result rounded to complex32 (same data; 1.0 is the best possible).")
    print_fn("  speed: torch complex64 time / complexext complex32 time (above 1: faster).")
