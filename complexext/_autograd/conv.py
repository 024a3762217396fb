"""Differentiation of complexext::convolution and its weight gradient
complexext::convolution_weight_grad.

y = conv(x, w) + b is complex-bilinear in (x, w) (no conjugates), so with
PyTorch's conventions (backward of a complex-linear map A is A^H g):

    grad_x = A_w^H g : the adjoint convolution with conj(w): a transposed
             convolution for a convolution and the other way round, with
             the same stride, padding, dilation and groups;
    grad_w = A_x^H g : the correlation of conj(x) with g at each tap: the
             op convolution_weight_grad (aten's real weight gradient on the
             doubled layout), differentiable in turn (WeightGrad below);
    grad_b = g summed over batch and spatial dims;
    jvp    = conv(tx, w) + conv(x, tw) + tb, computed as one convolution
             with stacked channels (one rounding in complex32).

A real weight or bias gets the real part of its gradient. Every formula is
written with the differentiable dispatchers `convolution` and
`conv_weight_grad` below, so derivatives of every order compose. Each op's
Autograd kernel (at the end of this module) applies its Function; under
torch.func transforms the dispatchers apply them directly.
"""
import torch

from .._ops import ops
from .._ops.conv import batched, batched_wgrad
from .._ops.fast import call as _fast
from .common import _function_needed, autograd_kernel, direct, no_derivatives


def convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """Differentiable complexext::convolution (batched input, tuple args)."""
    args = (list(stride), list(padding), list(dilation), transposed, list(output_padding), groups)
    if direct(x, w, b):
        return _fast("convolution", x, w, b, *args)
    if no_derivatives(x, w, b):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.convolution(x, w, b, *args)
    if _function_needed():
        return Convolution.apply(x, w, b, *args)
    return ops.convolution(x, w, b, *args)


