# CPU only: the GPU per-block code emulated thread by thread on the host; nothing runs on a device.
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


# ---- the CUDA ops' code (csrc/cuda/*_driver.h) over emulated launches ----------
# _gpu_emulated_* run the CUDA binding's op code with every kernel launch
# emulated on the CPU (shuffled threads, a barrier after each phase). smem is
# the shared memory a block may use: ONE_PASS fits every length tested in one
# block; SMALL (4 KiB: 256 fp32 / 128 fp64 complex values per row) forces the
# four-step and Bluestein + four-step paths at small lengths.
from support.refs import check_precision, to_numpy  # noqa: E402

ONE_PASS = 1 << 20
SMALL = 4096
REAL = {torch.complex32: torch.float16, torch.complex64: torch.float32,
        torch.complex128: torch.float64}


def data(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    wide = torch.complex128 if dtype.is_complex else torch.float64
    return torch.randn(shape, dtype=wide, generator=g).to(dtype)


check = check_precision


def sp_norm(normalization, forward):
    """scipy's norm for the ops' normalization code (0 none, 1 ortho, 2 by 1/N)."""
    return [("backward", "forward"), ("ortho", "ortho"), ("forward", "backward")][
        normalization][0 if forward else 1]


# Lengths reaching: one pass (smooth, Bluestein), four-step, Bluestein + four-step.
C2C_N = [1, 2, 16, 17, 97, 257, 1000, 4099]


@pytest.mark.parametrize("n", C2C_N)
@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("smem", [ONE_PASS, SMALL], ids=["one_pass", "multi_pass"])
def test_gpu_c2c_1d(n, cdtype, smem):
    x = data((3, n), cdtype, n)
    for forward in (True, False):
        for norm in (0, 2):
            got = ops._gpu_emulated_fft_c2c(x, [1], norm, forward, smem, 13, n + norm)
            f = sf.fft if forward else sf.ifft
            check(got, f(to_numpy(x), axis=1, norm=sp_norm(norm, forward)), cdtype)


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("smem", [ONE_PASS, SMALL], ids=["one_pass", "multi_pass"])
def test_gpu_c2c_nd_strided(cdtype, smem):
    # A non-contiguous input (permuted and sliced), three transformed dims.
    base = data((6, 9, 300, 4), cdtype, 5)
    x = base.permute(3, 2, 0, 1)[:, ::2, :, 1:8]  # (4, 150, 6, 7), no unit stride
    assert not x.is_contiguous()
    xn = to_numpy(x)
    for dims in ([1], [2, 0], [1, 3, 2], [-1, 1]):
        got = ops._gpu_emulated_fft_c2c(x, dims, 1, True, smem, 256, len(dims))
        check(got, sf.fftn(xn, axes=dims, norm="ortho"), cdtype)
    got = ops._gpu_emulated_fft_c2c(x, [0, 1], 0, False, smem, 32, 1)
    check(got, sf.ifftn(xn, axes=[0, 1], norm="forward"), cdtype)


@pytest.mark.parametrize("n", [1, 2, 7, 16, 34, 97, 600, 1001, 2 * 4099])
@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("smem", [ONE_PASS, SMALL], ids=["one_pass", "multi_pass"])
def test_gpu_r2c_c2r_1d(n, cdtype, smem):
    r = data((2, 3, n), REAL[cdtype], n)
    rs = r.transpose(1, 2)  # the axis has stride 3
    for onesided in (True, False):
        got = ops._gpu_emulated_fft_r2c(rs, [1], 2, onesided, smem, 7, n)
        ref = (sf.rfft if onesided else sf.fft)(to_numpy(rs), axis=1, norm="forward")
        check(got, ref, cdtype)
    # c2r reads n//2 + 1 bins; give it more, with nonzero imaginary parts at
    # DC and Nyquist, which a real signal's spectrum cannot have (ignored).
    h = data((2, n // 2 + 3, 3), cdtype, n + 1).transpose(1, 2)
    got = ops._gpu_emulated_fft_c2r(h, [2], 0, n, smem, 7, n)
    check(got, sf.irfft(to_numpy(h)[..., : n // 2 + 1], n=n, axis=2, norm="forward"), cdtype)


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("smem", [ONE_PASS, SMALL], ids=["one_pass", "multi_pass"])
def test_gpu_real_nd(cdtype, smem):
    r = data((5, 400, 6), REAL[cdtype], 3)[:, ::2, :]  # (5, 200, 6)
    rn = to_numpy(r)
    got = ops._gpu_emulated_fft_r2c(r, [0, 1], 1, True, smem, 16, 0)
    check(got, sf.rfftn(rn, axes=[0, 1], norm="ortho"), cdtype)
    got = ops._gpu_emulated_fft_r2c(r, [2, 0, 1], 0, False, smem, 16, 0)
    check(got, sf.fftn(rn, axes=[2, 0, 1]), cdtype)
    h = data((5, 6, 101), cdtype, 4)
    hn = to_numpy(h)
    for n in (200, 201):
        got = ops._gpu_emulated_fft_c2r(h, [0, 2], 2, n, smem, 16, n)
        check(got, sf.irfftn(hn[..., : n // 2 + 1], s=[5, n], axes=[0, 2]), cdtype)


def frames_ref(x, win, n_fft, hop):
    T = 1 + (x.shape[1] - n_fft) // hop
    idx = np.arange(T)[:, None] * hop + np.arange(n_fft)[None, :]
    return x[:, idx] * win  # (B, T, n_fft)


@pytest.mark.parametrize("n_fft,hop", [(16, 4), (400, 160), (97, 30), (1000, 250)])
@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("smem", [ONE_PASS, SMALL], ids=["one_pass", "multi_pass"])
def test_gpu_stft_istft(n_fft, hop, cdtype, smem):
    x = data((2, 3000), REAL[cdtype], n_fft)
    win = torch.hann_window(n_fft, dtype=torch.float64) + 0.1
    xn, wn = to_numpy(x), win.numpy()
    wn = wn.astype(np.float32) if cdtype != torch.complex128 else wn
    p = n_fft // 2
    for onesided, pad, mode in ((True, p, "reflect"), (False, 0, "constant")):
        got = ops._gpu_emulated_stft(x, win, n_fft, hop, 1, onesided, pad, mode, smem, 16, 1)
        fr = frames_ref(np.pad(xn, ((0, 0), (pad, pad)), mode=mode), wn, n_fft, hop)
        ref = (np.fft.rfft if onesided else np.fft.fft)(fr, axis=-1, norm="ortho")
        check(got, ref.transpose(0, 2, 1), cdtype)
    xc = data((2, 3000), cdtype, n_fft + 1)
    got = ops._gpu_emulated_stft(xc, win, n_fft, hop, 0, False, p, "circular", smem, 16, 2)
    frc = frames_ref(np.pad(to_numpy(xc), ((0, 0), (p, p)), mode="wrap"), wn, n_fft, hop)
    check(got, np.fft.fft(frc, axis=-1).transpose(0, 2, 1), cdtype)
    # istft: frames' inverse DFTs, windowed, overlap-added, over the envelope.
    T = 1 + (3000 - n_fft) // hop
    for onesided in (True, False):
        F = n_fft // 2 + 1 if onesided else n_fft
        spec = data((2, F, T), cdtype, T)
        sn = to_numpy(spec).transpose(0, 2, 1)
        w = wn.astype(np.float32).astype(np.float64) if cdtype != torch.complex128 else wn
        fr = (np.fft.irfft(sn, n=n_fft, axis=-1) if onesided else np.fft.ifft(sn, axis=-1)) * w
        full = n_fft + hop * (T - 1)
        acc = np.zeros((2, full), dtype=fr.dtype)
        env = np.zeros(full)
        for t in range(T):
            acc[:, t * hop: t * hop + n_fft] += fr[:, t]
            env[t * hop: t * hop + n_fft] += w * w
        start, length = n_fft // 2, full - n_fft
        ref = (acc / env)[:, start: start + length]
        got = ops._gpu_emulated_istft(spec, win, n_fft, hop, 2, onesided, start, length, smem,
                                      16, 3)
        assert got.dtype == (REAL[cdtype] if onesided else cdtype)
        check(got, ref, cdtype)


def test_gpu_emulation_thread_order_and_count_do_not_matter():
    x = data((2, 1000), torch.complex128, 9)
    runs = [ops._gpu_emulated_fft_c2c(x, [1], 0, True, SMALL, tpr, seed)
            for tpr, seed in [(1, 0), (7, 1), (64, 2), (64, 3)]]
    assert all(torch.equal(runs[0], r) for r in runs[1:])


def test_gpu_emulation_errors():
    x = data((2, 10), torch.complex64, 0)
    with pytest.raises(RuntimeError, match="fft_c2c: dim 2 out of range"):
        ops._gpu_emulated_fft_c2c(x, [2], 0, True, ONE_PASS, 8, 0)
    with pytest.raises(RuntimeError, match="too large for the CUDA FFT kernels"):
        ops._gpu_emulated_fft_c2c(data((1, 4099), torch.complex64, 0), [1], 0, True, 256, 8, 0)
    spec = data((1, 9, 4), torch.complex64, 0)
    with pytest.raises(RuntimeError, match="istft: the window fails the NOLA condition"):
        ops._gpu_emulated_istft(spec, torch.zeros(16), 16, 4, 2, True, 0, 20, ONE_PASS, 8, 0)
