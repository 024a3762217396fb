# CPU only: the CUDA register FFT kernels run thread by thread on the host; nothing runs on a device.
"""The register-resident CUDA FFT kernels (csrc/core/cx_reg_fft.h) under
emulation: every length they are compiled for, each access mode, every
storage type, against scipy in float64; and what they do to memory, counted
per warp (csrc/emulation/reg_emulation.h): whole sectors, conflict-free shared
memory, one read and one write of the data, no races."""
import os

import numpy as np
import pytest
import scipy.fft as sf
import torch

import complexext  # noqa: F401
from support.refs import REAL_OF, check_precision, rand, to_numpy

ops = torch.ops.complexext
# A build that emulates the kernels at a few lengths only (reg_emu=few:
# COMPLEXEXT_REG_EMU_FEW, the device check's build) lacks most of those these
# tests count. .ci/sanitize's build is one too, and runs the tests its few
# lengths reach (COMPLEXEXT_SANITIZED=1); a full build runs them all.
pytestmark = pytest.mark.skipif(
    "reg_emu=few" in ops.built_with() and os.environ.get("COMPLEXEXT_SANITIZED") != "1",
    reason="this build emulates the register kernels at a few lengths only "
           "(COMPLEXEXT_REG_EMU_FEW); a full build runs these")
SMEM = 227 * 1024  # sm_90's shared memory per block
FIELDS = ["launches", "blocks", "barriers", "gld_bytes", "gst_bytes", "g_accesses", "g_sectors",
          "g_min_sectors", "s_accesses", "s_wavefronts", "s_ideal", "races", "divergent",
          "g_unique_ld_bytes", "g_unique_st_bytes"]
TABLE = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
         160, 200, 320, 400, 480, 640, 800, 960, 1000, 1200, 1600, 2000]
# lengths the CUDA binding compiles at first use (NVRTC), emulated as a GPU
# with NVRTC runs them (CX_REG_RTC_SAMPLES in csrc/emulation/reg_emulation.h)
RTC_SAMPLES = [96, 105, 243, 1920]
LENGTHS = TABLE + RTC_SAMPLES


# The targets: whole sectors (ratio 1.0) and at most 1.05 bank wavefronts
# per shared access. Where a kernel misses them today, its measured figure
# (the worst over complex32/64/128) is the ceiling here, so that a change
# can only improve it; each is an open point of docs/cuda.md ("Open").
WAVEFRONT_TARGET = 1.05
OPEN_WAVEFRONTS = {200: 1.5, 800: 1.439, 1000: 1.358, 1600: 1.3, 2000: 1.108,
                   480: 1.541, 1200: 1.392, 105: 1.759, 243: 1.902, 1920: 1.279}
OPEN_SECTORS = {200: 1.695, 400: 1.268, 1000: 1.22, 2000: 1.116,  # 10-100 threads a row
                160: 1.203, 320: 1.074, 480: 1.092, 1200: 1.025, 105: 1.533, 243: 1.49}
# 160, 320, 800 (and 480, 960, 1200, 1920) take two or three passes with idle
# butterflies where the exact plans took three to seven (cx_rplan_choose):
# one exchange instead of two or three, and about half the instructions
# (160: 103 -> 53 a value, 320: 92 -> 64, 640: 132 -> 75, 800: 100 -> 67).
# The price, per access: 160 and 320 read a layout whose runs start
# mid-sector (sectors 1.0 -> 1.203 and 1.074), 800's radix-25 writes
# conflict more (wavefronts per access 1.3 -> 1.439, over half the
# accesses); 640 and 960 reach 1.000 in both.
OPEN_STRIDED = {1000: (2.0, 1.0), 4096: (1.75, 4.0)}  # (wavefronts, sectors) of the tile


def counters():
    return dict(zip(FIELDS, ops._gpu_emulation_counters(True)))


data = rand
check = check_precision


