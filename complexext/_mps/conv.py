"""MPS kernel of complexext::convolution: one real convolution on MPS in
fp32, in the layout of the CPU kernel (csrc/cpu/conv_ops.cpp):

  complex weight: per group, input channels [re(Cg), im(Cg)] and the
    weight [[wr, -wi], [wi, wr]] (rows: output re, output im); transposed
    weights (Cin, Cout/G, k...) take [[wr, wi], [-wi, wr]];
  real weight: re and im as a batch of 2B.

The input is converted to fp32 once (as the CPU kernel packs it), so all
four products of a complex product are summed in fp32 by MPS whatever the
storage, and a complex32 result is rounded to fp16 once, with the bias
added in fp32 before. Plain torch operations: they run on any device, so
the CPU tests check this layout against the CPU kernel.
"""
import torch

from .._ops.conv import _convolution_fake, _weight_grad_fake
from .fft import pairs
from .ops import check_dtype

R = torch.float32


def doubled_weight(w, groups, transposed):
    """The real weight of the channel-split layout, fp32."""
    wr, wi = (t.to(R) for t in pairs(w).unbind(-1))
    grouped = (groups, w.shape[0] // groups) + tuple(w.shape[1:])
    wr, wi = wr.reshape(grouped), wi.reshape(grouped)
    top = torch.cat([wr, wi if transposed else -wi], 2)
    bottom = torch.cat([-wi if transposed else wi, wr], 2)
    return torch.cat([top, bottom], 1).reshape((2 * w.shape[0], 2 * w.shape[1])
                                               + tuple(w.shape[2:]))


def _bias(b, cout, nsp):
    """(bias_re, bias_im), fp32, shaped to broadcast over (B, C, S...)."""
    shape = (1, cout) + (1,) * nsp
    if not b.is_complex():
        return b.to(R).reshape(shape), None
    br, bi = pairs(b).unbind(-1)
    return br.to(R).reshape(shape), bi.to(R).reshape(shape)


def _split(t, groups, fold_batch):
    """t (B, C, S...) complex as the real fp32 tensor of the doubled layout."""
    B, C = t.shape[:2]
    spatial = tuple(t.shape[2:])
    tr = pairs(t).to(R)
    if fold_batch:
        return tr.movedim(-1, 0).reshape((2 * B, C) + spatial)
    tr = tr.reshape((B, groups, C // groups) + spatial + (2,)).movedim(-1, 2)
    return tr.reshape((B, 2 * C) + spatial)


def convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    check_dtype("convolution", x, w, b)
    out = _convolution_fake(x, w, b, stride, padding, dilation, transposed, output_padding,
                            groups)  # the CPU kernel's checks and output
    if out.numel() == 0:
        return out
    B, C = x.shape[:2]
    cout, spatial = out.shape[1], tuple(x.shape[2:])
    nsp = len(spatial)
    if C == 0:  # no input channels: the bias alone
        y = torch.zeros(out.shape + (2,), dtype=R, device=x.device)
    else:
        xs = _split(x, groups, not w.is_complex())
        ws = doubled_weight(w, groups, transposed) if w.is_complex() else w.to(R)
        y = torch.convolution(xs, ws, None, list(stride), list(padding), list(dilation),
                              transposed, list(output_padding), groups)
        sp = tuple(y.shape[2:])
        if w.is_complex():
            y = y.reshape((B, groups, 2, cout // groups) + sp).movedim(2, -1)
        else:
            y = y.reshape((2, B, cout) + sp).movedim(0, -1)
        y = y.reshape(tuple(out.shape) + (2,))
    if b is not None:
        br, bi = _bias(b, cout, nsp)
        y = torch.stack([y[..., 0] + br, y[..., 1] + (bi if bi is not None else 0)], -1)
    pairs(out).copy_(y)
    return out


def convolution_weight_grad(g, x, weight_size, real_weight, stride, padding, dilation,
                            transposed, output_padding, groups):
    """The weight gradient, sum of conj(x) * g at each tap, as the CPU kernel
    computes it (csrc/cpu/conv_grad.cpp): aten's real weight gradient on the
    doubled layout, whose blocks A_rr, A_ri, A_ir, A_ii (rows: output re/im,
    columns: input re/im) give gw = (A_rr + A_ii) + i (A_ir - A_ri)
    (transposed: i (A_ri - A_ir)); a real weight gets Re(gw)."""
    check_dtype("convolution_weight_grad", g, x)
    out = _weight_grad_fake(g, x, weight_size, real_weight, stride, padding, dilation,
                            transposed, output_padding, groups)
    if x.numel() == 0 or g.numel() == 0:
        return out.zero_() if out.numel() else out
    ws = list(weight_size)
    if not real_weight:
        ws[0], ws[1] = 2 * ws[0], 2 * ws[1]
    w = torch.empty(ws, dtype=R, device=x.device)  # its sizes only: no input gradient
    a = torch.ops.aten.convolution_backward(
        _split(g, groups, real_weight), _split(x, groups, real_weight), w, None, list(stride),
        list(padding), list(dilation), transposed, list(output_padding), groups,
        [False, True, False])[1]
    if real_weight:
        out.copy_(a)
        return out
    k = tuple(weight_size[2:])
    A = a.reshape((groups, 2, weight_size[0] // groups, 2, weight_size[1]) + k)
    re = A[:, 0, :, 0] + A[:, 1, :, 1]
    im = A[:, 0, :, 1] - A[:, 1, :, 0] if transposed else A[:, 1, :, 0] - A[:, 0, :, 1]
    pairs(out).copy_(torch.stack([re, im], -1).reshape(tuple(weight_size) + (2,)))
    return out
