"""Derivatives of complex convolution for input, weight and bias: gradcheck
and gradgradcheck in complex128, backward and forward-mode results against
torch's own complex128 convolution, complex32 derivatives against
complex128 ones, and the raw op (the path compiled code takes)."""
import pytest
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as TF
from torch.autograd import gradcheck, gradgradcheck

import complexext.nn.functional as CF
from complexext._load import ops
from _refs import rand

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


def setup(case, wdtype=C128, bdtype=C128, dtype=C128):
    name, xs, ws, kw = case
    cout = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    x = rand(xs, dtype, seed=1).requires_grad_()
    w = rand(ws, wdtype, seed=2).requires_grad_()
    b = rand((cout,), bdtype, seed=3).requires_grad_()
    return (lambda x, w, b: getattr(CF, name)(x, w, b, **kw)), (x, w, b)


FULL = dict(check_forward_ad=True, check_backward_ad=True, check_batched_grad=True,
            check_batched_forward_grad=True)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradcheck(case):
    fn, args = setup(case)
    assert gradcheck(fn, args, **FULL)


@pytest.mark.parametrize("case", CASES[::2], ids=case_id)
def test_gradcheck_real_weight_and_bias(case):
    fn, args = setup(case, wdtype=torch.float64, bdtype=torch.float64)
    assert gradcheck(fn, args, **FULL)


@pytest.mark.parametrize("case", CASES[1:5], ids=case_id)
def test_gradgradcheck(case):
    fn, args = setup(case)
    assert gradgradcheck(fn, args, check_fwd_over_rev=True, check_rev_over_rev=True,
                         check_batched_grad=True)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_backward_and_jvp_match_torch(case):
    """Each formula against torch's complex128 convolution (autograd and
    forward AD through its own complex decomposition)."""
    name, _, _, kw = case
    fn, args = setup(case)
    theirs = lambda x, w, b: getattr(TF, name)(x, w, b, **kw)  # noqa: E731
    y = fn(*args)
    g = rand(y.shape, C128, seed=4)
    ours_g = torch.autograd.grad(y, args, g)
    their_g = torch.autograd.grad(theirs(*args), args, g)
    for a, b in zip(ours_g, their_g):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
    tangents = [rand(a.shape, a.dtype, seed=5 + i) for i, a in enumerate(args)]
    outs = []
    for f in (fn, theirs):
        with fwAD.dual_level():
            duals = [fwAD.make_dual(a.detach(), t) for a, t in zip(args, tangents)]
            outs.append(fwAD.unpack_dual(f(*duals)).tangent)
    torch.testing.assert_close(outs[0], outs[1], rtol=1e-12, atol=1e-12)


def rel(a, ref):
    return float((a.to(C128) - ref).abs().norm() / ref.abs().norm())


@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[4]], ids=case_id)
def test_complex32_derivatives_at_the_floor(case):
    """complex32 gradients and tangents against complex128 ones on the same
    (complex32) data: each is rounded once from an fp32 accumulation."""
    name, xs, ws, kw = case
    fn, args128 = setup(case)
    args32 = [a.detach().to(C32).requires_grad_() for a in args128]
    args128 = [a.detach().to(C32).to(C128).requires_grad_() for a in args32]
    g32 = rand(fn(*args32).shape, C32, seed=4)
    exact = torch.autograd.grad(fn(*args128), args128, g32.to(C128))
    got = torch.autograd.grad(fn(*args32), args32, g32)
    for a, ref in zip(got, exact):
        assert a.dtype == C32
        assert rel(a, ref) <= 1.15 * rel(ref.to(C32), ref)
    t32 = [rand(a.shape, C32, seed=7 + i) for i, a in enumerate(args32)]
    with fwAD.dual_level():
        t = fwAD.unpack_dual(fn(*[fwAD.make_dual(a.detach(), u) for a, u in zip(args32, t32)]))
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


@pytest.mark.parametrize("xs,ws,args", RAW, ids=["conv", "transposed"])
def test_raw_op_gradcheck(xs, ws, args):
    """torch.ops.complexext.convolution differentiates itself (its Autograd
    kernel): backward, forward AD and second order, as compiled code needs."""
    cout = ws[1] * args[-1] if args[3] else ws[0]
    x, w = rand(xs, C128, seed=1).requires_grad_(), rand(ws, C128, seed=2).requires_grad_()
    b = rand((cout,), C128, seed=3).requires_grad_()
    fn = lambda x, w, b: ops.convolution(x, w, b, *args)  # noqa: E731
    assert gradcheck(fn, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(fn, (x, w, b))
