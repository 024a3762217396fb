# CPU only: the Metal kernels compiled as host C++ with emulated threadgroups.
"""The Metal kernels, compiled from the assembled source as host C++ and run
on the CPU with emulated threadgroups (tests/support/metal_emu.py: threads as
fibres, shuffled between barriers), driven by the same Python dispatch
code as on a Mac, against scipy and the CPU ops.

Accuracy: complex32 within 1.15 times the rounding floor, complex64 within
10 times the same floor in fp32 (as tests/test_fft_accuracy.py)."""
import numpy as np
import pytest
import scipy.fft as sf
import torch

from support import metal_emu
from support.refs import rel_rms, rounding_floor, to_numpy
from complexext._mps import fft as _metal_fft, launch as _metal_launch, lib as _metal_lib, ops as _metal_ops, source as _metal_source
from complexext._mps import stft as _metal_stft

pytestmark = pytest.mark.skipif(metal_emu.compiler() is None, reason="no host C++ compiler")
ops = torch.ops.complexext
REAL = {torch.complex32: torch.float16, torch.complex64: torch.float32}


@pytest.fixture(scope="module", autouse=True)
def emulated():
    with _metal_lib.use_compiler(metal_emu.EmulatedLibrary):
        yield


@pytest.fixture
def small_blocks(monkeypatch):
    """Pretend a block holds 64 values: long-row paths at small sizes."""
    monkeypatch.setattr(_metal_launch, "BLOCK_MAX", 64)
    _metal_fft.split.cache_clear()
    yield
    _metal_fft.split.cache_clear()


def check(y, ref, cdtype):
    floor = rounding_floor(ref, y.dtype)
    bound = 1.15 * floor if cdtype == torch.complex32 else 10 * floor
    err = rel_rms(y, ref)
    assert err <= max(bound, 1e-7 if floor == 0 else 0), f"error {err:.3e}, floor {floor:.3e}"


def crand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, dtype=torch.complex128, generator=g).to(dtype)


def rrand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, dtype=torch.float64, generator=g).to(dtype)


