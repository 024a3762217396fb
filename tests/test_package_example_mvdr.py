"""The MVDR example: its complex32 pipeline (complexext.stft, complex32 PSD
matrices by complexext.einsum, the complex64 solve, complex32 filtering,
complexext.istft) against the same pipeline in complex128 with torch ops;
the beamformer improves SI-SNR; no input is modified.

U = u = 2^-11 below is the unit roundoff of float16 (11 significant bits),
the real and imaginary parts of complex32: one rounding to float16 has a
relative error of at most u, and |dz| <= u |z| for a complex32 rounding of
z (outside float16's subnormal range)."""
import os
import sys

import pytest
import torch

import complexext

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples"))
import mvdr  # noqa: E402

U = 2.0 ** -11
LOADING = 1e-3


@pytest.fixture(scope="module")
def scene():
    return mvdr.make_scene(channels=4, seconds=1.5, seed=0)


@pytest.fixture(scope="module")
def runs(scene):
    return mvdr.beamform(scene, LOADING), mvdr.beamform_reference(scene, LOADING)


def _trace(phi):
    return torch.diagonal(phi, dim1=-2, dim2=-1).sum(-1).real


def _loaded_cond(phi_n):
    """The 2-norm condition number per frequency of Phi_n as the solve sees it."""
    M = phi_n.shape[-1]
    loaded = phi_n + (LOADING * _trace(phi_n) / M)[:, None, None] * torch.eye(M, dtype=phi_n.dtype)
    return torch.linalg.cond(loaded)


def test_shapes_and_dtypes(scene, runs):
    out, ref = runs
    M, L = scene["mixture"].shape
    F, T = mvdr.N_FFT // 2 + 1, L // mvdr.HOP + 1
    assert out["X"].dtype == torch.complex32 and out["X"].shape == (M, F, T)
    assert out["phi_s"].dtype == out["phi_n"].dtype == torch.complex32
    assert out["phi_s"].shape == out["phi_n"].shape == (F, M, M)
    assert out["w"].dtype == torch.complex64 and out["w"].shape == (F, M)
    assert out["Y"].dtype == torch.complex32 and out["Y"].shape == (F, T)
    assert out["enhanced"].dtype == torch.float16 and out["enhanced"].shape == (L,)
    assert ref["phi_s"].dtype == torch.complex128 and ref["enhanced"].dtype == torch.float64


@pytest.mark.parametrize("name", ["phi_s", "phi_n"])
def test_psd_matrices_match_complex128(runs, name):
    """The complex32 PSD matrices against the complex128 ones.

    Worst case, per frequency: each term w_t X_m X_n^* of the sum over
    frames carries, to first order, 2u from the two complex32 STFT values; 4u
    from the ratio mask made from the complex32 target and noise STFTs
    (|S|^2 and |N|^2 within 2u each); 4u more from dividing by the mask's sum
    (itself within 4u); u from rounding the normalised mask to float16.
    The einsum accumulates in fp32 (negligible) and rounds the result once
    to complex32: u of each entry. That is 12u of each term's magnitude, and
    by Cauchy-Schwarz sum_t w_t |X_m| |X_n| <= sqrt(Phi_mm Phi_nn), so
    |dPhi_mn| <= 12u sqrt(Phi_mm Phi_nn) and ||dPhi||_F <= 12u trace(Phi).

    Over all frequencies: the final rounding is at most u of each entry,
    hence at most u ||Phi||_F; the per-term errors are independent across
    frames and average down in the sums over ~190 frames, so they add well
    under another u: 2u in all. (Accumulating the sum in float16 instead
    would give about 3u here; a lost conjugate or a wrong normalisation, an
    error of order one.)"""
    out, ref = runs
    a, b = out[name].to(torch.complex128), ref[name]
    err = (a - b).flatten(1).norm(dim=1)
    assert (err <= 12 * U * _trace(b)).all(), (err / _trace(b)).max().item() / U
    assert mvdr.rel_err(a, b) <= 2 * U
    # Hermitian in complex32 as well: the einsum of X with its own conjugate
    assert torch.equal(a, a.transpose(1, 2).conj())


