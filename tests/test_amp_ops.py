"""complexext.autocast, op by op: what is rerouted to complexext in complex32,
what computes in fp32 with one rounding, what is left alone, what is refused.

Accuracy is judged against complex128 as a bound per element: the error of a
result computed in fp32 and rounded once is at most the error of the exact
result rounded to half precision, plus the fp32 error (a few 2^-24 of the
value, far below a half ulp)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import complexext
from complexext import fft as cfft
from complexext.amp import GradScaler
from support.refs import ALL_FUNCS, c2r_output, real_input

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128


def crand(*shape, seed=0, dtype=C32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, dtype=C128, generator=g).to(dtype)


def bits(t):
    """The exact bits of a tensor (torch.equal has no complex32 kernel)."""
    t = t.detach().contiguous()
    if t.dtype == C32:
        return t.view(torch.int32)
    return t.view(torch.int16) if t.dtype == torch.float16 else t


def assert_rounded_once(got, exact, dtype):
    """|got - exact| <= |round(exact) - exact| + 2^-20 |exact| elementwise (complex:
    per part), exact in float64/complex128."""
    exact = exact.to(C128 if exact.is_complex() else torch.float64)
    floor = (exact.to(dtype).to(exact.dtype) - exact).abs()
    err = (got.to(exact.dtype) - exact).abs()
    slack = 2.0 ** -20 * exact.abs() + 1e-30
    worst = ((err - floor) / slack).max().item()
    assert worst <= 1.0, worst


def test_no_op_when_disabled_and_outside():
    x = crand(8)
    with complexext.autocast("cpu", enabled=False):
        assert not complexext.is_autocast_enabled()
        with pytest.raises(NotImplementedError):
            x.exp()
    with complexext.autocast("cpu"):
        assert complexext.is_autocast_enabled()
        x.exp()
    assert not complexext.is_autocast_enabled()
    with pytest.raises(NotImplementedError):  # torch's own complex32 CPU kernels, again
        x.exp()


def test_decorator_form():
    @complexext.autocast("cpu")
    def f(x):
        return torch.fft.fft(x)

    y = f(torch.randn(16, dtype=C64))
    assert y.dtype == C32
    assert torch.fft.fft(torch.randn(16, dtype=C64)).dtype == C64


def test_bad_arguments():
    with pytest.raises(ValueError, match="complexext.autocast: device_type"):
        complexext.autocast("xpu")
    with pytest.raises(TypeError, match="complexext.autocast: enabled"):
        complexext.autocast("cpu", enabled=1)


# --- the ops torch lacks for complex32: fp32 compute, one rounding -------------

X, Y = crand(6, 40, seed=1), crand(40, seed=2)
POS = crand(6, 40, seed=3)  # for log/sqrt/pow: any complex value is fine (principal branch)

UNARY = {
    "exp": lambda t: t.exp(), "log": torch.log, "sqrt": torch.sqrt, "tanh": torch.tanh,
    "reciprocal": lambda t: t.reciprocal(), "pow2": lambda t: t ** 2,
    "pow_half": lambda t: torch.pow(t, 0.5), "abs": torch.abs, "angle": torch.angle,
    "sum": torch.sum, "sum_dim": lambda t: t.sum(-1), "mean": lambda t: t.mean(0),
    "cumsum": lambda t: t.cumsum(-1), "prod": lambda t: t[:, :4].prod(-1),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_op_in_fp32_rounded_once(name):
    f = UNARY[name]
    x = POS if name in ("log", "sqrt", "pow_half") else X
    if name != "abs":  # torch has abs for complex32; autocast computes it in fp32 too
        with pytest.raises(NotImplementedError):
            f(x)  # torch lacks it: the reason for the autocast path
    before = bits(x).clone()
    with complexext.autocast("cpu"):
        got = f(x)
    exact = f(x.to(C128))
    want = C32 if exact.is_complex() else torch.float16
    assert got.dtype == want and got.shape == exact.shape
    assert_rounded_once(got, exact, want)
    assert torch.equal(bits(x), before)


@pytest.mark.parametrize("name,f", [("div", lambda a, b: a / b),
                                    ("pow", lambda a, b: torch.pow(a, b)),
                                    ("rdiv", lambda a, b: 1.5 / a)])
def test_binary_op_in_fp32_rounded_once(name, f):
    with pytest.raises(NotImplementedError):
        f(X, Y)
    with complexext.autocast("cpu"):
        got = f(X, Y)
    exact = f(X.to(C128), Y.to(C128))
    assert got.dtype == C32
    assert_rounded_once(got, exact, C32)


def test_equal_and_polar():
    with complexext.autocast("cpu"):
        assert torch.equal(X, X.clone())
        assert not torch.equal(X, X * 1.5)
        mag, ang = torch.rand(50).half(), (6 * torch.rand(50) - 3).half()
        got = torch.polar(mag, ang)
    assert got.dtype == C32
    assert_rounded_once(got, torch.polar(mag.double(), ang.double()), C32)


def test_in_place_and_out():
    a = X.clone()
    with complexext.autocast("cpu"):
        r = a.div_(Y)
        assert r is a and a.dtype == C32
        out = torch.empty(0, dtype=C32)
        r2 = torch.exp(X, out=out)
        assert r2 is out and out.shape == X.shape
    assert_rounded_once(a, X.to(C128) / Y.to(C128), C32)
    assert_rounded_once(out, X.to(C128).exp(), C32)


def test_wider_operand_keeps_the_wide_result():
    """complex32 with a complex64 (or float32) tensor: torch's promotion gives
    complex64, and so does autocast's fp32 path (no rounding to half)."""
    w = torch.randn(40, dtype=C64)
    with complexext.autocast("cpu"):
        assert (X * w).dtype == C64
        assert (X / w).dtype == C64
        assert (X * torch.randn(40)).dtype == C64
        assert (X * 2.0).dtype == C32
        assert (X / torch.tensor(2.0)).dtype == C32  # a 0-dim tensor does not widen


