"""Argument checks of complex convolution, shared by the public functions
(complexext.nn.functional, messages start with e.g. "conv2d: ") and the
fake kernel of the primitive (messages start with "convolution: ").

Bad dtypes raise TypeError, mixed devices RuntimeError, other bad values
(shapes, channels, groups, sizes) ValueError.
"""
import operator

import torch

REAL_OF = {torch.complex32: torch.float16, torch.complex64: torch.float32,
           torch.complex128: torch.float64}
COMPLEX_OF = {v: k for k, v in REAL_OF.items()}


def _name(dtype):
    return str(dtype).replace("torch.", "")


def int_tuple(name, what, v, n, minimum):
    """v (an int or a sequence of n ints) as a tuple of n ints >= minimum."""
    seq = list(v) if isinstance(v, (tuple, list, torch.Size)) else [v] * n
    if len(seq) != n:
        raise ValueError(f"{name}: {what} must be an int or {n} ints (one per spatial dim), "
                         f"got {tuple(seq)}")
    out = []
    for e in seq:
        if isinstance(e, bool):
            raise TypeError(f"{name}: {what} must hold ints, got bool")
        if not isinstance(e, torch.SymInt):
            try:
                e = operator.index(e)
            except TypeError:
                raise TypeError(f"{name}: {what} must hold ints, got {type(e).__name__}") from None
        if e < minimum:
            raise ValueError(f"{name}: {what} values must be >= {minimum}, got {tuple(seq)}")
        out.append(e)
    return tuple(out)


def dtypes(name, x, w, b, promote=True):
    """Checks the dtype combination; returns the input, promoted to complex
    when it is real and the weight complex of the same precision."""
    for what, t in (("input", x), ("weight", w), ("bias", b)):
        if t is not None and not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}: expected {what} to be a tensor, got {type(t).__name__}")
    for what, t in (("input", x), ("weight", w), ("bias", b)):
        if t is not None and t.dtype not in REAL_OF and t.dtype not in COMPLEX_OF:
            raise TypeError(f"{name}: unsupported {what} dtype {_name(t.dtype)}: expected "
                            f"complex32, complex64 or complex128 (or the real float16, float32 "
                            f"or float64 of the same precision)")
    if not x.is_complex():
        if not w.is_complex():
            raise TypeError(f"{name}: input and weight are both real ({_name(x.dtype)}, "
                            f"{_name(w.dtype)}); this is complex convolution, use "
                            f"torch.nn.functional.{name} for real tensors")
        if not promote or REAL_OF[w.dtype] != x.dtype:
            raise TypeError(f"{name}: a complex {_name(w.dtype)} weight needs a "
                            f"{_name(w.dtype)} input, or a real {_name(REAL_OF[w.dtype])} one "
                            f"(taken as complex with zero imaginary part); got "
                            f"{_name(x.dtype)}")
        x = x.to(w.dtype)
    ok = (x.dtype, REAL_OF[x.dtype])
    if w.dtype not in ok:
        raise TypeError(f"{name}: a {_name(x.dtype)} input needs a {_name(x.dtype)} or "
                        f"{_name(REAL_OF[x.dtype])} weight, got {_name(w.dtype)}")
    if b is not None and b.dtype not in ok:
        raise TypeError(f"{name}: a {_name(x.dtype)} input needs a {_name(x.dtype)} or "
                        f"{_name(REAL_OF[x.dtype])} bias, got {_name(b.dtype)}")
    return x


def devices(name, x, w, b):
    devs = [x.device, w.device] + ([b.device] if b is not None else [])
    if any(d != devs[0] for d in devs):
        raise RuntimeError(f"{name}: input, weight and bias must be on the same device, got "
                           + ", ".join(str(d) for d in devs))


def output_shape(name, x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """The output shape of a batched convolution; checks channels, groups,
    bias and sizes. The int arguments are tuples, one value per spatial dim."""
    nsp = x.dim() - 2
    if w.dim() != nsp + 2:
        raise ValueError(f"{name}: expected a {nsp + 2}-d weight, got shape {tuple(w.shape)}")
    if groups < 1:
        raise ValueError(f"{name}: groups must be >= 1, got {groups}")
    if w.shape[0] % groups:
        which = "in_channels" if transposed else "out_channels"
        raise ValueError(f"{name}: {which} = weight.shape[0] = {w.shape[0]} is not divisible "
                         f"by groups = {groups}")
    cin = w.shape[0] if transposed else w.shape[1] * groups
    cout = w.shape[1] * groups if transposed else w.shape[0]
    if x.shape[1] != cin:
        raise ValueError(f"{name}: with groups={groups} and a weight of shape "
                         f"{tuple(w.shape)}, the input must have {cin} channels, got "
                         f"{x.shape[1]} (input shape {tuple(x.shape)})")
    if b is not None and tuple(b.shape) != (cout,):
        raise ValueError(f"{name}: expected a bias of shape ({cout},), got {tuple(b.shape)}")
    if any(k < 1 for k in w.shape[2:]):
        raise ValueError(f"{name}: kernel sizes must be >= 1, got a weight of shape "
                         f"{tuple(w.shape)}")
    if x.shape[0] and x.shape[1] and any(n < 1 for n in x.shape[2:]):
        raise ValueError(f"{name}: spatial sizes of a non-empty input must be >= 1, got "
                         f"input shape {tuple(x.shape)}")
    shape = [x.shape[0], cout]
    for i in range(nsp):
        span = dilation[i] * (w.shape[i + 2] - 1) + 1
        if transposed:
            if not (output_padding[i] < stride[i] or output_padding[i] < dilation[i]):
                raise ValueError(f"{name}: output_padding {output_padding} must be smaller "
                                 f"than either stride {stride} or dilation {dilation}")
            n = (x.shape[i + 2] - 1) * stride[i] - 2 * padding[i] + span + output_padding[i]
        else:
            padded = x.shape[i + 2] + 2 * padding[i]
            if padded < span:
                raise ValueError(f"{name}: the kernel ({span} with dilation) is larger than the "
                                 f"padded input ({padded}) along spatial dim {i}: kernel "
                                 f"{tuple(w.shape[2:])}, dilation {dilation}, input "
                                 f"{tuple(x.shape[2:])}, padding {padding}")
            n = (padded - span) // stride[i] + 1
        if n < 1:
            raise ValueError(f"{name}: the output size along spatial dim {i} would be {n}; "
                             f"padding {padding} is too large")
        shape.append(n)
    return shape