def conv_weight_grad(g, x, weight_size, real_weight, stride, padding, dilation, transposed,
                     output_padding, groups):
    """Differentiable complexext::convolution_weight_grad."""
    args = (list(weight_size), real_weight, list(stride), list(padding), list(dilation),
            transposed, list(output_padding), groups)
    if no_derivatives(g, x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.convolution_weight_grad(g, x, *args)
    if _function_needed():
        return WeightGrad.apply(g, x, *args)
    return ops.convolution_weight_grad(g, x, *args)


def _conj(t):
    """A conjugated copy (conj_physical): no conj views, which forward-mode AD
    under vmap does not handle in torch 2.13."""
    return torch.conj_physical(t) if t.is_complex() else t


def _narrow(t, sizes):
    """t cut to sizes along its spatial dims (2, 3, ...)."""
    for i, n in enumerate(sizes):
        if t.shape[i + 2] != n:
            t = t.narrow(i + 2, 0, n)
    return t


def _sum_bias(g):
    """g summed over all dims but 1 (complex32 has no sum on CPU: summed as
    real pairs)."""
    dims = [0] + list(range(2, g.dim()))
    return torch.view_as_complex(torch.view_as_real(g.resolve_conj()).sum(dims))


def setup_context(ctx, inputs, output):
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = inputs
    ctx.save_for_backward(x, w)
    ctx.save_for_forward(x, w)
    ctx.args = (stride, padding, dilation, transposed, output_padding, groups)
    ctx.bias = None if b is None else b.dtype
    ctx.out_shape = output.shape


def input_grad(g, x, w, args):
    stride, padding, dilation, transposed, output_padding, groups = args
    nsp = x.dim() - 2
    if transposed:
        gx = convolution(g, _conj(w), None, stride, padding, dilation, False, [0] * nsp, groups)
        return _narrow(gx, x.shape[2:])
    opad = [x.shape[i + 2] - ((g.shape[i + 2] - 1) * stride[i] - 2 * padding[i]
                              + dilation[i] * (w.shape[i + 2] - 1) + 1) for i in range(nsp)]
    return convolution(g, _conj(w), None, stride, padding, dilation, True, opad, groups)


def weight_grad(g, x, w, args):
    """sum of conj(x) * g at each tap (the op; Re of it for a real weight)."""
    return conv_weight_grad(g, x, w.shape, not w.is_complex(), *args)


def backward(ctx, g):
    x, w = ctx.saved_tensors
    gx = gw = gb = None
    if ctx.needs_input_grad[0]:
        gx = input_grad(g, x, w, ctx.args)
    if ctx.needs_input_grad[1]:
        gw = weight_grad(g, x, w, ctx.args)
    if ctx.bias is not None and ctx.needs_input_grad[2]:
        gb = _sum_bias(g)
        gb = gb if ctx.bias.is_complex else gb.real
    return gx, gw, gb, None, None, None, None, None, None


def _conv_pair(x1, w1, x2, w2, b, args):
    """conv(x1, w1) + conv(x2, w2) + b as ONE convolution (each group's input
    channels and weight rows stacked), so complex32 rounds once."""
    g, transposed = args[-1], args[3]
    split = lambda t, d: t.reshape(*t.shape[:d], g, -1, *t.shape[d + 1:])  # noqa: E731
    x = torch.cat([split(x1, 1), split(x2, 1)], 2).reshape(x1.shape[0], -1, *x1.shape[2:])
    if transposed:  # (Cin, Cout/g, k): the summed channels are dim 0
        w = torch.cat([split(w1, 0), split(w2, 0)], 1).reshape(-1, *w1.shape[1:])
    else:
        w = torch.cat([w1, w2], 1)
    return convolution(x, w, b, *args)


def jvp(ctx, tx, tw, tb, *_):
    """conv(tx, w) + conv(x, tw) + tb (bilinear), in one convolution."""
    x, w = ctx.saved_tensors
    if tx is not None and tw is not None:
        return _conv_pair(tx, w, x, tw, tb, ctx.args)
    if tx is not None or tw is not None:
        return convolution(*((tx, w) if tx is not None else (x, tw)), tb, *ctx.args)
    shape = [1, -1] + [1] * (x.dim() - 2)
    return tb.to(x.dtype).reshape(shape).expand(ctx.out_shape)


class Convolution(torch.autograd.Function):
    setup_context = staticmethod(setup_context)
    backward = staticmethod(backward)
    jvp = staticmethod(jvp)

    @staticmethod
    def forward(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
        return ops.convolution(x, w, b, stride, padding, dilation, transposed, output_padding,
                               groups)

    @staticmethod
    def vmap(info, in_dims, *args):
        return batched(Convolution.apply, info, in_dims, *args)


# convolution_weight_grad: W = sum conj(x) g, complex-linear in g and
# conjugate-linear in x. With gW the gradient of W: grad_g = A_x^H gW is the
# forward convolution of x with weight gW, and grad_x is the input gradient
# of a convolution with weight gW (conv_transpose(g, conj(gW)) or its
# transposed counterpart). jvp: W(tg, x) + W(g, tx), one call on batches
# stacked along dim 0.

def wgrad_setup_context(ctx, inputs, output):
    g, x, weight_size, real_weight, *args = inputs
    ctx.save_for_backward(g, x)
    ctx.save_for_forward(g, x)
    ctx.wargs = (weight_size, real_weight, *args)
    ctx.args = tuple(args)


def wgrad_backward(ctx, gw):
    g, x = ctx.saved_tensors
    grad_g = grad_x = None
    if ctx.needs_input_grad[0]:
        grad_g = convolution(x, gw, None, *ctx.args)
    if ctx.needs_input_grad[1]:
        grad_x = input_grad(g, x, gw, ctx.args)
    return grad_g, grad_x, None, None, None, None, None, None, None, None


def wgrad_jvp(ctx, tg, tx, *_):
    g, x = ctx.saved_tensors
    if tg is not None and tx is not None:
        return conv_weight_grad(torch.cat([tg, g]), torch.cat([x, tx]), *ctx.wargs)
    return conv_weight_grad(tg, x, *ctx.wargs) if tg is not None else \
        conv_weight_grad(g, tx, *ctx.wargs)


class WeightGrad(torch.autograd.Function):
    setup_context = staticmethod(wgrad_setup_context)
    backward = staticmethod(wgrad_backward)
    jvp = staticmethod(wgrad_jvp)

    @staticmethod
    def forward(g, x, *args):
        return ops.convolution_weight_grad(g, x, *args)

    @staticmethod
    def vmap(info, in_dims, *args):
        return batched_wgrad(WeightGrad.apply, info, in_dims, *args)


_lib = torch.library.Library("complexext", "IMPL")
_PUBLIC = "the complexext.nn.functional functions"
_lib.impl("convolution", autograd_kernel("convolution", Convolution, 3, _PUBLIC), "Autograd")
_lib.impl("convolution_weight_grad",
          autograd_kernel("convolution_weight_grad", WeightGrad, 2, _PUBLIC), "Autograd")