def test_views_stay_views():
    with complexext.autocast("cpu"):
        assert X.real.dtype == torch.float16
        assert X[:, 1:3]._base is X
        assert torch.view_as_real(X).data_ptr() == X.data_ptr()
        assert X.reshape(40, 6).data_ptr() == X.data_ptr()
        assert X.mT.dtype == C32


def test_broadcast_gradient_in_complex32():
    """torch's backward of a broadcast complex32 product needs sum(), which
    torch lacks on a CPU; under autocast the product runs in fp32 and so does
    its backward; the complex64 parameter's gradient arrives in complex64."""
    g = torch.randn(40, dtype=C64, requires_grad=True)
    with pytest.raises(NotImplementedError):
        (X * g.to(C32)).abs().float().sum().backward()
    g.grad = None
    with complexext.autocast("cpu"):
        loss = (X * g).abs().float().sum()
    loss.backward()
    assert g.grad.dtype == C64
    gw = g.detach().to(C128).requires_grad_()
    (X.to(C128) * gw).abs().sum().backward()
    assert ((g.grad.to(C128) - gw.grad).norm() / gw.grad.norm()).item() < 4 * 2.0 ** -11


# --- rerouted: torch.fft, stft/istft, convolutions, products ------------------

@pytest.mark.parametrize("name", ALL_FUNCS)
@pytest.mark.parametrize("dtype", [C64, C32, torch.float16, torch.float32])
def test_fft_functions_run_in_complex32(name, dtype):
    real = real_input(name)
    if dtype.is_complex and real:
        pytest.skip("rfft/ihfft take real input (torch's own error)")
    g = torch.Generator().manual_seed(5)
    x = torch.randn(3, 12, 10, generator=g, dtype=C128 if dtype.is_complex else torch.float64)
    x = x.to(dtype)
    torch_f = getattr(torch.fft, name)
    with complexext.autocast("cpu"):
        got = torch_f(x)
    if dtype == torch.float32 and not real:
        assert got.dtype == (torch.float32 if c2r_output(name) else C64)  # left alone
        return
    half = x.to(C32 if x.is_complex() else torch.float16)
    want = getattr(cfft, name)(half)
    assert got.dtype == (torch.float16 if c2r_output(name) else C32)
    assert torch.equal(bits(got), bits(want))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft2", "ihfftn"])
@pytest.mark.parametrize("dtype", [C128, torch.float64])
def test_fft_refuses_double(name, dtype):
    x = torch.randn(8, 8, dtype=dtype)
    with complexext.autocast("cpu"):
        with pytest.raises(RuntimeError, match=f"torch.fft.{name}: complexext.autocast .* refuses"):
            getattr(torch.fft, name)(x)


