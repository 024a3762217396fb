"""complexext::bmm as torch traces and batches it: its fake kernel and vmap
rule. (Its Autograd kernel is registered by complexext._autograd.matmul.)"""
import torch

from .load import ops


def check(fname, a, b):
    """complexext::bmm's checks (csrc/args/matmul_args.h), in Python."""
    if not (a.is_complex() and a.dtype == b.dtype):
        raise TypeError(f"{fname}: expected two complex tensors of one dtype, got {a.dtype} "
                        f"and {b.dtype}")
    if a.dim() != 3 or b.dim() != 3:
        raise ValueError(f"{fname}: expected 3-d tensors (batch, rows, columns), got "
                         f"{a.dim()} and {b.dim()} dims")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"{fname}: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be "
                         f"multiplied (the batch sizes and the inner sizes must agree)")
    if a.device != b.device:
        raise ValueError(f"{fname}: expected tensors on one device, got {a.device} and "
                         f"{b.device}")


@torch.library.register_fake("complexext::bmm")
def _bmm_fake(a, b):
    check("bmm", a, b)
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]))


def batched(bmm, info, in_dims, a, b):
    """A vmap rule: the vmap dim joins the batch (an unbatched operand is
    expanded, a view)."""
    n = info.batch_size
    a, b = [t.movedim(d, 0) if d is not None else t.expand(n, *t.shape)
            for t, d in zip((a, b), in_dims)]
    y = bmm(a.reshape(-1, *a.shape[2:]), b.reshape(-1, *b.shape[2:]))
    return y.reshape(n, a.shape[1], *y.shape[1:]), 0


torch.library.register_vmap(
    "complexext::bmm", lambda info, in_dims, a, b: batched(ops.bmm, info, in_dims, a, b))
