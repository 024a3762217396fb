"""Differentiation of the fused stft and istft primitives.

Notation: x (B, L) the signal, P the centre padding (pad samples at both
ends in pad_mode: a linear map that copies samples or puts zeros) and P^T
its adjoint, w (n,) the real window, hop the hop length, F the frame
operator F(x)[b, t, k] = x[b, t*hop + k] (x.unfold) and F^T its adjoint, the
overlap-add (fold: col2im, deterministic on CPU).

STFT: S = D(w * F(P(x))), transposed to (B, freq, T); D the per-frame DFT
(onesided r2c for a real signal, c2c otherwise), scale 1 or 1/sqrt(n).
It is complex-bilinear in (x, w), so with H = D^H(g^T) (real part for a
real signal; for the onesided r2c, a c2r of g with interior bins halved):

    grad_x = P^T(F^T(w * H))    grad_w = Re sum_{b,t} conj(F(P(x))) * H
    jvp    = stft(tx, w) + stft(x, tw)

ISTFT: y = N / E on the returned samples [start, start + length), with
Z = C(X^T) the per-frame inverse transform (c2r if onesided, inverse c2c
otherwise), N = F^T(w * Z) and the envelope E = F^T(w^2). With G the
incoming gradient divided by E and placed at its samples of the full
overlap-added length (zeros elsewhere), and Y the output placed the same way:

    grad_X = C^H(w * F(G)), an stft of G: stft(G, w) (times 1/n for the 1/n
             scale), with the c2r's interior bins doubled
    grad_w = Re sum_{b,t} (conj(Z) - 2 w conj(F(Y))) * F(G)
    jvp    = istft(tX, w) + (F^T(tw * Z) - Y * F^T(2 w tw)) / E

Every formula uses the differentiable dispatchers (stft, istft here, c2c and
c2r of the FFT layer), so derivatives of every order compose. complex32 and
float16 derivatives are computed in complex64/float32 and rounded once.
"""
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as nnf

from .._ops import ops
from .._ops.stft import batched, pad_signal, unpad_adjoint
from .._ops.fast import call as _fast
from .common import _function_needed, direct, no_derivatives
from .fft import c2c, c2r

_WIDE = {torch.complex32: torch.complex64, torch.float16: torch.float32,
         torch.bfloat16: torch.float32}


def stft(x, w, n_fft, hop, normalization, onesided, pad=0, pad_mode="constant"):
    """Differentiable complexext::stft."""
    if direct(x, w):
        return _fast("stft", x, w, n_fft, hop, normalization, onesided, pad, pad_mode)
    if no_derivatives(x, w):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.stft(x, w, n_fft, hop, normalization, onesided, pad, pad_mode)
    if _function_needed():
        return STFT.apply(x, w, n_fft, hop, normalization, onesided, pad, pad_mode)
    return ops.stft(x, w, n_fft, hop, normalization, onesided, pad, pad_mode)


def istft(X, w, n_fft, hop, normalization, onesided, start, length):
    """Differentiable complexext::istft."""
    if direct(X, w):
        return _fast("istft", X, w, n_fft, hop, normalization, onesided, start, length)
    if no_derivatives(X, w):
        with torch._C._AutoDispatchBelowADInplaceOrView():
            return ops.istft(X, w, n_fft, hop, normalization, onesided, start, length)
    if _function_needed():
        return ISTFT.apply(X, w, n_fft, hop, normalization, onesided, start, length)
    return ops.istft(X, w, n_fft, hop, normalization, onesided, start, length)


def _wide(t):
    return t.to(_WIDE[t.dtype]) if t.dtype in _WIDE else t


def _conj(t):
    """A conjugated copy (no conj views: forward AD under vmap fails on them)."""
    return torch.conj_physical(t) if t.is_complex() else t


def overlap_add(frames, hop, length):
    """F^T: out[b, t*hop + k] = sum of frames[b, t, k], out of shape (B, length)."""
    b, _, n = frames.shape
    out = nnf.fold(frames.transpose(1, 2), (1, length), (1, n), stride=(1, hop))
    return out.reshape(b, length)


def envelope(w, frames, hop):
    """E = F^T(w^2) over `frames` frames: (full length,)."""
    n = w.shape[0]
    return overlap_add((w * w).expand(1, frames, n), hop, n + hop * (frames - 1))[0]


def _bins(n_fft, n_bins, value, dtype, device):
    """(n_bins, 1) weights: `value` on the interior bins 1 .. n_fft - n_bins of a
    onesided spectrum (those with a mirror image), 1 elsewhere."""
    v = torch.ones(n_bins, 1, dtype=dtype, device=device)
    v[1:1 + n_fft - n_bins] = value
    return v


def _adjoint_dft(g, n_fft, normalization, onesided, real_signal):
    """D^H of an stft gradient g (B, freq, T), as (B, T, n_fft) frames."""
    if onesided:
        half = _bins(n_fft, g.shape[1], 0.5, g.real.dtype, g.device)
        return c2r((g * half).transpose(1, 2), [-1], normalization, n_fft)
    h = c2c(g.transpose(1, 2), [-1], normalization, False)
    return torch.real(h) if real_signal else h


def _inverse_frames(X, n_fft, normalization, onesided):
    """Z = C(X^T): the (B, T, n_fft) unwindowed inverse transforms of X's frames."""
    Xt = _wide(X).transpose(1, 2)
    if onesided:
        return c2r(Xt, [-1], normalization, n_fft)
    return c2c(Xt, [-1], normalization, False)


