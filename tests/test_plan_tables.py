# CPU only: the plan tables are built on the host (the Metal kernels are launched with them).
"""torch.ops.complexext._plan_tables: a cached plan's Stockham passes and
tables as tensors (what the Metal kernels are launched with)."""
import numpy as np
import pytest
import torch

ops = torch.ops.complexext


def stockham(x, passes, tw, roots):
    """The passes run as csrc/core/cx_stockham.h describes them, in numpy."""
    n = x.size
    for R, ns, t, r in passes:
        y = np.empty_like(x)
        q = n // R
        for j in range(q):
            k = j % ns
            v = x[j + q * np.arange(R)].copy()
            if ns > 1:
                v[1:] *= tw[t + k * (R - 1): t + (k + 1) * (R - 1)]
            w = roots[r:r + R] if R in (7, 11, 13) else np.exp(-2j * np.pi * np.arange(R) / R)
            v = np.array([np.sum(v * w[(np.arange(R) * m) % R]) for m in range(R)])
            y[(j // ns) * ns * R + k + ns * np.arange(R)] = v
        x = y
    return x


@pytest.mark.parametrize("n", [1, 2, 16, 60, 77, 143, 1000, 2048, 4096])
def test_passes_and_tables_compute_the_dft(n):
    passes, tw, roots, chirp, filt, m = ops._plan_tables(n, True)
    assert m == 0 and chirp.numel() == 0 and filt.numel() == 0
    assert passes.dtype == torch.int64 and passes.shape[1] == 4
    assert tw.dtype == roots.dtype == torch.complex128
    p = [tuple(r) for r in passes.tolist()]
    assert int(np.prod([r[0] for r in p])) == n
    x = np.random.default_rng(n).standard_normal(n) + 0j
    got = stockham(x, p, tw.numpy(), roots.numpy())
    assert np.abs(got - np.fft.fft(x)).max() < 1e-9 * max(1, np.abs(x).sum())


@pytest.mark.parametrize("n", [17, 97, 1031, 4099])
def test_bluestein_tables(n):
    passes, tw, roots, chirp, filt, m = ops._plan_tables(n, True)
    assert m >= 2 * n - 1 and chirp.shape == (n,) and filt.shape == (m,)
    k = np.arange(n)
    c = np.exp(-1j * np.pi * ((k * k) % (2 * n)) / n)
    assert np.abs(chirp.numpy() - c).max() < 1e-13
    b = np.zeros(m, complex)
    b[:n] = np.conj(c)
    b[m - n + 1:] = np.conj(c[1:])[::-1]
    assert np.abs(filt.numpy() - np.fft.fft(b) / m).max() < 1e-12
    assert int(np.prod([r[0] for r in passes.tolist()])) == m  # the inner plan's passes


def test_single_precision_and_large_plans():
    p32 = ops._plan_tables(1000, False)
    p64 = ops._plan_tables(1000, True)
    assert p32[1].dtype == torch.complex64
    assert torch.equal(p32[0], p64[0])
    assert (p32[1] - p64[1].to(torch.complex64)).abs().max() == 0  # rounded once
    passes, tw, roots, chirp, filt, m = ops._plan_tables(1 << 16, False)  # four-step: no passes
    assert passes.shape == (0, 4) and tw.numel() == 0 and m == 0


def test_bad_length():
    with pytest.raises(RuntimeError, match="_plan_tables: n must be >= 1"):
        ops._plan_tables(0, False)


def _brute_shape(n):
    r = n
    for p in (2, 3, 5, 7, 11, 13):
        while r % p == 0:
            r //= p
    m = 0
    if r != 1:
        m = 2 * n - 1
        while True:
            k = m
            for p in (2, 3, 5):
                while k % p == 0:
                    k //= p
            if k == 1:
                break
            m += 1
    n1 = max([d for d in range(1, int(n ** 0.5) + 1) if n % d == 0])
    largest, k, p = 1, n, 2
    while p * p <= k:
        while k % p == 0:
            largest, k = p, k // p
        p += 1
    return [m, n1, k if k > 1 else largest]


@pytest.mark.parametrize("ns", [range(1, 1200), [2039, 4096, 4097, 65537, 1 << 20, 999983 * 2,
                                                  3 * 5 * 7 * 11 * 13 * 17 * 19]])
def test_plan_shape_is_the_planners(ns):
    """_plan_shape (the Metal planner's only source) against a brute force:
    Bluestein's length, the four-step split and the largest prime factor."""
    for n in ns:
        assert list(torch.ops.complexext._plan_shape(n)) == _brute_shape(n), n


def test_plan_shape_matches_the_cached_plan():
    for n in (17, 97, 400, 1031, 4096):
        m = int(torch.ops.complexext._plan_tables(n, False)[5])
        assert torch.ops.complexext._plan_shape(n)[0] == m, n


def test_plan_shape_refuses_bad_n():
    with pytest.raises(RuntimeError, match="_plan_shape: n must be >= 1"):
        torch.ops.complexext._plan_shape(0)


@pytest.mark.parametrize("n", [1021, 2053, 4099, 6126])
def test_bluestein_inner_plan_is_cut_for_the_lane_engine(n):
    """Bluestein's inner plan runs only in the lane engine, so it is cut as
    that engine runs fastest on every instruction set: radix 8 at most (a
    radix-16 step's 32 vectors spill from 16 registers and from 32 alike),
    each pair of 3s as a 9, and on AVX-512 a 3 and a 5 as a 15 (its 32
    registers hold the butterfly; AVX2's 16 do not). The plans jobs run keep
    16 and their 3s."""
    passes, *_, m = ops._plan_tables(n, False)
    radices = [r for r, *_ in passes.tolist()]
    if ops.cpu_isa() == "avx512":
        assert not (3 in radices and 5 in radices), radices
    else:
        assert 15 not in radices, radices
    e = (m & -m).bit_length() - 1  # m's power of two
    pow2 = [8] * (e // 3) + ([1 << (e % 3)] if e % 3 else [])
    assert radices[:len(pow2)] == pow2 and all(r % 2 for r in radices[len(pow2):]), radices
    assert int(np.prod(radices)) == m
    assert radices.count(3) <= 1, radices
    assert [r for r, *_ in ops._plan_tables(4096, False)[0].tolist()] == [16, 16, 16]
    assert [r for r, *_ in ops._plan_tables(2187, False)[0].tolist()] == [3] * 7