def test_fft_out_argument():
    x = torch.randn(32, dtype=C64)
    out = torch.empty(32, dtype=C32)
    with complexext.autocast("cpu"):
        r = torch.fft.fft(x, out=out)
    assert r is out
    assert torch.equal(bits(out), bits(cfft.fft(x.to(C32))))


def test_stft_istft_run_in_complex32():
    x = torch.randn(2, 3000)
    w = torch.hann_window(256)
    with complexext.autocast("cpu"):
        s = torch.stft(x, 256, 64, window=w, return_complex=True)
        s2 = x.stft(256, 64, window=w, return_complex=True)
        y = torch.istft(s, 256, 64, window=w, length=3000)
    want = complexext.stft(x.half(), 256, 64, window=w, return_complex=True)
    assert s.dtype == C32 and torch.equal(bits(s), bits(want)) and torch.equal(bits(s2), bits(s))
    assert y.dtype == torch.float16
    assert torch.equal(bits(y), bits(complexext.istft(want, 256, 64, window=w, length=3000)))
    with complexext.autocast("cpu"):
        with pytest.raises(RuntimeError, match="torch.stft: complexext.autocast"):
            torch.stft(x.double(), 256, 64, window=w, return_complex=True)


CONVS = [("conv1d", (2, 3, 40), (4, 3, 5), {}),
         ("conv2d", (2, 3, 12, 10), (4, 3, 3, 2), dict(padding=1)),
         ("conv_transpose1d", (2, 3, 40), (3, 4, 5), dict(stride=2)),
         ("conv_transpose2d", (2, 3, 12, 10), (3, 4, 3, 2), dict(stride=(2, 1)))]


@pytest.mark.parametrize("name,xs,ws,kw", CONVS, ids=[c[0] for c in CONVS])
def test_convolutions_run_in_complex32(name, xs, ws, kw):
    x, w = crand(*xs, seed=7, dtype=C64), crand(*ws, seed=8, dtype=C64)
    b = crand(ws[1] if "transpose" in name else ws[0], seed=9, dtype=C64)
    with complexext.autocast("cpu"):
        got = getattr(F, name)(x, w, b, **kw)
        mod_real_in = getattr(F, name)(x.real.contiguous(), w, None, **kw)
    want = getattr(complexext.nn.functional, name)(x.to(C32), w.to(C32), b.to(C32), **kw)
    assert got.dtype == C32 and torch.equal(bits(got), bits(want))
    assert mod_real_in.dtype == C32
    # real operands only: left to torch
    with complexext.autocast("cpu"):
        assert getattr(F, name)(x.real.contiguous(), w.real.contiguous(), **kw).dtype == \
            torch.float32


def test_conv_module_gradients_reach_complex64_weights():
    conv = torch.nn.Conv1d(3, 4, 5, dtype=C64)
    x = crand(2, 3, 40, seed=3, dtype=C64)
    with complexext.autocast("cpu"):
        y = conv(x)
        assert y.dtype == C32
        loss = y.abs().float().pow(2).sum()
    loss.backward()
    assert conv.weight.grad.dtype == C64 and conv.bias.grad.dtype == C64
    w = conv.weight.detach().to(C128).requires_grad_()
    F.conv1d(x.to(C32).to(C128), w, conv.bias.detach().to(C128)).abs().pow(2).sum().backward()
    rel = ((conv.weight.grad.to(C128) - w.grad).norm() / w.grad.norm()).item()
    assert rel < 8 * 2.0 ** -11, rel


@pytest.mark.parametrize("call", ["matmul", "at", "rmatmul", "mm", "bmm", "einsum"])
def test_products_run_in_complex32(call):
    a, b = crand(3, 8, 16, seed=1, dtype=C64), crand(3, 16, 5, seed=2, dtype=C32)
    with complexext.autocast("cpu"):
        got = {"matmul": lambda: torch.matmul(a, b), "at": lambda: a @ b,
               "rmatmul": lambda: b.__rmatmul__(a), "mm": lambda: torch.mm(a[0], b[0]),
               "bmm": lambda: torch.bmm(a, b),
               "einsum": lambda: torch.einsum("bik,bkj->bij", a, b)}[call]()
    want = complexext.matmul(a.to(C32), b)
    if call == "mm":
        want = want[0]
    assert got.dtype == C32 and torch.equal(bits(got), bits(want))


