"""complexext.fft: torch.fft's functions, with complex32 on every device.

Signatures and semantics are torch.fft's (n / s, dim, norm, zero-padding
and trimming, negative dims, out=). Every transform runs on complexext's own
kernels, including float32/float64 ones, and dtypes map as:

    float16, complex32   ->  complex32  (float16 for irfft*, hfft*)
    float32, complex64   ->  complex64  (float32)
    float64, complex128  ->  complex128 (float64)

Integer and bool inputs are refused (torch.fft promotes them). complex32
transforms compute in fp32 and round once. fp16 holds magnitudes up to
65504: an unnormalised transform of length N grows values by up to N, and
complex32/float16 results that overflow become inf. norm="ortho" (growth
sqrt(N)) or norm="forward" (none) avoid it; complexext.set_overflow_check
(True) raises OverflowError instead.
"""
from ._frontend.fft import IMPL as _IMPL

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn"]

_ARGS = {
    "1": "n (int, optional): signal length along dim; the input is zero-padded or\n"
         "        trimmed to it. dim (int): the dim to transform, default -1.",
    "2": "s (sequence of int, optional): signal sizes along dim (-1: keep).\n"
         "        dim (sequence of int): the dims to transform, default (-2, -1).",
    "n": "s (sequence of int, optional): signal sizes (-1: keep); with dim=None the\n"
         "        last len(s) dims. dim (sequence of int, optional): default all dims,\n"
         "        or the last len(s) when s is given.",
}
_OUT = {
    "c": "complex32/complex64/complex128 for float16|complex32 / float32|complex64 /\n"
         "    float64|complex128 input",
    "r": "float16/float32/float64 for complex32|float16 / complex64|float32 /\n"
         "    complex128|float64 input",
}


def _doc(rank, summary, out):
    """Decorator: the shared docstring of the public functions."""
    def deco(f):
        f.__doc__ = _TEMPLATE.format(summary=summary, name=f.__name__, args=_ARGS[rank],
                                     out=_OUT[out])
        return f
    return deco


_TEMPLATE = """{summary}

    Same signature and semantics as torch.fft.{name}, on complexext's kernels.

    Args:
        input (Tensor): float16/32/64 or complex32/64/128, any strides; never modified.
        {args}
        norm (str, optional): "backward" (default: no scaling forward, 1/N inverse),
            "ortho" (1/sqrt(N) both ways) or "forward" (1/N forward, none inverse).
        out (Tensor, optional): the output tensor (resized if needed).

    Returns:
        Tensor: {out}.

    complex32/float16 results that exceed 65504 in magnitude become inf; an
    unnormalised transform grows values by up to N. Use norm="ortho" or
    "forward" to avoid it, or complexext.set_overflow_check(True) to raise
    OverflowError instead. Bad arguments raise TypeError (dtype), IndexError
    (dim) or ValueError, each message starting with the function's name.
    """


@_doc("1", 'The 1-d discrete Fourier transform.', "c")
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    return _IMPL["fft"](input, n, dim, norm, out)


@_doc("1", 'The 1-d inverse discrete Fourier transform.', "c")
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    return _IMPL["ifft"](input, n, dim, norm, out)


@_doc("2", 'The 2-d discrete Fourier transform.', "c")
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _IMPL["fft2"](input, s, dim, norm, out)


@_doc("2", 'The 2-d inverse discrete Fourier transform.', "c")
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _IMPL["ifft2"](input, s, dim, norm, out)


@_doc("n", 'The n-d discrete Fourier transform.', "c")
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    return _IMPL["fftn"](input, s, dim, norm, out)


@_doc("n", 'The n-d inverse discrete Fourier transform.', "c")
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    return _IMPL["ifftn"](input, s, dim, norm, out)


@_doc("1", 'The 1-d transform of real input (the n//2 + 1 non-negative frequencies).', "c")
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _IMPL["rfft"](input, n, dim, norm, out)


@_doc("1", 'The inverse of rfft: a real signal of length n (default 2*(m-1)).', "r")
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _IMPL["irfft"](input, n, dim, norm, out)


@_doc("2", 'The 2-d Fourier transform of real input, onesided along the last dim.', "c")
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _IMPL["rfft2"](input, s, dim, norm, out)


@_doc("2", 'The inverse of rfft2.', "r")
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _IMPL["irfft2"](input, s, dim, norm, out)


@_doc("n", 'The n-d Fourier transform of real input, onesided along the last dim.', "c")
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _IMPL["rfftn"](input, s, dim, norm, out)


@_doc("n", 'The inverse of rfftn.', "r")
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _IMPL["irfftn"](input, s, dim, norm, out)


@_doc("1", 'The 1-d transform of a Hermitian signal given by its first half.', "r")
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _IMPL["hfft"](input, n, dim, norm, out)


@_doc("1", 'The inverse of hfft: the onesided inverse transform of real input.', "c")
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    return _IMPL["ihfft"](input, n, dim, norm, out)


@_doc("2", 'The 2-d transform of a Hermitian signal (first half of the last dim).', "r")
def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _IMPL["hfft2"](input, s, dim, norm, out)


@_doc("2", 'The inverse of hfft2.', "c")
def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return _IMPL["ihfft2"](input, s, dim, norm, out)


@_doc("n", 'The n-d transform of a Hermitian signal (first half of the last dim).', "r")
def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _IMPL["hfftn"](input, s, dim, norm, out)


@_doc("n", 'The inverse of hfftn.', "c")
def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    return _IMPL["ihfftn"](input, s, dim, norm, out)
