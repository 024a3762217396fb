"""The GPU kernels' per-block FFT code (csrc/core/cx_block.h), run on the
CPU thread by thread between barriers, threads shuffled in each phase,
against scipy: index arithmetic, phase structure and Bluestein phases."""
import numpy as np
import pytest
import scipy.fft as sf
import torch

import complexext  # noqa: F401

ops = torch.ops.complexext


def rel_rms(got, ref):
    return float(np.sqrt(np.mean(np.abs(got - ref) ** 2) / np.mean(np.abs(ref) ** 2)))


@pytest.mark.parametrize("n", [1, 2, 3, 8, 16, 17, 30, 97, 256, 400, 1000, 1024, 4096, 4099])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
@pytest.mark.parametrize("threads", [1, 7, 64])
def test_block_fft_matches_scipy(n, dtype, threads):
    torch.manual_seed(n)
    x = torch.randn(3, n, dtype=torch.complex64).to(dtype)
    xn = x.to(torch.complex128).numpy()
    for forward in (True, False):
        got = ops._block_fft_emulated(x, threads, forward, n * 131 + threads)
        got = got.to(torch.complex128).numpy()
        ref = sf.fft(xn, axis=1) if forward else sf.ifft(xn, axis=1) * n
        err = rel_rms(got, ref)
        if dtype == torch.complex32:
            rounded = torch.from_numpy(ref).to(torch.complex32).to(torch.complex128).numpy()
            assert err <= 1.15 * rel_rms(rounded, ref)
        else:
            assert err < (1e-13 if dtype == torch.complex128 else 1e-6)


def test_thread_order_does_not_matter():
    x = torch.randn(2, 1000, dtype=torch.complex128)
    runs = [ops._block_fft_emulated(x, 32, True, seed) for seed in range(4)]
    assert all(torch.equal(runs[0], r) for r in runs[1:])
