"""Thread safety: 8 Python threads call a mix of ops, sizes and dtypes at
once (the FFT family with Stockham, Bluestein, four-step and few-rows
lengths, rfft/irfft, STFT/ISTFT, convolution), while some of them clear
the plan cache and change its max_size, for a bounded time. Every result
must equal, bitwise, the one computed beforehand by one Python thread at
the same intra-op thread count (convolution results depend on that count:
see test_ops_determinism.py); no thread may fail, crash or hang (a deadlock
fails the join timeout)."""
import random
import threading
import time

import pytest
import torch

from complexext.backends import plan_cache
from test_ops_determinism import FORWARD_CASES, bits

THREADS = 8
SECONDS = 3.0  # each thread keeps calling for this long
JOIN_TIMEOUT = 120.0  # far above the longest single call, even on a loaded machine


@pytest.fixture
def keep_cache_size():
    old = plan_cache.max_size
    yield
    plan_cache.max_size = old


def expected_bits():
    plan_cache.clear()
    want = {name: [bits(t) for t in as_tuple(fn())] for name, fn in FORWARD_CASES.items()}
    want["intra-op threads"] = torch.get_num_threads()
    return want


def as_tuple(out):
    return out if isinstance(out, tuple) else (out,)


def worker(k, want, churn, stop_at, log):
    """Calls every case in a shuffled order, and again until stop_at; a
    churning thread also clears the cache or resizes it between calls.
    log[k] gets the number of calls and any mismatch or exception."""
    rng = random.Random(k)
    names = list(want)
    if torch.get_num_threads() != want["intra-op threads"]:
        torch.set_num_threads(want["intra-op threads"])
    names.remove("intra-op threads")
    calls, bad = 0, []
    try:
        while (calls == 0 or time.monotonic() < stop_at) and not bad:
            rng.shuffle(names)
            for name in names:
                if churn:
                    r = rng.random()
                    if r < 0.3:
                        plan_cache.clear()
                    elif r < 0.6:
                        plan_cache.max_size = rng.choice([0, 1, 3, 16, 4096])
                got = [bits(t) for t in as_tuple(FORWARD_CASES[name]())]
                calls += 1
                if len(got) != len(want[name]) or not all(
                        torch.equal(g, w) for g, w in zip(got, want[name])):
                    bad.append(f"thread {k}: {name} differs from the one-thread result")
                    break
    except Exception as e:  # noqa: BLE001  (reported by the test)
        bad.append(f"thread {k}: {type(e).__name__}: {e}")
    log[k] = (calls, bad)


def run_threads(want, churners):
    log = {}
    stop_at = time.monotonic() + SECONDS
    threads = [threading.Thread(target=worker, args=(k, want, k in churners, stop_at, log),
                                daemon=True) for k in range(THREADS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + SECONDS + JOIN_TIMEOUT
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    hung = [k for k, t in enumerate(threads) if t.is_alive()]
    assert not hung, f"threads {hung} still running {JOIN_TIMEOUT:.0f} s after the end: deadlock?"
    return log


@pytest.mark.parametrize("churners", [(), (0, 3)], ids=["cache-kept", "cache-churned"])
def test_threads_match_one_thread_bitwise(churners, keep_cache_size):
    want = expected_bits()
    log = run_threads(want, set(churners))
    assert sorted(log) == list(range(THREADS))
    problems = [p for _, bad in log.values() for p in bad]
    assert not problems, problems
    assert all(c >= len(want) - 1 for c, _ in log.values()), log  # a whole pass each
    calls = sum(c for c, _ in log.values())
    print(f"{calls} calls in {THREADS} threads over {SECONDS} s; plan cache {plan_cache}")
    plan_cache.max_size = 4096
    assert plan_cache.size <= plan_cache.max_size


def test_a_mismatch_is_reported():
    """The check can fail: a wrong expected result is caught and named."""
    want = {"fft-c32-256x1024": [bits(FORWARD_CASES["fft-c32-256x1024"]())],
            "intra-op threads": torch.get_num_threads()}
    want["fft-c32-256x1024"][0].view(-1)[7] += 1
    log = {}
    worker(0, want, False, time.monotonic(), log)
    assert log[0][1] == ["thread 0: fft-c32-256x1024 differs from the one-thread result"]
