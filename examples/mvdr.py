"""An ESPnet-style MVDR beamformer on a multichannel complex32 STFT.

    python examples/mvdr.py [--channels 4] [--seconds 1.5] [--snr 0] [--seed 0]

A small reverberant scene is made here: a speech-like target and a noise
interferer, each convolved with a synthetic room impulse response per
microphone of a linear array (a fractional-delay direct path, a few early
reflections and an exponentially decaying tail), plus spatially
uncorrelated background noise, at 16 kHz. The target's image at the reference microphone is the
clean signal the beamformer should recover.

The complex32 pipeline (float16 signals in):
  complexext.stft           (M, L) float16 -> (M, F, T) complex32
  oracle masks              ideal ratio masks from the known target and noise
                            images, averaged over the microphones
  PSD matrices              complexext.einsum('ft,mft,nft->fmn', ...) in
                            complex32 (fp32 compute), the masks normalised to
                            sum to one over time
  MVDR weights              Souden's formulation in complex64:
                            w = (Phi_n^-1 Phi_s) u_ref / trace(Phi_n^-1 Phi_s),
                            Phi_n diagonally loaded, by torch.linalg.solve
  beamforming               complexext.einsum('fm,mft->ft', w^H, X) in complex32
  complexext.istft          -> the enhanced float16 waveform

beamform_reference runs the same pipeline in complex128 with torch.stft,
torch.einsum, torch.linalg.solve and torch.istft from the same float16
signals, for comparison. The example prints SI-SNR and SDR at the reference
microphone and after the beamformer, for both pipelines.
"""
import argparse
import math

import torch

import complexext

SR = 16000
N_FFT = 512
HOP = 128
SPEED_OF_SOUND = 343.0


# --- the scene ------------------------------------------------------------------