def _kept(length, start, full):
    return max(0, min(length, full - start))


def place(y, start, full, env=None):
    """(B, full): y's samples at [start, start + length), divided by env there
    when given, zeros elsewhere (samples past `full` are dropped)."""
    keep = _kept(y.shape[1], start, full)
    if keep == 0:
        return y.new_zeros(y.shape[0], full)
    y = y.narrow(1, 0, keep)
    if env is not None:
        y = y / env.narrow(0, start, keep)
    return torch.constant_pad_nd(y, [start, full - start - keep])


def take(z, start, length, env):
    """The adjoint of place: (B, length) samples of z from start, divided by env,
    zeros past the end of z."""
    keep = _kept(length, start, z.shape[1])
    if keep == 0:
        return z.new_zeros(z.shape[0], length)
    z = z.narrow(1, start, keep) / env.narrow(0, start, keep)
    return torch.constant_pad_nd(z, [0, length - keep])


# ---- stft -------------------------------------------------------------------

def stft_setup(ctx, inputs, output):
    x, w, *ctx.args = inputs
    ctx.save_for_backward(x, w)
    ctx.save_for_forward(x, w)


def stft_backward(ctx, g):
    x, w = ctx.saved_tensors
    n_fft, hop, normalization, onesided, pad, mode = ctx.args
    h = _adjoint_dft(_wide(g), n_fft, normalization, onesided, not x.is_complex())
    gx = gw = None
    length = x.shape[1]
    if ctx.needs_input_grad[0]:
        gp = overlap_add(h * _wide(w), hop, length + 2 * pad)
        gx = unpad_adjoint(gp, pad, mode, length).to(x.dtype)
    if ctx.needs_input_grad[1]:
        frames = _conj(pad_signal(_wide(x), pad, mode).unfold(-1, n_fft, hop))
        gw = torch.real(frames * h).sum((0, 1)).to(w.dtype)
    return gx, gw, None, None, None, None, None, None


def stft_jvp(ctx, tx, tw, *_):
    x, w = ctx.saved_tensors
    out = None if tx is None else stft(tx, w, *ctx.args)
    if tw is not None:
        t = stft(x, tw, *ctx.args)
        out = t if out is None else out + t
    return out


# ---- istft ------------------------------------------------------------------

def istft_setup(ctx, inputs, output):
    X, w, *ctx.args = inputs
    ctx.save_for_backward(X, w, output)
    ctx.save_for_forward(X, w, output)


def istft_backward(ctx, g):
    X, w, y = ctx.saved_tensors
    n_fft, hop, normalization, onesided, start, length = ctx.args
    T = X.shape[2]
    full = n_fft + hop * (T - 1)
    wc = _wide(w)
    G = place(_wide(g), start, full, envelope(wc, T, hop))
    gX = gw = None
    if ctx.needs_input_grad[0]:
        gX = stft(G, wc, n_fft, hop, 1 if normalization == 1 else 0, onesided)
        if normalization == 2:
            gX = gX / n_fft
        if onesided:
            gX = gX * _bins(n_fft, gX.shape[1], 2.0, wc.dtype, gX.device)
        gX = gX.to(X.dtype)
    if ctx.needs_input_grad[1]:
        Z = _conj(_inverse_frames(X, n_fft, normalization, onesided))
        gw = torch.real(Z * G.unfold(-1, n_fft, hop)).sum((0, 1))
        p = torch.real(_conj(place(_wide(y), start, full)) * G).sum(0)
        gw = (gw - 2 * wc * p.unfold(0, n_fft, hop).sum(0)).to(w.dtype)
    return gX, gw, None, None, None, None, None, None


def istft_jvp(ctx, tX, tw, *_):
    X, w, y = ctx.saved_tensors
    n_fft, hop, normalization, onesided, start, length = ctx.args
    out = None if tX is None else istft(tX, w, *ctx.args)
    if tw is not None:
        T = X.shape[2]
        full = n_fft + hop * (T - 1)
        wc, twc = _wide(w), _wide(tw)
        num = overlap_add(_inverse_frames(X, n_fft, normalization, onesided) * twc, hop, full)
        d_env = overlap_add((2 * wc * twc).expand(1, T, n_fft), hop, full)
        t = take(num - place(_wide(y), start, full) * d_env, start, length,
                 envelope(wc, T, hop)).to(y.dtype)
        out = t if out is None else out + t
    return out


class STFT(torch.autograd.Function):
    setup_context = staticmethod(stft_setup)
    backward = staticmethod(stft_backward)
    jvp = staticmethod(stft_jvp)

    @staticmethod
    def forward(x, w, n_fft, hop, normalization, onesided, pad, pad_mode):
        return ops.stft(x, w, n_fft, hop, normalization, onesided, pad, pad_mode)

    @staticmethod
    def vmap(info, in_dims, *args):
        return batched(STFT.apply, info, in_dims, *args)


class ISTFT(torch.autograd.Function):
    setup_context = staticmethod(istft_setup)
    backward = staticmethod(istft_backward)
    jvp = staticmethod(istft_jvp)

    @staticmethod
    def forward(X, w, n_fft, hop, normalization, onesided, start, length):
        return ops.istft(X, w, n_fft, hop, normalization, onesided, start, length)

    @staticmethod
    def vmap(info, in_dims, *args):
        return batched(ISTFT.apply, info, in_dims, *args)


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
_lib.impl("stft", _autograd_kernel("stft", STFT), "Autograd")
_lib.impl("istft", _autograd_kernel("istft", ISTFT), "Autograd")
