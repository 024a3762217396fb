"""complexext.nn.STFT and complexext.nn.ISTFT: defaults, the window buffer,
state_dict, .to() (float16 and complex dtypes keep a real float32 window),
complex32, and gradients through the modules. On each device, references on
the CPU; the float64 cases skip on MPS (no float64)."""
import io
import warnings

import pytest
import torch

import complexext
from complexext.nn import ISTFT, STFT
from conftest import to_cpu
from support.refs import rand

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")


HANN = torch.hann_window(512, dtype=torch.float64).float()


@pytest.mark.float64
def test_espnet_defaults_match_torch(device):
    m = STFT()
    assert (m.n_fft, m.hop_length, m.win_length) == (512, 128, 512)
    assert (m.center, m.pad_mode, m.normalized, m.onesided) == (True, "reflect", False, True)
    assert "window" in dict(m.named_buffers())
    # computed in float64, rounded once (torch.hann_window in float32 is less exact)
    assert torch.equal(m.window, HANN)
    x = rand((2, 4000), torch.float64)
    m.double().to(device)
    assert m.window.dtype == torch.float64 and m.window.device.type == device
    window = m.window.cpu()
    expect = torch.stft(x, 512, 128, 512, window, return_complex=True)
    torch.testing.assert_close(m(x.to(device)).cpu(), expect)
    torch.testing.assert_close(ISTFT().double().to(device)(expect.to(device), length=4000).cpu(),
                               torch.istft(expect, 512, 128, 512, window, length=4000))


TAPER = torch.linspace(0.5, 1.0, 300)


@pytest.mark.parametrize("window,expect", [
    ("hamming", torch.hamming_window(300, dtype=torch.float64)),
    (None, torch.ones(300, dtype=torch.float64)),
    (TAPER, TAPER.double())], ids=["hamming", "rectangular", "tensor"])
@pytest.mark.float64
def test_other_windows(window, expect, device):
    m = STFT(512, 128, 300, window=window).double()
    torch.testing.assert_close(m.window, expect.float().double())
    x = rand((1, 2000), torch.float64)
    got = m.to(device)(x.to(device))
    assert got.device.type == device
    torch.testing.assert_close(got.cpu(), torch.stft(x, 512, 128, 300, m.window.cpu(),
                                                     return_complex=True))


def test_bad_window():
    with pytest.raises(ValueError, match="^STFT: unknown window 'hanning'"):
        STFT(window="hanning")
    with pytest.raises(ValueError, match="^STFT: expected a window of length"):
        STFT(window=torch.ones(10))


def test_state_dict_round_trip(device):
    a = STFT(256, 64, 200, window=torch.rand(200)).to(device)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    b = STFT(256, 64, 200).to(device)
    b.load_state_dict(torch.load(io.BytesIO(buf.getvalue())))
    assert torch.equal(b.window, a.window) and b.window.device.type == device
    x = rand((2, 1000), torch.float32).to(device)
    assert torch.equal(to_cpu(b(x)), to_cpu(a(x)))


@pytest.mark.parametrize("dtype,window_dtype", [(torch.float16, torch.float32),
                                                (torch.complex32, torch.float32),
                                                (torch.complex64, torch.float32),
                                                (torch.complex128, torch.float64),
                                                (torch.float64, torch.float64)])
def test_to_keeps_a_sensible_window(dtype, window_dtype, device):
    for cls in (STFT, ISTFT):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # casting a module to complex warns
            m = cls().to(device).to(dtype)
        assert m.window.dtype == window_dtype and m.window.device.type == device
        assert torch.equal(m.window.cpu(), HANN.to(window_dtype))
    assert STFT().half().float().window.dtype == torch.float32
    assert torch.equal(STFT().half().float().window, HANN)


def test_half_module_complex32_round_trip(device):
    stft, istft = STFT().half().to(device), ISTFT().half().to(device)
    x = rand((2, 16000), torch.float16)
    spec = stft(x.to(device))
    assert spec.dtype == torch.complex32 and spec.shape == (2, 257, 126)
    assert spec.device.type == device
    ref = torch.stft(x.double(), 512, 128, window=torch.hann_window(512, dtype=torch.float64),
                     return_complex=True)
    floor = (ref.to(torch.complex32).to(ref.dtype) - ref).norm() / ref.norm()
    assert (to_cpu(spec).to(ref.dtype) - ref).norm() / ref.norm() <= 1.15 * floor
    y = istft(spec, length=16000)
    assert y.dtype == torch.float16 and y.device.type == device
    assert (y.cpu().double() - x.double()).norm() / x.double().norm() < floor
    assert torch.equal(complexext.istft(spec, 512, 128, window=istft.window, length=16000), y)


@pytest.mark.float64
def test_gradients_through_modules(device):
    stft = STFT(64, 16, 64).double().to(device)
    istft = ISTFT(64, 16, 64).double().to(device)
    x = rand((2, 300), torch.float64).requires_grad_()
    xd = x.detach().to(device).requires_grad_()
    spec = stft(xd)
    y = istft(spec * spec.abs(), length=300)
    (gx,) = torch.autograd.grad(y.pow(2).sum(), xd)
    xr = x.detach().clone().requires_grad_()
    w = stft.window.cpu()
    s2 = torch.stft(xr, 64, 16, window=w, return_complex=True)
    y2 = torch.istft(s2 * s2.abs(), 64, 16, window=w, length=300)
    (expect,) = torch.autograd.grad(y2.pow(2).sum(), xr)
    torch.testing.assert_close(gx.cpu(), expect)
    assert not any(b.requires_grad for b in stft.buffers())