def plan_of(n):
    """(E, T, radices, butterflies a thread in each pass) of n's register plan."""
    p = ops._gpu_reg_plan(n)
    k = (len(p) - 5) // 2
    return p[0], p[1], p[5:5 + k], p[5 + k:]


def test_every_table_length_has_a_plan():
    for n in LENGTHS:
        assert ops._gpu_reg_ahead_of_time(n) == (n in TABLE), n
        assert ops._gpu_reg_plan(n), n
        e, t, radices, nb = plan_of(n)
        assert e <= 32 and t <= 512 and int(np.prod(radices)) == n
        # each pass: the butterflies of n / r spread over t threads, e registers enough
        assert nb == [-(-(n // r) // t) for r in radices]
        assert max(r * b for r, b in zip(radices, nb)) == e
        if e * t == n:  # no idle butterflies: every radix divides e
            assert all(e % r == 0 and b * r == e for r, b in zip(radices, nb))
    # a pass with idle butterflies where it saves passes: 480 in two, not five
    assert plan_of(480)[2] == [15, 32] and plan_of(480)[1] == 16
    # no fewer passes to be had: the exact plan, its radices in the order
    # whose twiddles a thread's butterflies share (ns = 5 and 50 divide t =
    # 50; 20 10 5 has ns = 20 and 200) and whose exchanges conflict less
    assert plan_of(1000)[:3] == (20, 50, [5, 10, 20])
    # (plans of two passes keep their order; 4096 = 16^3 has one)
    assert plan_of(400)[2] == [20, 20] and plan_of(4096)[2] == [16, 16, 16]
    assert ops._gpu_reg_plan(17) == [] and ops._gpu_reg_plan(4099) == []


def test_other_lengths_with_a_plan_take_the_block_kernels_here():
    """720 has a register plan but neither the table nor the emulation has
    its kernel (a GPU compiles it at first use): the block kernels take it."""
    assert ops._gpu_reg_plan(720) and not ops._gpu_reg_ahead_of_time(720)
    x = data((3, 720), torch.complex32, 7)
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [1], 0, True, SMEM, 256, 0)
    assert counters()["launches"] == 0
    check(got, sf.fft(to_numpy(x), axis=1), torch.complex32)


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


# ---- lengths above 16384: two register passes (cx_reg_parts.h, "two passes") --------
# L = n1 x n2: pass 1 transforms the n2 columns of n1 values (a tile of
# neighbouring columns) and twiddles them into a work buffer of the compute
# type; pass 2 reads the work rows flat and writes the output transposed.
# So the data moves twice, each element read and written once a pass.
BYTES_PER_VALUE = {torch.complex32: 4, torch.complex64: 8, torch.complex128: 16}
WORK_BYTES = {torch.complex32: 8, torch.complex64: 8, torch.complex128: 16}


def test_split_of_large_lengths():
    split = ops._gpu_reg_split
    assert split(32768) == [128, 256] and split(65536) == [256, 256]
    assert split(1 << 20) == [1024, 1024] and split(1 << 19) == [512, 1024]
    n1, n2 = split(48000)  # no split of table lengths: the most even one with plans
    assert n1 * n2 == 48000 and ops._gpu_reg_plan(n1) and ops._gpu_reg_plan(n2)
    assert max(n1, n2) <= 256
    assert split(16384) == [] and split(8 * 4099) == [] and split(17 * 4096) == []


@pytest.mark.parametrize("n", [32768, 65536])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
def test_two_passes(n, dtype):
    """Two launches a transform, whole sectors, conflict-free exchanges,
    the data read and written once in each pass, results at the floor."""
    x = data((2, n), dtype, n)
    xn = to_numpy(x)
    counters()
    for norm, forward in ((0, True), (2, False), (1, True)):
        got = ops._gpu_emulated_fft_c2c(x, [1], norm, forward, SMEM, 256, 0)
        ref = (sf.fft(xn, axis=1, norm=["backward", "ortho", "forward"][norm]) if forward else
               sf.ifft(xn, axis=1, norm=["forward", "ortho", "backward"][norm]))
        check(got, ref, dtype)
    c = counters()
    assert c["launches"] == 6, "the two-pass kernels did not run"
    assert c["races"] == 0 and c["divergent"] == 0
    assert c["g_sectors"] / c["g_min_sectors"] == 1.0
    assert c["s_wavefronts"] / c["s_ideal"] <= WAVEFRONT_TARGET
    # per call: the input once, the work buffer written and read once, the output once
    per_call = x.numel() * (2 * BYTES_PER_VALUE[dtype] + 2 * WORK_BYTES[dtype])
    assert c["g_unique_ld_bytes"] + c["g_unique_st_bytes"] == 3 * per_call


@pytest.mark.parametrize("dtype,n", [
    (torch.complex32, 32768), (torch.complex64, 32768), (torch.complex128, 32768),
    (torch.complex32, 65536)], ids=["c32-32768", "c64-32768", "c128-32768", "c32-65536"])
def test_two_passes_along_a_strided_axis(dtype, n):
    """(L, B), the transform along dim 0, B >= 8 rows adjacent: both passes
    tile across the batch (pass 1 on rows (q, b), pass 2 a column tile on
    rows (k, b)); two launches, whole sectors, the data once a pass."""
    B = 8
    x = data((n, B), dtype, n)
    xn = to_numpy(x)
    counters()
    for norm, forward in ((0, True), (2, False)):
        got = ops._gpu_emulated_fft_c2c(x, [0], norm, forward, SMEM, 256, 0)
        ref = (sf.fft(xn, axis=0, norm=["backward", "ortho", "forward"][norm]) if forward else
               sf.ifft(xn, axis=0, norm=["forward", "ortho", "backward"][norm]))
        check(got, ref, dtype)
    c = counters()
    assert c["launches"] == 4, "the two-pass kernels did not run"
    assert c["races"] == 0 and c["divergent"] == 0
    assert c["g_sectors"] / c["g_min_sectors"] == 1.0
    assert c["s_wavefronts"] / c["s_ideal"] <= WAVEFRONT_TARGET
    per_call = x.numel() * (2 * BYTES_PER_VALUE[dtype] + 2 * WORK_BYTES[dtype])
    assert c["g_unique_ld_bytes"] + c["g_unique_st_bytes"] == 2 * per_call
    # fewer than 8 batch rows: the four-step (test below); a second batch
    # dim: the four-step too
    y = data((n, 2, 16), dtype, 7)[:, :, :8]
    got = ops._gpu_emulated_fft_c2c(y, [0], 0, True, SMEM, 256, 0)
    check(got, sf.fft(to_numpy(y), axis=0), dtype)


def test_two_passes_in_a_batch_and_a_multi_axis_transform():
    """A batch dim that is not contiguous (every other row), and fft2 whose
    last axis is long: the first axis's fp32 output feeds the two passes."""
    x = data((5, 32768), torch.complex32, 3)[::2]
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [1], 0, True, SMEM, 256, 0)
    check(got, sf.fft(to_numpy(x), axis=1), torch.complex32)
    assert counters()["launches"] == 2
    y = data((3, 32768), torch.complex32, 4)
    got = ops._gpu_emulated_fft_c2c(y, [0, 1], 1, True, SMEM, 256, 0)
    check(got, sf.fft2(to_numpy(y), norm="ortho"), torch.complex32)


def test_two_passes_leave_what_they_cannot_take():
    """A strided axis of fewer than 8 batch rows, and a second factor with no kernel here (384: a GPU
    compiles it at first use): the four-step, or the generic path for the
    work rows after pass 1, give the same results."""
    x = data((32768, 2), torch.complex32, 5)
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [0], 0, True, SMEM, 256, 0)
    check(got, sf.fft(to_numpy(x), axis=0), torch.complex32)
    assert counters()["launches"] == 0
    assert ops._gpu_reg_split(98304) == [256, 384] and not ops._gpu_reg_ahead_of_time(384)
    y = data((1, 98304), torch.complex32, 6)
    got = ops._gpu_emulated_fft_c2c(y, [1], 0, False, SMEM, 256, 0)
    check(got, sf.ifft(to_numpy(y), axis=1, norm="forward"), torch.complex32)
    assert counters()["launches"] == 1  # pass 1 only


