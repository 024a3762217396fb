"""complexext.stft / istft against torch.stft / istft in float64 and complex128:
arguments, defaults, shapes, dtypes, padding modes, unbatched input, inputs
left unmodified, and the errors. Ours on each device, torch's on the CPU; the
float64 cases skip on MPS (no float64)."""
import warnings

import pytest
import torch
import torch.nn.functional as nnf

import complexext
from complexext._ops.stft import pad_signal, unpad_adjoint
from conftest import to_cpu, to_device
from support.refs import rand

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
warnings.filterwarnings("ignore", message="A window was not provided")

# n_fft, keyword arguments shared by stft and istft, stft-only ones
CASES = [
    (16, {}, {}),
    (16, {"hop_length": 5, "win_length": 11, "normalized": True}, {"pad_mode": "constant"}),
    (15, {"hop_length": 4, "win_length": 9, "onesided": False}, {"pad_mode": "replicate"}),
    (17, {"hop_length": 3}, {"pad_mode": "circular"}),
    (400, {"hop_length": 160}, {}),
    (512, {"hop_length": 128, "win_length": 400, "center": False}, {}),
    (7, {"hop_length": 7, "center": False}, {}),
]


def window_of(n_fft, kw, offset=0.0):
    win = kw.get("win_length", n_fft)
    return torch.hann_window(win, dtype=torch.float64) + offset


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
@pytest.mark.parametrize("n_fft,kw,skw", CASES)
def test_stft_matches_torch(n_fft, kw, skw, dtype, batched, device):
    if dtype.is_complex and kw.get("onesided") is not None:
        kw = {k: v for k, v in kw.items() if k != "onesided"}
    x = rand((3, 1500) if batched else (1500,), dtype, seed=n_fft)
    xd = x.to(device)
    x0 = xd.clone()
    for window in (window_of(n_fft, kw), None):
        wd = None if window is None else window.to(device)
        got = complexext.stft(xd, n_fft, window=wd, return_complex=True, **kw, **skw)
        expect = torch.stft(x, n_fft, window=window, return_complex=True, **kw, **skw)
        assert got.shape == expect.shape and got.dtype == expect.dtype
        # torch.stft's strides too: the bins of a frame adjacent
        assert got.stride() == expect.stride(), (got.stride(), expect.stride())
        assert got.device.type == device
        torch.testing.assert_close(got.cpu(), expect)
    assert torch.equal(xd, x0)


@pytest.mark.float64
@pytest.mark.parametrize("length", [None, 1400, 1492], ids=["none", "shorter", "longer"])
@pytest.mark.parametrize("n_fft,kw,skw", CASES)
def test_istft_matches_torch(n_fft, kw, skw, length, device):
    x = rand((3, 1500), torch.float64, seed=n_fft)
    window = window_of(n_fft, kw, offset=0.0 if kw.get("center", True) else 0.1)
    spec = torch.stft(x, n_fft, window=window, return_complex=True, **kw)
    sd = spec.to(device)
    spec0 = sd.clone()
    for rc in (False, True) if kw.get("onesided") is False else (False,):
        args = dict(kw, window=window, length=length, return_complex=rc)
        dargs = dict(args, window=window.to(device))
        try:
            expect = torch.istft(spec, n_fft, **args)
        except RuntimeError as e:
            assert "window overlap add min" in str(e)
            with pytest.raises(RuntimeError, match="^istft: the window fails the NOLA"):
                complexext.istft(sd, n_fft, **dargs)
            continue
        got = complexext.istft(sd, n_fft, **dargs)
        assert got.shape == expect.shape and got.dtype == expect.dtype
        assert got.device.type == device
        torch.testing.assert_close(got.cpu(), expect)
        torch.testing.assert_close(complexext.istft(sd[0], n_fft, **dargs).cpu(), expect[0])
    assert torch.equal(sd, spec0)


