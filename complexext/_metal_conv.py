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

from ._conv_registrations import _convolution_fake
from ._metal_ops import check_dtype
from ._metal_fft import pairs

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
        xr = pairs(x).to(R)  # (B, C, S..., 2)
        if w.is_complex():
            Cg = C // groups
            xs = xr.reshape((B, groups, Cg) + spatial + (2,)).movedim(-1, 2)
            xs = xs.reshape((B, 2 * C) + spatial)
            ws = doubled_weight(w, groups, transposed)
        else:
            xs = xr.movedim(-1, 0).reshape((2 * B, C) + spatial)
            ws = w.to(R)
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