# ---- Bluestein in one kernel (cx_reg_parts.h, "Bluestein") ----------------------------
# A length without a register plan (a prime factor above 13), up to 4096:
# both FFTs of the power of two N >= 2n - 1 in registers, the chirp computed
# from j^2 mod 2n, its spectrum read from the plan's table (L2-resident).
# N = 8192 runs a plan of its own (16 values a thread on 512 threads,
# cx_rplan_of), in fp32 compute only.
BLUE = {17: 128, 101: 256, 1009: 2048, 2039: 4096, 2053: 8192, 4093: 8192}


def test_bluestein_lengths():
    for n, m in BLUE.items():
        assert ops._gpu_reg_plan(n) == [] and ops._gpu_reg_bluestein(n) == m
    assert ops._gpu_reg_bluestein(4099) == 0  # N = 16384 would spill: the block kernels
    assert ops._gpu_reg_bluestein(1024) == 0  # a plan of its own


@pytest.mark.parametrize("n", list(BLUE))
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
def test_bluestein_in_one_kernel(n, dtype):
    fits = not (dtype == torch.complex128 and BLUE[n] > 4096)  # fp64 8192 spills: no kernel
    rows = max(2, 8192 // n) + 1
    x = data((rows, n), dtype, n)
    xn = to_numpy(x)
    counters()
    for norm, forward in ((0, True), (2, False), (1, True)):
        got = ops._gpu_emulated_fft_c2c(x, [1], norm, forward, SMEM, 256, 0)
        ref = (sf.fft(xn, axis=1, norm=["backward", "ortho", "forward"][norm]) if forward else
               sf.ifft(xn, axis=1, norm=["forward", "ortho", "backward"][norm]))
        check(got, ref, dtype)
    c = counters()
    if not fits:
        assert c["launches"] == 0
        return
    assert c["launches"] == 3, "the Bluestein kernel did not run"
    assert c["races"] == 0 and c["divergent"] == 0
    assert c["s_wavefronts"] / c["s_ideal"] <= WAVEFRONT_TARGET
    # whole sectors: rows of up to 128 values (N <= 256) move flat through
    # shared memory; longer rows start mid-sector, which the fewest count
    assert c["g_sectors"] / c["g_min_sectors"] <= 1.0 + 1e-9
    # per call: the rows read once and written once, the table once (L2)
    data_bytes = 2 * x.numel() * x.element_size()
    table = BLUE[n] * (16 if dtype == torch.complex128 else 8)
    moved = (c["g_unique_ld_bytes"] + c["g_unique_st_bytes"]) / 3
    assert moved <= data_bytes + table + 2 * 32 * rows, (moved, data_bytes, table)


def test_bluestein_strided_axis_takes_the_block_kernels():
    x = data((101, 6), torch.complex32, 2)
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [0], 0, True, SMEM, 256, 0)
    check(got, sf.fft(to_numpy(x), axis=0), torch.complex32)
    assert counters()["launches"] == 0