@pytest.mark.float64
def test_complex_signal_round_trip_and_default_hop(device):
    x = rand((2, 300), torch.complex128)
    spec = complexext.stft(x.to(device), 32)  # complex input: return_complex may be left out
    torch.testing.assert_close(spec.cpu(), torch.stft(x, 32, return_complex=True))
    torch.testing.assert_close(
        complexext.istft(spec, 32, length=300, return_complex=True).cpu(), x)


@pytest.mark.parametrize("dtype,out", [(torch.float16, torch.complex32),
                                       (torch.float32, torch.complex64),
                                       (torch.complex32, torch.complex32),
                                       (torch.complex64, torch.complex64)])
def test_dtypes(dtype, out, device):
    x = to_device(rand((2, 1000), dtype), device)
    w = torch.hann_window(400, device=device)
    spec = complexext.stft(x, 400, 160, window=w, return_complex=True)
    assert spec.dtype == out and spec.shape == (2, 400 if dtype.is_complex else 201, 7)
    assert spec.device.type == device
    y = complexext.istft(spec, 400, 160, window=w, length=1000, return_complex=dtype.is_complex)
    assert y.dtype == dtype and y.shape == (2, 1000) and y.device.type == device


@pytest.mark.parametrize("mode", ["reflect", "constant", "replicate", "circular"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.complex32, torch.float32,
                                   torch.complex64])
def test_centre_padding_in_the_input_dtype(dtype, mode, device):
    """The padding the derivatives (and the MPS kernel) use, float16 and
    complex32 included, gives exactly torch's values, and its adjoint is
    torch's: <P x, g> = <x, P^T g>."""
    x = rand((2, 40), dtype)
    wide = torch.complex64 if dtype.is_complex else torch.float32
    padded = pad_signal(to_device(x, device), 17, mode)
    assert padded.dtype == dtype and padded.device.type == device
    expect = nnf.pad(x.to(wide), [17, 17], mode=mode)
    assert torch.equal(to_cpu(padded).to(wide), expect)
    xw = x.to(wide).requires_grad_()
    g = rand((2, 74), wide, seed=1)
    (want,) = torch.autograd.grad(nnf.pad(xw, [17, 17], mode=mode), xw, g)
    got = to_cpu(unpad_adjoint(to_device(g, device), 17, mode, 40))
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


def test_inputs_unmodified_through_backward(device):
    x = rand((2, 200), torch.float32).to(device).requires_grad_()
    w = torch.hann_window(64, device=device).requires_grad_()
    x0, w0 = x.detach().clone(), w.detach().clone()
    spec = complexext.stft(x, 64, window=w, return_complex=True)
    complexext.istft(spec, 64, window=w).sum().backward()
    assert torch.equal(x.detach(), x0) and torch.equal(w.detach(), w0)