# 2048: the longest block; 2062 = 2*1031 and 4099: Bluestein around four-step
# transforms; 4096: four-step; 17, 97, 1000 (Bluestein, odd radices) in a block.
SIZES = [1, 2, 3, 16, 17, 97, 400, 1000, 2048, 2062, 4096, 4099]


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("n", SIZES)
def test_one_dim(n, cdtype):
    x = crand((2, n), cdtype, n)
    xn = to_numpy(x)
    check(_metal_ops.fft_c2c(x, [1], 0, True), sf.fft(xn), cdtype)
    check(_metal_ops.fft_c2c(x, [-1], 2, False), sf.ifft(xn), cdtype)
    r = rrand((2, n), REAL[cdtype], n + 1)
    check(_metal_ops.fft_r2c(r, [1], 1, True), sf.rfft(to_numpy(r), norm="ortho"), cdtype)
    h = crand((2, n // 2 + 1), cdtype, n + 2)
    check(_metal_ops.fft_c2r(h, [1], 0, n), sf.irfft(to_numpy(h), n=n) * n, cdtype)


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
def test_dims_and_strides(cdtype):
    x = crand((6, 40, 34), cdtype, 1).transpose(0, 2)[::2]  # strided, not contiguous
    xn = to_numpy(x)
    check(_metal_ops.fft_c2c(x, [0, 2], 1, True), sf.fftn(xn, axes=(0, 2), norm="ortho"), cdtype)
    r = rrand((5, 12, 30), REAL[cdtype], 2)[:, ::2]
    check(_metal_ops.fft_r2c(r, [0, 2, 1], 0, False), sf.fftn(to_numpy(r), axes=(0, 2, 1)), cdtype)
    h = crand((5, 9, 7), cdtype, 3).transpose(1, 2)
    ref = sf.irfftn(to_numpy(h), s=(7, 16), axes=(1, 2)) * 7 * 16
    check(_metal_ops.fft_c2r(h, [1, 2], 0, 16), ref, cdtype)
    c = crand((3, 8), cdtype, 4).conj()  # a conj view
    check(_metal_ops.fft_c2c(c, [1], 0, True), sf.fft(to_numpy(c)), cdtype)


def test_many_batch_dims():
    x = crand((2,) * 10 + (12,), torch.complex64, 5)[..., ::2, :]  # 10 batch dims
    check(_metal_ops.fft_c2c(x, [-1], 0, True), sf.fft(to_numpy(x)), torch.complex64)


@pytest.mark.parametrize("n", [4096, 8192, 201, 122, 1147, 1798])
def test_long_row_paths(small_blocks, n):
    """Four-step with both parts in blocks (4096), a part recursing (8192,
    1798), Bluestein around four-step (201, 122, 1147)."""
    x = crand((2, n), torch.complex32, n)
    check(_metal_ops.fft_c2c(x, [1], 0, True), sf.fft(to_numpy(x)), torch.complex32)
    h = crand((1, n // 2 + 1), torch.complex64, n)
    check(_metal_ops.fft_c2r(h, [1], 2, n), sf.irfft(to_numpy(h), n=n), torch.complex64)


def test_split_choices(small_blocks):
    assert _metal_fft.split(4096) == (64, 64)
    assert _metal_fft.split(1798) == (31, 58)   # no pair of parts both fit: the most balanced
    assert _metal_fft.split(201) is None         # 67 fits no block: Bluestein
    assert _metal_fft.split(1031) is None        # prime


SETTINGS = [(512, 128, True), (400, 160, True), (16, 5, False), (100, 30, True)]


@pytest.mark.parametrize("n_fft,hop,onesided", SETTINGS)
@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
def test_stft_istft_match_cpu(n_fft, hop, onesided, cdtype, monkeypatch):
    if n_fft == 100:  # the long-row path, window applied in the map stages
        monkeypatch.setattr(_metal_launch, "BLOCK_MAX", 64)
    x = rrand((2, 1600), REAL[cdtype], n_fft)
    if not onesided:
        x = crand((2, 1600), cdtype, n_fft)
    w = torch.hann_window(n_fft) + 0.1
    got, want = (f(x, w, n_fft, hop, 1, onesided) for f in (_metal_stft.stft, ops.stft))
    wide = x.to(torch.complex128 if x.is_complex() else torch.float64)
    check(got, to_numpy(ops.stft(wide, w.double(), n_fft, hop, 1, onesided)), cdtype)
    y = _metal_stft.istft(want, w, n_fft, hop, 2, onesided, n_fft // 2, 1000)
    ref = ops.istft(want.to(torch.complex128), w.double(), n_fft, hop, 2, onesided, n_fft // 2,
                    1000)
    check(y, to_numpy(ref), cdtype)
    again = _metal_stft.istft(want, w, n_fft, hop, 2, onesided, n_fft // 2, 1000)
    assert torch.equal(_metal_fft.pairs(y), _metal_fft.pairs(again))  # deterministic


def test_missing_barrier_is_caught():
    """The emulation fails a kernel that lacks a barrier between passes."""
    src = _metal_source.source()
    gap = "      threadgroup_barrier(mem_flags::mem_threadgroup);\n      CX_SHARED cx<float>* tmp"
    assert gap in src
    broken = metal_emu.EmulatedLibrary(src.replace(gap, "      CX_SHARED cx<float>* tmp"))
    x = crand((4, 1000), torch.complex64, 9)
    with _metal_lib.use_compiler(lambda _: broken):
        y = _metal_ops.fft_c2c(x, [1], 0, True)
    assert rel_rms(y, sf.fft(to_numpy(x))) > 1e-3


def test_divergent_barrier_is_caught():
    src = _metal_source.source()
    anchor = "  threadgroup_barrier(mem_flags::mem_threadgroup);\n  const int npasses"
    broken = metal_emu.EmulatedLibrary(src.replace(anchor, "  if (!active) return;\n" + anchor))
    x = crand((33, 16), torch.complex64, 10)  # 32 rows a group: the second has 1
    with _metal_lib.use_compiler(lambda _: broken), pytest.raises(RuntimeError, match="divergent"):
        _metal_ops.fft_c2c(x, [1], 0, True)


def test_threadgroups_stay_within_limits():
    lib = _metal_lib.library()
    lib.calls.clear()
    for n in (16, 400, 2048, 4099):
        _metal_ops.fft_c2c(crand((3, n), torch.complex64, n), [1], 0, True)
    assert lib.calls
    for name, threads, group in lib.calls:
        assert 1 <= group <= 1024, (name, group)
        if name.startswith("cx_fft"):
            assert threads % group == 0, (name, threads, group)
    assert np.unique([c[0] for c in lib.calls]).size > 2


def test_every_kernel_of_the_library_runs():
    lib = _metal_lib.library()
    lib.calls.clear()
    w = torch.hann_window(256)
    for cdtype in (torch.complex32, torch.complex64):
        x = crand((3, 8, 600), cdtype, 11)
        _metal_ops.fft_c2c(x, [1, 2], 0, True)   # fp16 -> fp32 work -> fp16 (or fp32 only)
        _metal_ops.fft_c2c(x, [2, 1], 0, True)
        _metal_ops.fft_c2c(x[..., :16], [2], 0, True)
        _metal_ops.fft_c2c(x, [2], 0, True)       # one pass, 1200 values: the 32 KB kernels
        r = rrand((3, 4100), REAL[cdtype], 12)
        _metal_ops.fft_r2c(r, [1], 0, True)      # longer than a block: the map kernels
        _metal_ops.fft_c2r(x[..., :9], [1, 2], 0, 16)
        X = _metal_stft.stft(r, w, 256, 64, 0, True)
        _metal_stft.istft(X, w, 256, 64, 2, True, 128, 1000)
    assert {c[0] for c in lib.calls} == set(dir(lib))
