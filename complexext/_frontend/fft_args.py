"""Argument validation and canonicalisation for the public FFT functions.

Every error message starts with the public function's name. Bad dtypes raise
TypeError, out-of-range dims IndexError, other bad values ValueError.
"""
import operator
from collections.abc import Sequence

import torch

_REAL = (torch.float16, torch.float32, torch.float64)
_COMPLEX = (torch.complex32, torch.complex64, torch.complex128)
_TO_COMPLEX = dict(zip(_REAL, _COMPLEX))
_ALLOWED = frozenset(_REAL + _COMPLEX)
_NORMS = (None, "backward", "ortho", "forward")


def norm_mode(fname, norm, forward):
    """The ops' normalization code for a torch.fft norm string.

    0: none, 1: 1/sqrt(N), 2: 1/N. "backward" (the default) scales the
    inverse transform, "forward" the forward one, "ortho" both.
    """
    if norm not in _NORMS:
        raise ValueError(f"{fname}: norm must be None, 'backward', 'ortho' or 'forward', "
                         f"got {norm!r}")
    if norm == "ortho":
        return 1
    scale_this_way = norm == "forward" if forward else norm in (None, "backward")
    return 2 if scale_this_way else 0


def check_dtype(fname, x, real_only=False):
    """Refuses dtypes the kernels do not take (integers, bool, bfloat16...)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{fname}: expected a tensor, got {type(x).__name__}")
    if real_only and x.dtype in _COMPLEX:
        raise TypeError(f"{fname}: expected a real input tensor (float16, float32 or "
                        f"float64), got {x.dtype}")
    if x.dtype not in _ALLOWED:
        allowed = "float16, float32 or float64" if real_only else \
            "float16, float32, float64, complex32, complex64 or complex128"
        raise TypeError(f"{fname}: expected a {allowed} tensor, got {x.dtype}")


def complex_of(dtype):
    """The complex dtype of a real dtype's precision."""
    return _TO_COMPLEX[dtype]


def to_complex(x):
    """x itself when complex, else x cast to the complex dtype of its precision."""
    return x if x.is_complex() else x.to(_TO_COMPLEX[x.dtype])


def _as_int(fname, what, v):
    if type(v) is int:  # the common case first: every call passes here
        return v
    if isinstance(v, bool):
        raise TypeError(f"{fname}: {what} must be an int, got bool")
    try:
        return operator.index(v)
    except TypeError:
        if isinstance(v, torch.SymInt):
            return v
        raise TypeError(f"{fname}: {what} must be an int, got {type(v).__name__}") from None


def wrap_dim(fname, d, ndim):
    d = _as_int(fname, "dim", d)
    if not -ndim <= d < ndim:
        raise IndexError(f"{fname}: dim {d} out of range for a {ndim}-d tensor "
                         f"(expected a dim in [{-ndim}, {ndim - 1}])")
    return d % ndim


def check_n(fname, n, what="n"):
    n = _as_int(fname, what, n)
    if n < 1:
        raise ValueError(f"{fname}: {what} must be >= 1, got {n}")
    return n


def _as_tuple(fname, what, v):
    if isinstance(v, torch.Tensor) or not isinstance(v, Sequence):
        return (_as_int(fname, what, v),)
    return tuple(_as_int(fname, what, e) for e in v)


def shape_and_dims(fname, x, s, dim):
    """torch.fft's rules for (s, dim) of the n-d transforms.

    Returns (sizes, dims): dims wrapped to [0, ndim) and unique; sizes the
    signal sizes (s with -1 entries replaced by the input's size). With
    dim=None, s applies to the last len(s) dims, and no s means all dims.
    """
    ndim = x.dim()
    dims = None
    if dim is not None:
        dims = tuple(wrap_dim(fname, d, ndim) for d in _as_tuple(fname, "dim", dim))
        if len(set(dims)) != len(dims):
            raise ValueError(f"{fname}: dims must be unique, got {_as_tuple(fname, 'dim', dim)}")
    if s is None:
        dims = tuple(range(ndim)) if dims is None else dims
        sizes = tuple(x.shape[d] for d in dims)
        for d, n in zip(dims, sizes):
            if n < 1:
                raise ValueError(f"{fname}: signal size must be >= 1, got {n} along dim {d}")
        return sizes, dims
    s = _as_tuple(fname, "s", s)
    if dims is not None and len(dims) != len(s):
        raise ValueError(f"{fname}: s and dim must have the same length, "
                         f"got {len(s)} and {len(dims)}")
    if len(s) > ndim:
        raise ValueError(f"{fname}: s has {len(s)} values but the input has only "
                         f"{ndim} dimensions")
    dims = tuple(range(ndim - len(s), ndim)) if dims is None else dims
    sizes = tuple(x.shape[d] if n == -1 else check_n(fname, n, "s[%d]" % i)
                  for i, (n, d) in enumerate(zip(s, dims)))
    for d, n in zip(dims, sizes):
        if n < 1:
            raise ValueError(f"{fname}: signal size must be >= 1, got {n} along dim {d}")
    return sizes, dims


def need_dims(fname, dims):
    if not dims:
        raise ValueError(f"{fname}: must transform at least one dim")


def c2r_length(fname, x, dims, sizes, s_given):
    """Output length of a c2r transform along dims[-1] (irfft*, hfft*)."""
    if s_given:
        return sizes[-1]
    m = x.shape[dims[-1]]
    last = 2 * (m - 1)
    if last < 1:
        raise ValueError(f"{fname}: output length must be >= 1, got 2*({m}-1) = {last} "
                         f"from the input's size {m} along dim {dims[-1]}; pass n or s")
    return last
