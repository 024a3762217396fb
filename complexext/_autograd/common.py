"""What decides how a differentiable dispatcher calls its op.

Every family (fft, stft, conv) has dispatchers that call its op below
autograd when nothing can ask for a derivative, apply its autograd.Function
under torch.func transforms, and call the op (whose Autograd kernel applies
the same Function) everywhere else.
"""
import torch
import torch.autograd.forward_ad as fwAD

_Tensor = torch.Tensor
_compiling = torch.compiler.is_compiling
_functorch = torch._C._are_functorch_transforms_active
_grad_on = torch.is_grad_enabled
_tf_mode = torch._C._is_torch_function_mode_enabled


def direct(x, w=None, b=None):
    """no_derivatives(x, w, b), and the tensors plain ones with no
    torch-function mode active (complexext._ops.fast.plain): the op may be
    called through complexext._ops.fast.call, the cheapest way in (one
    dispatcher pass, about 2 us of overhead against torch.ops' 5). Written
    out, not built from the two: it is on every eager call's path."""
    return (type(x) is _Tensor and (w is None or type(w) is _Tensor)
            and (b is None or type(b) is _Tensor)
            and not ((x.requires_grad or (w is not None and w.requires_grad)
                      or (b is not None and b.requires_grad)) and _grad_on())
            and getattr(fwAD, "_current_level", 0) < 0 and not _functorch()
            and not _tf_mode() and not _compiling())


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


def autograd_kernel(name, fn, n_tensors, public):
    """The Autograd kernel of op `name` whose first n_tensors arguments are
    tensors (or None): below autograd when no gradient and no forward-mode
    tangent is asked for; the autograd.Function fn otherwise.
    (torch.library.register_autograd would give backward only and drop
    forward-mode tangents silently.) `public` names the functions that
    support torch.func transforms, for the error on the raw op."""
    from .._ops import ops
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
                f"the raw op are not supported; call {public}, which support them "
                f"(outside torch.compile)")
        return fn.apply(*args)
    return kernel
