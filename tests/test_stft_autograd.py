"""Derivatives of stft/istft with respect to the signal and the window:
gradcheck (forward and batched checks) and gradgradcheck in float64 and
complex128, the raw ops, torch.func transforms against torch.stft/istft, and
complex32 derivatives against complex128 ones. Ours on each device, torch's
on the CPU; the float64 cases skip on MPS (no float64)."""
import warnings

import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.func import jacfwd, jacrev, jvp, vmap

import complexext
from complexext._ops import ops
from conftest import to_cpu, to_device
from support.refs import rand

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The inputs are tiny: one thread spares torch's parallel padding kernels
    waits for a second thread (milliseconds a call on a loaded machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


ALL = dict(check_forward_ad=True, check_backward_ad=True, check_batched_grad=True,
           check_batched_forward_grad=True)

STFT_CASES = [  # signal dtype, shape, n_fft, keyword arguments
    (torch.float64, (2, 21), 8, {"hop_length": 3}),
    (torch.float64, (19,), 7, {"hop_length": 2, "win_length": 5, "normalized": True,
                               "pad_mode": "constant"}),
    (torch.float64, (2, 20), 6, {"hop_length": 4, "onesided": False, "center": False}),
    (torch.complex128, (2, 17), 8, {"hop_length": 3, "pad_mode": "circular"}),
    (torch.float64, (1, 16), 5, {"hop_length": 2, "pad_mode": "replicate"}),
]
ISTFT_CASES = [  # n_fft, frames, keyword arguments (the window is lifted off zero)
    (8, 5, {"hop_length": 3}),
    (8, 6, {"hop_length": 2, "normalized": True, "length": 20}),
    (7, 5, {"hop_length": 3, "win_length": 6, "center": False, "length": 14}),
    (6, 4, {"hop_length": 2, "onesided": False, "return_complex": True, "length": 9}),
    (6, 4, {"hop_length": 3, "onesided": False, "center": False}),
]


def stft_fn(n_fft, kw):
    return lambda x, w: complexext.stft(x, n_fft, window=w, return_complex=True, **kw)


def stft_inputs(dtype, shape, n_fft, kw, seed=0, device="cpu"):
    x = rand(shape, dtype, seed=seed).to(device).requires_grad_()
    w = (rand((kw.get("win_length", n_fft),), torch.float64, seed=seed + 1) + 1.5)
    return x, w.to(device).requires_grad_()


def istft_inputs(n_fft, frames, kw, seed=0, device="cpu"):
    bins = n_fft if kw.get("onesided") is False else n_fft // 2 + 1
    spec = rand((2, bins, frames), torch.complex128, seed=seed).to(device).requires_grad_()
    w = rand((kw.get("win_length", n_fft),), torch.float64, seed=seed + 1) + 1.5
    return spec, w.to(device).requires_grad_()


def istft_fn(n_fft, kw):
    return lambda s, w: complexext.istft(s, n_fft, window=w, **kw)


@pytest.mark.float64
@pytest.mark.parametrize("case", STFT_CASES, ids=str)
def test_stft_gradcheck(case, device):
    dtype, shape, n_fft, kw = case
    x, w = stft_inputs(*case, device=device)
    fn = stft_fn(n_fft, kw)
    assert gradcheck(fn, (x, w), **ALL)
    assert gradgradcheck(fn, (x, w), check_fwd_over_rev=True, check_batched_grad=True)


@pytest.mark.float64
@pytest.mark.parametrize("case", ISTFT_CASES, ids=str)
def test_istft_gradcheck(case, device):
    n_fft, frames, kw = case
    spec, w = istft_inputs(*case, device=device)
    fn = istft_fn(n_fft, kw)
    assert gradcheck(fn, (spec, w), **ALL)
    assert gradgradcheck(fn, (spec, w), check_fwd_over_rev=True, check_batched_grad=True)


RAW = [  # the path compiled code takes: the ops' own autograd kernels
    ("stft", torch.float64, (2, 14), (6, 2, 1, True)),
    ("stft", torch.complex128, (2, 13), (5, 3, 0, False)),
    ("stft", torch.float64, (2, 17), (6, 2, 0, True, 3, "reflect")),  # padded as read
    ("stft", torch.complex128, (2, 13), (5, 3, 1, False, 2, "replicate")),
    ("istft", torch.complex128, (2, 4, 5), (6, 2, 2, True, 1, 9)),
    ("istft", torch.complex128, (1, 6, 4), (6, 3, 1, False, 0, 16)),  # zeros past the end
]


@pytest.mark.parametrize("op,dtype,shape,args", RAW, ids=lambda v: str(v).replace(" ", ""))
def test_raw_ops(op, dtype, shape, args, device):
    x = rand(shape, dtype, seed=3).to(device).requires_grad_()
    w = (rand((args[0],), torch.float64, seed=4) + 1.5).to(device).requires_grad_()
    fn = lambda x, w: getattr(ops, op)(x, w, *args)  # noqa: E731
    assert gradcheck(fn, (x, w), **ALL)
    assert gradgradcheck(fn, (x, w), check_fwd_over_rev=True)


def test_raw_op_refuses_torch_func(device):
    x = rand((1, 16), torch.float32).to(device)
    w = torch.ones(8, dtype=torch.float32, device=device)
    with pytest.raises(RuntimeError, match="^complexext::stft: torch.func transforms"):
        jvp(lambda x: ops.stft(x, w, 8, 2, 0, True), (x,), (x,))


PAIRS = [  # ours, torch's, inputs
    (lambda x, w: complexext.stft(x, 16, 4, window=w, return_complex=True),
     lambda x, w: torch.stft(x, 16, 4, window=w, return_complex=True), "signal"),
    (lambda s, w: complexext.istft(s, 16, 4, window=w, length=38),
     lambda s, w: torch.istft(s, 16, 4, window=w, length=38), "spectrum"),
]


def pair_inputs(kind):
    w = torch.hann_window(16, dtype=torch.float64) + 0.1
    x = rand((3, 40), torch.float64, seed=5)
    if kind == "spectrum":
        x = torch.stft(x, 16, 4, window=w, return_complex=True)
    return x, w


def as_real(t):
    return torch.view_as_real(t) if t.is_complex() else t


@pytest.mark.float64
@pytest.mark.parametrize("ours,theirs,kind", PAIRS, ids=["stft", "istft"])
def test_torch_func_against_torch(ours, theirs, kind, device):
    x0, w0 = pair_inputs(kind)
    tx0, tw0 = torch.randn_like(x0), torch.randn_like(w0)

    def run(fn, dev):
        x, w, tx, tw = (t.to(dev) for t in (x0, w0, tx0, tw0))
        return [f(fn) for f in (
            lambda f: jvp(f, (x, w), (tx, tw))[1],
            lambda f: vmap(f, (0, None))(torch.stack([x, 2 * x]), w),
            lambda f: vmap(f, (None, 0))(x, torch.stack([w, w.flip(0)])),
            lambda f: vmap(f, (0, 0))(torch.stack([x, 2 * x]), torch.stack([w, w.flip(0)])),
            lambda f: jacrev(lambda w: as_real(f(x, w)))(w),
            lambda f: jacfwd(lambda w: as_real(f(x, w)))(w),
            lambda f: jacfwd(jacrev(lambda w: as_real(f(x, w)).pow(2).sum()))(w),
            lambda f: vmap(lambda t: jvp(lambda x: f(x, w), (x,), (t,))[1])(
                torch.stack([tx, -tx])))]
    for got, expect in zip(run(ours, device), run(theirs, "cpu")):
        assert got.device.type == device
        torch.testing.assert_close(got.cpu(), expect)


@pytest.mark.float64
def test_gradients_against_torch(device):
    for ours, theirs, kind in PAIRS:
        x, w = pair_inputs(kind)
        grads = []
        for f, dev in ((ours, device), (theirs, "cpu")):
            xr, wr = x.to(dev).requires_grad_(), w.to(dev).requires_grad_()
            grads.append([g.cpu() for g in
                          torch.autograd.grad(as_real(f(xr, wr)).pow(2).sum(), (xr, wr))])
        torch.testing.assert_close(grads[0], grads[1])


def rounded_ratio(got, ref):
    """||got - ref|| over the error of ref rounded to got's dtype (the floor)."""
    got = to_cpu(got)
    floor = (ref.to(got.dtype).to(ref.dtype) - ref).norm()
    return float((got.to(ref.dtype) - ref).norm() / floor)


def test_complex32_derivatives_at_the_floor(device):
    """Backward of a float16 -> complex32 stft and jvp of a complex32 istft (on
    the device) against complex128 on the CPU, as ratios to the rounding floor
    of the exact result."""
    w = torch.hann_window(400, dtype=torch.float64)
    wd = w.float().to(device)
    x = rand((2, 4000), torch.float16, seed=6)
    g = rand((2, 201, 26), torch.complex32, seed=7)
    xr, x64 = x.to(device).requires_grad_(), x.double().requires_grad_()
    (gx,) = torch.autograd.grad(
        complexext.stft(xr, 400, 160, window=wd, return_complex=True), xr, to_device(g, device))
    (gx64,) = torch.autograd.grad(
        torch.stft(x64, 400, 160, window=w, return_complex=True), x64, g.to(torch.complex128))
    assert gx.dtype == torch.float16 and gx.device.type == device
    assert rounded_ratio(gx, gx64) <= 1.15
    spec, t = rand((2, 201, 26), torch.complex32, seed=8), rand((2, 201, 26),
                                                                torch.complex32, seed=9)
    _, ty = jvp(lambda s: complexext.istft(s, 400, 160, window=wd), (to_device(spec, device),),
                (to_device(t, device),))
    _, ty64 = jvp(lambda s: torch.istft(s, 400, 160, window=w),
                  (spec.to(torch.complex128),), (t.to(torch.complex128),))
    assert ty.dtype == torch.float16 and rounded_ratio(ty, ty64) <= 1.15
