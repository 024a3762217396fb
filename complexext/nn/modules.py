"""Complex convolution modules with torch's constructor arguments.

ComplexConv1d/2d take torch.nn.Conv1d/2d's arguments, padding_mode
"zeros", "reflect", "replicate" or "circular" included; the transposed ones
take torch.nn.ConvTranspose1d/2d's (padding_mode "zeros" only, as torch's)
and forward(input, output_size=None). Parameters are complex: dtype
complex32, complex64 or complex128 (default: the complex dtype of
torch.get_default_dtype(), complex64 normally). The weight has torch's
shape and state_dict key ("weight", "bias").

Initialisation: complex He (complexext.nn.init.complex_kaiming_, Trabelsi
et al. 2018): Rayleigh magnitude and uniform phase with Var(w) = 2 / fan_in;
the bias starts at zero. See complexext/nn/init.py for why.
"""
import torch
from torch.nn.modules.conv import _ConvNd
from torch.nn.modules.utils import _pair, _single

from . import functional as F
from . import init
from .._frontend.conv import _groups
from .._ops import conv_args as ck

__all__ = ["ComplexConv1d", "ComplexConv2d", "ComplexConvTranspose1d", "ComplexConvTranspose2d"]

_COMPLEX = (torch.complex32, torch.complex64, torch.complex128)
_DEFAULT = {torch.float16: torch.complex32, torch.float64: torch.complex128}


def _complex_dtype(cls, dtype):
    if dtype is None:
        return _DEFAULT.get(torch.get_default_dtype(), torch.complex64)
    if dtype not in _COMPLEX:
        raise TypeError(f"{cls}: dtype must be complex32, complex64 or complex128, got {dtype}")
    return dtype


def pad(name, x, pads, mode):
    """F.pad's "reflect", "replicate" and "circular" for complex tensors of
    any dtype (torch has no complex32 reflect/replicate on CPU): one
    index_select per padded dim. pads in F.pad's order (last dim first)."""
    for i in range(len(pads) // 2):
        left, right = pads[2 * i], pads[2 * i + 1]
        if left == 0 and right == 0:
            continue
        d = x.dim() - 1 - i
        n = x.shape[d]
        limit = n if mode == "circular" else n - 1
        if mode != "replicate" and max(left, right) > limit:
            raise ValueError(f"{name}: {mode} padding ({left}, {right}) must be at most {limit} "
                             f"for an input of size {n} along dim {d}")
        idx = torch.arange(-left, n + right, device=x.device)
        if mode == "circular":
            idx = idx.remainder(n)
        elif mode == "reflect":
            idx = idx.abs()
            idx = torch.where(idx >= n, 2 * (n - 1) - idx, idx)
        else:
            idx = idx.clamp(0, n - 1)
        x = x.index_select(d, idx)
    return x


def _check_args(name, in_channels, out_channels, kernel_size, stride, padding, dilation,
                transposed, output_padding, groups):
    """The constructor arguments torch checks only at the first forward, or
    not at all (a zero stride, a zero kernel, output_padding too large)."""
    for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
        ck.int_tuple(name, what, v, 1, 0)
    _groups(name, groups)
    nsp = len(kernel_size)
    ck.int_tuple(name, "kernel_size", kernel_size, nsp, 1)
    stride = ck.int_tuple(name, "stride", stride, nsp, 1)
    dilation = ck.int_tuple(name, "dilation", dilation, nsp, 1)
    if not isinstance(padding, str):
        ck.int_tuple(name, "padding", padding, nsp, 0)
    output_padding = ck.int_tuple(name, "output_padding", output_padding, nsp, 0)
    if transposed and any(o >= max(s, d) for o, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"{name}: output_padding {output_padding} must be smaller than either "
                         f"stride {stride} or dilation {dilation}")


def _check_input(module, input):
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"{type(module).__name__}: expected input to be a tensor, got "
                        f"{type(input).__name__}")


class _ComplexConvNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device, dtype):
        name = type(self).__name__
        _check_args(name, in_channels, out_channels, kernel_size, stride, padding, dilation,
                    transposed, output_padding, groups)
        if transposed and padding_mode != "zeros":
            raise ValueError(f'{name}: only "zeros" padding mode is supported, got '
                             f"{padding_mode!r}")
        if transposed and isinstance(padding, str):
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, got {padding!r}")
        dtype = _complex_dtype(name, dtype)
        try:  # torch's own checks (groups, padding strings, padding_mode), named
            super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                             transposed, output_padding, groups, bias, padding_mode,
                             device=device, dtype=dtype)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None

    def reset_parameters(self):
        init.complex_kaiming_(self.weight)
        if self.bias is not None:
            with torch.no_grad():
                self.bias.zero_()

    def _conv_forward(self, fn, input):
        _check_input(self, input)
        if self.padding_mode == "zeros":
            return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                      self.groups)
        x = pad(type(self).__name__, input, self._reversed_padding_repeated_twice,
                self.padding_mode)
        return fn(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def _output_padding(self, input, output_size):
        """torch's rule: the output_padding that gives output_size."""
        if output_size is None:
            return self.output_padding
        nsp = len(self.kernel_size)
        output_size = list(output_size)[-nsp:] if len(output_size) > nsp else list(output_size)
        if len(output_size) != nsp:
            raise ValueError(f"{type(self).__name__}: output_size must have {nsp} or more "
                             f"values, got {output_size}")
        out = []
        for d in range(nsp):
            lo = ((input.shape[input.dim() - nsp + d] - 1) * self.stride[d] - 2 * self.padding[d]
                  + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            hi = lo + max(self.stride[d], self.dilation[d]) - 1
            if not lo <= output_size[d] <= hi:
                raise ValueError(f"{type(self).__name__}: requested an output size of "
                                 f"{output_size}, but valid sizes along dim {d} range from "
                                 f"{lo} to {hi}")
            out.append(output_size[d] - lo)
        return tuple(out)

    def _transpose_forward(self, fn, input, output_size):
        _check_input(self, input)
        return fn(input, self.weight, self.bias, self.stride, self.padding,
                  self._output_padding(input, output_size), self.groups, self.dilation)


def _conv_args(tuple_fn, kernel_size, stride, padding, dilation):
    return (tuple_fn(kernel_size), tuple_fn(stride),
            padding if isinstance(padding, str) else tuple_fn(padding), tuple_fn(dilation))


class ComplexConv1d(_ComplexConvNd):
    """Complex torch.nn.Conv1d: input (B, Cin, L) or (Cin, L)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d = _conv_args(_single, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, False, _single(0), groups, bias,
                         padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv1d, input)


class ComplexConv2d(_ComplexConvNd):
    """Complex torch.nn.Conv2d: input (B, Cin, H, W) or (Cin, H, W)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        k, s, p, d = _conv_args(_pair, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, False, _pair(0), groups, bias,
                         padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(F.conv2d, input)


class ComplexConvTranspose1d(_ComplexConvNd):
    """Complex torch.nn.ConvTranspose1d: weight (Cin, Cout/groups, k)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        k, s, p, d = _conv_args(_single, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, True, _single(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        return self._transpose_forward(F.conv_transpose1d, input, output_size)


class ComplexConvTranspose2d(_ComplexConvNd):
    """Complex torch.nn.ConvTranspose2d: weight (Cin, Cout/groups, kh, kw)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        k, s, p, d = _conv_args(_pair, kernel_size, stride, padding, dilation)
        super().__init__(in_channels, out_channels, k, s, p, d, True, _pair(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        return self._transpose_forward(F.conv_transpose2d, input, output_size)
