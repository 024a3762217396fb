"""Python-side registrations of complexext::stft and complexext::istft: fake
kernels (the CPU kernels' shapes, dtypes and argument checks; the NOLA check
needs the window's values and stays with the kernel), vmap rules, and the
Autograd kernels, which apply the autograd.Functions of _stft_autograd.py so
that the ops have backward and jvp formulas of their own, in eager and
compiled code."""
import torch
import torch.autograd.forward_ad as fwAD

from . import _stft_autograd as ad
from ._load import ops

_TO_COMPLEX = {torch.float16: torch.complex32, torch.float32: torch.complex64,
               torch.float64: torch.complex128}
_TO_REAL = {v: k for k, v in _TO_COMPLEX.items()}


def _check_window(name, window, n_fft, x):
    torch._check(window.dim() == 1 and window.shape[0] == n_fft,
                 lambda: f"{name}: expected a 1-d window of length n_fft = {n_fft}, got shape "
                         f"{tuple(window.shape)}")
    torch._check(window.is_floating_point(),
                 lambda: f"{name}: expected a real floating point window, got {window.dtype}")
    torch._check(window.device == x.device,
                 lambda: f"{name}: window must be on the CPU like the input")


def _check_common(name, n_fft, hop):
    torch._check(n_fft >= 1, lambda: f"{name}: n_fft must be >= 1, got {n_fft}")
    torch._check(hop >= 1, lambda: f"{name}: hop_length must be >= 1, got {hop}")


PAD_MODES = ("reflect", "constant", "replicate", "circular")


def check_pad(length, pad, mode):
    """The op's checks of centre padding (stft_args.h)."""
    torch._check(mode in PAD_MODES,
                 lambda: f"stft: pad_mode must be one of {', '.join(PAD_MODES)}, got '{mode}'")
    torch._check(pad >= 0, lambda: f"stft: pad must be >= 0, got {pad}")
    if pad > 0:
        torch._check(mode != "reflect" or pad < length,
                     lambda: f"stft: reflect padding of {pad} samples needs a signal longer "
                             f"than that, got {length} samples")
        torch._check(mode != "circular" or pad <= length,
                     lambda: f"stft: circular padding of {pad} samples needs at least that "
                             f"many samples, got {length}")
        torch._check(mode != "replicate" or length > 0,
                     lambda: "stft: cannot replicate-pad an empty signal")


@torch.library.register_fake("complexext::stft")
def _stft_fake(x, window, n_fft, hop, normalization, onesided, pad=0, pad_mode="constant"):
    torch._check(x.dim() == 2,
                 lambda: f"stft: expected a (batch, time) signal, got shape {tuple(x.shape)}")
    torch._check(x.dtype in _TO_COMPLEX or x.dtype in _TO_REAL,
                 lambda: f"stft: expected a float16/32/64 or complex signal, got {x.dtype}")
    _check_common("stft", n_fft, hop)
    torch._check(normalization in (0, 1), lambda: "stft: normalization must be 0 or 1")
    torch._check(not (onesided and x.is_complex()), lambda: "stft: onesided needs a real signal")
    check_pad(x.shape[1], pad, pad_mode)
    length = x.shape[1] + 2 * pad
    torch._check(length >= n_fft, lambda: f"stft: the signal ({length} samples after padding) "
                                          f"is shorter than n_fft = {n_fft}")
    _check_window("stft", window, n_fft, x)
    frames = 1 + (length - n_fft) // hop
    bins = n_fft // 2 + 1 if onesided else n_fft
    dtype = x.dtype if x.is_complex() else _TO_COMPLEX[x.dtype]
    # torch.stft's strides: (bins * frames, 1, bins), the bins of a frame adjacent
    return x.new_empty((x.shape[0], frames, bins), dtype=dtype).transpose(1, 2)


@torch.library.register_fake("complexext::istft")
def _istft_fake(X, window, n_fft, hop, normalization, onesided, start, length):
    torch._check(X.dim() == 3 and X.dtype in _TO_REAL,
                 lambda: f"istft: expected a complex (batch, freq, frames) spectrum, got "
                         f"{X.dtype} of shape {tuple(X.shape)}")
    _check_common("istft", n_fft, hop)
    torch._check(normalization in (1, 2), lambda: "istft: normalization must be 1 or 2")
    torch._check(start >= 0 and length >= 0, lambda: "istft: start and length must be >= 0")
    bins = n_fft // 2 + 1 if onesided else n_fft
    torch._check(X.shape[1] == bins,
                 lambda: f"istft: expected {bins} frequency bins for n_fft = {n_fft}"
                         f"{' (onesided)' if onesided else ''}, got {X.shape[1]}")
    torch._check(X.shape[2] >= 1, lambda: "istft: expected at least one frame")
    _check_window("istft", window, n_fft, X)
    dtype = _TO_REAL[X.dtype] if onesided else X.dtype
    return X.new_empty((X.shape[0], length), dtype=dtype)


torch.library.register_vmap(
    "complexext::stft", lambda info, in_dims, *args: ad.batched(ops.stft, info, in_dims, *args))
torch.library.register_vmap(
    "complexext::istft", lambda info, in_dims, *args: ad.batched(ops.istft, info, in_dims, *args))


# The schemas' trailing arguments with defaults (stft: pad, pad_mode), which
# a call may leave out: rest[nargs:] of the full list.
_DEFAULTS = {"stft": (4, (0, "constant")), "istft": (6, ())}


def _autograd_kernel(name, fn):
    """Below autograd when no gradient and no forward-mode tangent is asked
    for; the autograd.Function otherwise. (torch.library.register_autograd
    would give backward only and drop forward-mode tangents silently.)"""
    nargs, defaults = _DEFAULTS[name]

    def kernel(x, window, *rest):
        rest = rest + defaults[len(rest) - nargs:]
        tangent = any(fwAD.unpack_dual(t).tangent is not None for t in (x, window))
        grad = torch.is_grad_enabled() and (x.requires_grad or window.requires_grad)
        if not tangent and not grad:
            with torch._C._AutoDispatchBelowADInplaceOrView():
                return getattr(ops, name)(x, window, *rest)
        if torch._C._are_functorch_transforms_active():
            raise RuntimeError(
                f"complexext::{name}: torch.func transforms (grad, vjp, jvp, jacrev, ...) of "
                f"the raw op are not supported; call complexext.{name}, which supports them "
                f"(outside torch.compile)")
        return fn.apply(x, window, *rest)
    return kernel


_lib = torch.library.Library("complexext", "IMPL")
_lib.impl("stft", _autograd_kernel("stft", ad.STFT), "Autograd")
_lib.impl("istft", _autograd_kernel("istft", ad.ISTFT), "Autograd")
