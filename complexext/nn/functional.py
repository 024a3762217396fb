"""complexext.nn.functional: complex convolution with torch's signatures.

Same arguments and semantics as torch.nn.functional.conv1d, conv2d,
conv_transpose1d and conv_transpose2d: stride, padding (ints, tuples,
"same", "valid"), dilation, groups, output_padding, bias; batched
(B, C, ...) and unbatched (C, ...) input.

dtypes: a complex32, complex64 or complex128 input with a weight (and
bias) of the same dtype, or the real dtype of the same precision (float16,
float32, float64). A real input with a complex weight of the same precision
is taken as complex with zero imaginary part; other real/complex mixes are
refused. The output has the input's complex dtype. complex32 computes in
fp32 (all four real products summed in fp32, one rounding at the end);
complex64 in fp32; complex128 in fp64. Inputs are never modified.

Every function supports backward and forward-mode AD of every order,
torch.func transforms (vmap, jvp, jacfwd, jacrev, hessian) and
torch.compile(fullgraph=True). Errors name the function ("conv2d: ...").
"""
from .._frontend import conv as _api

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Complex 1-d convolution (cross-correlation, as torch's) of input
    (B, Cin, L) or (Cin, L) with weight (Cout, Cin/groups, k); bias (Cout,).
    See the module docstring for dtypes."""
    return _api.conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """Complex 2-d convolution of input (B, Cin, H, W) or (Cin, H, W) with
    weight (Cout, Cin/groups, kh, kw); bias (Cout,)."""
    return _api.conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Complex 1-d transposed convolution of input (B, Cin, L) or (Cin, L)
    with weight (Cin, Cout/groups, k); bias (Cout,). It is the adjoint
    (transpose, without conjugation) of conv1d with the same weight."""
    return _api.conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                               output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Complex 2-d transposed convolution of input (B, Cin, H, W) or
    (Cin, H, W) with weight (Cin, Cout/groups, kh, kw); bias (Cout,)."""
    return _api.conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                               output_padding, groups, dilation)
