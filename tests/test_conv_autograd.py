"""Derivatives of complex convolution for input, weight and bias: gradcheck
and gradgradcheck in complex128, backward and forward-mode results against
torch's own complex128 convolution, complex32 derivatives against
complex128 ones, and the raw op (the path compiled code takes). On each
device, references on the CPU; complex128 cases skip on MPS (no float64)."""
import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as TF
from torch.autograd import gradcheck, gradgradcheck

import complexext.nn.functional as CF
from complexext._ops import ops
from conftest import to_cpu, to_device
from support.refs import rand

C128, C32 = torch.complex128, torch.complex32

# Small, but with stride, padding, dilation, groups, output_padding, "same".
CASES = [
    ("conv1d", (2, 4, 7), (4, 2, 3), {"stride": 2, "padding": 1, "groups": 2}),
    ("conv1d", (3, 5), (2, 3, 2), {"padding": "same", "dilation": 2}),
    ("conv2d", (1, 2, 5, 6), (3, 2, 2, 3), {"stride": (2, 1), "padding": (1, 0),
                                            "dilation": (1, 2)}),
    ("conv_transpose1d", (2, 4, 4), (4, 1, 3),
     {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 2, 3, 2),
     {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}),
    ("conv_transpose2d", (2, 3, 2), (2, 1, 2, 2), {"stride": 3, "output_padding": 2,
                                                   "dilation": 3}),
]


def case_id(c):
    return f"{c[0]}-{'x'.join(map(str, c[1]))}"


def setup(case, wdtype=C128, bdtype=C128, dtype=C128, device="cpu"):
    name, xs, ws, kw = case
    cout = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    x = to_device(rand(xs, dtype, seed=1), device).requires_grad_()
    w = to_device(rand(ws, wdtype, seed=2), device).requires_grad_()
    b = to_device(rand((cout,), bdtype, seed=3), device).requires_grad_()
    return (lambda x, w, b: getattr(CF, name)(x, w, b, **kw)), (x, w, b)


FULL = dict(check_forward_ad=True, check_backward_ad=True, check_batched_grad=True,
            check_batched_forward_grad=True)


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradcheck(case, device):
    fn, args = setup(case, device=device)
    assert gradcheck(fn, args, **FULL)


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES[::2], ids=case_id)
def test_gradcheck_real_weight_and_bias(case, device):
    fn, args = setup(case, wdtype=torch.float64, bdtype=torch.float64, device=device)
    assert gradcheck(fn, args, **FULL)


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES[1:5], ids=case_id)
def test_gradgradcheck(case, device):
    fn, args = setup(case, device=device)
    assert gradgradcheck(fn, args, check_fwd_over_rev=True, check_rev_over_rev=True,
                         check_batched_grad=True)


@pytest.mark.float64
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_backward_and_jvp_match_torch(case, device):
    """Each formula (on the device) against torch's complex128 convolution on
    the CPU (autograd and forward AD through its own complex decomposition)."""
    name, _, _, kw = case
    fn, args = setup(case, device=device)
    _, host = setup(case)
    theirs = lambda x, w, b: getattr(TF, name)(x, w, b, **kw)  # noqa: E731
    y = fn(*args)
    g = rand(y.shape, C128, seed=4)
    ours_g = torch.autograd.grad(y, args, g.to(device))
    their_g = torch.autograd.grad(theirs(*host), host, g)
    for a, b in zip(ours_g, their_g):
        torch.testing.assert_close(a.cpu(), b, rtol=1e-12, atol=1e-12)
    tangents = [rand(a.shape, a.dtype, seed=5 + i) for i, a in enumerate(args)]
    outs = []
    for f, inputs in ((fn, args), (theirs, host)):
        with fwAD.dual_level():
            duals = [fwAD.make_dual(a.detach(), t.to(a.device)) for a, t in zip(inputs, tangents)]
            outs.append(fwAD.unpack_dual(f(*duals)).tangent.cpu())
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-12, atol=1e-12)


def rel(a, ref):
    return float((to_cpu(a).to(C128) - ref).abs().norm() / ref.abs().norm())


@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[4]], ids=case_id)
def test_complex32_derivatives_at_the_floor(case, device):
    """complex32 gradients and tangents (on the device) against complex128
    ones on the CPU on the same (complex32) data: each is rounded once from
    an fp32 accumulation."""
    name, xs, ws, kw = case
    fn, args128 = setup(case)
    host32 = [a.detach().to(C32) for a in args128]
    args32 = [to_device(a, device).requires_grad_() for a in host32]
    args128 = [a.to(C128).requires_grad_() for a in host32]
    g32 = rand(fn(*args128).shape, C32, seed=4)
    exact = torch.autograd.grad(fn(*args128), args128, g32.to(C128))
    got = torch.autograd.grad(fn(*args32), args32, to_device(g32, device))
    for a, ref in zip(got, exact):
        assert a.dtype == C32 and a.device.type == device
        assert rel(a, ref) <= 1.15 * rel(ref.to(C32), ref)
    t32 = [rand(a.shape, C32, seed=7 + i) for i, a in enumerate(args32)]
    with fwAD.dual_level():
        t = fwAD.unpack_dual(fn(*[fwAD.make_dual(a.detach(), to_device(u, device))
                                  for a, u in zip(args32, t32)]))
        tangent32 = t.tangent
    with fwAD.dual_level():
        duals = [fwAD.make_dual(a.detach(), u.to(C128)) for a, u in zip(args128, t32)]
        tangent128 = fwAD.unpack_dual(fn(*duals)).tangent
    # the three terms are one convolution: one rounding
    assert rel(tangent32, tangent128) <= 1.15 * rel(tangent128.to(C32), tangent128)


RAW = [
    ((2, 4, 6), (4, 2, 3), ([2], [1], [1], False, [0], 2)),
    ((1, 2, 3, 4), (2, 3, 2, 2), ([2, 1], [0, 1], [1, 2], True, [1, 0], 1)),
]


@pytest.mark.float64
@pytest.mark.parametrize("xs,ws,args", RAW, ids=["conv", "transposed"])
def test_raw_op_gradcheck(xs, ws, args, device):
    """torch.ops.complexext.convolution differentiates itself (its Autograd
    kernel): backward, forward AD and second order, as compiled code needs."""
    cout = ws[1] * args[-1] if args[3] else ws[0]
    x = rand(xs, C128, seed=1).to(device).requires_grad_()
    w = rand(ws, C128, seed=2).to(device).requires_grad_()
    b = rand((cout,), C128, seed=3).to(device).requires_grad_()
    fn = lambda x, w, b: ops.convolution(x, w, b, *args)  # noqa: E731
    assert gradcheck(fn, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(fn, (x, w, b))
