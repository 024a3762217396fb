"""complexext.nn modules: torch's constructor arguments and attributes,
padding modes against torch.nn.functional.pad + conv in complex128, the
complex initialisation's statistics, state_dict, .to(), functional_call,
complex64 and complex32 use. The forward passes run on each device against
references on the CPU (complex128 cases skip on MPS: no float64); the
initialisation statistics are checked on the CPU."""
import math

import pytest
import torch
import torch.nn as tnn
import torch.nn.functional as TF

import complexext.nn as cnn
from complexext.nn import init
from conftest import to_cpu, to_device, widest
from support.refs import rand

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
PAIRS = [(cnn.ComplexConv1d, tnn.Conv1d), (cnn.ComplexConv2d, tnn.Conv2d),
         (cnn.ComplexConvTranspose1d, tnn.ConvTranspose1d),
         (cnn.ComplexConvTranspose2d, tnn.ConvTranspose2d)]
ATTRS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
         "transposed", "output_padding", "groups", "padding_mode")


def kwargs(cls):
    kw = dict(stride=2, padding=1, dilation=1, groups=2, bias=True)
    if "Transpose" in cls.__name__:
        kw["output_padding"] = 1
    return kw


@pytest.mark.parametrize("ours,theirs", PAIRS, ids=lambda c: c.__name__)
def test_constructor_matches_torch(ours, theirs):
    m, t = ours(4, 6, 3, **kwargs(ours)), theirs(4, 6, 3, **kwargs(ours))
    for a in ATTRS:
        assert getattr(m, a) == getattr(t, a), a
    assert m.weight.shape == t.weight.shape and m.bias.shape == t.bias.shape
    assert m.weight.dtype == C64 and m.bias.dtype == C64
    assert m.extra_repr() == t.extra_repr()
    assert list(dict(m.named_parameters())) == ["weight", "bias"]
    assert ours(4, 6, 3, bias=False).bias is None


@pytest.mark.parametrize("ours,theirs", PAIRS, ids=lambda c: c.__name__)
def test_factory_kwargs(ours, theirs, device):
    m = ours(2, 4, 3, dtype=C32, device=device)
    assert m.weight.dtype == C32 and m.weight.device.type == device
    assert m.bias.device.type == device
    assert ours(2, 4, 3, device="meta").weight.is_meta
    with pytest.raises(TypeError, match=f"^{ours.__name__}: dtype must be complex"):
        ours(2, 4, 3, dtype=torch.float32)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert ours(2, 4, 3).weight.dtype == C128
    finally:
        torch.set_default_dtype(old)


def reference(m, x):
    """The module's output computed by torch in complex128 on the CPU."""
    w, b = to_cpu(m.weight.detach()).to(C128), to_cpu(m.bias.detach()).to(C128)
    x = to_cpu(x).to(C128)
    nd = len(m.kernel_size)
    if m.transposed:
        fn = TF.conv_transpose1d if nd == 1 else TF.conv_transpose2d
        return fn(x, w, b, m.stride, m.padding, m.output_padding, m.groups, m.dilation)
    fn = TF.conv1d if nd == 1 else TF.conv2d
    if m.padding_mode == "zeros":
        return fn(x, w, b, m.stride, m.padding, m.dilation, m.groups)
    x = TF.pad(x, m._reversed_padding_repeated_twice, mode=m.padding_mode)
    return fn(x, w, b, m.stride, 0, m.dilation, m.groups)


@pytest.mark.parametrize("padding", [1, (2, 1), "same", "valid"], ids=str)
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("cls", [cnn.ComplexConv1d, cnn.ComplexConv2d], ids=lambda c: c.__name__)
def test_padding_modes(cls, mode, padding, device):
    nd = 1 if cls is cnn.ComplexConv1d else 2
    if nd == 1 and isinstance(padding, tuple):
        padding = padding[:1]
    torch.manual_seed(0)
    dtype = widest(device)  # complex64 on MPS
    tol = 1e-12 if dtype == C128 else 1e-5
    m = cls(4, 6, (3, 4)[:nd] if nd == 2 else 4, padding=padding, padding_mode=mode, groups=2,
            dtype=dtype).to(device)
    x = to_device(rand((2, 4) + (7, 6)[:nd], dtype), device)
    assert m(x).device.type == device
    close = lambda a, b: torch.testing.assert_close(  # noqa: E731
        to_cpu(a).to(C128), b, rtol=tol, atol=tol)
    close(m(x), reference(m, x))
    close(m(x[0]), reference(m, x[0:1])[0])


def test_padding_wider_than_the_input_is_refused(device):
    m = cnn.ComplexConv1d(1, 1, 3, padding=4, padding_mode="reflect").to(device)
    with pytest.raises(ValueError, match="^ComplexConv1d: reflect padding"):
        m(to_device(rand((1, 1, 4), C64), device))


@pytest.mark.parametrize("cls", [cnn.ComplexConvTranspose1d, cnn.ComplexConvTranspose2d],
                         ids=lambda c: c.__name__)
