"""complexext::convolution and complexext::convolution_weight_grad as torch
traces and batches them: fake kernels and vmap rules. (The ops' Autograd
kernels are registered by complexext._autograd.conv.)"""
import torch

from . import conv_args as ck
from .load import ops


@torch.library.register_fake("complexext::convolution")
def _convolution_fake(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """The CPU kernel's output (shape, dtype, contiguous) after its checks."""
    if not x.is_complex():
        raise RuntimeError(f"convolution: expected a complex input, got {x.dtype}")
    ck.dtypes("convolution", x, w, b, promote=False)
    ck.devices("convolution", x, w, b)
    if not 3 <= x.dim() <= 5:
        raise RuntimeError(f"convolution: expected a (B, C, 1 to 3 spatial dims) input, got "
                           f"{x.dim()} dims")
    nsp = x.dim() - 2
    for what, v, lo in (("stride", stride, 1), ("padding", padding, 0), ("dilation", dilation, 1),
                        ("output_padding", output_padding, 0)):
        ck.int_tuple("convolution", what, list(v), nsp, lo)
    if not transposed and any(output_padding):
        raise RuntimeError("convolution: output_padding needs transposed=True")
    shape = ck.output_shape("convolution", x, w, b, stride, padding, dilation, transposed,
                            output_padding, groups)
    return x.new_empty(shape)


@torch.library.register_fake("complexext::convolution_weight_grad")
def _weight_grad_fake(g, x, weight_size, real_weight, stride, padding, dilation, transposed,
                      output_padding, groups):
    if not x.is_complex() or g.dtype != x.dtype:
        raise RuntimeError(f"convolution_weight_grad: expected complex input and grad_output "
                           f"of one dtype, got {x.dtype} and {g.dtype}")
    w = x.new_empty(weight_size, dtype=ck.REAL_OF[x.dtype] if real_weight else x.dtype)
    shape = _convolution_fake(x, w, None, stride, padding, dilation, transposed, output_padding,
                              groups).shape
    if tuple(g.shape) != tuple(shape):
        raise RuntimeError(f"convolution_weight_grad: expected a grad_output of shape "
                           f"{tuple(shape)}, got {tuple(g.shape)}")
    return w


def batched(conv, info, in_dims, x, w, b, stride, padding, dilation, transposed,
            output_padding, groups):
    """A vmap rule. A batched input only: the vmap dim joins the batch. A
    batched weight or bias: the vmap dim joins the groups (weights stacked
    along dim 0, the input's channels repeated or taken per vmap entry)."""
    xd, wd, bd = in_dims[:3]
    rest = (stride, padding, dilation, transposed, output_padding)
    if wd is None and bd is None:
        x = x.movedim(xd, 0)
        y = conv(x.reshape(-1, *x.shape[2:]), w, b, *rest, groups)
        return y.reshape(*x.shape[:2], *y.shape[1:]), 0
    n = info.batch_size
    w = w.movedim(wd, 0) if wd is not None else w.expand(n, *w.shape)
    if b is not None:
        b = (b.movedim(bd, 0) if bd is not None else b.expand(n, *b.shape)).reshape(-1)
    if xd is not None:
        x = x.movedim(xd, 1)
    else:
        x = x.unsqueeze(1).expand(x.shape[0], n, *x.shape[1:])
    y = conv(x.reshape(x.shape[0], -1, *x.shape[3:]), w.reshape(-1, *w.shape[2:]), b, *rest,
             n * groups)
    return y.reshape(y.shape[0], n, -1, *y.shape[2:]), 1


def batched_wgrad(fn, info, in_dims, g, x, weight_size, real_weight, stride, padding, dilation,
                  transposed, output_padding, groups):
    """The vmap dim joins the groups: channels of each vmap entry side by side."""
    n = info.batch_size
    g, x = [t.movedim(d, 1) if d is not None else t.unsqueeze(1).expand(t.shape[0], n, *t.shape[1:])
            for t, d in zip((g, x), in_dims[:2])]
    g = g.reshape(g.shape[0], -1, *g.shape[3:])
    x = x.reshape(x.shape[0], -1, *x.shape[3:])
    size = [n * weight_size[0], *weight_size[1:]]
    out = fn(g, x, size, real_weight, stride, padding, dilation, transposed, output_padding,
             n * groups)
    return out.reshape(n, *weight_size), 0


torch.library.register_vmap(
    "complexext::convolution",
    lambda info, in_dims, *args: batched(ops.convolution, info, in_dims, *args))
torch.library.register_vmap(
    "complexext::convolution_weight_grad",
    lambda info, in_dims, *args: batched_wgrad(ops.convolution_weight_grad, info, in_dims,
                                                  *args))
