"""complexext::stft and complexext::istft as torch traces and batches them:
fake kernels (the CPU kernels' shapes, dtypes and argument checks; the NOLA
check needs the window's values and stays with the kernel), vmap rules, and
the op's centre padding P and its adjoint, as the kernels apply them.
(The ops' Autograd kernels are registered by complexext._autograd.stft.)"""
import torch

from .load import ops

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


def _edge_sources(length, pad, mode, device):
    """The signal's samples that the 2*pad padded samples copy, left end then
    right end (stft_pad_source in stft_args.h); mode is not "constant"."""
    i = torch.cat([torch.arange(-pad, 0, device=device),
                   torch.arange(length, length + pad, device=device)])
    if mode == "reflect":
        return torch.where(i < 0, -i, 2 * (length - 1) - i)
    if mode == "replicate":
        return i.clamp(0, length - 1)
    return torch.where(i < 0, i + length, i - length)  # circular


def pad_signal(x, pad, mode):
    """P: x (B, L) padded by `pad` samples at both ends, torch's F.pad values
    in x's dtype (float16 and complex32 included): one cat of the signal and
    its two edge pieces (torch's reflect kernel is several times slower on
    float16 and has no complex32, a gather of the whole signal slower still)."""
    if pad == 0:
        return x
    if mode == "constant":
        return torch.constant_pad_nd(x, [pad, pad])
    edges = x.index_select(1, _edge_sources(x.shape[1], pad, mode, x.device))
    return torch.cat([edges[:, :pad], x, edges[:, pad:]], 1)


def unpad_adjoint(g, pad, mode, length):
    """P^T: the gradient of the signal from that of the padded signal g (B,
    length + 2*pad); each padded sample's gradient goes to the sample it copies."""
    if pad == 0:
        return g
    mid = g.narrow(1, pad, length)
    if mode == "constant":
        return mid
    edges = torch.cat([g[:, :pad], g[:, pad + length:]], 1)
    return mid.index_add(1, _edge_sources(length, pad, mode, g.device), edges)


def batched(fn, info, in_dims, x, w, *rest):
    """A vmap rule for fn(x, w, *rest), x batched along dim 0 (stft: (B, L);
    istft: (B, freq, T)). A batched signal joins the batch dim; a batched
    window takes one call per window."""
    xd, wd = in_dims[0], in_dims[1]
    if xd is None and wd is None:
        return fn(x, w, *rest), None
    if wd is None:
        x = x.movedim(xd, 0)
        y = fn(x.flatten(0, 1), w, *rest)
        return y.unflatten(0, x.shape[:2]), 0
    w = w.movedim(wd, 0)
    xs = x.movedim(xd, 0) if xd is not None else x.expand(info.batch_size, *x.shape)
    return torch.stack([fn(xs[i], w[i], *rest) for i in range(info.batch_size)]), 0


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
    "complexext::stft", lambda info, in_dims, *args: batched(ops.stft, info, in_dims, *args))
torch.library.register_vmap(
    "complexext::istft", lambda info, in_dims, *args: batched(ops.istft, info, in_dims, *args))
