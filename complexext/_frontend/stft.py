"""complexext.stft and complexext.istft: torch.stft's and torch.istft's
signatures and semantics over the fused primitives.

Argument handling lives here: defaults, the window (ones when None, padded
centrally from win_length to n_fft), onesided and return_complex rules,
unbatched input, and the checks, each error message starting with the
function's name. Neither the frames nor the centre-padded signal are made:
the stft primitive reads the frames in place from the signal and pads the
few that reach past its ends.
"""
import operator
import warnings

import torch

from .._autograd import stft as ad
from .._ops.stft import PAD_MODES as _PAD_MODES
from . import overflow as _overflow

_REAL = (torch.float16, torch.float32, torch.float64)
_COMPLEX = (torch.complex32, torch.complex64, torch.complex128)
# The window's dtype: the kernels' compute precision (fp32 for half storage).
_COMPUTE = {torch.float16: torch.float32, torch.float32: torch.float32,
            torch.float64: torch.float64, torch.complex32: torch.float32,
            torch.complex64: torch.float32, torch.complex128: torch.float64}
# The storage the compute precision reads (fp16 values converted exactly),
# and the complex dtype of a result.
_WIDE = {torch.float16: torch.float32, torch.float32: torch.float32,
         torch.float64: torch.float64, torch.complex32: torch.complex64,
         torch.complex64: torch.complex64, torch.complex128: torch.complex128}
_OUT = {torch.float16: torch.complex32, torch.float32: torch.complex64,
        torch.float64: torch.complex128, torch.complex32: torch.complex32,
        torch.complex64: torch.complex64, torch.complex128: torch.complex128}


def _int(fname, what, v, low):
    if isinstance(v, bool):
        raise TypeError(f"{fname}: {what} must be an int, got bool")
    try:
        v = operator.index(v)
    except TypeError:
        if not isinstance(v, torch.SymInt):
            raise TypeError(f"{fname}: {what} must be an int, got {type(v).__name__}") from None
    if v < low:
        raise ValueError(f"{fname}: {what} must be >= {low}, got {v}")
    return v


def _lengths(fname, n_fft, hop_length, win_length):
    n_fft = _int(fname, "n_fft", n_fft, 1)
    hop = n_fft // 4 if hop_length is None else _int(fname, "hop_length", hop_length, 1)
    if hop < 1:
        raise ValueError(f"{fname}: hop_length must be >= 1; its default n_fft // 4 is 0 for "
                         f"n_fft = {n_fft}: pass hop_length")
    win = n_fft if win_length is None else _int(fname, "win_length", win_length, 1)
    if win > n_fft:
        raise ValueError(f"{fname}: expected 0 < win_length <= n_fft, got win_length = {win} "
                         f"and n_fft = {n_fft}")
    return n_fft, hop, win


def _window(fname, window, n_fft, win_length, x):
    """The window in the compute precision (complex for a complex window),
    zero-padded centrally to n_fft."""
    dtype = _COMPUTE[x.dtype]
    if window is None:
        window = torch.ones(win_length, dtype=dtype, device=x.device)
    elif not isinstance(window, torch.Tensor):
        raise TypeError(f"{fname}: window must be a tensor or None, got {type(window).__name__}")
    elif not (window.is_floating_point() or window.is_complex()):
        raise TypeError(f"{fname}: expected a floating point or complex window, got {window.dtype}")
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise ValueError(f"{fname}: expected a 1-d window of length win_length = {win_length}, "
                         f"got shape {tuple(window.shape)}")
    elif window.device != x.device:
        raise ValueError(f"{fname}: the window is on {window.device}, the input on {x.device}")
    window = window.to(dtype.to_complex() if window.is_complex() else dtype)
    left = (n_fft - win_length) // 2
    if left or win_length < n_fft:
        window = torch.constant_pad_nd(window, [left, n_fft - win_length - left])
    return window


def _signal(fname, x, kinds, dims):
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{fname}: expected a tensor, got {type(x).__name__}")
    if x.dtype not in kinds:
        names = ", ".join(str(k).split(".")[1] for k in kinds)
        raise TypeError(f"{fname}: expected a {names} input, got {x.dtype}")
    if x.dim() not in dims:
        raise ValueError(f"{fname}: expected a {' or '.join(map(str, dims))}-d input "
                         f"(unbatched or batched), got shape {tuple(x.shape)}")


