"""torch.compile(fullgraph=True) through complex convolution and its modules:
forward and backward in one graph, complex32, dynamic shapes, forward-mode
AD through compiled code (right, or refused by name; never silently wrong).
On each device; the complex128 cases skip on MPS (no float64)."""
import pytest
import torch
import torch._dynamo.testing
import torch.autograd.forward_ad as fwAD

import complexext.nn as cnn
import complexext.nn.functional as CF
from conftest import to_cpu, to_device
from support.refs import rand

C128 = torch.complex128


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def layers(x, w1, b1, w2):
    """An encoder/decoder pair: conv2d, then conv_transpose2d back."""
    h = CF.conv2d(x, w1, b1, stride=(2, 1), padding=(1, 1))
    y = CF.conv_transpose2d(h * h.abs(), w2, None, stride=(2, 1), padding=(1, 1),
                            output_padding=(1, 0))
    return torch.view_as_real(y).float().pow(2).sum()


def args(dtype=C128, device="cpu"):
    return [to_device(t, device) for t in (
        rand((2, 3, 6, 5), dtype, seed=1), rand((4, 3, 3, 3), dtype, seed=2),
        rand((4,), dtype, seed=3), rand((4, 3, 3, 3), dtype, seed=4))]


def eager_and_compiled(fn, inputs, **compile_kw):
    inputs = [t.requires_grad_() for t in inputs]
    out = fn(*inputs)
    grads = torch.autograd.grad(out, inputs)
    cout = torch.compile(fn, fullgraph=True, **compile_kw)(*inputs)
    cgrads = torch.autograd.grad(cout, inputs)
    return (out, grads), (cout, cgrads)


@pytest.mark.float64
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_forward_and_backward(backend, device):
    (out, grads), (cout, cgrads) = eager_and_compiled(layers, args(device=device),
                                                      backend=backend)
    torch.testing.assert_close(cout, out, rtol=1e-6, atol=0)
    for g, cg in zip(grads, cgrads):
        torch.testing.assert_close(cg, g, rtol=1e-12, atol=1e-12)


def test_one_graph_no_break(device):
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    inputs = [t.requires_grad_() for t in args(torch.complex64, device)]
    torch.compile(layers, backend=counter, fullgraph=True)(*inputs).backward()
    assert counter.frame_count == 1


def test_complex32_compiled(device):
    (out, grads), (cout, cgrads) = eager_and_compiled(layers, args(torch.complex32, device),
                                                      backend="aot_eager")
    torch.testing.assert_close(cout, out)
    for g, cg in zip(grads, cgrads):
        assert cg.dtype == torch.complex32 and cg.device.type == device
        torch.testing.assert_close(torch.view_as_real(to_cpu(cg)), torch.view_as_real(to_cpu(g)))


def test_module_compiled(device):
    torch.manual_seed(0)
    net = torch.nn.Sequential(cnn.ComplexConv1d(2, 4, 3, padding=1, padding_mode="reflect"),
                              cnn.ComplexConvTranspose1d(4, 2, 4, stride=2, padding=1))
    net.to(device)
    x = to_device(rand((3, 2, 8), torch.complex64), device)
    loss = lambda x: torch.view_as_real(net(x)).pow(2).sum()  # noqa: E731
    expect = torch.autograd.grad(loss(x), list(net.parameters()))
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    got = torch.autograd.grad(torch.compile(loss, backend=counter, fullgraph=True)(x),
                              list(net.parameters()))
    assert counter.frame_count == 1
    for g, e in zip(got, expect):
        torch.testing.assert_close(g, e)


@pytest.mark.float64
def test_dynamic_shapes(device):
    w = rand((3, 2, 3), C128)
    wd = w.to(device)
    cfn = torch.compile(lambda x: CF.conv1d(x, wd, padding=1), fullgraph=True,
                        backend="aot_eager", dynamic=True)
    for n in (8, 9, 20):
        x = rand((2, 2, n), C128)
        torch.testing.assert_close(cfn(x.to(device)).cpu(),
                                   torch.nn.functional.conv1d(x, w, padding=1))


def tangent_reference(inputs, tangents):
    return torch.func.jvp(layers, tuple(inputs), tuple(tangents))[1]


@pytest.mark.float64
def test_forward_ad_dual_tensors_through_compiled(device):
    inputs = args(device=device)
    tangents = [rand(t.shape, C128, seed=10 + i).to(device) for i, t in enumerate(inputs)]
    expect = tangent_reference(inputs, tangents)
    cfn = torch.compile(layers, fullgraph=True, backend="aot_eager")
    with fwAD.dual_level():
        out = cfn(*[fwAD.make_dual(a, t) for a, t in zip(inputs, tangents)])
        tangent = fwAD.unpack_dual(out).tangent
    assert tangent is not None
    torch.testing.assert_close(tangent, expect, rtol=1e-10, atol=1e-10)


@pytest.mark.float64
def test_func_jvp_of_compiled(device):
    """torch.func.jvp of a compiled function: right or refused, never wrong."""
    inputs = args(device=device)
    tangents = [rand(t.shape, C128, seed=10 + i).to(device) for i, t in enumerate(inputs)]
    expect = tangent_reference(inputs, tangents)
    for fullgraph in (True, False):
        torch._dynamo.reset()
        cfn = torch.compile(layers, fullgraph=fullgraph, backend="aot_eager")
        try:
            _, tangent = torch.func.jvp(cfn, tuple(inputs), tuple(tangents))
        except Exception as e:  # refused is acceptable; wrong is not
            assert "functorch" in str(e) or "complexext::convolution" in str(e), e
            continue
        torch.testing.assert_close(tangent, expect, rtol=1e-10, atol=1e-10)
