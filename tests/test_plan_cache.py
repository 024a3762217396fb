# CPU only: the CPU plan cache (complexext.backends.plan_cache).
"""complexext.backends.plan_cache: bounded, clearable, safe under threads."""
import concurrent.futures as cf_threads

import pytest
import torch

import complexext
import complexext.fft as cf
from complexext.backends import plan_cache
from support.fork import child_survives_held_lock
from support.refs import rand

SIZES = [5, 12, 17, 30, 64, 97, 100, 243, 256, 331, 400, 1000, 1024, 4099]


@pytest.fixture(autouse=True)
def restore_max_size():
    old = plan_cache.max_size
    yield
    plan_cache.max_size = old


def run_all_sizes(dtype=torch.complex64):
    for n in SIZES:
        cf.fft(rand((2, n), dtype, seed=n))
        cf.rfft(rand((2, n), torch.float32, seed=n))


def test_controls_like_cufft_plan_cache():
    assert complexext.backends.plan_cache is plan_cache
    assert isinstance(plan_cache.size, int) and isinstance(plan_cache.max_size, int)
    with pytest.raises(AttributeError):
        plan_cache.size = 3
    for bad in (-1, 2.5, True, "8"):
        with pytest.raises(ValueError, match="max_size must be an int >= 0"):
            plan_cache.max_size = bad
    assert "PlanCache(size=" in repr(plan_cache)


def test_bounded():
    plan_cache.clear()
    plan_cache.max_size = 4
    assert plan_cache.max_size == 4
    for n in SIZES:
        cf.fft(rand((2, n), torch.complex64, seed=n))
        assert plan_cache.size <= 4
    assert plan_cache.size > 0
    plan_cache.max_size = 2  # shrinking evicts at once
    assert plan_cache.size <= 2


def test_grows_to_max_and_clear_empties():
    plan_cache.clear()
    plan_cache.max_size = 1000
    assert plan_cache.size == 0
    run_all_sizes()
    grown = plan_cache.size
    assert grown >= len(SIZES)  # at least one plan per length
    run_all_sizes()
    assert plan_cache.size == grown  # reused, not rebuilt
    plan_cache.clear()
    assert plan_cache.size == 0


def test_results_survive_eviction_and_no_cache():
    x = rand((3, 97), torch.complex128)
    expect = torch.fft.fft(x)
    for max_size in (1000, 1, 0):
        plan_cache.clear()
        plan_cache.max_size = max_size
        run_all_sizes()
        torch.testing.assert_close(cf.fft(x), expect, rtol=1e-13, atol=1e-13)
        assert plan_cache.size <= max_size


TASKS = [(name, n, dtype) for name in ("fft", "rfft", "irfft", "ifft2")
         for n in SIZES for dtype in (torch.complex32, torch.complex64, torch.complex128)]


def task(name, n, dtype):
    real = {torch.complex32: torch.float16, torch.complex64: torch.float32,
            torch.complex128: torch.float64}[dtype]
    x = rand((3, n), real if name == "rfft" else dtype, seed=n)
    y = getattr(cf, name)(x)
    return torch.view_as_real(y) if y.is_complex() else y


@pytest.mark.parametrize("max_size", [4, 4096])
def test_threads_agree_with_one_thread(max_size):
    """Several threads on mixed lengths and dtypes, with a cache small enough
    to evict all the time, or big enough to share plans: same results."""
    plan_cache.max_size = max_size
    plan_cache.clear()
    expect = [task(*t) for t in TASKS]
    plan_cache.clear()
    order = TASKS * 3
    with cf_threads.ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda t: task(*t), order))
    for t, g, e in zip(order, got, expect * 3):
        assert torch.equal(g, e), t
    assert plan_cache.size <= max_size


def _child_fft(q):
    x = rand((4, 3001), torch.complex64, seed=1)  # a length no plan was built for
    q.put(bool(torch.allclose(cf.fft(x), torch.fft.fft(x), rtol=1e-4, atol=1e-4)))


def test_fork_while_another_thread_holds_the_lock():
    # A fork while another thread holds the plan cache's lock (here for
    # 1.5 s, by a test-only op) must give a child that can still build and
    # cache plans: the lock is taken around fork, so fork waits for it
    # instead of copying it locked.
    assert child_survives_held_lock(torch.ops.complexext._plan_cache_hold_lock, _child_fft)
