# CPU only: the CUDA register FFT kernels run thread by thread on the host; nothing runs on a device.
"""The register-resident CUDA FFT kernels (csrc/core/cx_reg_fft.h) under
emulation: every length they are compiled for, each access mode, every
storage type, against scipy in float64; and what they do to memory, counted
per warp (csrc/cpu/reg_emulation.h): whole sectors, conflict-free shared
memory, one read and one write of the data, no races."""
import numpy as np
import pytest
import scipy.fft as sf
import torch

import complexext  # noqa: F401
from _refs import check_precision, rand, to_numpy

ops = torch.ops.complexext
SMEM = 227 * 1024  # sm_90's shared memory per block
FIELDS = ["launches", "blocks", "barriers", "gld_bytes", "gst_bytes", "g_accesses", "g_sectors",
          "g_min_sectors", "s_accesses", "s_wavefronts", "s_ideal", "races", "divergent"]
LENGTHS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
           160, 200, 320, 400, 640, 800, 1000, 1600, 2000]


# The targets: whole sectors (ratio 1.0) and at most 1.05 bank wavefronts
# per shared access. Where a kernel misses them today, its measured figure
# (the worst over complex32/64/128) is the ceiling here, so that a change
# can only improve it; each is an open point of docs/cuda.md ("Open").
WAVEFRONT_TARGET = 1.05
OPEN_WAVEFRONTS = {160: 1.1, 200: 1.5, 320: 1.3, 640: 1.2, 800: 1.3, 1000: 1.358,
                   1600: 1.3, 2000: 1.108}
OPEN_SECTORS = {200: 1.695, 400: 1.268, 1000: 1.22, 2000: 1.116}  # 10-100 threads a row
OPEN_STRIDED = {1000: (2.0, 1.0), 4096: (1.75, 4.0)}  # (wavefronts, sectors) of the tile


def counters():
    return dict(zip(FIELDS, ops._gpu_emulation_counters(True)))


data = rand
check = check_precision


def test_every_table_length_has_a_plan():
    for n in LENGTHS:
        p = ops._gpu_reg_plan(n)
        assert p, n
        e, t = p[0], p[1]
        assert e * t == n and e <= 32 and t <= 512
        assert int(np.prod(p[5:])) == n and all(e % r == 0 for r in p[5:])
    assert ops._gpu_reg_plan(17) == [] and ops._gpu_reg_plan(4099) == []


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
def test_c2c_rows(n, dtype):
    if dtype == torch.complex128 and n > 8192:
        pytest.skip("fp64 rows above 8192 do not fit one block: the block kernels take them")
    rows = max(2, 4096 // n) + 1  # a partly filled last block
    x = data((rows, n), dtype, n)
    counters()
    for norm, forward in ((0, True), (2, False), (1, True)):
        got = ops._gpu_emulated_fft_c2c(x, [1], norm, forward, SMEM, 256, 0)
        xn = to_numpy(x)
        ref = (sf.fft(xn, axis=1, norm=["backward", "ortho", "forward"][norm]) if forward else
               sf.ifft(xn, axis=1, norm=["forward", "ortho", "backward"][norm]))
        check(got, ref, dtype)
    c = counters()
    assert c["launches"] == 3, "the register kernel did not run"
    assert c["races"] == 0 and c["divergent"] == 0
    ratio = c["g_sectors"] / c["g_min_sectors"]
    assert ratio <= OPEN_SECTORS.get(n, 1.0) + 1e-9, ratio
    if c["s_ideal"]:
        wf = c["s_wavefronts"] / c["s_ideal"]
        assert wf <= OPEN_WAVEFRONTS.get(n, WAVEFRONT_TARGET) + 1e-9, wf


@pytest.mark.parametrize("n", [16, 256, 400, 1000, 4096])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_c2c_strided_axis_reads_a_tile_of_columns(n, dtype):
    """The transform along dim 0: neighbouring rows are neighbouring columns."""
    x = data((n, 40), dtype, n)
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [0], 0, True, SMEM, 256, 0)
    check(got, sf.fft(to_numpy(x), axis=0), dtype)
    c = counters()
    assert c["launches"] == 1 and c["races"] == 0 and c["divergent"] == 0
    wf_max, sec_max = OPEN_STRIDED.get(n, (WAVEFRONT_TARGET, 1.0))
    if c["s_ideal"]:  # 16 points take one pass: no exchange
        assert c["s_wavefronts"] / c["s_ideal"] <= wf_max + 1e-9
    assert c["g_sectors"] / c["g_min_sectors"] <= sec_max + 1e-9


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_multi_axis_and_batch_geometry(dtype):
    """Two batch dims (a permuted, sliced input) and three transformed axes,
    complex32 keeping fp32 values between axes."""
    x = data((6, 64, 5, 256), dtype, 3).permute(2, 0, 3, 1)[:, 1:, :, ::2]  # (5, 5, 256, 32)
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [1, 2, 3], 1, True, SMEM, 256, 0)
    check(got, sf.fftn(to_numpy(x), axes=(1, 2, 3), norm="ortho"), dtype)
    c = counters()
    assert c["races"] == 0 and c["divergent"] == 0
    assert c["launches"] >= 1  # 256 and 32 have register kernels (5 does not)


def test_switched_off_the_block_kernels_take_every_length(monkeypatch):
    x = data((4, 256), torch.complex32, 0)
    monkeypatch.setenv("COMPLEXEXT_CUDA_REG", "0")
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [1], 0, True, SMEM, 256, 0)
    assert counters()["launches"] == 0
    check(got, sf.fft(to_numpy(x), axis=1), torch.complex32)


def test_too_little_shared_memory_leaves_the_register_kernel_out():
    """A row that does not fit the block's shared memory goes to the
    multi-pass block kernels, as on a device with less of it."""
    x = data((2, 4096), torch.complex64, 1)
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [1], 0, True, 4096, 256, 0)
    assert counters()["launches"] == 0
    check(got, sf.fft(to_numpy(x), axis=1), torch.complex64)
