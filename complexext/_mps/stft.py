"""MPS kernels of complexext::stft and complexext::istft.

stft: frame t of batch b is a strided view of the signal (padded first by
one gather when pad > 0), transformed by the FFT kernels with the window
applied as each element is loaded; the bins go straight to out[b, :, t].

istft: each frame's inverse DFT (c2r for onesided) is multiplied by the
window as it is stored into an fp32 frame buffer, then cx_ola_* gathers,
for every output sample, the frames covering it and divides by the window
envelope: no atomics, the same result at every run. The envelope and the
NOLA check are computed on the host in float64 from the window (a small
copy, as on CPU).
"""
import torch

from . import fft as F
from . import launch as L
from . import lib as _metal_lib
from .ops import check_dtype
from .._ops.stft import _istft_fake, _stft_fake, pad_signal


def _same_device(name, x, window):
    if window.device != x.device:
        raise RuntimeError(f"{name}: window must be on the same device as the input "
                           f"({x.device}), got {window.device}")


def stft(x, window, n_fft, hop, normalization, onesided, pad=0, pad_mode="constant"):
    check_dtype("stft", x, window)
    _same_device("stft", x, window)
    # the checks, the output
    out = _stft_fake(x, window, n_fft, hop, normalization, onesided, pad, pad_mode)
    if out.numel() == 0:
        return out
    x = pad_signal(x, pad, pad_mode)  # one gather on the device
    B, bins, T = out.shape
    kind = F.COMPLEX if x.is_complex() else F.REAL
    src = F.pairs(x)
    s0, s1 = src.stride(0), src.stride(1)
    size, stride = [B, T, n_fft], [s0, hop * s1, s1]
    if kind == F.COMPLEX:  # the (re, im) pairs
        size.append(2)
        stride.append(1)
    frames = src.as_strided(size, stride, src.storage_offset())
    win = window.detach().to(torch.float32).contiguous()
    F.one_dim(_metal_lib.library(), frames, F.pairs(out).transpose(1, 2), 2, n_fft,
              in_kind=kind, out_kind=F.COMPLEX, nin=n_fft, nout=bins,
              scale=n_fft ** -0.5 if normalization else 1.0, win=win, win_mode=L.WIN_LOAD)
    return out


def envelope(window, n_fft, hop, T):
    """sum_t window[s - t*hop]^2 over the overlap-added signal, float64 on the host."""
    w2 = window.detach().to("cpu", torch.float64) ** 2
    env = torch.zeros(n_fft + hop * (T - 1), dtype=torch.float64)
    for t in range(T):
        env[t * hop: t * hop + n_fft] += w2
    return env


def istft(X, window, n_fft, hop, normalization, onesided, start, length):
    check_dtype("istft", X, window)
    _same_device("istft", X, window)
    y = _istft_fake(X, window, n_fft, hop, normalization, onesided, start, length)
    B, bins, T = X.shape
    env = envelope(window, n_fft, hop, T)
    stop = min(env.numel(), start + length)
    if stop > start:
        low = env[start:stop] <= 1e-11
        if bool(low.any()):
            s = start + int(low.nonzero()[0])
            raise RuntimeError(f"istft: the window fails the NOLA condition: the sum of squared "
                               f"windows overlapping sample {s} is {float(env[s]):g} "
                               f"(hop_length {hop}, n_fft {n_fft})")
    if y.numel() == 0:
        return y
    lib = _metal_lib.library()
    channels = 1 if onesided else 2
    frames = torch.empty((B, T, n_fft) + ((2,) if channels == 2 else ()), dtype=torch.float32,
                         device=X.device)
    scale = n_fft ** -0.5 if normalization == 1 else 1.0 / n_fft
    F.one_dim(lib, F.pairs(X).transpose(1, 2), frames, 2, n_fft,
              in_kind=F.HERMITIAN if onesided else F.COMPLEX,
              out_kind=F.REAL if onesided else F.COMPLEX, nin=bins, nout=n_fft, conj_in=True,
              conj_out=not onesided, scale=scale,
              win=window.detach().to(torch.float32).contiguous(), win_mode=L.WIN_STORE)
    env_dev = env.to(torch.float32).to(X.device)
    L.ola(lib, frames, env_dev, F.pairs(y), B, T, n_fft, hop, start, length, channels)
    return y
