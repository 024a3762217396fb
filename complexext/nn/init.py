"""Complex weight initialisation (Trabelsi et al., "Deep Complex Networks",
ICLR 2018, section 3.6).

A complex weight w = |w| e^{i theta} is drawn with a Rayleigh magnitude of
scale sigma and a uniform phase theta in [-pi, pi), independently. Then
E[w] = 0 and Var(w) = E|w|^2 = 2 sigma^2, spread evenly over the real and
imaginary parts and over all phases, so no direction of the complex plane
is preferred. sigma is set so that Var(w) matches the real criterion:

    He (Kaiming):     Var(w) = 2 / fan_in            sigma = 1 / sqrt(fan_in)
    Glorot (Xavier):  Var(w) = 2 / (fan_in + fan_out) sigma = 1 / sqrt(fan_in + fan_out)

Drawing real and imaginary parts independently with the real criterion's
variance instead would double Var(w) (each part carries half of E|w|^2),
and a complex layer's output variance is fan_in * Var(w) * E|x|^2, so the
scale is what keeps activations and gradients at a constant size through a
deep complex network. fan_in and fan_out are computed as torch computes
them for a weight tensor (shape[1] and shape[0] times the kernel size).

Draws come from torch's random generator (or `generator`), in float32
(float64 for complex128 tensors), then are rounded to the tensor's dtype.
"""
import math

import torch

__all__ = ["complex_rayleigh_", "complex_kaiming_", "complex_xavier_", "fans"]


def fans(tensor):
    """(fan_in, fan_out) of a weight of shape (a, b, *kernel): b and a times
    the kernel size (torch's convention, also for transposed weights)."""
    return _fans("fans", tensor)


def _fans(name, tensor):
    if tensor.dim() < 2:
        raise ValueError(f"{name}: need a tensor of at least 2 dims, got shape "
                         f"{tuple(tensor.shape)}")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _complex(name, tensor):
    if not isinstance(tensor, torch.Tensor) or not tensor.is_complex():
        got = tensor.dtype if isinstance(tensor, torch.Tensor) else type(tensor).__name__
        raise TypeError(f"{name}: expected a complex tensor, got {got}")


def complex_rayleigh_(tensor, sigma, generator=None):
    """Fills complex tensor in place: Rayleigh(sigma) magnitude, uniform
    phase. Var = E|w|^2 = 2 sigma^2. Returns tensor."""
    _complex("complex_rayleigh_", tensor)
    wide = torch.float64 if tensor.dtype == torch.complex128 else torch.float32
    kw = dict(dtype=wide, device=tensor.device, generator=generator)
    with torch.no_grad():
        u = torch.rand(tensor.shape, **kw)
        magnitude = sigma * torch.sqrt(-2.0 * torch.log1p(-u))  # 1 - u in (0, 1]
        phase = (2 * torch.rand(tensor.shape, **kw) - 1) * math.pi
        tensor.copy_(torch.polar(magnitude, phase))
    return tensor


def complex_kaiming_(tensor, mode="fan_in", generator=None):
    """Complex He initialisation: Var(w) = 2 / fan (mode "fan_in" or "fan_out")."""
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"complex_kaiming_: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    _complex("complex_kaiming_", tensor)
    fan_in, fan_out = _fans("complex_kaiming_", tensor)
    fan = fan_in if mode == "fan_in" else fan_out
    return complex_rayleigh_(tensor, 1.0 / math.sqrt(max(fan, 1)), generator)


def complex_xavier_(tensor, generator=None):
    """Complex Glorot initialisation: Var(w) = 2 / (fan_in + fan_out)."""
    _complex("complex_xavier_", tensor)
    fan_in, fan_out = _fans("complex_xavier_", tensor)
    return complex_rayleigh_(tensor, 1.0 / math.sqrt(max(fan_in + fan_out, 1)), generator)
