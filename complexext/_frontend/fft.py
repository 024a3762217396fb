"""The transforms behind complexext.fft: argument handling, padding and trimming,
norms, dtype rules, out=, over the three differentiable primitives.

fft/ifft/fftn on complex input are c2c; on real input a two-sided r2c (the
inverse ones are its conjugate: for real x, conj(F x) is the unnormalised
inverse). rfft* is a onesided r2c; ihfft* its conjugate with the norm of the
inverse direction. irfft* is a c2r; hfft* a c2r of the conjugate input with
the norm of the forward direction (torch's definitions). The conjugates are
copies, not conj views: in torch 2.13 forward-mode AD under vmap (batched
forward gradients) fails on conj views.
"""
import warnings

import torch

from .._autograd import fft as ad
from .._autograd.common import direct
from .._ops.fast import call
from . import fft_args as ck
from . import overflow as _overflow


def _conj(x):
    """A conjugated copy of complex x (not a view; vmap has rules for each step)."""
    if not x.is_complex():
        return x
    x = x.resolve_conj()  # view_as_real refuses conj views
    sign = torch.tensor([1, -1], dtype=x.real.dtype, device=x.device)
    return torch.view_as_complex(torch.view_as_real(x) * sign)


def _resize(x, dims, sizes):
    """Zero-pads or trims x to sizes along dims, in x's own dtype."""
    shape = x.shape
    if len(dims) == 1:  # the 1-d functions: no generator on their path
        if shape[dims[0]] == sizes[0]:
            return x
    elif all(shape[d] == n for d, n in zip(dims, sizes)):
        return x
    pad = [0] * (2 * x.dim())
    for d, n in zip(dims, sizes):
        if x.shape[d] > n:
            x = x.narrow(d, 0, n)
        elif x.shape[d] < n:
            pad[2 * (x.dim() - 1 - d) + 1] = n - x.shape[d]
    return torch.constant_pad_nd(x, pad) if any(pad) else x


def _finish(fname, inp, result, out):
    _overflow.check(fname, inp, result)
    if out is None:
        return result
    if not isinstance(out, torch.Tensor) or out.is_complex() != result.is_complex():
        kind = "complex" if result.is_complex() else "real floating point"
        raise TypeError(f"{fname}: out must be a {kind} tensor, got "
                        f"{getattr(out, 'dtype', type(out).__name__)}")
    if out.device != result.device:
        raise RuntimeError(f"{fname}: out must be on the input's device {result.device}, "
                           f"got {out.device}")
    if torch.is_grad_enabled() and (inp.requires_grad or out.requires_grad):
        raise RuntimeError(f"{fname}: functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad")
    if out.shape != result.shape:
        if out.numel():
            warnings.warn(f"{fname}: an out tensor of shape {tuple(out.shape)} was resized "
                          f"to {tuple(result.shape)}")
        out.resize_(result.shape)
    return out.copy_(result)


def _into(op, y, dims, mode, arg, out):
    """True when the op's out= form (fft_*_out) wrote out itself (no result to
    copy over): eager CPU code with nothing to differentiate, out a plain
    contiguous tensor of exactly the result's shape and dtype, in memory of
    its own (the fast entry checks those and returns None, writing nothing,
    where they do not hold). Anything else (a resize, a dtype cast, a
    strided or aliasing out, other devices) computes the result and copies
    it, as _finish does. The op bumps out's version counter, as torch's
    out= ops do."""
    return type(out) is torch.Tensor and direct(y, out) and call(op, y, dims, mode, arg,
                                                                  out) is not None


def _finish_into(fname, inp, out):
    _overflow.check(fname, inp, out)
    return out


def _one_dim(fname, x, n, dim):
    """(sizes, dims) of a 1-d transform."""
    d = ck.wrap_dim(fname, dim, x.dim())
    size = x.shape[d] if n is None else ck.check_n(fname, n)
    if size < 1:
        raise ValueError(f"{fname}: n must be >= 1, got {size} (the input's size along "
                         f"dim {d})")
    return (size,), (d,)


def _c2c(fname, x, sizes, dims, norm, forward, out):
    """fft, ifft, fftn...: real input takes the two-sided r2c."""
    mode = ck.norm_mode(fname, norm, forward)
    y = _resize(x, dims, sizes)
    if out is not None and dims and (y.is_complex() or forward):
        if (_into("fft_c2c_out", y, dims, mode, forward, out) if y.is_complex()
                else _into("fft_r2c_out", y, dims, mode, False, out)):
            return _finish_into(fname, x, out)
    if not dims:
        result = ck.to_complex(y).clone()
    elif y.is_complex():
        result = ad.c2c(y, dims, mode, forward)
    else:
        result = ad.r2c(y, dims, mode, False)
        result = result if forward else _conj(result)
    return _finish(fname, x, result, out)


def _r2c(fname, x, sizes, dims, norm, forward, out):
    """rfft* (forward) and ihfft* (inverse: the conjugate of a onesided r2c)."""
    ck.need_dims(fname, dims)
    mode = ck.norm_mode(fname, norm, forward)
    y = _resize(x, dims, sizes)
    if out is not None and forward:
        if _into("fft_r2c_out", y, dims, mode, True, out):
            return _finish_into(fname, x, out)
    result = ad.r2c(y, dims, mode, True)
    return _finish(fname, x, result if forward else _conj(result), out)


def _c2r(fname, x, sizes, dims, last_given, norm, forward, out):
    """irfft* (inverse) and hfft* (forward: a c2r of the conjugate input)."""
    ck.need_dims(fname, dims)
    last = ck.c2r_length(fname, x, dims, sizes, last_given)
    mode = ck.norm_mode(fname, norm, forward)
    y = ck.to_complex(_resize(x, dims, sizes[:-1] + (last // 2 + 1,)))
    z = _conj(y) if forward else y
    if out is not None:
        if _into("fft_c2r_out", z, dims, mode, last, out):
            return _finish_into(fname, x, out)
    result = ad.c2r(z, dims, mode, last)
    return _finish(fname, x, result, out)


def _last_given(s):
    if s is None:
        return False
    last = s[-1] if isinstance(s, (tuple, list, torch.Size)) else s
    return last != -1


def _nd(kind, fname, forward, real_only=False):
    """A public n-d (or 2-d) function from one of _c2c, _r2c, _c2r."""
    def run(input, s, dim, norm, out):
        ck.check_dtype(fname, input, real_only)
        sizes, dims = ck.shape_and_dims(fname, input, s, dim)
        if kind is _c2r:
            return _c2r(fname, input, sizes, dims, _last_given(s), norm, forward, out)
        return kind(fname, input, sizes, dims, norm, forward, out)
    return run


def _1d(kind, fname, forward, real_only=False):
    def run(input, n, dim, norm, out):
        ck.check_dtype(fname, input, real_only)
        sizes, dims = _one_dim(fname, input, n, dim)
        if kind is _c2r:
            return _c2r(fname, input, sizes, dims, n is not None, norm, forward, out)
        return kind(fname, input, sizes, dims, norm, forward, out)
    return run


IMPL = {}
for _name, _kind, _fwd, _real in [("fft", _c2c, True, False), ("ifft", _c2c, False, False),
                                  ("rfft", _r2c, True, True), ("ihfft", _r2c, False, True),
                                  ("irfft", _c2r, False, False), ("hfft", _c2r, True, False)]:
    IMPL[_name] = _1d(_kind, _name, _fwd, _real)
    for _sfx in ("2", "n"):
        IMPL[_name + _sfx] = _nd(_kind, _name + _sfx, _fwd, _real)