def test_nests_inside_torch_autocast(device):
    """An AMP model's half activations through torch.fft.rfft2 at (4, 512, 768):
    complex32 through complexext, inside torch.autocast(float16), on each device
    (cuFFT's half FFT takes powers of two only: 768 is not one)."""
    lin = torch.nn.Linear(64, 768).to(device)
    x = torch.randn(4, 512, 64).to(device)
    with torch.autocast(device, dtype=torch.float16):
        with complexext.autocast(device):
            h = lin(x)
            assert h.dtype == torch.float16
            y = torch.fft.rfft2(h)
            back = torch.fft.irfft2(y, s=h.shape[-2:])
    assert y.dtype == C32 and y.shape == (4, 512, 385) and y.device.type == device
    assert torch.equal(bits(y), bits(cfft.rfft2(h)))
    assert back.dtype == torch.float16
    err = (back.float() - h.float()).abs().max() / h.float().abs().max()
    assert err < 4 * 2.0 ** -11


# --- bad input -------------------------------------------------------------------

def test_mixed_devices_named():
    a, b = torch.randn(4, 4, dtype=C64), torch.randn(4, 4, dtype=C64, device="meta")
    with complexext.autocast("cpu"):
        with pytest.raises(ValueError, match="torch.matmul: expected all tensors on one device"):
            torch.matmul(a, b)
        with pytest.raises(ValueError, match="torch.einsum: expected all tensors on one device"):
            torch.einsum("ij,jk->ik", a, b)
        with pytest.raises(ValueError, match="conv1d: expected all tensors on one device"):
            F.conv1d(a[None], b[None])


def test_mismatched_product_named_and_inputs_kept():
    a, b = crand(4, 5, dtype=C64), crand(6, 3, dtype=C64)
    before = a.clone(), b.clone()
    with complexext.autocast("cpu"):
        with pytest.raises(ValueError, match="matmul: shapes"):
            a @ b
        with pytest.raises(RuntimeError,
                           match="torch.matmul: complexext.autocast .* refuses complex128"):
            a.to(C128) @ b.to(C128)
    assert torch.equal(a, before[0]) and torch.equal(b, before[1])


def test_other_device_types_are_left_alone():
    """autocast("cuda") does not touch CPU tensors (as torch.autocast)."""
    with complexext.autocast("cuda"):
        assert torch.fft.fft(torch.randn(8, dtype=C64)).dtype == C64
        with pytest.raises(NotImplementedError):
            X.exp()


# --- loss scaling ----------------------------------------------------------------

def test_grad_scaler_unscales_complex_gradients():
    p = torch.nn.Parameter(torch.randn(6, dtype=C64))
    q = torch.nn.Parameter(torch.randn(3))
    opt = torch.optim.SGD([p, q], lr=0.1)
    with pytest.raises(NotImplementedError):  # torch's own, for the record
        s = torch.amp.GradScaler("cpu")
        s.scale((p.abs() ** 2).sum()).backward()
        s.unscale_(opt)
    p.grad = None
    sc = GradScaler("cpu", init_scale=2.0 ** 10)
    sc.scale((p.abs() ** 2).sum() + (q ** 2).sum()).backward()
    sc.unscale_(opt)
    assert torch.allclose(p.grad, 2 * p.detach()) and torch.allclose(q.grad, 2 * q.detach())
    before = p.detach().clone()
    sc.step(opt)
    sc.update()
    assert not torch.equal(p.detach(), before) and sc.get_scale() == 2.0 ** 10
    opt.zero_grad()
    sc.scale((p.abs() ** 2).sum() * np.inf).backward()  # complex inf/NaN gradient: skipped
    before = p.detach().clone()
    sc.step(opt)
    sc.update()
    assert torch.equal(p.detach(), before) and sc.get_scale() == 2.0 ** 9


def test_grad_scaler_refuses_half_gradients():
    p = torch.nn.Parameter(torch.randn(4, dtype=C64).to(C32))
    opt = torch.optim.SGD([p], lr=0.1)
    sc = GradScaler("cpu", init_scale=4.0)
    sc.scale((p.to(C64).abs() ** 2).sum()).backward()
    assert p.grad.dtype == C32
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        sc.step(opt)
