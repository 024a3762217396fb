"""torch's own sample inputs for stft and istft (the cases of
sample_inputs_stft and sample_inputs_istft in torch 2.13's OpInfo database,
written out here: that module needs torch's test-only dependencies), run
through complexext.stft/istft: the same result as torch's in double
precision, and gradcheck (backward and forward mode) with respect to the
signal and the window. They reach what torch's own samples reach and the
rest of the suite did not: return_complex=False, complex windows in stft
and istft, odd n_fft, a win_length shorter than n_fft.
"""
import warnings

import pytest
import torch
from torch.testing import make_tensor

import complexext

from support.refs import check_precision, to_numpy


def stft_samples(dtype):
    """(args, kwargs) of torch's sample_inputs_stft for dtype."""
    g = torch.Generator().manual_seed(0)

    def mt(shape, **kw):
        torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
        return make_tensor(shape, device="cpu", dtype=dtype, **kw)

    yield (mt(100),), dict(n_fft=10, return_complex=True)
    yield (mt(100),), dict(n_fft=10, return_complex=False)
    if dtype.is_complex:
        yield (mt(100),), dict(n_fft=10)
    for center in (False, True):
        yield (mt(10),), dict(n_fft=7, center=center, return_complex=True)
        yield (mt((10, 100)),), dict(n_fft=16, hop_length=4, center=center, return_complex=True)
    window = mt(16, low=0.5, high=2.0)
    for center in (False, True):
        yield (mt((2, 100)),), dict(n_fft=16, window=window, return_complex=True, center=center)
    yield (mt((3, 100)),), dict(n_fft=16, window=window, return_complex=True, center=True)
    if not dtype.is_complex:
        yield (mt((10, 100)),), dict(n_fft=16, window=window, onesided=False,
                                     return_complex=True)


def istft_samples(dtype):
    """(args, kwargs) of torch's sample_inputs_istft (complex dtypes only)."""
    g = torch.Generator().manual_seed(1)

    def mt(shape, **kw):
        torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=g)))
        return make_tensor(shape, device="cpu", dtype=dtype, **kw)

    yield (mt((10, 2)),), dict(n_fft=10)
    yield (mt((6, 3)),), dict(n_fft=6, onesided=False)
    yield (mt((6, 4)),), dict(n_fft=10, onesided=True)
    for center in (False, True):
        yield (mt((10, 10, 6)),), dict(n_fft=10, center=center)
        yield (mt((1, 9, 10)),), dict(n_fft=16, hop_length=4, center=center)
    window = mt(10, low=0.5, high=2.0)
    for center in (False, True):
        yield (mt((10, 10, 6)),), dict(n_fft=10, window=window, center=center,
                                       return_complex=True)
        yield (mt((10, 10, 10)),), dict(n_fft=10, window=window[:8], win_length=8,
                                        center=center, return_complex=True)
        yield (mt((10, 5, 6)),), dict(n_fft=8, window=window.real[:8], center=center)


def _ids(samples):
    out = []
    for args, kw in samples:
        w = kw.get("window")
        desc = [f"{tuple(args[0].shape)}"] + [f"{k}={v}" for k, v in kw.items() if k != "window"]
        if w is not None:
            desc.append(f"window={'complex' if w.is_complex() else 'real'}{tuple(w.shape)}")
        out.append(",".join(desc))
    return out


STFT = [(dt, a, k) for dt in (torch.float64, torch.complex128) for a, k in stft_samples(dt)]
ISTFT = list(istft_samples(torch.complex128))


