"""Forward-mode workflows through the DCCRN-style model of examples/dccrn.py,
with torch.func.functional_call.

    python examples/jvp_workflows.py

- hvp:   a Hessian-vector product of the training loss, forward over
         reverse: jvp(grad(loss)) along a direction v in parameter space;
- gnvp:  a Gauss-Newton vector product J^T H J v, with J the Jacobian of
         the enhanced waveform in the parameters (jvp, then vjp) and H the
         Hessian of a mean-squared error in the waveform (2/N times I);
- spectral_jacobian: jacfwd of a log-power spectral feature (STFT) with
         respect to the input samples.

Each is checked against finite differences or reverse mode in
tests/test_package_examples.py. The checks run the model in complex128, so the
comparison is not limited by complex32 rounding.
"""
import os
import sys

import torch
from torch.func import functional_call, grad, jacfwd, jacrev, jvp, vjp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import complexext  # noqa: E402
from dccrn import DCCRN, add_noise, neg_si_snr, speech_like  # noqa: E402


def model_fn(model, params, noisy):
    """The model's output waveform as a function of a parameter dict."""
    return functional_call(model, params, (noisy,))


def hvp(model, params, noisy, clean, v):
    """Hessian of the -SI-SNR loss times v (forward over reverse)."""
    def loss(p):
        return neg_si_snr(model_fn(model, p, noisy), clean)
    return jvp(grad(loss), (params,), (v,))[1]


def gnvp(model, params, noisy, v):
    """J^T H J v for the MSE loss mean((f(p) - y)^2): H = 2/N I."""
    f = lambda p: model_fn(model, p, noisy)  # noqa: E731
    out, jv = jvp(f, (params,), (v,))
    _, pullback = vjp(f, params)
    return pullback(jv * (2.0 / out.numel()))[0]


def spectral_feature(x, n_fft=32, hop=8):
    """Log power of the STFT of a (time,) signal: (freq, frames)."""
    window = torch.hann_window(n_fft, dtype=x.dtype)
    spec = complexext.stft(x, n_fft, hop, window=window, return_complex=True)
    power = torch.view_as_real(spec).pow(2).sum(-1)
    return torch.log(power + 1e-6)


def spectral_jacobian(x):
    """d feature / d x, by forward mode: (freq, frames, time)."""
    return jacfwd(spectral_feature)(x)


def setup(dtype=torch.complex128, seed=0, batch=2, length=1024):
    """A tiny model in dtype, a batch of data and a random direction v."""
    torch.manual_seed(seed)
    model = DCCRN(n_fft=64, hop=16, channels=(4, 8), dtype=dtype)
    params = {k: v.detach() for k, v in model.named_parameters()}
    g = torch.Generator().manual_seed(seed + 1)
    real = torch.float64 if dtype == torch.complex128 else torch.float32
    clean = speech_like(batch, length, generator=g).to(real)
    noisy = add_noise(clean.float(), generator=g).to(real)
    v = {k: torch.randn_like(p) for k, p in params.items()}
    return model, params, noisy, clean, v


def main():
    model, params, noisy, clean, v = setup()
    h = hvp(model, params, noisy, clean, v)
    print("hvp:  |Hv| =", f"{sum(t.abs().pow(2).sum() for t in h.values()).sqrt().item():.4e}")
    gn = gnvp(model, params, noisy, v)
    print("gnvp: |J^T H J v| =", f"{sum(t.abs().pow(2).sum() for t in gn.values()).sqrt().item():.4e}")
    x = noisy[0, :256]
    jac = spectral_jacobian(x)
    print("jacfwd of the spectral feature:", tuple(jac.shape),
          "max |difference| to jacrev:", f"{(jac - jacrev(spectral_feature)(x)).abs().max().item():.2e}")


if __name__ == "__main__":
    main()
