"""Differentiation of complexext::bmm, C = A B (batched).

C is complex-bilinear in (A, B), so with PyTorch's conventions:

    grad_A = G B^H,    grad_B = A^H G,
    jvp    = tA B + A tB, computed as ONE product [tA, A] [B; tB] (the
             inner dims stacked), so that complex32 rounds once.

Each formula uses the differentiable dispatcher `bmm` below, so
derivatives of every order compose. The op's Autograd kernel (at the end
of this module) applies the Function; under torch.func transforms the
dispatcher applies it directly.
"""
import torch

from .._ops import ops
from .._ops.matmul import batched
from .common import _function_needed, autograd_kernel, no_derivatives


def bmm(a, b):
    """Differentiable complexext::bmm."""
    if no_derivatives(a, b):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.bmm(a, b)
    if _function_needed():
        return Bmm.apply(a, b)
    return ops.bmm(a, b)


def _h(t):
    """The conjugate transpose of a batch of matrices, as a plain tensor
    (conj_physical: forward-mode AD under vmap does not take conj views)."""
    return torch.conj_physical(t).transpose(1, 2)


def setup_context(ctx, inputs, output):
    a, b = inputs
    ctx.save_for_backward(a, b)
    ctx.save_for_forward(a, b)


def backward(ctx, g):
    a, b = ctx.saved_tensors
    ga = bmm(g, _h(b)) if ctx.needs_input_grad[0] else None
    gb = bmm(_h(a), g) if ctx.needs_input_grad[1] else None
    return ga, gb


def jvp(ctx, ta, tb):
    a, b = ctx.saved_tensors
    if ta is not None and tb is not None:
        return bmm(torch.cat([ta, a], 2), torch.cat([b, tb], 1))
    return bmm(ta, b) if ta is not None else bmm(a, tb)


class Bmm(torch.autograd.Function):
    setup_context = staticmethod(setup_context)
    backward = staticmethod(backward)
    jvp = staticmethod(jvp)

    @staticmethod
    def forward(a, b):
        return ops.bmm(a, b)

    @staticmethod
    def vmap(info, in_dims, a, b):
        return batched(Bmm.apply, info, in_dims, a, b)


_lib = torch.library.Library("complexext", "IMPL")
_lib.impl("bmm", autograd_kernel("bmm", Bmm, 2, "complexext.matmul, bmm and einsum"), "Autograd")
