"""Python-side registrations of complexext::convolution and
complexext::convolution_weight_grad: fake kernels, vmap rules and Autograd
kernels (which apply the autograd.Functions of _conv_autograd.py, so the ops
have backward and jvp formulas of their own, in eager and compiled code)."""
import torch
import torch.autograd.forward_ad as fwAD

from . import _conv_autograd as ad
from . import _conv_checks as ck
from ._load import ops


@torch.library.register_fake("complexext::convolution")
def _convolution_fake(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """The CPU kernel's output (shape, dtype, contiguous) after its checks."""
    if not x.is_complex():
        raise RuntimeError(f"convolution: expected a complex input, got {x.dtype}")
    ck.dtypes("convolution", x, w, b, promote=False)
    ck.devices("convolution", x, w, b)
    if not 3 <= x.dim() <= 5:
        raise RuntimeError(f"convolution: expected a (B, C, 1 to 3 spatial dims) input, got "
                           f"{x.dim()} dims")
    nsp = x.dim() - 2
    for what, v, lo in (("stride", stride, 1), ("padding", padding, 0), ("dilation", dilation, 1),
                        ("output_padding", output_padding, 0)):
        ck.int_tuple("convolution", what, list(v), nsp, lo)
    if not transposed and any(output_padding):
        raise RuntimeError("convolution: output_padding needs transposed=True")
    shape = ck.output_shape("convolution", x, w, b, stride, padding, dilation, transposed,
                            output_padding, groups)
    return x.new_empty(shape)


@torch.library.register_fake("complexext::convolution_weight_grad")
def _weight_grad_fake(g, x, weight_size, real_weight, stride, padding, dilation, transposed,
                      output_padding, groups):
    if not x.is_complex() or g.dtype != x.dtype:
        raise RuntimeError(f"convolution_weight_grad: expected complex input and grad_output "
                           f"of one dtype, got {x.dtype} and {g.dtype}")
    w = x.new_empty(weight_size, dtype=ck.REAL_OF[x.dtype] if real_weight else x.dtype)
    shape = _convolution_fake(x, w, None, stride, padding, dilation, transposed, output_padding,
                              groups).shape
    if tuple(g.shape) != tuple(shape):
        raise RuntimeError(f"convolution_weight_grad: expected a grad_output of shape "
                           f"{tuple(shape)}, got {tuple(g.shape)}")
    return w


torch.library.register_vmap(
    "complexext::convolution",
    lambda info, in_dims, *args: ad.batched(ops.convolution, info, in_dims, *args))
torch.library.register_vmap(
    "complexext::convolution_weight_grad",
    lambda info, in_dims, *args: ad.batched_wgrad(ops.convolution_weight_grad, info, in_dims,
                                                  *args))


def _autograd_kernel(name, fn, n_tensors):
    """The op's Autograd kernel: below autograd when no gradient and no
    forward-mode tangent is asked for; the autograd.Function fn otherwise.
    (torch.library.register_autograd would give backward only and drop
    forward-mode tangents silently.)"""
    op = getattr(ops, name)

    def kernel(*args):
        tensors = [t for t in args[:n_tensors] if t is not None]
        tangent = any(fwAD.unpack_dual(t).tangent is not None for t in tensors)
        grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
        if not tangent and not grad:
            with torch._C._AutoDispatchBelowADInplaceOrView():
                return op(*args)
        if torch._C._are_functorch_transforms_active():
            raise RuntimeError(
                f"complexext::{name}: torch.func transforms (grad, vjp, jvp, jacrev, ...) of "
                f"the raw op are not supported; call the complexext.nn.functional functions, "
                f"which support them (outside torch.compile)")
        return fn.apply(*args)
    return kernel


_lib = torch.library.Library("complexext", "IMPL")
_lib.impl("convolution", _autograd_kernel("convolution", ad.Convolution, 3), "Autograd")
_lib.impl("convolution_weight_grad",
          _autograd_kernel("convolution_weight_grad", ad.WeightGrad, 2), "Autograd")