def test_transposed_output_size_and_padding_mode(cls, device):
    nd = 1 if cls is cnn.ComplexConvTranspose1d else 2
    dtype = widest(device)  # complex64 on MPS
    tol = 1e-12 if dtype == C128 else 1e-5
    m = cls(2, 3, 3, stride=2, padding=1, dtype=dtype, device=device)
    x = to_device(rand((1, 2) + (5,) * nd, dtype), device)
    assert m(x).shape[2:] == (9,) * nd
    y = m(x, output_size=(10,) * nd)
    assert y.shape[2:] == (10,) * nd
    m.output_padding = (1,) * nd
    torch.testing.assert_close(to_cpu(y).to(C128), reference(m, x), rtol=tol, atol=tol)
    with pytest.raises(ValueError, match=f"^{cls.__name__}: requested an output size"):
        m(x, output_size=(12,) * nd)
    with pytest.raises(ValueError, match=f'^{cls.__name__}: only "zeros" padding mode'):
        cls(2, 3, 3, padding_mode="reflect")


def test_initialisation_statistics():
    """Rayleigh magnitude, uniform phase, Var(w) = E|w|^2 = 2 / fan_in (He)."""
    torch.manual_seed(0)
    m = cnn.ComplexConv2d(64, 128, 3)
    w = m.weight.detach().to(C128).flatten()
    fan_in = 64 * 9
    var = w.abs().pow(2).mean().item()
    assert abs(var * fan_in / 2 - 1) < 0.02  # n = 73728 draws: std error 0.4%
    assert abs(w.mean()) < 0.01 * math.sqrt(var)
    assert abs(torch.exp(1j * w.angle()).mean()) < 0.01  # phases uniform
    kurt = w.abs().pow(4).mean().item() / var ** 2  # 2 for a Rayleigh magnitude
    assert abs(kurt - 2) < 0.05
    assert abs(w.real.var().item() / w.imag.var().item() - 1) < 0.03
    assert torch.equal(m.bias.detach(), torch.zeros_like(m.bias))
    t = cnn.ComplexConv2d(64, 128, 3, dtype=C32)
    assert t.weight.dtype == C32
    w = torch.empty(256, 64, 5, dtype=C64)
    init.complex_xavier_(w)
    assert abs(w.abs().pow(2).mean().item() * (64 * 5 + 256 * 5) / 2 - 1) < 0.02


def test_initialisation_is_seeded():
    torch.manual_seed(3)
    a = cnn.ComplexConv1d(4, 4, 3).weight.detach()
    torch.manual_seed(3)
    b = cnn.ComplexConv1d(4, 4, 3).weight.detach()
    assert torch.equal(a, b)


def test_state_dict_and_to(device):
    torch.manual_seed(1)
    m = cnn.ComplexConv2d(3, 4, 3, padding=1, padding_mode="circular")
    x = rand((2, 3, 6, 6), C64)
    n = cnn.ComplexConv2d(3, 4, 3, padding=1, padding_mode="circular")
    n.load_state_dict(m.state_dict())
    assert set(m.state_dict()) == {"weight", "bias"}
    assert torch.equal(n(x), m(x))
    h = m.to(device).to(C32)
    assert h is m and m.weight.dtype == C32 and m.bias.dtype == C32
    assert m.weight.device.type == device
    y32 = m(to_device(x.to(C32), device))
    assert y32.dtype == C32 and y32.device.type == device
    ref = reference(m, x.to(C32))
    err = float((to_cpu(y32).to(C128) - ref).abs().norm() / ref.abs().norm())
    assert err <= 1.15 * float((ref.to(C32).to(C128) - ref).abs().norm() / ref.abs().norm())
    m.to(C64)
    assert m.weight.dtype == C64


@pytest.mark.parametrize("dtype", [C64, C32], ids=str)
def test_functional_call_and_training_step(dtype, device):
    torch.manual_seed(2)
    net = tnn.Sequential(cnn.ComplexConv2d(2, 4, (5, 2), stride=(2, 1), padding=(2, 1),
                                           dtype=dtype),
                         cnn.ComplexConvTranspose2d(4, 2, (5, 2), stride=(2, 1), padding=(2, 1),
                                                    output_padding=(1, 0), dtype=dtype))
    net.to(device)
    x = to_device(rand((2, 2, 8, 5), dtype), device)
    assert net(x).shape == x.shape and net(x).dtype == dtype and net(x).device.type == device
    params = {k: to_device(rand(v.shape, dtype, seed=i), device)
              for i, (k, v) in enumerate(net.named_parameters())}
    got = torch.func.functional_call(net, params, (x,))
    h = cnn.functional.conv2d(x, params["0.weight"], params["0.bias"], (2, 1), (2, 1))
    want = cnn.functional.conv_transpose2d(h, params["1.weight"], params["1.bias"], (2, 1), (2, 1),
                                           (1, 0))
    assert torch.equal(torch.view_as_real(to_cpu(got)), torch.view_as_real(to_cpu(want)))
    loss = torch.view_as_real(net(x)).float().pow(2).sum()
    loss.backward()
    for p in net.parameters():
        assert p.grad is not None and p.grad.dtype == dtype and p.grad.device.type == device
        assert torch.isfinite(torch.view_as_real(to_cpu(p.grad))).all()
