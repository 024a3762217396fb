"""The examples: the DCCRN-style model trains in complex32 and tracks
complex64; the forward-mode workflows agree with finite differences and
reverse mode. The training runs and workflows run on the CPU (they are
CPU-sized); one training step of the model runs on each device against the
same step on the CPU."""
import copy
import os
import sys

import pytest
import torch

from conftest import to_cpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples"))
import dccrn  # noqa: E402
import jvp_workflows as jw  # noqa: E402


@pytest.fixture(scope="module")
def runs():
    kw = dict(steps=40, batch=4, length=4000, tiny=True, seed=3)
    return {dt: dccrn.train(dt, **kw)[0] for dt in (torch.complex32, torch.complex64)}


def test_loss_falls_in_complex32(runs):
    losses = runs[torch.complex32]
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert last < first - 3.0  # dB of SI-SNR gained


@pytest.fixture(scope="module")
def amp_runs():
    """the model written with torch's calls, under complexext.autocast, Adam at
    its defaults with loss scaling; and the same weights in complex64"""
    kw = dict(steps=40, batch=4, length=4000, tiny=True, seed=3, amp=True)
    return {dt: dccrn.train(dt, **kw)[0] for dt in (torch.complex32, torch.complex64)}


def test_autocast_training_tracks_complex64(amp_runs):
    c32, c64 = amp_runs[torch.complex32], amp_runs[torch.complex64]
    assert sum(c32[-5:]) / 5 < sum(c32[:5]) / 5 - 3.0  # it learns (dB of SI-SNR)
    final32, final64 = sum(c32[-5:]) / 5, sum(c64[-5:]) / 5
    assert abs(final32 - final64) <= 0.1 * abs(final64)  # final loss within 10 %
    assert max(abs(a - b) for a, b in zip(c32, c64)) < 0.25


def test_complex32_parameters_do_not_train_with_adam():
    """The failure docs/amp.md explains: complex32 parameters under Adam at its
    defaults are inf/NaN after one step; complex64 master weights are the fix."""
    p = torch.nn.Parameter(torch.randn(1000, dtype=torch.complex64).to(torch.complex32))
    opt = torch.optim.Adam([p])
    (p.to(torch.complex64) * 1e-3).abs().pow(2).sum().backward()
    opt.step()
    assert not torch.isfinite(torch.view_as_real(p.detach()).float()).all()


def test_complex32_tracks_complex64(runs):
    diffs = [abs(a - b) for a, b in zip(runs[torch.complex32], runs[torch.complex64])]
    assert max(diffs) < 0.25
    assert abs(sum(runs[torch.complex32][-5:]) - sum(runs[torch.complex64][-5:])) / 5 < 0.1


@pytest.mark.parametrize("dtype,loss_tol,grad_tol", [(torch.complex32, 0.05, 2e-2),
                                                     (torch.complex64, 1e-3, 1e-4)],
                         ids=["complex32", "complex64"])
def test_model_step_on_device_matches_cpu(dtype, loss_tol, grad_tol, device):
    """Loss (dB) and gradients of one step of the tiny model, on the device and on
    the CPU from the same parameters and data."""
    torch.manual_seed(3)
    model = dccrn.DCCRN(n_fft=64, hop=16, channels=(4, 8)).float()  # float32 window
    g = torch.Generator().manual_seed(4)
    clean = dccrn.speech_like(2, 2000, generator=g)
    noisy = dccrn.add_noise(clean, generator=g)
    results = []
    for dev in ("cpu", device):
        m = copy.deepcopy(model).to(dev)
        loss = dccrn.neg_si_snr(dccrn.run(m, noisy.to(dev), dtype), clean.to(dev))
        grads = torch.autograd.grad(loss, list(m.parameters()))
        assert loss.device.type == dev
        results.append((loss.item(), [to_cpu(t).to(torch.complex128) for t in grads]))
    (loss0, grads0), (loss1, grads1) = results
    assert abs(loss1 - loss0) <= loss_tol
    for a, b in zip(grads0, grads1):
        assert (a - b).norm() <= grad_tol * a.norm()


def _dot(a, b):
    return sum((x.conj() * y).real.sum() for x, y in zip(a.values(), b.values()))


def _axpy(a, x, y):
    return {k: y[k] + a * x[k] for k in y}


@pytest.fixture(scope="module")
def setup():
    return jw.setup(torch.complex128)


def test_hvp_matches_finite_differences_of_the_gradient(setup):
    model, params, noisy, clean, v = setup
    hv = jw.hvp(model, params, noisy, clean, v)

    def g(p):
        return torch.func.grad(lambda q: dccrn.neg_si_snr(jw.model_fn(model, q, noisy), clean))(p)
    eps = 1e-6  # small enough not to cross the ReLUs' kinks
    fd = {k: (a - b) / (2 * eps) for (k, a), b in
          zip(g(_axpy(eps, v, params)).items(), g(_axpy(-eps, v, params)).values())}
    err = sum((hv[k] - fd[k]).abs().pow(2).sum() for k in hv).sqrt()
    assert err < 1e-5 * sum(t.abs().pow(2).sum() for t in hv.values()).sqrt()


def test_gnvp_matches_reverse_mode(setup):
    model, params, noisy, _, v = setup
    gn = jw.gnvp(model, params, noisy, v)
    eps = 1e-6
    f = lambda p: jw.model_fn(model, p, noisy)  # noqa: E731
    jv = (f(_axpy(eps, v, params)) - f(_axpy(-eps, v, params))) / (2 * eps)
    leaves = {k: p.clone().requires_grad_() for k, p in params.items()}
    out = f(leaves)
    grads = torch.autograd.grad(out, list(leaves.values()), grad_outputs=jv * (2 / out.numel()))
    ref = dict(zip(leaves, grads))
    err = sum((gn[k] - ref[k]).abs().pow(2).sum() for k in gn).sqrt()
    assert err < 1e-6 * sum(t.abs().pow(2).sum() for t in ref.values()).sqrt()
    assert _dot(v, gn) > 0  # J^T H J is positive semi-definite


def test_spectral_jacfwd_matches_jacrev_and_finite_differences(setup):
    x = setup[2][0, :200].clone()
    jac = jw.spectral_jacobian(x)
    assert torch.allclose(jac, torch.func.jacrev(jw.spectral_feature)(x), rtol=1e-9, atol=1e-9)
    for i in (0, 57, 199):
        e = torch.zeros_like(x)
        e[i] = 1e-6
        fd = (jw.spectral_feature(x + e) - jw.spectral_feature(x - e)) / 2e-6
        assert torch.allclose(jac[..., i], fd, rtol=1e-5, atol=1e-5)
