"""Differentiation of the three FFT primitives.

One torch.autograd.Function per primitive (forward, setup_context, backward,
jvp, vmap). The backward formulas are aten's (derivatives.yaml:
fft_r2c_backward, fft_c2r_backward), written with the dispatchers
``c2c``/``r2c``/``c2r`` below, which are differentiable themselves, so
derivatives of every order compose. The jvp of each (linear) primitive is
the primitive applied to the tangent.

The ops' Autograd kernels (at the end of this module) apply these Functions,
so the ops themselves have backward and jvp, in eager and compiled code.
Under torch.func transforms the dispatchers apply the Functions directly.
"""
import torch
import torch.autograd.forward_ad as fwAD

from .._ops import ops
from .._ops.fft import batch_first
from .._ops.fast import call as _fast
from .common import _function_needed, direct, no_derivatives


def c2c(x, dim, normalization, forward):
    """Differentiable fft_c2c."""
    if direct(x):
        return _fast("fft_c2c", x, dim, normalization, forward)
    if no_derivatives(x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.fft_c2c(x, dim, normalization, forward)
    if _function_needed():
        return C2C.apply(x, tuple(dim), normalization, forward)
    return ops.fft_c2c(x, dim, normalization, forward)


def r2c(x, dim, normalization, onesided):
    """Differentiable fft_r2c."""
    if direct(x):
        return _fast("fft_r2c", x, dim, normalization, onesided)
    if no_derivatives(x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.fft_r2c(x, dim, normalization, onesided)
    if _function_needed():
        return R2C.apply(x, tuple(dim), normalization, onesided)
    return ops.fft_r2c(x, dim, normalization, onesided)


def c2r(x, dim, normalization, last_dim_size):
    """Differentiable fft_c2r."""
    if direct(x):
        return _fast("fft_c2r", x, dim, normalization, last_dim_size)
    if no_derivatives(x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.fft_c2r(x, dim, normalization, last_dim_size)
    if _function_needed():
        return C2R.apply(x, tuple(dim), normalization, last_dim_size)
    return ops.fft_c2r(x, dim, normalization, last_dim_size)


def _vmap_rule(fn, name):
    """The vmap staticmethod of Function fn: the batch dim moved to the front.

    (generate_vmap_rule=True fails in torch 2.13 under jacfwd(jacrev(...))
    for Functions that save no tensors.)
    """
    def vmap(info, in_dims, x, dim, *rest):
        if in_dims[0] is None:
            return fn.apply(x, tuple(dim), *rest), None
        x, dim = batch_first(name, x, in_dims[0], dim)
        return fn.apply(x, tuple(dim), *rest), 0
    return staticmethod(vmap)


def _last(x, dim):
    return dim[-1] % x.dim()


# c2c: the adjoint of an unnormalised forward DFT is the unnormalised
# inverse one, and the normalisation factors are real, so the backward is
# the opposite-direction transform with the same normalization.

def c2c_setup(ctx, inputs, output):
    _, ctx.dim, ctx.normalization, ctx.forward = inputs


def c2c_backward(ctx, grad):
    return c2c(grad, ctx.dim, ctx.normalization, not ctx.forward), None, None, None


# r2c: the forward is "view as complex, c2c, keep the first n//2+1 bins if
# onesided". The backward undoes each step: zero-fill the dropped bins,
# inverse c2c, keep the real part.

def r2c_setup(ctx, inputs, output):
    x, ctx.dim, ctx.normalization, ctx.onesided = inputs
    ctx.n_last = x.shape[_last(x, ctx.dim)]


def r2c_backward(ctx, grad):
    if ctx.onesided:
        d = _last(grad, ctx.dim)
        pad = [0] * (2 * grad.dim())
        pad[2 * (grad.dim() - 1 - d) + 1] = ctx.n_last - grad.shape[d]
        grad = torch.constant_pad_nd(grad, pad)
    gx = torch.real(c2c(grad, ctx.dim, ctx.normalization, False))
    return gx, None, None, None


# c2r: the forward is "fill the other half by conjugate symmetry, inverse
# c2c, keep the real part", reading only the first last_dim_size//2+1 bins.
# The backward is a onesided r2c whose bins 1 .. last_dim_size-(half+1),
# those whose mirror images fall outside the onesided range, count twice.
# Bins beyond the ones read get a zero gradient.

def c2r_setup(ctx, inputs, output):
    x, ctx.dim, ctx.normalization, ctx.last_dim_size = inputs
    ctx.in_last = x.shape[_last(x, ctx.dim)]


def c2r_backward(ctx, grad):
    gx = r2c(grad, ctx.dim, ctx.normalization, True)
    d = _last(gx, ctx.dim)
    half = gx.shape[d]
    doubled = ctx.last_dim_size - half
    if doubled > 0:
        w = torch.ones(half, dtype=grad.dtype, device=grad.device)
        w[1:1 + doubled] = 2
        gx = gx * w.view([half] + [1] * (gx.dim() - 1 - d))
    if ctx.in_last > half:
        pad = [0] * (2 * gx.dim())
        pad[2 * (gx.dim() - 1 - d) + 1] = ctx.in_last - half
        gx = torch.constant_pad_nd(gx, pad)
    return gx, None, None, None


class C2C(torch.autograd.Function):
    setup_context = staticmethod(c2c_setup)
    backward = staticmethod(c2c_backward)

    @staticmethod
    def forward(x, dim, normalization, forward):
        return ops.fft_c2c(x, dim, normalization, forward)

    @staticmethod
    def jvp(ctx, tx, *_):
        return c2c(tx, ctx.dim, ctx.normalization, ctx.forward)


class R2C(torch.autograd.Function):
    setup_context = staticmethod(r2c_setup)
    backward = staticmethod(r2c_backward)

    @staticmethod
    def forward(x, dim, normalization, onesided):
        return ops.fft_r2c(x, dim, normalization, onesided)

    @staticmethod
    def jvp(ctx, tx, *_):
        return r2c(tx, ctx.dim, ctx.normalization, ctx.onesided)


class C2R(torch.autograd.Function):
    setup_context = staticmethod(c2r_setup)
    backward = staticmethod(c2r_backward)

    @staticmethod
    def forward(x, dim, normalization, last_dim_size):
        return ops.fft_c2r(x, dim, normalization, last_dim_size)

    @staticmethod
    def jvp(ctx, tx, *_):
        return c2r(tx, ctx.dim, ctx.normalization, ctx.last_dim_size)


for _fn, _name in ((C2C, "fft_c2c"), (R2C, "fft_r2c"), (C2R, "fft_c2r")):
    _fn.vmap = _vmap_rule(_fn, _name)


def _autograd_kernel(name, fn):
    """The op's Autograd kernel: fn (the autograd.Function above)
    when a gradient or a forward-mode tangent is asked for, else the op below
    autograd.

    Compiled code calls the ops directly, so this is what differentiates it,
    forward (jvp through a compiled function fed forward-AD dual tensors) and
    backward. torch.library.register_autograd would give backward only and
    pass forward-mode tangents through as if they were absent: a silently
    wrong jvp. torch.func transforms of the raw op are refused: they need
    the Function applied at the transform's level, which the public
    complexext.fft functions do outside torch.compile.
    """
    def kernel(x, dim, *rest):
        tangent = fwAD.unpack_dual(x).tangent is not None
        if not tangent and not (torch.is_grad_enabled() and x.requires_grad):
            with torch._C._AutoDispatchBelowADInplaceOrView():
                return getattr(ops, name)(x, dim, *rest)
        if torch._C._are_functorch_transforms_active():
            raise RuntimeError(
                f"complexext::{name}: torch.func transforms (grad, vjp, jvp, jacrev, ...) "
                f"of the raw op are not supported; call the complexext.fft functions, "
                f"which support them (outside torch.compile)")
        return fn.apply(x, tuple(dim), *rest)
    return kernel


_lib = torch.library.Library("complexext", "IMPL")
_lib.impl("fft_c2c", _autograd_kernel("fft_c2c", C2C), "Autograd")
_lib.impl("fft_r2c", _autograd_kernel("fft_r2c", R2C), "Autograd")
_lib.impl("fft_c2r", _autograd_kernel("fft_c2r", C2R), "Autograd")
