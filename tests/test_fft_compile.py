"""torch.compile(fullgraph=True) through complexext.fft, forward and backward,
and forward-mode AD through compiled functions: correct or refused. On each
device; the float64 cases skip on MPS (no float64)."""
import pytest
import torch
import torch.autograd.forward_ad as fwAD

import complexext
import complexext.fft as cf
from conftest import to_cpu, to_device
from support.refs import rand


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def pipeline(x):
    """A bit of everything: r2c, c2c, c2r, Hermitian ones, padding, norms."""
    y = cf.rfft(x, n=12, norm="ortho")
    z = cf.ifft(y * y, dim=-1)
    w = cf.fft2(z, s=(3, 8))
    return (cf.irfft(z, n=10).pow(2).sum() + cf.hfft(z).sum() + cf.ihfft2(x).abs().sum()
            + torch.view_as_real(w).pow(2).sum() + cf.irfftn(cf.rfftn(x)).sum())


def eager_and_compiled(fn, x, **compile_kw):
    out = fn(x)
    (grad,) = torch.autograd.grad(out, x)
    cfn = torch.compile(fn, fullgraph=True, **compile_kw)
    cout = cfn(x)
    (cgrad,) = torch.autograd.grad(cout, x)
    return (out, grad), (cout, cgrad)


@pytest.mark.float64
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_forward_and_backward(backend, device):
    x = rand((3, 8), torch.float64).to(device).requires_grad_()
    (out, grad), (cout, cgrad) = eager_and_compiled(pipeline, x, backend=backend)
    torch.testing.assert_close(cout, out, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(cgrad, grad, rtol=1e-12, atol=1e-12)


def test_one_graph_no_break(device):
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    x = rand((3, 8), torch.float32).to(device).requires_grad_()
    torch.compile(pipeline, backend=counter, fullgraph=True)(x).backward()
    assert counter.frame_count == 1


def test_complex32_compiled(device):
    x = to_device(rand((4, 64), torch.complex32), device).requires_grad_()

    def fn(x):
        return torch.view_as_real(cf.ifft(cf.fft(x, norm="ortho") * 2, norm="ortho")
                                  ).float().pow(2).sum()
    (out, grad), (cout, cgrad) = eager_and_compiled(fn, x, backend="aot_eager")
    assert cgrad.dtype == torch.complex32 and cgrad.device.type == device
    torch.testing.assert_close(cout, out)
    torch.testing.assert_close(torch.view_as_real(to_cpu(cgrad)), torch.view_as_real(to_cpu(grad)))


@pytest.mark.float64
def test_dynamic_shapes(device):
    cfn = torch.compile(lambda x: cf.rfft(x, norm="forward"), fullgraph=True,
                        backend="aot_eager", dynamic=True)
    for n in (16, 17, 40):
        x = rand((2, n), torch.float64)
        torch.testing.assert_close(cfn(x.to(device)).cpu(), torch.fft.rfft(x, norm="forward"))


def test_overflow_check_is_skipped_inside_compile(device):
    with complexext.overflow_check():
        cfn = torch.compile(lambda x: cf.fft(x), fullgraph=True, backend="aot_eager")
        y = cfn(to_device(torch.full((64,), 2000.0, dtype=torch.float16).to(torch.complex32),
                          device))
    assert torch.isinf(torch.view_as_real(to_cpu(y))).any()


def reference_jvp(x, t):
    return torch.func.jvp(lambda x: pipeline(x), (x,), (t,))[1]


@pytest.mark.float64
def test_forward_ad_dual_tensors_through_compiled(device):
    """Dual tensors through a compiled function: the tangent is right."""
    x, t = rand((3, 8), torch.float64).to(device), rand((3, 8), torch.float64, seed=1).to(device)
    expect = reference_jvp(x, t)
    cfn = torch.compile(pipeline, fullgraph=True, backend="aot_eager")
    with fwAD.dual_level():
        out = cfn(fwAD.make_dual(x, t))
        tangent = fwAD.unpack_dual(out).tangent
    assert tangent is not None
    torch.testing.assert_close(tangent, expect, rtol=1e-12, atol=1e-12)


@pytest.mark.float64
def test_func_jvp_of_compiled(device):
    """torch.func.jvp of a compiled function: refused by Dynamo with fullgraph,
    and correct (eager fallback) without it. Never silently wrong."""
    x, t = rand((3, 8), torch.float64).to(device), rand((3, 8), torch.float64, seed=1).to(device)
    expect = reference_jvp(x, t)
    strict = torch.compile(pipeline, fullgraph=True, backend="aot_eager")
    with pytest.raises(Exception, match="functorch"):
        torch.func.jvp(strict, (x,), (t,))
    torch._dynamo.reset()
    lenient = torch.compile(pipeline, backend="aot_eager")
    _, tangent = torch.func.jvp(lenient, (x,), (t,))
    torch.testing.assert_close(tangent, expect, rtol=1e-12, atol=1e-12)


@pytest.mark.float64
def test_jvp_inside_compiled(device):
    """torch.func.jvp called inside the compiled function: Dynamo traces the
    transform and the raw op refuses it by name (or, some day, it is right)."""
    x, t = rand((3, 8), torch.float64).to(device), rand((3, 8), torch.float64, seed=1).to(device)
    expect = reference_jvp(x, t)

    def inner(x, t):
        return torch.func.jvp(pipeline, (x,), (t,))[1]
    try:
        got = torch.compile(inner, backend="aot_eager")(x, t)
    except Exception as e:  # refused is acceptable; wrong is not
        assert "complexext::fft_r2c: torch.func transforms" in str(e), e
        return
    torch.testing.assert_close(got, expect, rtol=1e-12, atol=1e-12)