def test_stft_matches_complex128(runs):
    """The complex32 STFT is the float64 STFT rounded once (each part within
    u of itself, so |dX| <= u |X| per bin), up to the fp32 FFT's error, far
    below u: per channel and frame ||dX|| <= 1.01 u ||X||, with an absolute
    2^-24 per bin for float16 subnormals."""
    out, ref = runs
    for key in ("X", "S", "N"):
        a, b = out[key].to(torch.complex128), ref[key]
        err, norm = (a - b).norm(dim=1), b.norm(dim=1)          # (M, T)
        assert (err <= 1.01 * U * norm + 2 ** -24 * b.shape[1] ** 0.5).all(), key


def test_weights_match_complex128(runs):
    """The MVDR filter from the complex32 PSD matrices (solved in complex64)
    against the complex128 filter.

    To first order the Souden filter is a function of A = Phi_n^-1 Phi_s,
    and ||dA|| / ||A|| <= kappa (eps_s + eps_n), kappa the condition number
    of the loaded Phi_n and eps the PSD matrices' relative errors (measured
    per frequency here, bounded in the test above); the normalisation by
    trace(A) adds a term of the same size, hence the factor 2 per frequency.
    The complex64 solve adds ~6e-8 kappa. Over all frequencies the error is
    that of the typical frequency: eps_s + eps_n is about u (0.4u each in
    this scene) and the background noise keeps Phi_n's median kappa near 11,
    so the bound is u * median(kappa), about 5e-3."""
    out, ref = runs
    kappa = _loaded_cond(ref["phi_n"])
    eps = sum((out[k].to(torch.complex128) - ref[k]).flatten(1).norm(dim=1)
              / ref[k].flatten(1).norm(dim=1) for k in ("phi_s", "phi_n"))
    a, b = out["w"].to(torch.complex128), ref["w"]
    per_freq = (a - b).norm(dim=1) / b.norm(dim=1)
    assert (per_freq <= 2 * kappa * eps).all(), (per_freq / (kappa * eps)).max().item()
    tol = U * kappa.median().item()
    assert tol < 1e-2  # the scene is as well conditioned as the bound assumes
    assert mvdr.rel_err(a, b) <= tol


def test_enhanced_waveform_matches_complex128(scene, runs):
    """y = w^H x, back through the ISTFT: three roundings of at most u (the
    STFT, the filtered complex32 spectrum, the float16 waveform) plus the
    weights' error where the signal's energy is: within 3e-3 (about 6u) of
    the complex128 waveform, and the SI-SNR within 0.05 dB."""
    out, ref = runs
    assert mvdr.rel_err(out["enhanced"], ref["enhanced"]) < 3e-3
    s32, s128 = mvdr.scores(scene, out["enhanced"]), mvdr.scores(scene, ref["enhanced"])
    assert abs(s32["si_snr_out"] - s128["si_snr_out"]) < 0.05


def test_beamformer_improves_si_snr(scene, runs):
    """The enhanced signal against the target image at the reference
    microphone: with oracle masks, four microphones null most of the
    directional interferer and reduce the background, about 9 dB of SI-SNR
    here; 6 dB is required (passing the reference microphone through gains
    0 dB, averaging the microphones loses 4 dB here)."""
    out, _ = runs
    s = mvdr.scores(scene, out["enhanced"])
    assert s["si_snr_out"] - s["si_snr_in"] > 6.0
    assert s["sdr_out"] - s["sdr_in"] > 5.0


def test_inputs_are_not_modified(scene):
    keys = ("mixture", "target", "noise")
    before = {k: scene[k].clone() for k in keys}
    out = mvdr.beamform(scene, LOADING)
    mvdr.beamform_reference(scene, LOADING)
    for k in keys:
        assert torch.equal(scene[k], before[k]), k
    # and the pieces on their own: the PSD matrices through the solve, the
    # spectrum and the weights through the filtering
    phi_s, phi_n = out["phi_s"].to(torch.complex64), out["phi_n"].to(torch.complex64)
    copies = phi_s.clone(), phi_n.clone()
    mvdr.mvdr_weights(phi_s, phi_n, scene["ref"], LOADING)
    assert torch.equal(phi_s, copies[0]) and torch.equal(phi_n, copies[1])
    X, w = out["X"], out["w"]
    X_before, w_before = X.to(torch.complex64), w.clone()
    wh = w.conj().to(torch.complex32)
    complexext.einsum("fm,mft->ft", wh, X)
    complexext.einsum("ft,mft,nft->fmn", out["w_s"], X, X.conj())
    assert torch.equal(X.to(torch.complex64), X_before) and torch.equal(w, w_before)