def _check_pad(x, pad, mode):
    """The centre padding's checks, in the words of the front end (the op
    repeats them in its own)."""
    length = x.shape[1]
    if mode not in _PAD_MODES:
        raise ValueError(f"stft: pad_mode must be one of {', '.join(_PAD_MODES)}, got {mode!r}")
    if mode == "reflect" and pad >= length:
        raise ValueError(f"stft: reflect padding of n_fft // 2 = {pad} samples needs a signal "
                         f"longer than that, got {length} samples; use pad_mode='constant'")
    if mode == "circular" and pad > length:
        raise ValueError(f"stft: circular padding of n_fft // 2 = {pad} samples needs at least "
                         f"that many samples, got {length}")
    if mode == "replicate" and length == 0:
        raise ValueError("stft: cannot replicate-pad an empty signal")


def _checked(fname, inp, out, advice):
    """complexext.set_overflow_check: a non-finite float16/complex32 result of a
    finite input raises OverflowError."""
    try:
        _overflow.check(fname, inp, out)
    except OverflowError:
        kind = "complex32" if out.is_complex() else "float16"
        raise OverflowError(f"{fname}: the {kind} result overflowed (fp16 holds magnitudes up "
                            f"to 65504) although the input was finite; {advice}") from None
    return out


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform, like torch.stft, on fused kernels.

    input: (L,) or (B, L), float16/32/64 or complex32/64/128; never modified.
    Returns (freq, T) or (B, freq, T): complex32 for float16/complex32 input,
    complex64 for float32/complex64, complex128 for float64/complex128;
    freq = n_fft // 2 + 1 when onesided (default for real input), else n_fft;
    T = 1 + (L' - n_fft) // hop_length, L' the length after centre padding.
    return_complex: as torch's: it must be given for a real input; False
    (deprecated, with torch's warning) returns torch.view_as_real of the
    result. A complex window gives a two-sided result (as torch's).
    """
    _signal("stft", input, _REAL + _COMPLEX, (1, 2))
    if return_complex is None and not input.is_complex():
        raise ValueError("stft: return_complex must be given for a real input: True, or False "
                         "for the real view of the result (deprecated, as in torch.stft)")
    n_fft, hop, win_length = _lengths("stft", n_fft, hop_length, win_length)
    w = _window("stft", window, n_fft, win_length, input)
    if onesided is None:
        onesided = not (input.is_complex() or w.is_complex())
    elif onesided and (input.is_complex() or w.is_complex()):
        raise ValueError("stft: onesided=True needs a real input and a real window; the "
                         + ("input" if input.is_complex() else "window") + " is complex")
    if return_complex is False:
        warnings.warn("stft with return_complex=False is deprecated (as in torch.stft): pass "
                      "return_complex=True and take torch.view_as_real of the result",
                      UserWarning, stacklevel=2)
    x = input if input.dim() == 2 else input.unsqueeze(0)
    pad = n_fft // 2 if center else 0
    if center:
        _check_pad(x, pad, pad_mode)
    if not 1 <= n_fft <= x.shape[1] + 2 * pad:
        raise ValueError(f"stft: expected 0 < n_fft <= {x.shape[1] + 2 * pad} (the signal length"
                         f"{' after centre padding' if center else ''}), got n_fft = {n_fft}")
    # the op pads as it reads the frames: no padded copy of the signal is made
    norm, mode = 1 if normalized else 0, pad_mode if pad else "constant"
    if w.is_complex():
        y = _stft_complex_window(x, w, n_fft, hop, norm, pad, mode)
    else:
        y = ad.stft(x, w, n_fft, hop, norm, bool(onesided), pad, mode)
    _checked("stft", input, y, "use normalized=True, a smaller signal or a float32 input")
    y = y if input.dim() == 2 else y.squeeze(0)
    return torch.view_as_real(y) if return_complex is False else y


def _stft_complex_window(x, w, n_fft, hop, norm, pad, mode):
    """stft with a complex window w = a + ib: stft(x, a) + i stft(x, b), both
    two-sided, computed in the compute precision (the signal converted
    exactly: fp16 to fp32) and rounded once to the output dtype."""
    out = _OUT[x.dtype]
    xc = x.to(_WIDE[x.dtype])
    ya = ad.stft(xc, w.real.contiguous(), n_fft, hop, norm, False, pad, mode)
    yb = ad.stft(xc, w.imag.contiguous(), n_fft, hop, norm, False, pad, mode)
    return torch.complex(ya.real - yb.imag, ya.imag + yb.real).to(out)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse short-time Fourier transform, like torch.istft, on a fused
    kernel (per-frame inverse DFT, windowed overlap-add by gathering, division
    by the window envelope).

    input: (freq, T) or (B, freq, T) complex32/64/128; never modified.
    Returns (L,) or (B, L): real (float16/32/64) unless return_complex.
    Raises RuntimeError when the window fails the NOLA condition (a zero
    envelope sum_t w[s - t*hop]^2 at a returned sample).
    """
    _signal("istft", input, _COMPLEX, (2, 3))
    n_fft, hop, win_length = _lengths("istft", n_fft, hop_length, win_length)
    if hop > win_length:
        raise ValueError(f"istft: expected 0 < hop_length <= win_length, got hop_length = "
                         f"{hop} and win_length = {win_length}")
    bins = input.shape[-2]
    if onesided is None:
        onesided = bins != n_fft
    want = n_fft // 2 + 1 if onesided else n_fft
    if bins != want:
        raise ValueError(f"istft: expected {want} frequency bins (dim -2) for n_fft = {n_fft}"
                         f"{' and onesided' if onesided else ''}, got {bins}")
    if onesided and return_complex:
        raise ValueError("istft: return_complex=True needs a two-sided input (onesided=False)")
    frames = input.shape[-1]
    if frames < 1:
        raise ValueError("istft: expected at least one frame")
    w = _window("istft", window, n_fft, win_length, input)
    if w.is_complex() and not return_complex:
        raise ValueError("istft: a complex window needs return_complex=True (as torch.istft)")
    X = input if input.dim() == 3 else input.unsqueeze(0)
    if not onesided and not return_complex:
        X = X.narrow(1, 0, n_fft // 2 + 1)  # a real result: c2r of the first half (as torch)
    full = n_fft + hop * (frames - 1)
    start = n_fft // 2 if center else 0
    if length is None:
        length = full - 2 * start
    else:
        length = _int("istft", "length", length, 0)
    if w.is_complex():
        y = _istft_complex_window(X, w, n_fft, hop, normalized, start, length)
    else:
        y = ad.istft(X, w, n_fft, hop, 1 if normalized else 2, not return_complex, start, length)
    _checked("istft", input, y, "use a smaller spectrum or a complex64 input")
    return y if input.dim() == 3 else y.squeeze(0)


def _overlap_add(frames, hop, full):
    """sum_t frames[:, :, t] placed at t * hop, for (B, n, T) complex frames:
    (B, full) complex (fold over the real and imaginary parts as channels)."""
    B, n, T = frames.shape
    ri = torch.cat([frames.real, frames.imag], dim=1)
    y = torch.nn.functional.fold(ri, (1, full), (1, n), stride=(1, hop))
    return torch.complex(y[:, 0, 0], y[:, 1, 0])


def _istft_complex_window(X, w, n_fft, hop, normalized, start, length):
    """istft with a complex window (two-sided input, complex result), as
    torch's: the inverse DFT of each frame times w, overlap-added and divided
    by the envelope sum_t w[s - t*hop]^2 (complex). In the compute precision
    (complex32 read exactly into complex64), rounded once to the output
    dtype."""
    from .fft import IMPL as _fft
    T = X.shape[-1]
    full = n_fft + hop * (T - 1)
    frames = _fft["ifft"](X.to(_WIDE[X.dtype]), None, 1,
                          "ortho" if normalized else "backward", None) * w[:, None]
    num = _overlap_add(frames, hop, full)
    env = _overlap_add((w * w)[None, :, None].expand(1, n_fft, T), hop, full)[0]
    end = min(full, start + length)
    num, env = num[:, start:end], env[start:end]
    if not torch.compiler.is_compiling() and env.numel() and not bool((env.abs() > 1e-11).all()):
        s = int((env.abs() <= 1e-11).nonzero()[0, 0]) + start
        raise RuntimeError(f"istft: the window fails the NOLA condition: the sum of squared "
                           f"windows overlapping sample {s} is {complex(env[s - start])} "
                           f"(hop_length {hop}, n_fft {n_fft})")
    y = num / env
    if end - start < length:
        y = torch.nn.functional.pad(torch.view_as_real(y), (0, 0, 0, length - (end - start)))
        y = torch.view_as_complex(y)
    return y.to(_OUT[X.dtype])