@pytest.mark.parametrize("n,launches", [(101, 0), (1009, 1)])
def test_bluestein_rows_apart(n, launches):
    """Rows that do not lie end to end: the kernels of fewer than 32
    threads a row (N <= 256) move rows flat and take them end to end only
    (the block kernels take these); longer rows are read where they lie."""
    x = data((5, n), torch.complex32, 3)[::2]
    counters()
    got = ops._gpu_emulated_fft_c2c(x, [1], 0, True, SMEM, 256, 0)
    check(got, sf.fft(to_numpy(x), axis=1), torch.complex32)
    assert counters()["launches"] == launches


# ---- the real transforms: R2C and C2R of 2N samples on the kernel of length N ----
# Rows whose N takes fewer than 8 threads (N <= 64) stay on the block kernels.
REAL_HALVES = [n for n in LENGTHS if n >= 128 or n in (160, 200, 320, 400, 640, 800)]
REAL_LENGTHS = [2 * h for h in REAL_HALVES]


# Ceilings of the real transforms where they miss the targets (the worst
# of r2c and c2r over the three types, as measured): (sectors, wavefronts).
# The composites carry their c2c kernels' bank conflicts, and rows of 10,
# 20, 40 or 50 threads read runs of 2N samples that start mid-sector (the
# bins move flat, whole sectors, where rows take fewer than 32 threads);
# docs/cuda.md, "Open".
OPEN_REAL = {320: (1.203, 1.068), 400: (1.247, 1.415), 640: (1.08, 1.123), 800: (1.077, 1.127),
             1600: (1.061, 1.266), 2000: (1.045, 1.286), 3200: (1.016, 1.2),
             4000: (1.0, 1.072), 486: (1.278, 1.733), 960: (1.088, 1.223), 2400: (1.058, 1.309),
             3840: (1.0, 1.187)}