def speech_like(length, sr=SR, generator=None):
    """A speech-like source: harmonics of a gliding pitch (with a spectral
    tilt, up to 5 kHz) under a syllable-rate envelope, and short high-passed
    noise bursts (fricatives) between the voiced parts."""
    g = generator
    t = torch.arange(length, dtype=torch.float64) / sr
    f0 = 110 + 60 * torch.rand((), generator=g, dtype=torch.float64)
    glide = 1 + 0.12 * torch.sin(2 * math.pi * 2.5 * t + 6.28 * torch.rand((), generator=g))
    phase = 2 * math.pi * torch.cumsum(f0 * glide, 0) / sr
    n_harm = int(5000 // (f0 * 1.12))
    k = torch.arange(1, n_harm + 1, dtype=torch.float64)[:, None]
    amp = (0.5 + torch.rand(n_harm, 1, generator=g, dtype=torch.float64)) / k
    offsets = 6.28 * torch.rand(n_harm, 1, generator=g, dtype=torch.float64)
    voiced = (amp * torch.sin(k * phase + offsets)).sum(0)
    syllable = torch.sin(2 * math.pi * 4.0 * t)
    voiced = voiced * torch.relu(syllable) ** 2
    hiss = torch.randn(length, generator=g, dtype=torch.float64)
    hiss = hiss - torch.nn.functional.pad(hiss, (1, 0))[:-1]          # first difference: high-pass
    unvoiced = 0.4 * hiss * torch.relu(-syllable) ** 4
    s = voiced / voiced.abs().max() + unvoiced
    return s / s.abs().max()


def noise_source(length, generator=None):
    """The interferer: white noise through a one-pole low-pass (corner near
    1 kHz), slowly amplitude modulated; unit peak."""
    g = generator
    white = torch.randn(length, generator=g, dtype=torch.float64)
    n = convolve(white, 0.7 ** torch.arange(64, dtype=torch.float64))
    t = torch.arange(length, dtype=torch.float64) / SR
    n = n * (1 + 0.5 * torch.sin(2 * math.pi * 0.7 * t))
    return n / n.abs().max()


def fractional_delay(delay, length, taps=32):
    """A Hann-windowed sinc delaying by `delay` samples (>= taps / 2)."""
    n = torch.arange(length, dtype=torch.float64)
    x = n - delay
    h = torch.sinc(x) * torch.where(x.abs() < taps / 2,
                                    0.5 + 0.5 * torch.cos(math.pi * x / (taps / 2)),
                                    torch.zeros_like(x))
    return h


def room_impulse_responses(angle_deg, channels, spacing=0.05, length=384, t60=0.12,
                           generator=None):
    """Synthetic impulse responses (channels, length) from a far-field source
    at angle_deg (0 = broadside) to a uniform linear array: the direct path
    at each microphone's fractional delay, four early reflections from their
    own directions, and a decaying diffuse tail independent per microphone."""
    g = generator
    n = torch.arange(length, dtype=torch.float64)
    mics = (torch.arange(channels, dtype=torch.float64) - (channels - 1) / 2) * spacing

    def plane_wave(angle, start, gain):
        delays = start + mics * math.sin(math.radians(angle)) * SR / SPEED_OF_SOUND
        return gain * torch.stack([fractional_delay(d.item(), length) for d in delays])

    h = plane_wave(angle_deg, 24.0, 1.0)
    for _ in range(4):
        angle = -90 + 180 * torch.rand((), generator=g).item()
        start = 40 + 120 * torch.rand((), generator=g).item()
        sign = 1.0 if torch.rand((), generator=g).item() < 0.5 else -1.0
        h = h + plane_wave(angle, start, sign * 0.5 * math.exp(-6.9 * start / (t60 * SR)))
    decay = torch.exp(-6.9 * n / (t60 * SR)) * (n > 48)
    tail = 0.15 * torch.randn(channels, length, generator=g, dtype=torch.float64) * decay
    return h + tail


def convolve(signal, filters):
    """The linear convolution of a signal (L,) with filters (..., K), cut to
    the signal's length: (..., L), by FFT."""
    L, K = signal.shape[-1], filters.shape[-1]
    n = 1 << (L + K - 1).bit_length()
    y = torch.fft.irfft(torch.fft.rfft(signal, n) * torch.fft.rfft(filters, n), n)
    return y[..., :L]


def make_scene(channels=4, seconds=1.5, snr_db=0.0, background_snr_db=10.0, seed=0):
    """The multichannel scene as float16 signals, each (channels, length):
    {"mixture", "target", "noise"}, the mixture being the float16 target
    plus the float16 noise, rounded to float16; "ref" is the reference
    microphone. The target image
    at the reference microphone peaks at 0.25; snr_db is the
    target-to-interferer ratio there, background_snr_db the ratio of the
    target to the uncorrelated background noise (the rest of "noise")."""
    g = torch.Generator().manual_seed(seed)
    length = int(seconds * SR)
    ref = 0
    s = speech_like(length, generator=g)
    v = noise_source(length, generator=g)
    target = convolve(s, room_impulse_responses(20.0, channels, generator=g))
    interferer = convolve(v, room_impulse_responses(-50.0, channels, generator=g))
    background = torch.randn(channels, length, generator=g, dtype=torch.float64)

    def power(x):
        return x.pow(2).mean()

    interferer = interferer * (power(target[ref]) / power(interferer[ref])
                               / 10 ** (snr_db / 10)).sqrt()
    background = background * (power(target[ref]) / power(background)
                                / 10 ** (background_snr_db / 10)).sqrt()
    scale = 0.25 / target[ref].abs().max()
    target16 = (scale * target).half()
    noise16 = (scale * (interferer + background)).half()
    mixture16 = (target16.float() + noise16.float()).half()
    return {"mixture": mixture16, "target": target16, "noise": noise16, "ref": ref}


# --- metrics --------------------------------------------------------------------

def si_snr(est, ref):
    """Scale-invariant SNR in dB (float64), zero-mean signals."""
    est = est.double() - est.double().mean()
    ref = ref.double() - ref.double().mean()
    proj = (est @ ref) / (ref @ ref) * ref
    return (10 * torch.log10(proj.pow(2).sum() / (est - proj).pow(2).sum())).item()


def sdr(est, ref):
    """Signal-to-distortion ratio in dB (no rescaling of the estimate)."""
    est, ref = est.double(), ref.double()
    return (10 * torch.log10(ref.pow(2).sum() / (est - ref).pow(2).sum())).item()


# --- the beamformer -------------------------------------------------------------

def oracle_masks(S, N, eps=1e-10):
    """Ideal ratio masks (F, T) of the target and the noise from their
    images' STFTs (M, F, T), averaged over the microphones, in the real
    dtype of S's compute precision (float32 for complex32)."""
    wide = torch.complex64 if S.dtype == torch.complex32 else S.dtype
    ps = S.to(wide).abs().pow(2)
    pn = N.to(wide).abs().pow(2)
    total = ps + pn + eps
    return (ps / total).mean(0), (pn / total).mean(0)


def normalised(mask, eps=1e-10):
    """The mask divided by its sum over time, per frequency."""
    return mask / (mask.sum(-1, keepdim=True) + eps)


def mvdr_weights(phi_s, phi_n, ref, loading=1e-3, eps=1e-10):
    """Souden's MVDR filter (F, M) from the PSD matrices (F, M, M), in their
    dtype (complex64 or complex128): Phi_n is loaded by loading * trace / M
    on its diagonal, then w = (Phi_n^-1 Phi_s) u_ref / trace(Phi_n^-1 Phi_s).
    The output is y = w^H x."""
    M = phi_n.shape[-1]
    eye = torch.eye(M, dtype=phi_n.dtype)
    tr_n = torch.diagonal(phi_n, dim1=-2, dim2=-1).sum(-1).real
    phi_n = phi_n + (loading * tr_n / M + eps)[:, None, None] * eye
    num = torch.linalg.solve(phi_n, phi_s)
    tr = torch.diagonal(num, dim1=-2, dim2=-1).sum(-1)
    return num[..., ref] / (tr[:, None] + eps)


def stft_window(dtype=torch.float64):
    return torch.hann_window(N_FFT, dtype=dtype)


def beamform(scene, loading=1e-3):
    """The complex32 pipeline on the scene's float16 signals. Returns a dict:
    X, S, N the STFTs (M, F, T) of the mixture, target and noise, complex32;
    mask_s, mask_n (F, T) float32 and w_s, w_n, the masks normalised over
    time in float16 (as the einsum reads them); phi_s, phi_n (F, M, M)
    complex32; w (F, M) complex64; Y (F, T) complex32; enhanced (L,)
    float16."""
    window = stft_window(torch.float32)
    length = scene["mixture"].shape[-1]

    def stft(x):
        return complexext.stft(x, N_FFT, HOP, window=window, return_complex=True)

    X, S, N = stft(scene["mixture"]), stft(scene["target"]), stft(scene["noise"])
    mask_s, mask_n = oracle_masks(S, N)
    w_s, w_n = normalised(mask_s).half(), normalised(mask_n).half()
    Xh = X.conj()
    phi_s = complexext.einsum("ft,mft,nft->fmn", w_s, X, Xh)
    phi_n = complexext.einsum("ft,mft,nft->fmn", w_n, X, Xh)
    w = mvdr_weights(phi_s.to(torch.complex64), phi_n.to(torch.complex64), scene["ref"],
                     loading)
    Y = complexext.einsum("fm,mft->ft", w.conj().to(torch.complex32), X)
    enhanced = complexext.istft(Y, N_FFT, HOP, window=window, length=length)
    return dict(X=X, S=S, N=N, mask_s=mask_s, mask_n=mask_n, w_s=w_s, w_n=w_n,
                phi_s=phi_s, phi_n=phi_n, w=w, Y=Y, enhanced=enhanced)


def beamform_reference(scene, loading=1e-3):
    """The same pipeline in complex128 with torch ops, from the same float16
    signals (read exactly into float64). Returns beamform's dict, with
    everything in float64 or complex128."""
    window = stft_window(torch.float64)
    length = scene["mixture"].shape[-1]

    def stft(x):
        return torch.stft(x.double(), N_FFT, HOP, window=window, return_complex=True)

    X, S, N = stft(scene["mixture"]), stft(scene["target"]), stft(scene["noise"])
    mask_s, mask_n = oracle_masks(S, N)
    w_s, w_n = normalised(mask_s), normalised(mask_n)
    Xh = X.conj()
    phi_s = torch.einsum("ft,mft,nft->fmn", w_s.to(X.dtype), X, Xh)
    phi_n = torch.einsum("ft,mft,nft->fmn", w_n.to(X.dtype), X, Xh)
    w = mvdr_weights(phi_s, phi_n, scene["ref"], loading)
    Y = torch.einsum("fm,mft->ft", w.conj(), X)
    enhanced = torch.istft(Y, N_FFT, HOP, window=window, length=length)
    return dict(X=X, S=S, N=N, mask_s=mask_s, mask_n=mask_n, w_s=w_s, w_n=w_n,
                phi_s=phi_s, phi_n=phi_n, w=w, Y=Y, enhanced=enhanced)


def scores(scene, enhanced):
    """SI-SNR and SDR (dB) of the reference microphone and of the enhanced
    signal against the target image at the reference microphone."""
    ref = scene["ref"]
    clean, noisy = scene["target"][ref], scene["mixture"][ref]
    return {"si_snr_in": si_snr(noisy, clean), "si_snr_out": si_snr(enhanced, clean),
            "sdr_in": sdr(noisy, clean), "sdr_out": sdr(enhanced, clean)}


def rel_err(a, b):
    """||a - b|| / ||b||, in complex128 / float64."""
    wide = torch.complex128 if (a.is_complex() or b.is_complex()) else torch.float64
    a, b = a.to(wide), b.to(wide)
    return ((a - b).norm() / b.norm()).item()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--channels", type=int, default=4)
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--snr", type=float, default=0.0,
                   help="target-to-interferer ratio at the reference microphone, dB")
    p.add_argument("--background-snr", type=float, default=10.0,
                   help="target-to-background-noise ratio, dB")
    p.add_argument("--loading", type=float, default=1e-3,
                   help="diagonal loading of Phi_n, relative to trace(Phi_n) / M")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    scene = make_scene(a.channels, a.seconds, a.snr, a.background_snr, seed=a.seed)
    M, L = scene["mixture"].shape
    print(f"{M} microphones, {L / SR:g} s at {SR} Hz, n_fft {N_FFT}, hop {HOP}; at microphone "
          f"{scene['ref']}: target-to-interferer {a.snr:g} dB, to background "
          f"{a.background_snr:g} dB")
    out = beamform(scene, a.loading)
    ref = beamform_reference(scene, a.loading)
    for name, o in (("complex32 ", out), ("complex128", ref)):
        s = scores(scene, o["enhanced"])
        print(f"{name}: SI-SNR {s['si_snr_in']:6.2f} -> {s['si_snr_out']:6.2f} dB "
              f"({s['si_snr_out'] - s['si_snr_in']:+.2f}), SDR {s['sdr_in']:6.2f} -> "
              f"{s['sdr_out']:6.2f} dB ({s['sdr_out'] - s['sdr_in']:+.2f})")
    print("complex32 against complex128 (relative error): "
          + ", ".join(f"{k} {rel_err(out[k], ref[k]):.1e}"
                      for k in ("X", "phi_s", "phi_n", "w", "Y", "enhanced")))


if __name__ == "__main__":
    main()
