# CPU only: the Metal dispatch code checked without a Mac, against the CPU kernel.
"""The Python side of the Metal kernels, without a Mac: the compile cache,
the registration, argument lists, grid sizes, plans, the complex128 error
and the convolution layout (plain torch operations, checked on the CPU
against the CPU kernel)."""
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

from support.refs import rel_rms, rounding_floor, to_numpy
from complexext import _mps as _metal
from complexext._mps import conv as _metal_conv, launch as L, lib as _metal_lib, ops as _metal_ops
from complexext._mps import stft as _metal_stft

ops = torch.ops.complexext


def test_library_is_compiled_once():
    sources = []

    def compiler(src):
        sources.append(src)
        return object()

    with _metal_lib.use_compiler(compiler):
        got = []
        threads = [threading.Thread(target=lambda: got.append(_metal_lib.library()))
                   for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(sources) == 1 and len({id(g) for g in got}) == 1
        assert sources[0].startswith("#include <metal_stdlib>")
        _metal_lib.clear()
        _metal_lib.library()
        assert len(sources) == 2


@pytest.mark.skipif(_metal.available(), reason="an Apple GPU is present")
def test_no_mps_kernels_without_an_apple_gpu():
    for name in _metal.KERNELS:
        assert not torch._C._dispatch_has_kernel_for_dispatch_key(f"complexext::{name}", "MPS")


def test_registration_covers_every_op():
    code = ("import torch, complexext\nfrom complexext import _mps as _metal\n"
            "if not _metal.available(): _metal.register()\n"
            "print(sorted(n for n in _metal.KERNELS if torch._C."
            "_dispatch_has_kernel_for_dispatch_key('complexext::' + n, 'MPS')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(sorted(_metal.KERNELS))
    assert set(_metal.KERNELS) == {"fft_c2c", "fft_r2c", "fft_c2r", "stft", "istft",
                                   "convolution", "convolution_weight_grad"}
    for name in _metal.KERNELS:
        assert _metal.kernel(name).__name__ == name


def test_meta_fields_land_where_the_kernels_read_them():
    rows = [(3, 100, 7), (5, 20, 1)]
    passes = [(16, 1, 0, 0), (7, 16, 15, 0)]
    m = L.meta(rows, passes, n=112, len=112, nout=57, conj_in=True, tw4_n=9)
    mx = L.MX
    assert len(m) == mx["PASSES"] + 8
    assert (m[mx["N"]], m[mx["NOUT"]], m[mx["CONJ_IN"]], m[mx["TW4_N"]]) == (112, 57, 1, 9)
    assert (m[mx["MUL"]], m[mx["TW4_DIV"]], m[mx["TW4_MOD"]]) == (-1, 1, 1)  # defaults
    assert (m[mx["ND"]], m[mx["NROWS"]], m[mx["NPASSES"]]) == (2, 15, 2)
    assert m[mx["SIZES"]:mx["SIZES"] + 2] == [3, 5]
    assert m[mx["IN_STRIDES"]:mx["IN_STRIDES"] + 2] == [100, 20]
    assert m[mx["OUT_STRIDES"]:mx["OUT_STRIDES"] + 2] == [7, 1]
    assert m[mx["PASSES"]:] == [16, 1, 0, 0, 7, 16, 15, 0]
    assert all(isinstance(v, int) for v in m)  # compile_shader binds a list of ints as int64
    with pytest.raises(ValueError, match="batch dims"):
        L.meta([(2, 1, 1)] * 9)
    with pytest.raises(KeyError):
        L.meta(no_such_field=1)


def test_coalesce_keeps_row_order():
    assert L.coalesce([(2, 12, 12), (3, 4, 4), (1, 99, 99), (4, 1, 1)]) == [(24, 1, 1)]
    assert L.coalesce([(2, 12, 1), (3, 4, 2)]) == [(2, 12, 1), (3, 4, 2)]
    assert L.coalesce([]) == []


@pytest.mark.parametrize("n", [1, 2, 16, 17, 97, 400, 1000, 1024, 2048])
@pytest.mark.parametrize("nrows", [1, 3, 1000])
def test_grid_fits_the_threadgroup(n, nrows):
    T = L.tables(n, "cpu")
    for max_threads in (1024, 256):
        elems = L.SMALL_ELEMS if 2 * T.len <= L.SMALL_ELEMS else L.LARGE_ELEMS
        tpr, rpg, groups = L.fft_grid(T.len, [p[0] for p in T.passes], nrows, elems, max_threads)
        assert tpr * rpg <= max_threads and rpg * 2 * T.len <= elems
        assert (groups - 1) * rpg < nrows <= groups * rpg


def test_plan_helpers_agree_with_the_plans():
    for n in list(range(1, 260)) + [1021, 1031, 2047, 2048, 4099]:
        passes, _, _, _, _, m = ops._plan_tables(n, False)
        assert L.factorable(n) == (m == 0), n
        assert L.block_len(n) == (m or n)
        if L.fits(n):
            assert np.prod([p[0] for p in passes.tolist()]) == L.block_len(n)


def test_device_tables_and_twiddles():
    T = L.tables(17, "cpu")
    _, tw, roots, chirp, filt, m = ops._plan_tables(17, False)
    tab = torch.view_as_complex(T.tab)
    assert torch.equal(tab[T.tw:T.tw + tw.numel()], tw)
    assert torch.equal(tab[T.chirp:T.chirp + 17], chirp)
    assert torch.equal(tab[T.filter:T.filter + m], filt)
    assert (T.bluestein, T.len) == (True, m)
    w = torch.view_as_complex(L.twiddles(1000, "cpu")).to(torch.complex128).numpy()
    assert np.abs(w - np.exp(-2j * np.pi * np.arange(1000) / 1000)).max() < 1e-7


@pytest.mark.parametrize("call", [
    lambda: _metal_ops.fft_c2c(torch.zeros(4, dtype=torch.complex128), [0], 0, True),
    lambda: _metal_ops.fft_r2c(torch.zeros(4, dtype=torch.float64), [0], 0, True),
    lambda: _metal_ops.fft_c2r(torch.zeros(3, dtype=torch.complex128), [0], 0, 4),
    lambda: _metal_stft.stft(torch.zeros(1, 8, dtype=torch.float64), torch.ones(4), 4, 1, 0, True),
    lambda: _metal_stft.istft(torch.zeros(1, 3, 2, dtype=torch.complex128), torch.ones(4), 4, 1,
                              2, True, 0, 4),
    lambda: _metal_conv.convolution(torch.zeros(1, 1, 3, dtype=torch.complex128),
                                    torch.zeros(1, 1, 1, dtype=torch.complex128), None, [1],
                                    [0], [1], False, [0], 1),
    lambda: _metal_conv.convolution_weight_grad(
        torch.zeros(1, 1, 3, dtype=torch.complex128), torch.zeros(1, 1, 3, dtype=torch.complex128),
        [1, 1, 1], False, [1], [0], [1], False, [0], 1),
], ids=["fft_c2c", "fft_r2c", "fft_c2r", "stft", "istft", "convolution", "weight_grad"])
def test_float64_gets_a_clear_error(call):
    with pytest.raises(RuntimeError, match="not supported on MPS.*Metal has no float64"):
        call()


CONV = [  # (input shape, weight shape, stride, padding, dilation, transposed, out_pad, groups)
    ((2, 4, 11), (6, 2, 3), [2], [1], [1], False, [0], 2),
    ((2, 4, 9, 7), (6, 4, 3, 2), [1, 2], [1, 0], [1, 2], False, [0, 0], 1),
    ((2, 4, 9, 7), (4, 3, 3, 2), [2, 1], [1, 0], [1, 1], True, [1, 0], 2),
    ((1, 2, 4, 5, 3), (2, 2, 2, 2, 2), [1, 1, 1], [0, 1, 0], [1, 1, 1], False, [0, 0, 0], 1),
    ((2, 0, 5), (3, 0, 2), [1], [0], [1], False, [0], 1),
]


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("weight", ["complex", "real"])
@pytest.mark.parametrize("case", CONV, ids=lambda c: str(c[0]))
def test_convolution_layout_matches_cpu(case, weight, cdtype):
    xs, ws, *args = case
    g = torch.Generator().manual_seed(len(xs))
    x = torch.randn(xs, dtype=torch.complex64, generator=g).to(cdtype)
    w = torch.randn(ws, dtype=torch.complex64, generator=g).to(cdtype)
    if weight == "real":
        w = torch.view_as_real(w)[..., 0].contiguous()
    cout = ws[1] * args[-1] if args[3] else ws[0]
    b = torch.randn(cout, dtype=torch.complex64, generator=g).to(cdtype)
    if weight == "real":
        b = torch.view_as_real(b)[..., 1].contiguous()
    w = w.conj() if weight == "complex" else w
    got = _metal_conv.convolution(x, w, b, *args)
    want = ops.convolution(x, w, b, *args)
    assert got.shape == want.shape and got.dtype == want.dtype
    wide = {torch.complex32: torch.complex128, torch.complex64: torch.complex128,
            torch.float16: torch.float64, torch.float32: torch.float64}
    ref = to_numpy(ops.convolution(x.to(torch.complex128), w.resolve_conj().to(wide[w.dtype]),
                                   b.to(wide[b.dtype]), *args))
    if cdtype == torch.complex32:  # one rounding of an fp32 sum: the floor
        assert rel_rms(got, ref) <= 1.15 * rounding_floor(ref, cdtype)
    else:
        assert rel_rms(got, ref) <= 1e-6


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("real_weight", [False, True], ids=["complex", "real"])
@pytest.mark.parametrize("case", CONV, ids=lambda c: str(c[0]))
def test_weight_grad_matches_cpu(case, real_weight, cdtype):
    xs, ws, *args = case
    g = torch.Generator().manual_seed(len(xs) + 1)
    x = torch.randn(xs, dtype=torch.complex64, generator=g).to(cdtype)
    w = torch.zeros(ws, dtype=cdtype)
    shape = ops.convolution(x, w, None, *args).shape
    gy = torch.randn(shape, dtype=torch.complex64, generator=g).to(cdtype)
    got = _metal_conv.convolution_weight_grad(gy, x.conj(), list(ws), real_weight, *args)
    want = ops.convolution_weight_grad(gy, x.conj(), list(ws), real_weight, *args)
    assert got.shape == want.shape and got.dtype == want.dtype
    ref = to_numpy(ops.convolution_weight_grad(gy.to(torch.complex128),
                                               x.conj().to(torch.complex128), list(ws),
                                               real_weight, *args))
    if not np.any(ref):
        assert not to_numpy(got).any()
    elif cdtype == torch.complex32:
        assert rel_rms(got, ref) <= 1.15 * rounding_floor(ref, got.dtype)
    else:
        assert rel_rms(got, ref) <= 1e-6
