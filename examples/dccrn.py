"""A DCCRN-style speech enhancement model in complex32, two ways.

    python examples/dccrn.py [--dtype complex32|complex64] [--steps 200] [--tiny]
    python examples/dccrn.py --amp [--steps 40] [--tiny]

--api complexext (the default) writes the model with complexext's calls
(complexext.stft, complexext.nn.ComplexConv2d, ...). --amp writes it as a
torch user already has it (torch.stft, torch.nn.Conv2d with complex64
weights, torch.istft) and trains it under complexext.autocast, which runs
those calls in complex32, with torch.optim.Adam at its defaults and
complexext.amp.GradScaler (torch's GradScaler, for complex gradients).

noisy waveform -> STFT (complex32) -> complex conv encoder -> complex
transposed-conv decoder with skip connections -> complex mask (DCCRN's
"E" mask: tanh magnitude, phase of the estimate) -> ISTFT -> waveform,
trained on negative SI-SNR against the clean signal.

Mixed precision as AMP does it: the parameters are complex64 "master"
weights; the forward pass casts them to the compute dtype (complex32 by
default): by hand through torch.func.functional_call with --api complexext,
by complexext.autocast with --amp. Either way the gradients reach the
complex64 weights and the optimiser updates those. --dtype complex64 runs
the same model all in complex64. (Parameters kept in complex32 themselves
do not train: Adam's state and eps underflow in half precision; docs/amp.md.)

The data is made here: speech-like signals (a few harmonics of a gliding
pitch under syllable-rate envelopes) plus white and low-passed noise at
SNRs between -5 and 10 dB.
"""
import argparse
import math
import resource
import subprocess
import sys
import time

import torch
from torch.func import functional_call

import complexext
from complexext import nn as cnn

COMPUTE = {"complex32": torch.complex32, "complex64": torch.complex64}
REAL = {torch.complex32: torch.float16, torch.complex64: torch.float32}


def speech_like(batch, length, sr=16000, generator=None):
    """Clean speech-like signals: harmonics of a gliding pitch, syllable envelopes."""
    g = generator
    t = torch.arange(length) / sr
    f0 = 100 + 120 * torch.rand(batch, 1, generator=g)
    glide = 1 + 0.15 * torch.sin(2 * math.pi * torch.rand(batch, 1, generator=g) * 3 * t)
    phase = 2 * math.pi * torch.cumsum(f0 * glide, dim=1) / sr
    harmonics = torch.arange(1, 9).view(1, -1, 1)
    amp = (1.0 / harmonics) * (0.5 + torch.rand(batch, 8, 1, generator=g))
    voiced = (amp * torch.sin(harmonics * phase[:, None, :])).sum(1)
    rate = 3 + 3 * torch.rand(batch, 1, generator=g)
    envelope = torch.relu(torch.sin(2 * math.pi * rate * t + 6.28 * torch.rand(batch, 1, generator=g)))
    clean = voiced * envelope ** 2
    return 0.3 * clean / clean.abs().amax(1, keepdim=True).clamp_min(1e-3)


def add_noise(clean, generator=None):
    g = generator
    white = torch.randn(clean.shape, generator=g)
    low = torch.cumsum(torch.randn(clean.shape, generator=g), 1)
    low = low - low.mean(1, keepdim=True)
    noise = white / white.std(1, keepdim=True) + low / low.std(1, keepdim=True).clamp_min(1e-6)
    snr_db = -5 + 15 * torch.rand(clean.shape[0], 1, generator=g)
    scale = clean.pow(2).mean(1, keepdim=True).sqrt() / (noise.pow(2).mean(1, keepdim=True).sqrt()
                                                         * 10 ** (snr_db / 20))
    return clean + scale * noise


def neg_si_snr(est, ref, eps=1e-8):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) / (ref.pow(2).sum(-1, keepdim=True) + eps) * ref
    noise = est - proj
    ratio = proj.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps)
    return -(10 * torch.log10(ratio + eps)).mean()


def crelu(z):
    """ReLU on the real and imaginary parts (works for complex32)."""
    return torch.view_as_complex(torch.relu(torch.view_as_real(z)))


# the calls the model is written with: complexext's own, or torch's (for autocast)
API = {"complexext": (complexext.stft, complexext.istft, cnn.ComplexConv2d,
                      cnn.ComplexConvTranspose2d),
       "torch": (torch.stft, torch.istft, torch.nn.Conv2d, torch.nn.ConvTranspose2d)}


