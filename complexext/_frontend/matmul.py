"""complexext.matmul, bmm and einsum: torch's signatures and broadcasting
over complexext::bmm, a complex matrix product with fp32 accumulation for
complex32 and one rounding.

Argument handling lives here: dtypes, shapes and devices, each error
message starting with the function's name; matmul's 1-d operands and
broadcast batch dims (as torch.matmul). Inputs are never modified.
"""
import torch

from .._autograd import matmul as ad

_COMPLEX = (torch.complex32, torch.complex64, torch.complex128)


def _operands(fname, a, b):
    for t in (a, b):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{fname}: expected tensors, got {type(t).__name__}")
    if a.dtype not in _COMPLEX or b.dtype != a.dtype:
        raise TypeError(f"{fname}: expected two complex32, complex64 or complex128 tensors "
                        f"of one dtype, got {a.dtype} and {b.dtype}")
    if a.device != b.device:
        raise ValueError(f"{fname}: expected tensors on one device, got {a.device} and "
                         f"{b.device}")


def _dim_error(fname, a, b):
    return ValueError(f"{fname}: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be "
                      f"multiplied ({a.shape[-1]} columns against {b.shape[-2 if b.dim() > 1 else 0]} "
                      f"rows)")


def matmul(input, other):
    """The matrix product with torch.matmul's semantics (1-d operands,
    broadcast batch dims), for complex32, complex64 or complex128 operands
    of one dtype: fp32 accumulation for complex32 (fp64 for complex128) and
    one rounding. Backward, forward mode, torch.func and torch.compile."""
    a, b = input, other
    _operands("matmul", a, b)
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError(f"matmul: both arguments need at least 1 dimension, got {a.dim()} "
                         f"and {b.dim()}")
    va, vb = a.dim() == 1, b.dim() == 1
    a2 = a.unsqueeze(0) if va else a
    b2 = b.unsqueeze(1) if vb else b
    if a2.shape[-1] != b2.shape[-2]:
        raise _dim_error("matmul", a, b)
    ba, bb = a2.shape[:-2], b2.shape[:-2]
    if ba == bb:
        batch = ba
    else:
        try:
            batch = torch.broadcast_shapes(ba, bb)
        except RuntimeError:
            raise ValueError(f"matmul: the batch dims of {tuple(a.shape)} and {tuple(b.shape)} "
                             f"do not broadcast") from None
    M, K, N = a2.shape[-2], a2.shape[-1], b2.shape[-1]
    nb = 1
    for d in batch:
        nb *= d
    a3 = (a2 if ba == batch else a2.expand(*batch, M, K)).reshape(nb, M, K)
    b3 = (b2 if bb == batch else b2.expand(*batch, K, N)).reshape(nb, K, N)
    y = _product(a3, b3).reshape(*batch, M, N)
    if vb:
        y = y.squeeze(-1)
    if va:
        y = y.squeeze(-2 if not vb else -1)
    return y


def bmm(input, mat2):
    """torch.bmm for complex tensors: (B, M, K) x (B, K, N), fp32
    accumulation for complex32 and one rounding."""
    _operands("bmm", input, mat2)
    if input.dim() != 3 or mat2.dim() != 3:
        raise ValueError(f"bmm: expected 3-d tensors, got {input.dim()} and {mat2.dim()} dims")
    if input.shape[0] != mat2.shape[0]:
        raise ValueError(f"bmm: batch sizes {input.shape[0]} and {mat2.shape[0]} differ")
    if input.shape[2] != mat2.shape[1]:
        raise _dim_error("bmm", input, mat2)
    return ad.bmm(input, mat2)


_WIDE = {torch.complex32: torch.complex64, torch.float16: torch.float32}
_FEW_ROWS = 16  # csrc/cpu/matmul_ops.cpp: its fp16-reading kernel takes up to this many rows


