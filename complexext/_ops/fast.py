"""The cheap way into an op: complexext._C.call_below_autograd.

call(name, *args) runs complexext::<name>(*args) through the dispatcher
below autograd, as torch.ops.complexext.<name> does inside
torch._C._AutoDispatchBelowADInplaceOrView(), without torch.ops' generic
argument parsing (2 us against 5 us a call on a small tensor). Every
argument of the schema is given, in order: tensors, ints, bools, int
tuples, and stft's pad_mode string. The dispatcher still routes the call
(device kernels, Python dispatch modes such as fake tensors), but
__torch_function__ is not consulted, so callers take this way only when
plain(*tensors) holds: plain torch.Tensor arguments and no torch-function
mode active. The derivative layer decides when no derivative can be asked
for (complexext._autograd.common.direct).
"""
import torch

from .. import _C

call = _C.call_below_autograd

_Tensor = torch.Tensor
_tf_mode = torch._C._is_torch_function_mode_enabled


def plain(*tensors):
    """Whether call() may stand in for torch.ops on these tensors."""
    return not _tf_mode() and all(type(t) is _Tensor for t in tensors)
