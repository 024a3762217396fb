"""MPS kernels of complexext::fft_c2c, fft_r2c and fft_c2r (aten-shaped),
over the Metal transforms of _metal_fft.

Storage fp16 (complex32/float16) or fp32 (complex64/float32), compute fp32.
Several transformed dims run one dim after another; between them the data
stays in an fp32 work buffer (the output itself for complex64), so a
complex32 result is rounded to fp16 once. The scale of the norm is applied
by the last pass. Metal has no float64: complex128/float64 get an error.
"""
import math

import torch

from . import fft as F
from . import lib as _metal_lib
from .._ops.fft import _TO_COMPLEX, _TO_REAL, _check_norm, _dims

COMPLEX, REAL, HERMITIAN = F.COMPLEX, F.REAL, F.HERMITIAN


def check_dtype(name, *tensors):
    for t in tensors:
        if t is not None and t.dtype in (torch.float64, torch.complex128):
            raise RuntimeError(
                f"{name}: {t.dtype} is not supported on MPS (Metal has no float64); use "
                f"complex64 or complex32 (float32 or float16 for real tensors), or run on the CPU")


def scale_of(normalization, n):
    return (1.0, 1.0 / math.sqrt(n), 1.0 / n)[normalization]


def _work(shape, device):
    return torch.empty(*shape, 2, dtype=torch.float32, device=device)


def c2c_dims(lib, src, dst, dims, conj, scale):
    """Unnormalised c2c over dims (bound pair tensors), conj for the inverse."""
    cur = src
    work = dst if dst.dtype == torch.float32 or len(dims) == 1 else _work(dst.shape[:-1],
                                                                          dst.device)
    for i, d in enumerate(dims):
        last = i == len(dims) - 1
        target = dst if last else work
        n = cur.shape[d]
        F.one_dim(lib, cur, target, d, n, in_kind=COMPLEX, out_kind=COMPLEX, nin=n, nout=n,
                  conj_in=conj and i == 0, conj_out=conj and last,
                  scale=scale if last else 1.0)
        cur = target


def fft_c2c(x, dim, normalization, forward):
    check_dtype("fft_c2c", x)
    torch._check(x.dtype in _TO_REAL, lambda: f"fft_c2c: expected a complex tensor, got {x.dtype}")
    dims = _dims("fft_c2c", x, dim)
    _check_norm("fft_c2c", normalization)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    scale = scale_of(normalization, math.prod(x.shape[d] for d in dims))
    c2c_dims(_metal_lib.library(), F.pairs(x), F.pairs(out), dims, not forward, scale)
    return out


def fft_r2c(x, dim, normalization, onesided):
    check_dtype("fft_r2c", x)
    torch._check(x.dtype in _TO_COMPLEX,
                 lambda: f"fft_r2c: expected a float16, float32 or float64 tensor, got {x.dtype}")
    dims = _dims("fft_r2c", x, dim)
    _check_norm("fft_r2c", normalization)
    last, rest = dims[-1], dims[:-1]
    n = x.shape[last]
    shape = list(x.shape)
    shape[last] = n // 2 + 1 if onesided else n
    out = torch.empty(shape, dtype=_TO_COMPLEX[x.dtype], device=x.device)
    if out.numel() == 0:
        return out
    lib = _metal_lib.library()
    scale = scale_of(normalization, math.prod(x.shape[d] for d in dims))
    dst = F.pairs(out)
    first = dst if not rest or dst.dtype == torch.float32 else _work(shape, x.device)
    F.one_dim(lib, x, first, last, n, in_kind=REAL, out_kind=COMPLEX, nin=n,
              nout=shape[last], scale=1.0 if rest else scale)
    if rest:
        c2c_dims(lib, first, dst, rest, False, scale)
    return out


def fft_c2r(x, dim, normalization, last_dim_size):
    check_dtype("fft_c2r", x)
    torch._check(x.dtype in _TO_REAL, lambda: f"fft_c2r: expected a complex tensor, got {x.dtype}")
    torch._check(last_dim_size >= 1,
                 lambda: f"fft_c2r: last_dim_size must be >= 1, got {last_dim_size}")
    dims = _dims("fft_c2r", x, dim)
    _check_norm("fft_c2r", normalization)
    last, rest = dims[-1], dims[:-1]
    n, nin = last_dim_size, last_dim_size // 2 + 1
    torch._check(x.shape[last] >= nin,
                 lambda: f"fft_c2r: expected at least {nin} elements along dim {last}, got "
                         f"{x.shape[last]}")
    shape = list(x.shape)
    shape[last] = n
    out = torch.empty(shape, dtype=_TO_REAL[x.dtype], device=x.device)
    if out.numel() == 0:
        return out
    lib = _metal_lib.library()
    scale = scale_of(normalization, math.prod(x.shape[d] for d in rest) * n)
    src = F.pairs(x.narrow(last, 0, nin))
    if rest:
        work = _work(src.shape[:-1], x.device)
        c2c_dims(lib, src, work, rest, True, 1.0)
        src = work
    F.one_dim(lib, src, out, last, n, in_kind=HERMITIAN, out_kind=REAL, nin=nin, nout=n,
              conj_in=True, scale=scale)
    return out
