"""The FFT ops (fft_c2c, fft_r2c, fft_c2r) as torch traces and batches them:
fake kernels and vmap rules.

Fake kernels give the CPU kernels' output exactly (shape, dtype, contiguous
strides) and make the same argument checks. vmap rules move the batch dim to
the front and shift the transformed dims past it. (The ops' Autograd kernels
are registered by complexext._autograd.fft.)
"""
import torch

from .load import ops

_TO_COMPLEX = {torch.float16: torch.complex32, torch.float32: torch.complex64,
               torch.float64: torch.complex128}
_TO_REAL = {v: k for k, v in _TO_COMPLEX.items()}


def _dims(name, x, dim):
    torch._check(len(dim) > 0, lambda: f"{name}: dim must not be empty")
    out = []
    for d in dim:
        torch._check(-x.dim() <= d < x.dim(),
                     lambda: f"{name}: dim {d} out of range for a {x.dim()}-d tensor")
        d = d % x.dim()
        torch._check(d not in out, lambda: f"{name}: dim {d} repeated")
        torch._check(x.shape[d] >= 1, lambda: f"{name}: signal size along dim {d} must be >= 1")
        out.append(d)
    return out


def _check_norm(op, normalization):
    torch._check(normalization in (0, 1, 2),
                 lambda: f"{op}: normalization must be 0, 1 or 2, got {normalization}")


@torch.library.register_fake("complexext::fft_c2c")
def _c2c_fake(x, dim, normalization, forward):
    torch._check(x.dtype in _TO_REAL, lambda: f"fft_c2c: expected a complex tensor, got {x.dtype}")
    _dims("fft_c2c", x, dim)
    _check_norm("fft_c2c", normalization)
    return x.new_empty(x.shape)


@torch.library.register_fake("complexext::fft_r2c")
def _r2c_fake(x, dim, normalization, onesided):
    torch._check(x.dtype in _TO_COMPLEX,
                 lambda: f"fft_r2c: expected a float16, float32 or float64 tensor, got {x.dtype}")
    d = _dims("fft_r2c", x, dim)[-1]
    _check_norm("fft_r2c", normalization)
    shape = list(x.shape)
    if onesided:
        shape[d] = shape[d] // 2 + 1
    return x.new_empty(shape, dtype=_TO_COMPLEX[x.dtype])


@torch.library.register_fake("complexext::fft_c2r")
def _c2r_fake(x, dim, normalization, last_dim_size):
    torch._check(x.dtype in _TO_REAL, lambda: f"fft_c2r: expected a complex tensor, got {x.dtype}")
    torch._check(last_dim_size >= 1,
                 lambda: f"fft_c2r: last_dim_size must be >= 1, got {last_dim_size}")
    d = _dims("fft_c2r", x, dim)[-1]
    _check_norm("fft_c2r", normalization)
    torch._check(x.shape[d] >= last_dim_size // 2 + 1,
                 lambda: f"fft_c2r: expected at least {last_dim_size // 2 + 1} elements "
                         f"along dim {d}, got {x.shape[d]}")
    shape = list(x.shape)
    shape[d] = last_dim_size
    return x.new_empty(shape, dtype=_TO_REAL[x.dtype])


def _out_fake(name, fake):
    """The fake of an out= form (fft_*_out): out, checked against what the op returns."""
    def run(x, dim, normalization, arg, *, out):
        want = fake(x, dim, normalization, arg)
        torch._check(out.shape == want.shape and out.dtype == want.dtype,
                     lambda: f"{name}_out: out must be {want.dtype} of shape {tuple(want.shape)}, "
                             f"got {out.dtype} of shape {tuple(out.shape)}")
        return out
    return run


for _name, _fake in (("fft_c2c", _c2c_fake), ("fft_r2c", _r2c_fake), ("fft_c2r", _c2r_fake)):
    torch.library.register_fake(f"complexext::{_name}_out", _out_fake(_name, _fake))


def batch_first(name, x, bdim, dim):
    """x with its batch dim bdim moved to the front, and dim shifted past it."""
    x = x.movedim(bdim, 0)
    nd = x.dim() - 1
    for d in dim:
        torch._check(-nd <= d < nd, lambda: f"{name}: dim {d} out of range for a {nd}-d tensor")
    return x, [d % nd + 1 for d in dim]


def _batched(name, op):
    """A vmap rule for op(x, dim, *rest): batch dim to the front, dims shifted."""
    def rule(info, in_dims, x, dim, *rest):
        bdim = in_dims[0]
        if bdim is None:
            return op(x, dim, *rest), None
        x, dim = batch_first(name, x, bdim, dim)
        return op(x, dim, *rest), 0
    return rule


torch.library.register_vmap("complexext::fft_c2c", _batched("fft_c2c", ops.fft_c2c))
torch.library.register_vmap("complexext::fft_r2c", _batched("fft_r2c", ops.fft_r2c))
torch.library.register_vmap("complexext::fft_c2r", _batched("fft_c2r", ops.fft_c2r))