X = rand((2, 100), torch.float32)
S = torch.stft(X, 16, return_complex=True)
ERRORS = [  # function, args, kwargs, exception, message
    ("stft", (X, 16), {}, ValueError, "return_complex must be given for a real input"),
    ("stft", (X.long(), 16), {"return_complex": True}, TypeError, "got torch.int64"),
    ("stft", (X.to(torch.bfloat16), 16), {"return_complex": True}, TypeError, "bfloat16"),
    ("stft", (X[None], 16), {"return_complex": True}, ValueError, "1 or 2-d input"),
    ("stft", ([1.0, 2.0], 16), {"return_complex": True}, TypeError, "expected a tensor"),
    ("stft", (X, 0), {"return_complex": True}, ValueError, "n_fft must be >= 1"),
    ("stft", (X, 2.5), {"return_complex": True}, TypeError, "n_fft must be an int"),
    ("stft", (X, 120), {"return_complex": True, "center": False}, ValueError, "n_fft <= 100"),
    ("stft", (X, 16), {"return_complex": True, "hop_length": 0}, ValueError, "hop_length must"),
    ("stft", (X, 2), {"return_complex": True}, ValueError, "default n_fft // 4 is 0"),
    ("stft", (X, 16), {"return_complex": True, "win_length": 17}, ValueError, "win_length <="),
    ("stft", (X, 16), {"return_complex": True, "window": torch.ones(15)}, ValueError,
     "length win_length = 16"),
    ("stft", (X, 16), {"return_complex": True, "window": torch.ones(16, dtype=torch.cfloat),
                       "onesided": True}, ValueError, "the window is complex"),
    ("stft", (X, 16), {"return_complex": True, "window": torch.ones(16, dtype=torch.int32)},
     TypeError, "floating point or complex window"),
    ("stft", (X, 16), {"return_complex": True, "window": torch.ones(16, device="meta")},
     ValueError, "window is on meta"),
    ("stft", (X.cfloat(), 16), {"onesided": True}, ValueError, "onesided=True needs a real"),
    ("stft", (X, 16), {"return_complex": True, "pad_mode": "wrap"}, ValueError, "pad_mode"),
    ("stft", (X[:, :5], 16), {"return_complex": True}, ValueError, "reflect padding of"),
    ("stft", (X[:, :5], 16), {"return_complex": True, "pad_mode": "circular"}, ValueError,
     "circular padding"),
    ("istft", (X, 16), {}, TypeError, "complex32, complex64, complex128 input"),
    ("istft", (S[None], 16), {}, ValueError, "2 or 3-d input"),
    ("istft", (S, 16), {"hop_length": 9, "win_length": 8}, ValueError, "hop_length <= win"),
    ("istft", (S, 32), {}, ValueError, "expected 17 frequency bins"),
    ("istft", (S, 16), {"onesided": False}, ValueError, "expected 16 frequency bins"),
    ("istft", (S, 16), {"return_complex": True}, ValueError, "needs a two-sided input"),
    ("istft", (S[..., :0], 16), {}, ValueError, "at least one frame"),
    ("istft", (S, 16), {"length": -1}, ValueError, "length must be >= 0"),
    ("istft", (S, 16), {"window": torch.zeros(16)}, RuntimeError, "fails the NOLA condition"),
    ("istft", (S, 16), {"window": torch.hann_window(16), "center": False}, RuntimeError,
     "NOLA condition: the sum of squared windows overlapping sample 0 is 0"),
]


def on(device, value):
    """A tensor argument on device (meta ones stay), others as they are."""
    if isinstance(value, torch.Tensor) and not value.is_meta:
        return to_device(value, device)
    return value


@pytest.mark.parametrize("fname,args,kwargs,exc,msg", ERRORS, ids=[e[4] for e in ERRORS])
def test_errors_name_the_function(fname, args, kwargs, exc, msg, device):
    args = [on(device, a) for a in args]
    kwargs = {k: on(device, v) for k, v in kwargs.items()}
    with pytest.raises(exc, match=f"^{fname}: .*{msg}"):
        getattr(complexext, fname)(*args, **kwargs)


def test_window_on_another_device(device):
    other = "meta" if device == "cpu" else "cpu"
    x = X.to(device)
    with pytest.raises(ValueError, match=f"^stft: the window is on {other}"):
        complexext.stft(x, 16, window=torch.ones(16, device=other), return_complex=True)
    with pytest.raises(ValueError, match=f"^istft: the window is on {other}"):
        complexext.istft(to_device(S, device), 16, window=torch.ones(16, device=other))


def test_overflow_check(device):
    """An unnormalised stft of a loud float16 signal overflows complex32 (inf);
    with the check on, OverflowError names the function and the way out."""
    x = torch.full((1, 2000), 300.0, dtype=torch.float16, device=device)
    spec = to_cpu(complexext.stft(x, 512, return_complex=True))
    assert torch.isinf(torch.view_as_real(spec)).any()
    with complexext.overflow_check():
        with pytest.raises(OverflowError, match="^stft: the complex32 result overflowed.*"
                                                "normalized=True"):
            complexext.stft(x, 512, return_complex=True)
        complexext.stft(x, 512, return_complex=True, normalized=True)


def test_empty_batch(device):
    x = torch.zeros(0, 100, device=device)
    assert complexext.stft(x, 16, return_complex=True).shape == (0, 9, 26)
    spec = torch.zeros(0, 9, 26, dtype=torch.complex64, device=device)
    assert complexext.istft(spec, 16).shape == (0, 100)