def _call(fn, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # return_complex=False's deprecation
        return fn(*args, **kw)


def _torch_istft_ref(X, kw):
    """torch.istft, which rejects a complex window's istft only for
    return_complex=False (as complexext does)."""
    return torch.istft(X, **kw)


@pytest.mark.parametrize("dtype, args, kw", STFT,
                         ids=[f"{str(d).split('.')[1]}-{i}" for d, i in
                              zip([s[0] for s in STFT], _ids([(a, k) for _, a, k in STFT]))])
def test_stft_torch_samples(dtype, args, kw):
    ref = _call(torch.stft, args, kw)
    got = _call(complexext.stft, args, kw)
    assert got.dtype == ref.dtype and got.shape == ref.shape, (got.dtype, got.shape, ref.shape)
    torch.testing.assert_close(got, ref, rtol=1e-10, atol=1e-10)

    tensors = [args[0]] + ([kw["window"]] if kw.get("window") is not None else [])

    def f(*ts):
        kw2 = dict(kw)
        if len(ts) > 1:
            kw2["window"] = ts[1]
        return _call(complexext.stft, (ts[0],), kw2)

    inputs = [t.detach().clone().requires_grad_() for t in tensors]
    assert torch.autograd.gradcheck(f, inputs, check_forward_ad=True, fast_mode=True)


@pytest.mark.parametrize("args, kw", ISTFT, ids=_ids(ISTFT))
def test_istft_torch_samples(args, kw):
    try:
        ref = _torch_istft_ref(args[0], kw)
    except RuntimeError as e:
        # torch refuses a window that fails the NOLA condition (one sample
        # does here: the window of 8 padded to n_fft = 10, center=False)
        assert "window overlap add min" in str(e)
        with pytest.raises(RuntimeError, match="istft: the window fails the NOLA condition"):
            complexext.istft(*args, **kw)
        return
    got = complexext.istft(*args, **kw)
    assert got.dtype == ref.dtype and got.shape == ref.shape, (got.dtype, got.shape, ref.shape)
    torch.testing.assert_close(got, ref, rtol=1e-10, atol=1e-10)

    tensors = [args[0]] + ([kw["window"]] if kw.get("window") is not None else [])

    def f(*ts):
        kw2 = dict(kw)
        if len(ts) > 1:
            kw2["window"] = ts[1]
        return complexext.istft(ts[0], **kw2)

    inputs = [t.detach().clone().requires_grad_() for t in tensors]
    assert torch.autograd.gradcheck(f, inputs, check_forward_ad=True, fast_mode=True)


def test_return_complex_false_warns_as_torch_and_gives_the_real_view():
    x = torch.randn(2, 300)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        got = complexext.stft(x, 64, return_complex=False)
    with warnings.catch_warnings():  # torch warns once a process: maybe not here
        warnings.simplefilter("ignore", UserWarning)
        ref = torch.stft(x, 64, return_complex=False)
    assert got.dtype == ref.dtype == torch.float32 and got.shape == ref.shape
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    # complex32: the real view of the complex32 spectrum, float16 pairs
    with pytest.warns(UserWarning):
        h = complexext.stft(x.half(), 64, return_complex=False)
    assert h.dtype == torch.float16 and h.shape == got.shape
    assert torch.equal(h, torch.view_as_real(complexext.stft(x.half(), 64, return_complex=True)))


@pytest.mark.parametrize("n_fft, hop", [(64, 16), (400, 160)])
def test_complex_window_complex32_at_the_floor(n_fft, hop):
    """A complex window in complex32: fp32 inside, rounded once (the two
    real-window transforms are not rounded apart)."""
    torch.manual_seed(0)
    x = torch.randn(2, 4000, dtype=torch.complex64).to(torch.complex32)
    w = torch.hann_window(n_fft) * torch.exp(1j * torch.linspace(0, 3, n_fft))
    got = complexext.stft(x, n_fft, hop, window=w)
    ref = torch.stft(x.to(torch.complex128), n_fft, hop, window=w.to(torch.complex128),
                     return_complex=True)
    assert got.dtype == torch.complex32 and got.shape == ref.shape
    check_precision(got, to_numpy(ref), torch.complex32)
    # and back: istft with the same window, complex32 out
    y = complexext.istft(got, n_fft, hop, window=w, return_complex=True, length=4000)
    yref = torch.istft(got.to(torch.complex128), n_fft, hop, window=w.to(torch.complex128),
                       return_complex=True, length=4000)
    assert y.dtype == torch.complex32
    check_precision(y, to_numpy(yref), torch.complex32)


def test_complex_window_istft_nola_and_inputs_untouched():
    X = torch.randn(1, 16, 5, dtype=torch.complex128)
    w = torch.zeros(16, dtype=torch.complex128)
    w[:4] = 1j
    with pytest.raises(RuntimeError, match="istft: the window fails the NOLA condition"):
        complexext.istft(X, 16, 8, window=w, return_complex=True, center=False)
    x = torch.randn(300, dtype=torch.complex64)
    wc = torch.randn(32, dtype=torch.complex64)
    x0, w0 = x.clone(), wc.clone()
    complexext.stft(x, 32, 8, window=wc)
    assert torch.equal(x, x0) and torch.equal(wc, w0)