def real_rows_fit_sectors(c, n):
    sec_max, wf_max = OPEN_REAL.get(n, (1.0, WAVEFRONT_TARGET))
    ratio = c["g_sectors"] / c["g_min_sectors"]
    assert ratio <= sec_max + 1e-9, ratio
    if c["s_ideal"]:
        wf = c["s_wavefronts"] / c["s_ideal"]
        assert wf <= wf_max + 1e-9, wf


def test_real_lengths_take_threads_enough():
    for h in REAL_HALVES:
        assert ops._gpu_reg_plan(h)[1] >= 8, h
    for h in (16, 32, 64):  # a few threads a row: the block kernels
        assert ops._gpu_reg_plan(h)[1] < 8, h


@pytest.mark.parametrize("n", REAL_LENGTHS)
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
def test_r2c_rows(n, dtype):
    if dtype == torch.complex128 and n > 16384:
        pytest.skip("fp64 rows above 8192 values do not fit one block")
    real = REAL_OF[dtype]
    rows = max(2, 8192 // n) + 1
    x = data((rows, n), real, n)
    xn = to_numpy(x)
    counters()
    for norm in (0, 1, 2):
        got = ops._gpu_emulated_fft_r2c(x, [1], norm, True, SMEM, 256, 0)
        check(got, sf.rfft(xn, axis=1, norm=["backward", "ortho", "forward"][norm]), dtype)
    c = counters()
    assert c["launches"] == 3, "the register kernel did not run"
    assert c["races"] == 0 and c["divergent"] == 0
    real_rows_fit_sectors(c, n)
    # one read of the samples, one write of the n/2 + 1 bins, each call
    assert c["g_unique_ld_bytes"] <= 3 * (rows * n * x.element_size() + 64 * rows)
    assert c["g_unique_st_bytes"] <= 3 * (got.numel() * got.element_size() + 64 * rows)
    # the two-sided spectrum of a real row (fft of a real signal): the same
    # kernel into bins 0..n/2 of each row of n, the mirror (cx_mirror.h)
    # for the rest, exactly conjugate
    for norm in (0, 1, 2):
        got = ops._gpu_emulated_fft_r2c(x, [1], norm, False, SMEM, 256, 0)
        assert got.shape == (rows, n)
        check(got, sf.fft(xn, axis=1, norm=["backward", "ortho", "forward"][norm]), dtype)
        r = torch.view_as_real(got)
        up, low = r[:, n // 2 + 1:].flip(1), r[:, 1:n // 2]
        assert torch.equal(up[..., 0], low[..., 0]) and torch.equal(up[..., 1], -low[..., 1])
    assert counters()["launches"] == 3, "the register kernel did not run"


@pytest.mark.parametrize("n", REAL_LENGTHS)
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
def test_c2r_rows(n, dtype):
    if dtype == torch.complex128 and n > 16384:
        pytest.skip("fp64 rows above 8192 values do not fit one block")
    rows = max(2, 8192 // n) + 1
    h = data((rows, n // 2 + 1), dtype, n + 1)
    hn = to_numpy(h)
    counters()
    for norm in (0, 1, 2):
        got = ops._gpu_emulated_fft_c2r(h, [1], norm, n, SMEM, 256, 0)
        assert got.dtype == REAL_OF[dtype] and got.shape == (rows, n)
        # the op's normalization: 0 none, 1 by sqrt(n), 2 by n
        ref = sf.irfft(hn, n=n, axis=1, norm=["forward", "ortho", "backward"][norm])
        check(got, ref, dtype)
    c = counters()
    assert c["launches"] == 3, "the register kernel did not run"
    assert c["races"] == 0 and c["divergent"] == 0
    real_rows_fit_sectors(c, n)


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_real_rows_off_pairs_take_the_block_kernels(dtype):
    """A real row that starts on an odd sample cannot be read as pairs."""
    x = data((3, 513), REAL_OF[dtype], 5)[:, 1:]  # rows of 512 at odd offsets
    counters()
    got = ops._gpu_emulated_fft_r2c(x, [1], 0, True, SMEM, 256, 0)
    assert counters()["launches"] == 0
    check(got, sf.rfft(to_numpy(x), axis=1), dtype)


def test_rfftn_and_irfftn_keep_fp32_between_axes():
    x = data((6, 40, 512), torch.float16, 8)
    counters()
    got = ops._gpu_emulated_fft_r2c(x, [0, 2], 1, True, SMEM, 256, 0)
    check(got, sf.rfftn(to_numpy(x), axes=(0, 2), norm="ortho"), torch.complex32)
    h = data((6, 40, 257), torch.complex32, 9)
    got = ops._gpu_emulated_fft_c2r(h, [0, 2], 0, 512, SMEM, 256, 0)
    check(got, sf.irfftn(to_numpy(h), s=(6, 512), axes=(0, 2), norm="forward"), torch.complex32)
    assert counters()["launches"] == 2  # the r2c and the c2r of 512 (6 is a block kernel's)


# ---- stft and istft on the register kernels ------------------------------------------
def frames(x, win, n_fft, hop):
    T = 1 + (x.shape[1] - n_fft) // hop
    idx = np.arange(T)[:, None] * hop + np.arange(n_fft)[None, :]
    return x[:, idx] * win


NP_PAD = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("n_fft,hop", [(512, 128), (400, 160), (1024, 256)])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
@pytest.mark.parametrize("mode", ["reflect", "constant", "replicate", "circular"])
def test_stft_reads_frames_where_they_lie(n_fft, hop, dtype, mode):
    """One launch: frames read from the signal itself (the centre padding
    from where the mode says), windowed as they load, the bins written in
    the output's layout; the signal's bytes read once, the output's written
    once (with an L2 that keeps what the launch touches)."""
    B, L = 3, 4000
    x = data((B, L), REAL_OF[dtype], n_fft)
    win = torch.hann_window(n_fft, dtype=torch.float64) + 0.1
    wn = win.numpy().astype(np.float32)
    p = n_fft // 2
    counters()
    got = ops._gpu_emulated_stft(x, win, n_fft, hop, 1, True, p, mode, SMEM, 256, 0)
    c = counters()
    fr = frames(np.pad(to_numpy(x), ((0, 0), (p, p)), mode=NP_PAD[mode]), wn, n_fft, hop)
    ref = np.fft.rfft(fr, axis=-1, norm="ortho")
    check(got, ref.transpose(0, 2, 1), dtype)
    assert c["launches"] == 1 and c["races"] == 0 and c["divergent"] == 0
    if mode == "reflect":
        # the frames that reach past an end read two runs (the reflected
        # samples and the signal's own), each with its part sectors: over
        # the whole stft at most 0.6 % more sectors than the fewest
        assert c["g_sectors"] / c["g_min_sectors"] <= 1.006 * OPEN_REAL.get(n_fft, (1.0,))[0]
    else:
        real_rows_fit_sectors(c, n_fft)
    signal = x.numel() * x.element_size()
    out = got.numel() * got.element_size()
    window = n_fft * 4
    # the signal read in place: no padded copy (2 * p more samples a row)
    assert c["g_unique_ld_bytes"] <= signal + window + 2 * 32 * B, c["g_unique_ld_bytes"]
    assert c["g_unique_st_bytes"] <= out + 32 * got.shape[2] * B
    assert c["g_unique_ld_bytes"] + c["g_unique_st_bytes"] <= 1.1 * (signal + out)


@pytest.mark.parametrize("n_fft,hop", [(512, 128), (400, 160)])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_two_sided_stft_of_a_real_signal(n_fft, hop, dtype):
    """onesided=False on a real signal: the r2c kernel's frames into bins
    0..n_fft/2 of each frame's row, the mirror for the rest (one register
    launch); the upper half the exact conjugate of the lower."""
    B, L = 3, 4000
    x = data((B, L), REAL_OF[dtype], n_fft)
    win = torch.hann_window(n_fft, dtype=torch.float64) + 0.1
    p = n_fft // 2
    counters()
    got = ops._gpu_emulated_stft(x, win, n_fft, hop, 1, False, p, "reflect", SMEM, 256, 0)
    c = counters()
    fr = frames(np.pad(to_numpy(x), ((0, 0), (p, p)), mode="reflect"),
                win.numpy().astype(np.float32), n_fft, hop)
    check(got, np.fft.fft(fr, axis=-1, norm="ortho").transpose(0, 2, 1), dtype)
    assert c["launches"] == 1 and c["races"] == 0 and c["divergent"] == 0
    r = torch.view_as_real(got)
    up, low = r[:, n_fft // 2 + 1:].flip(1), r[:, 1:n_fft // 2]
    assert torch.equal(up[..., 0], low[..., 0]) and torch.equal(up[..., 1], -low[..., 1])


@pytest.mark.parametrize("n_fft,hop", [(512, 128), (400, 160), (256, 64)])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
@pytest.mark.parametrize("mode", ["reflect", "constant", "replicate", "circular", None])
def test_stft_of_a_complex_signal_reads_frames_where_they_lie(n_fft, hop, dtype, mode):
    """A complex signal's frames on their own kernel (CX_REG_FRAMES): one
    launch, the padding read in place (None: no centre padding), the window
    on the load, the signal's bytes read once and the output's written once."""
    B, L = 2, 4000  # (each signal on whole sectors: its frames' part sectors are its own)
    x = data((B, L), dtype, n_fft)
    win = torch.hann_window(n_fft, dtype=torch.float64) + 0.1
    wn = win.numpy().astype(np.float32 if dtype != torch.complex128 else np.float64)
    p = n_fft // 2 if mode else 0
    counters()
    got = ops._gpu_emulated_stft(x, win, n_fft, hop, 1, False, p, mode or "constant", SMEM, 256,
                                 0)
    c = counters()
    xp = np.pad(to_numpy(x), ((0, 0), (p, p)), mode=NP_PAD[mode]) if mode else to_numpy(x)
    ref = np.fft.fft(frames(xp, wn, n_fft, hop), axis=-1, norm="ortho")
    check(got, ref.transpose(0, 2, 1), dtype)
    assert c["launches"] == 1 and c["races"] == 0 and c["divergent"] == 0
    if c["s_ideal"]:
        assert c["s_wavefronts"] / c["s_ideal"] <= OPEN_WAVEFRONTS.get(n_fft, WAVEFRONT_TARGET)
    # the c2c kernel's sectors, and a few more where the edge frames read two
    # runs (the padding's samples and the signal's own)
    assert c["g_sectors"] / c["g_min_sectors"] <= 1.01 * OPEN_SECTORS.get(n_fft, 1.0)
    signal = x.numel() * x.element_size()
    out = got.numel() * got.element_size()
    window = n_fft * wn.itemsize
    assert c["g_unique_ld_bytes"] <= signal + window + 2 * 32 * B, c["g_unique_ld_bytes"]
    assert c["g_unique_st_bytes"] <= out + 32 * got.shape[2] * B
    assert c["g_unique_ld_bytes"] + c["g_unique_st_bytes"] <= 1.1 * (signal + out)


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_two_sided_istft_frames_on_their_kernel(dtype):
    """A two-sided istft: each frame's inverse DFT, windowed as it is
    stored into the frame buffer, on CX_REG_FRAMES; then the overlap-add."""
    n_fft, hop, B, T = 256, 64, 2, 20
    win = torch.hann_window(n_fft, dtype=torch.float64) + 0.1
    w = win.numpy().astype(np.float32).astype(np.float64)
    spec = data((B, T, n_fft), dtype, 5).transpose(1, 2)
    sn = to_numpy(spec).transpose(0, 2, 1)
    fr = np.fft.ifft(sn, axis=-1) * w
    full = n_fft + hop * (T - 1)
    acc, env = np.zeros((B, full), complex), np.zeros(full)
    for t in range(T):
        acc[:, t * hop: t * hop + n_fft] += fr[:, t]
        env[t * hop: t * hop + n_fft] += w * w
    start, length = n_fft // 2, full - n_fft
    counters()
    got = ops._gpu_emulated_istft(spec, win, n_fft, hop, 2, False, start, length, SMEM, 256, 0)
    c = counters()
    check(got, (acc / env)[:, start: start + length], dtype)
    assert c["launches"] == 1 and c["races"] == 0 and c["divergent"] == 0


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_stft_of_an_odd_length(dtype):
    """A real signal of an odd number of samples: the padded copy, its rows
    an even number of samples apart, on the register kernel."""
    n_fft, hop = 256, 64
    win = torch.hann_window(n_fft, dtype=torch.float64)
    wn = win.numpy().astype(np.float32)
    x = data((2, 3001), REAL_OF[dtype], 2)
    counters()
    got = ops._gpu_emulated_stft(x, win, n_fft, hop, 0, True, 128, "reflect", SMEM, 256, 0)
    fr = frames(np.pad(to_numpy(x), ((0, 0), (128, 128)), mode="reflect"), wn, n_fft, hop)
    check(got, np.fft.rfft(fr, axis=-1).transpose(0, 2, 1), dtype)
    assert counters()["launches"] == 1


@pytest.mark.parametrize("n_fft,hop", [(512, 128), (400, 160)])
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64])
def test_istft_frames_on_the_c2r_kernel(n_fft, hop, dtype):
    B, T = 2, 30
    win = torch.hann_window(n_fft, dtype=torch.float64) + 0.1
    w = win.numpy().astype(np.float32).astype(np.float64)
    # the stft's own layout: bins adjacent (a (B, T, F) tensor seen as (B, F, T))
    spec = data((B, T, n_fft // 2 + 1), dtype, 4).transpose(1, 2)
    sn = to_numpy(spec).transpose(0, 2, 1)
    fr = np.fft.irfft(sn, n=n_fft, axis=-1) * w
    full = n_fft + hop * (T - 1)
    acc, env = np.zeros((B, full)), np.zeros(full)
    for t in range(T):
        acc[:, t * hop: t * hop + n_fft] += fr[:, t]
        env[t * hop: t * hop + n_fft] += w * w
    start, length = n_fft // 2, full - n_fft
    counters()
    got = ops._gpu_emulated_istft(spec, win, n_fft, hop, 2, True, start, length, SMEM, 256, 0)
    c = counters()
    check(got, (acc / env)[:, start: start + length], dtype)
    assert c["launches"] == 1 and c["races"] == 0 and c["divergent"] == 0
