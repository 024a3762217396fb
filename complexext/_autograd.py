"""Differentiation of the three FFT primitives.

One torch.autograd.Function per primitive (forward, setup_context, backward,
jvp, vmap). The backward formulas are aten's (derivatives.yaml:
fft_r2c_backward, fft_c2r_backward), written with the dispatchers
``c2c``/``r2c``/``c2r`` below, which are differentiable themselves, so
derivatives of every order compose. The jvp of each (linear) primitive is
the primitive applied to the tangent.

The ops' autograd kernels apply these Functions (see _registrations.py),
so the ops themselves have backward and jvp, in eager and compiled code.
Under torch.func transforms the dispatchers apply the Functions directly.
"""
import torch
import torch.autograd.forward_ad as fwAD

from ._load import ops


def no_derivatives(*tensors):
    """True in eager code when nothing can ask for a derivative of an op on
    these tensors: no gradient (grad mode off, or no tensor requires one), no
    forward-AD level open (so no tangents), no torch.func transform, not
    compiling. The op is then called below autograd: its Autograd kernel, a
    Python function, would decide the same after one more trip through the
    dispatcher (about 6 us of a call on a small tensor)."""
    if torch.compiler.is_compiling() or torch._C._are_functorch_transforms_active():
        return False
    if getattr(fwAD, "_current_level", 0) >= 0:
        return False
    if not torch.is_grad_enabled():
        return True
    return not any(t is not None and t.requires_grad for t in tensors)


def _function_needed():
    """Whether a torch.func transform is active (outside torch.compile).

    Those need the autograd.Function applied at their own level. Everywhere
    else the ops are called: their autograd kernels apply the same Function
    when a gradient or a tangent is asked for, and skip it (and its cost)
    when not. Dynamo cannot trace a Function that defines jvp, so compiled
    code always takes the ops.
    """
    return not torch.compiler.is_compiling() and torch._C._are_functorch_transforms_active()


def c2c(x, dim, normalization, forward):
    """Differentiable fft_c2c."""
    if no_derivatives(x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.fft_c2c(x, dim, normalization, forward)
    if _function_needed():
        return C2C.apply(x, tuple(dim), normalization, forward)
    return ops.fft_c2c(x, dim, normalization, forward)


def r2c(x, dim, normalization, onesided):
    """Differentiable fft_r2c."""
    if no_derivatives(x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.fft_r2c(x, dim, normalization, onesided)
    if _function_needed():
        return R2C.apply(x, tuple(dim), normalization, onesided)
    return ops.fft_r2c(x, dim, normalization, onesided)


def c2r(x, dim, normalization, last_dim_size):
    """Differentiable fft_c2r."""
    if no_derivatives(x):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.fft_c2r(x, dim, normalization, last_dim_size)
    if _function_needed():
        return C2R.apply(x, tuple(dim), normalization, last_dim_size)
    return ops.fft_c2r(x, dim, normalization, last_dim_size)


def batch_first(name, x, bdim, dim):
    """x with its batch dim bdim moved to the front, and dim shifted past it."""
    x = x.movedim(bdim, 0)
    nd = x.dim() - 1
    for d in dim:
        torch._check(-nd <= d < nd, lambda: f"{name}: dim {d} out of range for a {nd}-d tensor")
    return x, [d % nd + 1 for d in dim]


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
