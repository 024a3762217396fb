"""Every op through the public API on each device (cpu; cuda and mps where
present, skipped with a reason elsewhere), against float64 references on
the CPU: results at the complex32 floor, on the device, in the right dtype;
strided inputs; gradients equal to the CPU ones; complex128 refused on MPS.
On a Mac this runs the Metal kernels; here it runs the CPU kernels."""
import warnings

import numpy as np
import pytest
import scipy.fft as sf
import torch

import complexext
import complexext.nn.functional as cnf
from support.refs import rel_rms, rounding_floor, to_numpy

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
CDTYPES = [torch.complex32, torch.complex64]
REAL = {torch.complex32: torch.float16, torch.complex64: torch.float32}


def moved(t, device):
    """t on device (complex tensors through their real view: MPS copies
    complex32 that way whatever its own complex support)."""
    if t.is_complex():
        return torch.view_as_complex(torch.view_as_real(t).to(device))
    return t.to(device)


def data(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    wide = torch.complex128 if dtype.is_complex else torch.float64
    return torch.randn(shape, dtype=wide, generator=g).to(dtype)


def at_floor(y, ref, cdtype, device):
    assert y.device.type == torch.device(device).type
    y = y.cpu() if not y.is_complex() else torch.view_as_complex(torch.view_as_real(y).cpu())
    floor = rounding_floor(ref, y.dtype)
    bound = 1.15 * floor if cdtype == torch.complex32 else max(10 * floor, 1e-7)
    assert rel_rms(y, ref) <= bound


@pytest.mark.parametrize("cdtype", CDTYPES, ids=str)
@pytest.mark.parametrize("n", [16, 17, 400, 4099])
def test_fft_family(device, n, cdtype):
    x = data((3, n), cdtype, n)
    r = data((3, n), REAL[cdtype], n)
    xd, rd = moved(x, device), moved(r, device)
    at_floor(complexext.fft.fft(xd), sf.fft(to_numpy(x)), cdtype, device)
    at_floor(complexext.fft.ifft(xd, norm="ortho"), sf.ifft(to_numpy(x), norm="ortho"), cdtype,
             device)
    at_floor(complexext.fft.rfft(rd), sf.rfft(to_numpy(r)), cdtype, device)
    h = x[:, : n // 2 + 1]
    at_floor(complexext.fft.irfft(moved(h, device), n=n), sf.irfft(to_numpy(h), n=n), cdtype,
             device)


@pytest.mark.parametrize("cdtype", CDTYPES, ids=str)
def test_fftn_of_strided_input(device, cdtype):
    x = moved(data((12, 30, 20), cdtype, 1), device).transpose(0, 2)[:, ::3]
    ref = sf.fftn(to_numpy(x.cpu() if x.dtype != torch.complex32 else
                           torch.view_as_complex(torch.view_as_real(x).cpu())), axes=(0, 2))
    at_floor(complexext.fft.fftn(x, dim=(0, 2)), ref, cdtype, device)


@pytest.mark.parametrize("cdtype", CDTYPES, ids=str)
@pytest.mark.parametrize("n_fft,hop", [(512, 128), (400, 160)])
def test_stft_istft(device, n_fft, hop, cdtype):
    x = data((2, 8000), REAL[cdtype], n_fft)
    w = torch.hann_window(n_fft)
    X = complexext.stft(moved(x, device), n_fft, hop, window=w.to(device), return_complex=True)
    ref = torch.stft(x.double(), n_fft, hop, window=w.double(), return_complex=True)
    at_floor(X, ref.numpy(), cdtype, device)
    y = complexext.istft(X, n_fft, hop, window=w.to(device), length=8000)
    again = complexext.istft(X, n_fft, hop, window=w.to(device), length=8000)
    assert torch.equal(y, again)  # overlap-add by gathering: deterministic
    Xc = torch.view_as_complex(torch.view_as_real(X).cpu()).to(torch.complex128)
    at_floor(y, torch.istft(Xc, n_fft, hop, window=w.double(), length=8000).numpy(), cdtype,
             device)


@pytest.mark.parametrize("cdtype", CDTYPES, ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_convolution(device, transposed, cdtype):
    x = data((2, 4, 16, 12), cdtype, 3)
    w = data((4, 3, 3, 2) if transposed else (6, 4, 3, 2), cdtype, 4)
    b = data((6 if not transposed else 3,), cdtype, 5)
    f = cnf.conv_transpose2d if transposed else cnf.conv2d
    y = f(moved(x, device), moved(w, device), moved(b, device), stride=(2, 1), padding=1)
    ref = f(x.to(torch.complex128), w.to(torch.complex128), b.to(torch.complex128),
            stride=(2, 1), padding=1)
    at_floor(y, ref.numpy(), cdtype, device)


def test_gradient_matches_cpu(device):
    x = data((4, 96), torch.complex64, 6)
    grads = []
    for dev in ("cpu", device):
        xd = x.to(dev).requires_grad_()
        loss = complexext.fft.rfft(complexext.fft.fft(xd).real, norm="ortho").abs().pow(2).sum()
        loss.backward()
        grads.append(xd.grad.cpu())
    assert (grads[0] - grads[1]).abs().max() <= 1e-5 * grads[0].abs().max()


def test_convolution_gradients_match_cpu(device):
    x, w = data((2, 3, 10, 9), torch.complex64, 7), data((4, 3, 3, 3), torch.complex64, 8)
    grads = []
    for dev in ("cpu", device):
        xd, wd = x.to(dev).requires_grad_(), w.to(dev).requires_grad_()
        cnf.conv2d(xd, wd, padding=1).abs().pow(2).sum().backward()
        grads.append((xd.grad.cpu(), wd.grad.cpu()))
    for a, b in zip(*grads):
        assert (a - b).abs().max() <= 1e-5 * a.abs().max()


def test_complex128(device):
    """complex128 runs where the device has float64; on MPS every op refuses it
    by name (Metal has no float64)."""
    x = torch.randn(8, dtype=torch.complex128)
    if device != "mps":
        y = complexext.fft.fft(x.to(device)).cpu()
        assert np.abs(y.numpy() - sf.fft(x.numpy())).max() < 1e-12
        return
    try:
        xd = x.to(device)
    except (RuntimeError, TypeError) as e:
        pytest.skip(f"torch itself keeps complex128 off MPS: {e}")
    with pytest.raises(RuntimeError, match="Metal has no float64"):
        complexext.fft.fft(xd)
    with pytest.raises(RuntimeError, match="Metal has no float64"):
        cnf.conv1d(xd.view(1, 1, 8), xd[:3].view(1, 1, 3))
    with pytest.raises((RuntimeError, TypeError), match="float64"):
        complexext.stft(xd.view(1, 8), 4, 2, return_complex=True)
