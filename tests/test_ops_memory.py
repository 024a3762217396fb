"""Memory stays flat: 10,000 calls of mixed ops after a warm-up leave the
resident set (RSS) where it was, and the plan cache never holds more than
max_size entries, even when many distinct lengths pass through a small
cache (evicted plans are freed: RSS stays flat over repeated sweeps).

The bound: GROWTH_MIB = 8 MiB. Every FFT-based call below returns at
least 4 KiB (most 8 KiB or more) and each convolution call 16 to 32 KiB,
so keeping the output of every call (over 40 MiB), of every convolution
(about 14 MiB), or leaking a scratch buffer, plan or tensor of that size
per call, exceeds it. Allocator noise after a
warm-up (glibc arenas, torch's small allocations) stays well under 8 MiB
(measured: see docs/testing.md). test_rss_sees_retained_outputs checks that
the measurement itself sees such a leak.
"""
import ctypes
import gc
import os
import warnings

import pytest
import torch

import complexext
import complexext.fft as cf
import complexext.nn.functional as CF
from complexext.backends import plan_cache
from support.refs import rand

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

GROWTH_MIB = 8.0
CALLS = 10_000
C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
F16, F32 = torch.float16, torch.float32


def rss_mib():
    """Resident set size of this process now (not the peak), in MiB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def release_free_memory():
    """Collect garbage and hand the allocator's free pages back to the
    kernel (glibc's malloc_trim), so that RSS counts only memory in use:
    otherwise pages freed by earlier tests in the same process stay
    resident and absorb new allocations unseen."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="no /proc/self/statm (not Linux)")


def small_ops():
    """Small calls of every kind, each returning >= 4 KiB: Stockham, lane
    Bluestein, few-rows four-step, real transforms, 2-d, STFT, ISTFT, and
    (last) convolution forward and backward, as one list of calls in which
    the FFT-based ones come four times for each convolution (a small
    convolution costs some 30 FFT calls; outputs of 32 KiB there)."""
    x32 = rand((4, 256), C32, seed=1)
    x64 = rand((2, 97), C64, seed=2)
    big = rand((1, 2048), C64, seed=3)
    r16 = rand((8, 512), F16, seed=4)
    s64 = rand((8, 129), C64, seed=5)
    img = rand((16, 24, 20), C32, seed=6)
    sig = rand((2, 2000), F32, seed=7)
    win = torch.hann_window(128)
    spec = rand((2, 65, 40), C64, seed=8)
    cx = rand((2, 8, 512), C32, seed=9)
    cw = rand((8, 8, 3), C32, seed=10) * 0.2
    gx = rand((1, 4, 512), C64, seed=11).requires_grad_()
    gw = (rand((8, 4, 3), C64, seed=12) * 0.3).requires_grad_()

    def conv_backward():
        CF.conv1d(gx, gw, padding=1).abs().sum().backward()
        out = gx.grad
        gx.grad = gw.grad = None
        return out
    ffts = [
        lambda: cf.fft(x32),
        lambda: cf.ifft(x64, n=1000),
        lambda: cf.fft(big),
        lambda: cf.rfft(r16),
        lambda: cf.irfft(s64),
        lambda: cf.fft2(img),
        lambda: complexext.stft(sig, 128, 32, window=win, return_complex=True),
        lambda: complexext.istft(spec, 128, 32, window=win),
    ]
    return ffts * 4 + [lambda: CF.conv1d(cx, cw, padding=1), conv_backward]


def run_calls(ops, calls):
    for i in range(calls):
        ops[i % len(ops)]()


@needs_proc
def test_rss_flat_over_ten_thousand_calls():
    ops = small_ops()
    run_calls(ops, 10 * len(ops))  # warm-up: plans, scratch, allocator pools
    release_free_memory()
    before = rss_mib()
    run_calls(ops, CALLS)
    release_free_memory()
    growth = rss_mib() - before
    print(f"RSS {before:.1f} MiB after warm-up, growth over {CALLS} calls: {growth:+.2f} MiB")
    assert growth < GROWTH_MIB, f"RSS grew {growth:.1f} MiB over {CALLS} calls"


@needs_proc
def test_rss_sees_retained_outputs():
    """The measurement can fail: keeping each output (as a leak would)
    shows up well above the bound."""
    ops = small_ops()
    run_calls(ops, 2 * len(ops))
    release_free_memory()
    before = rss_mib()
    kept = [ops[i % 8]() for i in range(3000)]  # the FFT-based calls, >= 4 KiB each
    growth = rss_mib() - before
    del kept
    assert growth > GROWTH_MIB, f"3000 kept outputs measured as {growth:.1f} MiB"


@pytest.fixture
def keep_cache_size():
    old = plan_cache.max_size
    yield
    plan_cache.max_size = old


@needs_proc
@pytest.mark.parametrize("max_size", [0, 1, 8])
def test_small_cache_stays_bounded_and_frees_plans(max_size, keep_cache_size):
    """200 distinct lengths (Stockham, Bluestein, real even and odd) through
    a cache of max_size entries: never above it, and a second and third
    sweep add no memory (evicted plans are freed)."""
    plan_cache.clear()
    plan_cache.max_size = max_size
    lengths = list(range(600, 800))

    def sweep():
        for n in lengths:
            cf.fft(rand((2, n), C64, seed=n))
            cf.rfft(rand((2, n), F32, seed=n))
            assert plan_cache.size <= max_size
    sweep()
    release_free_memory()
    before = rss_mib()
    sweep()
    sweep()
    release_free_memory()
    growth = rss_mib() - before
    print(f"max_size {max_size}: RSS growth over 2 sweeps {growth:+.2f} MiB")
    assert growth < GROWTH_MIB


def test_large_cache_holds_each_plan_once(keep_cache_size):
    """With room for all, repeated sweeps reuse the cached plans: the size
    stops growing after the first sweep."""
    plan_cache.clear()
    plan_cache.max_size = 4096
    for _ in range(3):
        for n in range(600, 700):
            cf.fft(rand((2, n), C64, seed=n))
        if _ == 0:
            first = plan_cache.size
    assert 100 <= first == plan_cache.size <= 4096
