"""Python-side registrations of complexext::convolution: the fake kernel,
the vmap rule and the Autograd kernel (which applies the autograd.Function
of _conv_autograd.py, so the op has backward and jvp formulas of its own,
in eager and compiled code)."""
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


torch.library.register_vmap(
    "complexext::convolution",
    lambda info, in_dims, *args: ad.batched(ops.convolution, info, in_dims, *args))


def _autograd_kernel(x, w, b, *rest):
    """Below autograd when no gradient and no forward-mode tangent is asked
    for; the autograd.Function otherwise. (torch.library.register_autograd
    would give backward only and drop forward-mode tangents silently.)"""
    tensors = [t for t in (x, w, b) if t is not None]
    tangent = any(fwAD.unpack_dual(t).tangent is not None for t in tensors)
    grad = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
    if not tangent and not grad:
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.convolution(x, w, b, *rest)
    if torch._C._are_functorch_transforms_active():
        raise RuntimeError(
            "complexext::convolution: torch.func transforms (grad, vjp, jvp, jacrev, ...) of "
            "the raw op are not supported; call the complexext.nn.functional functions, which "
            "support them (outside torch.compile)")
    return ad.Convolution.apply(x, w, b, *rest)


_lib = torch.library.Library("complexext", "IMPL")
_lib.impl("convolution", _autograd_kernel, "Autograd")