class DCCRN(torch.nn.Module):
    def __init__(self, n_fft=512, hop=128, channels=(16, 32, 64, 64), dtype=torch.complex64,
                 api="complexext", init_seed=None):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.stft, self.istft, conv, deconv = API[api]
        self.register_buffer("window", torch.hann_window(n_fft, dtype=torch.float64))
        kw = dict(dtype=dtype)
        ins = (1,) + tuple(channels[:-1])
        self.encoder = torch.nn.ModuleList(
            conv(i, o, (5, 2), stride=(2, 1), padding=(2, 1), **kw)
            for i, o in zip(ins, channels))
        outs = tuple(reversed(ins))
        self.decoder = torch.nn.ModuleList(
            deconv(2 * o, i, (5, 2), stride=(2, 1), padding=(2, 0), **kw)
            for o, i in zip(reversed(channels), outs))
        if api == "torch" or init_seed is not None:
            # complexext's initialisation, from its own generator when given one,
            # so that both APIs can start from the same weights
            g = None if init_seed is None else torch.Generator().manual_seed(init_seed)
            for m in list(self.encoder) + list(self.decoder):
                cnn.init.complex_kaiming_(m.weight, generator=g)
                torch.nn.init.zeros_(m.bias)

    def forward(self, noisy):
        """noisy: (batch, time) real, in the compute dtype's real type."""
        length = noisy.shape[-1]
        spec = self.stft(noisy, self.n_fft, self.hop, window=self.window.to(noisy.dtype),
                         return_complex=True)                    # (B, F, T)
        frames = spec.shape[-1]
        x = spec.unsqueeze(1)                                     # (B, 1, F, T)
        skips = []
        for conv in self.encoder:
            x = crelu(conv(x)[..., :frames])                      # causal in time
            skips.append(x)
        for i, deconv in enumerate(self.decoder):
            x = deconv(torch.cat([x, skips.pop()], 1))[..., :frames]
            if i + 1 < len(self.decoder):
                x = crelu(x)
        mask = torch.view_as_real(x[:, 0])                        # (B, F, T, 2)
        mask = mask.float() if mask.dtype == torch.float16 else mask
        mag = mask.pow(2).sum(-1, keepdim=True).sqrt()
        mask = mask * (torch.tanh(mag) / (mag + 1e-8))            # E mask: tanh magnitude
        est = spec * torch.view_as_complex(mask).to(spec.dtype)
        return self.istft(est, self.n_fft, self.hop, window=self.window.to(noisy.dtype),
                          length=length)


def run(model, noisy, dtype):
    """model's forward in the compute dtype, parameters cast on the way in."""
    if dtype == torch.complex64:
        return model(noisy.float()).float()
    params = {k: v.to(dtype) if v.is_complex() else v for k, v in model.named_parameters()}
    return functional_call(model, params, (noisy.to(REAL[dtype]),)).float()


def run_amp(model, noisy, dtype):
    """model (written with torch's calls) under complexext.autocast: its
    stft, convolutions and istft run in complex32, the rest as written."""
    with complexext.autocast(noisy.device.type, enabled=dtype == torch.complex32):
        return model(noisy.float()).float()


def train(dtype, steps, batch, length, tiny=False, seed=0, log_every=0, amp=False):
    """Returns (losses, steps per second, peak RSS MiB).

    amp=False: the model written with complexext's calls, the parameters
    cast by hand (run), Adam at lr 3e-3.
    amp=True: Adam at its defaults, weights from one generator; complex32:
    the model written with torch's calls under complexext.autocast, with
    loss scaling; complex64: the same model and weights in complex64 on
    complexext's calls (torch's own complex64 conv2d backward takes about a
    second a step of this model on a CPU, 50 x complexext's)."""
    torch.manual_seed(seed)
    cfg = dict(n_fft=64, hop=16, channels=(4, 8)) if tiny else {}
    mixed = amp and dtype == torch.complex32
    model = DCCRN(**cfg, api="torch" if mixed else "complexext",
                  init_seed=seed + 2 if amp else None)
    opt = torch.optim.Adam(model.parameters(), **({} if amp else dict(lr=3e-3)))
    # complex gradients scaled: torch's GradScaler cannot unscale them on a CPU.
    # 2^8, not torch's 2^16: at 2^16 the complex32 activation gradients of this
    # model overflow, and the first steps are skipped while the scale backs off
    scaler = complexext.amp.GradScaler("cpu", init_scale=2.0 ** 8, enabled=mixed)
    forward = run_amp if mixed else run
    data = torch.Generator().manual_seed(seed + 1)
    losses = []
    start = time.perf_counter()
    for step in range(steps):
        clean = speech_like(batch, length, generator=data)
        noisy = add_noise(clean, generator=data)
        loss = neg_si_snr(forward(model, noisy, dtype), clean)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        if log_every and (step + 1) % log_every == 0:
            print(f"  step {step + 1:4d}  -SI-SNR {loss.item():7.2f} dB")
    rate = steps / (time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return losses, rate, peak


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=list(COMPUTE) + ["both"], default="both",
                   help="both: complex32, then complex64, each in its own process")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--tiny", action="store_true", help="a small model, for a quick check")
    p.add_argument("--amp", action="store_true",
                   help="the model written with torch's calls, under complexext.autocast")
    a = p.parse_args()
    if a.dtype == "both":
        # each dtype in a fresh process, so that peak memory is its own
        for name in COMPUTE:
            argv = [a for a in sys.argv[1:] if not a.startswith("--dtype")]
            subprocess.run([sys.executable, __file__, "--dtype", name] + argv, check=True)
        return
    length = int(a.seconds * 16000)
    print(f"{a.dtype}: {a.steps} steps, batch {a.batch}, {a.seconds:g} s of 16 kHz audio"
          + (", tiny model" if a.tiny else "") + (", complexext.autocast" if a.amp else ""))
    losses, rate, peak = train(COMPUTE[a.dtype], a.steps, a.batch, length, a.tiny,
                               log_every=max(1, a.steps // 10), amp=a.amp)
    first = sum(losses[:5]) / min(5, len(losses))
    last = sum(losses[-5:]) / min(5, len(losses))
    print(f"{a.dtype}: -SI-SNR {first:.2f} -> {last:.2f} dB (mean of first/last 5 steps); "
          f"{rate:.2f} steps/s; peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
