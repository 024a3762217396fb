"""The front end of complex convolution: torch's argument handling
(ints or tuples, padding "same"/"valid", unbatched input, dtype and device
rules) over the differentiable primitive of complexext._autograd.conv."""
import torch

from .._autograd import conv as ad
from .._ops import conv_args as ck


def _same_padding(name, x, w, stride, dilation):
    """torch's padding="same": total d*(k-1) per dim, half on each side and
    the odd one on the right, which a zero-padded copy of the input takes.
    Returns (input, symmetric padding)."""
    if any(s != 1 for s in stride):
        raise ValueError(f"{name}: padding='same' is not supported for strided convolutions "
                         f"(stride {stride})")
    nsp = x.dim() - 2
    left, extra = [], [0] * (2 * nsp)
    for i in range(nsp):
        total = dilation[i] * (w.shape[i + 2] - 1)
        left.append(total // 2)
        extra[2 * (nsp - 1 - i) + 1] = total - 2 * (total // 2)
    if any(extra):
        x = torch.constant_pad_nd(x, extra)
    return x, tuple(left)


def _prepare(name, nsp, x, w, b):
    """dtypes, devices, dims; returns (x batched, w, b, was_unbatched)."""
    x = ck.dtypes(name, x, w, b)
    ck.devices(name, x, w, b)
    if w.dim() != nsp + 2:
        raise ValueError(f"{name}: expected a {nsp + 2}-d weight, got shape {tuple(w.shape)}")
    if x.dim() not in (nsp + 1, nsp + 2):
        raise ValueError(f"{name}: expected a {nsp + 1}-d (unbatched) or {nsp + 2}-d (batched) "
                         f"input, got shape {tuple(x.shape)}")
    unbatched = x.dim() == nsp + 1
    return (x.unsqueeze(0) if unbatched else x), w, b, unbatched


def _groups(name, groups):
    if isinstance(groups, bool) or not isinstance(groups, (int, torch.SymInt)):
        raise TypeError(f"{name}: groups must be an int, got {type(groups).__name__}")
    if groups < 1:
        raise ValueError(f"{name}: groups must be >= 1, got {groups}")
    return groups


def conv(name, nsp, input, weight, bias, stride, padding, dilation, groups):
    x, w, b, unbatched = _prepare(name, nsp, input, weight, bias)
    stride = ck.int_tuple(name, "stride", stride, nsp, 1)
    dilation = ck.int_tuple(name, "dilation", dilation, nsp, 1)
    groups = _groups(name, groups)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nsp
        elif padding == "same":
            x, padding = _same_padding(name, x, w, stride, dilation)
        else:
            raise ValueError(f"{name}: padding must be 'valid', 'same', an int or a tuple of "
                             f"ints, got {padding!r}")
    else:
        padding = ck.int_tuple(name, "padding", padding, nsp, 0)
    zeros = (0,) * nsp
    ck.output_shape(name, x, w, b, stride, padding, dilation, False, zeros, groups)
    y = ad.convolution(x, w, b, stride, padding, dilation, False, zeros, groups)
    return y.squeeze(0) if unbatched else y


def conv_transpose(name, nsp, input, weight, bias, stride, padding, output_padding, groups,
                   dilation):
    x, w, b, unbatched = _prepare(name, nsp, input, weight, bias)
    stride = ck.int_tuple(name, "stride", stride, nsp, 1)
    dilation = ck.int_tuple(name, "dilation", dilation, nsp, 1)
    if isinstance(padding, str):
        raise ValueError(f"{name}: padding must be an int or a tuple of ints, got {padding!r}")
    padding = ck.int_tuple(name, "padding", padding, nsp, 0)
    output_padding = ck.int_tuple(name, "output_padding", output_padding, nsp, 0)
    groups = _groups(name, groups)
    ck.output_shape(name, x, w, b, stride, padding, dilation, True, output_padding, groups)
    y = ad.convolution(x, w, b, stride, padding, dilation, True, output_padding, groups)
    return y.squeeze(0) if unbatched else y