def _product(a3, b3):
    """ad.bmm(a3, b3); on a CPU, a product of many rows and few columns as
    the transpose of one with few rows (the CPU kernel's fast case)."""
    if (a3.device.type == "cpu" and a3.dtype == torch.complex32
            and a3.shape[1] > _FEW_ROWS >= b3.shape[2]):
        return ad.bmm(b3.mT, a3.mT).mT
    return ad.bmm(a3, b3)


def _pair_plan(equation, a, b):
    """einsum of two operands as one batched product: (batch, rows, inner) @
    (batch, inner, columns), or None where the equation needs more (an
    ellipsis, a repeated index, an index summed within one operand, sizes
    that broadcast)."""
    eq = equation.replace(" ", "")
    if "." in eq or eq.count(",") != 1:
        return None
    lhs, _, out = eq.partition("->")
    sa, sb = lhs.split(",")
    if "->" not in eq:
        out = "".join(sorted(c for c in set(sa + sb) if (sa + sb).count(c) == 1))
    if (len(set(sa)) != len(sa) or len(set(sb)) != len(sb) or len(set(out)) != len(out)
            or len(sa) != a.dim() or len(sb) != b.dim() or not set(out) <= set(sa + sb)):
        return None
    size = {}
    for sub, t in ((sa, a), (sb, b)):
        for c, n in zip(sub, t.shape):
            if size.setdefault(c, n) != n:
                return None
    batch = [c for c in out if c in sa and c in sb]
    inner = [c for c in sa if c in sb and c not in out]
    left = [c for c in out if c in sa and c not in sb]
    right = [c for c in out if c in sb and c not in sa]
    if len(batch) + len(inner) + len(left) != len(sa) or \
            len(batch) + len(inner) + len(right) != len(sb):
        return None  # an index summed within one operand
    return sa, sb, out, batch, inner, left, right, size


def _pair_einsum(plan, a, b):
    sa, sb, out, batch, inner, left, right, size = plan

    def prod(cs):
        n = 1
        for c in cs:
            n *= size[c]
        return n

    nb, K = prod(batch), prod(inner)
    a3 = a.permute([sa.index(c) for c in batch + left + inner]).reshape(nb, prod(left), K)
    b3 = b.permute([sb.index(c) for c in batch + inner + right]).reshape(nb, K, prod(right))
    y = _product(a3, b3).reshape([size[c] for c in batch + left + right])
    order = batch + left + right
    return y.permute([order.index(c) for c in out])


def einsum(equation, *operands):
    """torch.einsum for complex operands, with complex32 computed in fp32 and
    rounded once. Two complex32 operands whose equation is one batched
    product (each index in the output or in both operands, no ellipsis or
    repeated index) run as complexext::bmm, as torch.einsum itself plans
    it; other complex32 equations (or float16 operands beside complex32
    ones) are read exactly into complex64 (float32), contracted by
    torch.einsum (fp32 GEMMs) and rounded once. Other dtypes go to
    torch.einsum as they are. Differentiable as torch.einsum is."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum: expected an equation string first, got "
                        f"{type(equation).__name__}")
    for t in operands:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"einsum: expected tensors as operands, got {type(t).__name__}")
    if not any(t.dtype == torch.complex32 for t in operands):
        return torch.einsum(equation, *operands)
    kinds = {t.dtype for t in operands}
    if not kinds <= {torch.complex32, torch.float16}:
        raise TypeError(f"einsum: complex32 operands mix only with float16 ones (as torch "
                        f"promotes none of them), got {sorted(map(str, kinds))}")
    devices = {t.device for t in operands}
    if len(devices) > 1:
        raise ValueError(f"einsum: expected operands on one device, got "
                         f"{sorted(map(str, devices))}")
    if len(operands) == 2 and kinds == {torch.complex32}:
        plan = _pair_plan(equation, *operands)
        if plan is not None:  # one batched product, fp16 read directly on a CPU
            return _pair_einsum(plan, *operands)
    wide = [t.to(_WIDE[t.dtype]) for t in operands]
    try:
        y = torch.einsum(equation, *wide)
    except RuntimeError as e:
        raise ValueError(f"einsum: {e}") from None
    return y.to(torch.complex32)
