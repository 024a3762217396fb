# CPU only: the CPU engine itself (instruction sets, plan kinds, float16 conversions).
"""The CPU engine below the public API: every instruction set, every plan
kind (Stockham, lane Bluestein, four-step, large Bluestein), strided rows,
and the float16 load/store conversions."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.fft as sf
import torch

import complexext  # noqa: F401

ops = torch.ops.complexext


def rel_rms(got, ref):
    got = np.asarray(got, dtype=np.complex128)
    return float(np.sqrt(np.mean(np.abs(got - ref) ** 2) / np.mean(np.abs(ref) ** 2)))


def floor_of(ref):
    """Error of the exact result rounded to complex32."""
    return rel_rms(torch.from_numpy(ref).to(torch.complex32).to(torch.complex128).numpy(), ref)


def to_np(t):
    return t.to(torch.complex128 if t.is_complex() else torch.float64).numpy()


# One length per plan kind: radix 2/4/8, 3/5, generic odd 7/11/13, lane
# Bluestein (17, 97, 4099, and 10007 with its m = 20250, 20480 on AVX-512,
# past the lane lengths), lane plans up to 2^14, four-step (3*2^13, 2^20) and Bluestein
# around a four-step plan (the prime 16411).
# 9, 27, 243, 2187, 3888 = 16 * 243: the radix-9 passes of AVX2's cuts
# 34, 646 = 2 * 323, 3927 = 231 * 17, 6126 = 6 * 1021, 13403 = 13 * 1031:
# the lane engine's split Bluestein (Bluestein transforms of q as the first
# pass, c's radices after it, 7 11 13 among them); 326 = 2 * 163 and 8198 =
# 2 * 4099 stays whole (CUT below).
# 17, 43, 97, 131, 257, 521, 641, 2311, 12289: Rader (n - 1 = 16, 2*3*7,
# 96, 2*5*13, 256, 8*5*13, 640, 2*3*5*7*11, 3*4096: the radices past 9
# between the fused passes); 34, 326 and 3927 run it on their q.
# 3079, 4099, 8198, 10007 and 14371 = 7 * 2053 (its q): Bluestein in two
# levels, m = R * m2 with R = 5, 8, 9, 9, 8 (8, 8, 9, 8, 8 on AVX-512, whose
# m is chosen by cost: CUT below); 89 (m = 180) in one.
# 15, 30, 120, 1080, 1155: AVX-512's radix-15 pass first, last and between
# (15 7 11); 31 and 61: Rader with a 15 as its fused last pass; 59: one-level
# Bluestein, m = 120 = 8 15, with a 15 as its fused last pass; 67: Rader
# with an 11 between its fused passes (66 = 2 11 3).
# The middle pass (the forward transform's last, the filter and the first
# of the transform back) with the back plan's first and last radices
# swapped: 101 (Rader, 100 = 4 5 5), 193 (Rader, 192 = 8 8 3), and 2027
# (two levels, m2 = 512 = 8 8 8, whose back plan is its own).
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 16, 17, 27, 30, 31, 34, 43, 59, 61, 67, 89, 97,
           101, 120, 131, 143, 193, 243, 257, 326, 400, 521, 641, 646, 1000, 1080, 1155, 2027,
           2187, 2311, 3079, 3888, 3927, 4096, 4099, 6126, 8192, 8198, 12289, 13403, 14371, 16384,
           24576, 10007, 16411]

CHECK = r"""
import json, sys, numpy as np, scipy.fft as sf, torch, complexext
ops = torch.ops.complexext
torch.manual_seed(0)
out = {"isa": ops.cpu_isa()}
for n in json.loads(sys.argv[1]):
    x = torch.randn(3, n, dtype=torch.complex128)
    r = torch.randn(3, n, dtype=torch.float64)
    X = torch.randn(3, n // 2 + 1, dtype=torch.complex128)
    e = lambda a, b: float(np.abs(a.numpy() - b).max() / np.abs(b).max())
    out[str(n)] = max(
        e(ops.fft_c2c(x, [1], 0, True), sf.fft(x.numpy(), axis=1)),
        e(ops.fft_c2c(x, [1], 2, False), sf.ifft(x.numpy(), axis=1)),
        e(ops.fft_r2c(r, [1], 0, True), sf.rfft(r.numpy(), axis=1)),
        e(ops.fft_r2c(r, [1], 0, False), sf.fft(r.numpy(), axis=1)),
        e(ops.fft_c2r(X, [1], 2, n), sf.irfft(X.numpy(), n=n, axis=1)))
print(json.dumps(out))
"""


def run_under_isa(isa, script, *args):
    """Runs script in a fresh process under COMPLEXEXT_CPU_ISA=isa and returns
    the JSON dict its last line prints, less its "isa" entry (the set in use);
    skips the test where this CPU lacks isa."""
    env = dict(os.environ, COMPLEXEXT_CPU_ISA=isa)
    res = subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True,
                         text=True, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    got = out.pop("isa")
    if got != isa:
        pytest.skip(f"this CPU lacks {isa} (uses {got})")
    return out


@pytest.mark.parametrize("isa", ["generic", "avx2", "avx512"])
def test_every_isa_matches_scipy_in_double(isa):
    out = run_under_isa(isa, CHECK, json.dumps(LENGTHS))
    bad = {n: err for n, err in out.items() if err > 1e-13}
    assert not bad


# 143 = 11 * 13 and 1155 = 3 * 5 * 7 * 11: the odd radices past 5 (pass_odd_fixed),
# and rows of 143 end in a partial run of pairs.
@pytest.mark.parametrize("n", [16, 17, 43, 61, 67, 89, 97, 120, 143, 257, 326, 400, 521, 1000, 1080,
                               1155, 2187, 2311,
                               3079, 3888, 3927, 4099, 6126, 12289, 13403, 14371, 16384, 24576,
                               10007, 16411, 2 ** 20])
def test_complex32_within_floor(n):
    torch.manual_seed(n)
    rows = max(1, 2 ** 16 // n)
    x = torch.randn(rows, n, dtype=torch.complex64).to(torch.complex32)
    for forward in (True, False):
        got = ops.fft_c2c(x, [1], 1, forward)
        xn = to_np(x)
        ref = (sf.fft if forward else sf.ifft)(xn, axis=1, norm="ortho")
        assert rel_rms(to_np(got), ref) <= 1.15 * floor_of(ref)


# n -> the lane engine's cut (_lane_cut): [q of the split n = c * q (c
# Bluestein or Rader transforms of q, then c's passes), else 0; L = n - 1
# (q - 1) where Rader transforms n (q), else 0; R and m where Bluestein's
# transforms of m (q's m) run in two levels, m = R * m2, else 0 and 0]. The
# split is taken where c >= 3, where Rader transforms q, or where q pads no
# worse than n; 8198 = 2 * 4099 stays whole (m = 16875 = 2.058 n against
# q's 8640 = 2.108 q). Rader needs n prime and n - 1 13-smooth with two
# factors among the fixed radices (23: 2 * 11 and 29: 4 * 7 have one). Two
# levels where the lane engine's two buffers of m vectors are past 64 KiB,
# R the first of 8, 9, 5, 4, 3, 2 that divides m; at 89 (m = 180) they are
# within it on every instruction set. m is the smallest 2,3,5-smooth length
# >= 2n - 1, but on AVX-512, where blocked_length takes one up to 7 % longer
# whose passes cost less (CUT_AVX512).
CUT = {514: [257, 256, 0, 0], 43: [0, 42, 0, 0], 89: [0, 0, 0, 0], 131: [0, 130, 0, 0],
       257: [0, 256, 0, 0], 326: [163, 162, 0, 0], 641: [0, 640, 0, 0], 1021: [0, 0, 8, 2048],
       2053: [0, 0, 8, 4320], 2311: [0, 2310, 0, 0], 3079: [0, 0, 5, 6250], 10185: [97, 96, 0, 0],
       4099: [0, 0, 8, 8640], 6126: [1021, 0, 8, 2048], 8198: [0, 0, 9, 16875],
       10007: [0, 0, 9, 20250], 12289: [0, 12288, 0, 0], 12297: [4099, 0, 8, 8640],
       13403: [1031, 0, 8, 2160], 14371: [2053, 0, 8, 4320], 23: [0, 0, 0, 0], 29: [0, 0, 0, 0],
       4096: [0, 0, 0, 0], 1155: [0, 0, 0, 0], 2 * 16411: [0, 0, 0, 0]}
# AVX-512: 3079 (6400 = 8 * 800 against 6250 = 5 * 1250), 10007 (20480 = 8 * 2560 against
# 20250 = 9 * 2250) and 13403's q = 1031 (2304 against 2160); 2053, 4099, 1021 and 8198 keep
# theirs.
CUT_AVX512 = {3079: [0, 0, 8, 6400], 10007: [0, 0, 8, 20480], 13403: [1031, 0, 8, 2304]}


def test_lane_cut_by_length():
    want = {**CUT, **(CUT_AVX512 if ops.cpu_isa() == "avx512" else {})}
    assert {n: list(ops._lane_cut(n)) for n in want} == want
    with pytest.raises(RuntimeError, match="_lane_cut: n must be >= 1"):
        ops._lane_cut(0)


def strided_inputs():
    base = torch.randn(6, 40, 9, dtype=torch.complex64)
    yield "transposed", base.transpose(0, 2), 1
    yield "lanes adjacent", base, 0
    yield "middle", base, 1
    yield "stepped", base[:, ::3, :], 1
    yield "expanded", torch.randn(1, 40, 1, dtype=torch.complex64).expand(5, 40, 7), 1
    yield "negative dim", base.permute(2, 0, 1), -1


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128])
@pytest.mark.parametrize("case", list(strided_inputs()), ids=lambda c: c[0])
def test_strided_rows(case, dtype):
    _, x, d = case
    x = x.to(dtype)
    before = x.clone()
    got = ops.fft_c2c(x, [d], 0, True)
    ref = sf.fft(to_np(x), axis=d)
    assert got.is_contiguous() and got.shape == x.shape
    limit = 1.15 * floor_of(ref) if dtype == torch.complex32 else 1e-6
    assert rel_rms(to_np(got), ref) <= limit
    assert torch.equal(torch.view_as_real(x), torch.view_as_real(before))


RFFT32_CHECK = r"""
import json, torch, complexext
ops = torch.ops.complexext
rel = lambda a, b: float((a.to(torch.complex128) - b).abs().norm() / b.abs().norm())
out = {"isa": ops.cpu_isa()}
for n in (200, 400, 1024):
    torch.manual_seed(n)
    x = torch.randn(2000, n, dtype=torch.float32)
    ref = torch.fft.rfft(x.double())
    cols = x.t().contiguous()  # the bins of a row out_stride apart (strided output)
    out[n] = [rel(complexext.fft.rfft(x), ref), rel(complexext.fft.rfft(cols, dim=0).t(), ref),
              rel(torch.fft.rfft(x), ref)]
print(json.dumps(out))
"""


@pytest.mark.parametrize("isa", ["generic", "avx2", "avx512"])
def test_float32_rfft_no_worse_than_torch(isa):
    """Even real transforms take a post-process after the half-length
    complex one (torch's take none); without FMA (the portable lanes on
    x86-64) its fp32 roundings put the error 3-5 % above torch's, so there
    the bins are formed in double. Contiguous rows and strided columns (the
    two forms of the post-process) against torch.fft.rfft in float32."""
    if os.environ.get("COMPLEXEXT_SANITIZED") == "1":
        # as test_stft_accuracy's comparison with torch: .ci/sanitize's build
        # (-O1, no vectorisation) rounds in another order than the release
        # build this claim is about
        pytest.skip("the sanitized build rounds in another order than the release build")
    out = run_under_isa(isa, RFFT32_CHECK)
    worse = {n: e for n, e in out.items() if max(e[0], e[1]) > e[2]}
    assert not worse, worse


HALF_CHECK = r"""
import torch, complexext
ops = torch.ops.complexext
v = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.float16)
x = torch.complex(v, torch.zeros_like(v)).reshape(-1, 1)
x = torch.cat([x, torch.zeros_like(x)], 1)
got = torch.view_as_real(ops.fft_c2c(x, [1], 2, True))[..., 0]
want = (v.float() * 0.5).half()[:, None].expand(-1, 2)
nan = want.isnan()
ok = torch.equal(got[~nan], want[~nan]) and bool(got[nan].isnan().all())
print(ops.cpu_isa(), int(ok))
"""


@pytest.mark.parametrize("isa", ["generic", "avx2", "avx512"])
def test_half_loads_and_stores_are_exact(isa):
    """x = (v, 0) has DFT (v, v); with norm 1/n both are v/2, which rounds
    to float16 only where v/2 is subnormal: every float16 pattern, rounded
    as torch rounds, through the software (generic) and F16C conversions."""
    env = dict(os.environ, COMPLEXEXT_CPU_ISA=isa)
    res = subprocess.run([sys.executable, "-c", HALF_CHECK], env=env, capture_output=True,
                         text=True, check=True)
    got_isa, ok = res.stdout.split()
    if got_isa != isa:
        pytest.skip(f"this CPU lacks {isa} (uses {got_isa})")
    assert ok == "1"


def test_isa_env_cannot_raise_above_the_cpu():
    env = dict(os.environ, COMPLEXEXT_CPU_ISA="no-such-isa")
    code = "import torch, complexext; print(torch.ops.complexext.cpu_isa())"
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert res.stdout.strip() == ops.cpu_isa()


def test_row_kernel_plans_only_where_row_kernels_run():
    """The plans only the row kernels read (the plan of n that pairs two
    400-point real rows, the row plan of 65536) are built where the
    instruction set has row kernels (AVX-512, AVX2), and not elsewhere."""
    code = ("import torch, complexext; c = complexext.backends.plan_cache; "
            "complexext.fft.rfft(torch.randn(4, 400)); a = c.size; "
            "complexext.fft.fft(torch.randn(4, 65536, dtype=torch.complex64)); "
            "print(torch.ops.complexext.cpu_isa(), a, c.size - a)")
    for want in ("generic", "avx2", "avx512"):
        env = dict(os.environ, COMPLEXEXT_CPU_ISA=want)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        isa, rfft_plans, fft_plans = res.stdout.split()
        if isa != want:
            continue  # this CPU lacks it
        # rfft 400: the plan of 200 and the real twiddles, + the plan of 400
        # to pair rows; fft 65536: two plans on every ISA (65536 and its
        # four-step half 256), + the row plan
        rows = isa in ("avx2", "avx512")
        assert (int(rfft_plans), int(fft_plans)) == (2 + rows, 2 + rows), isa


def assert_near(got, ref, dtype):
    """got against the float64 ref: within 1.15 x the complex32 floor for a
    float16 / complex32 transform, else to fp32 or fp64 accuracy (max error
    over max value)."""
    if dtype in (torch.float16, torch.complex32):
        assert rel_rms(got, ref) <= 1.15 * floor_of(ref)
    else:
        tol = 2e-6 if dtype in (torch.float32, torch.complex64) else 1e-13
        assert np.abs(got - ref).max() / np.abs(ref).max() < tol


# Alone: 523, 1021, 1031, 4099, 10007 (Bluestein, from 512), 6126 = 6 *
# 1021 (its split), 12289 (Rader, from 1024). On the lane engine: 509
# (below 512), 1009 (Rader below 1024), 2020 = 20 * 101 (a split with
# Rader).
@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("n", [509, 523, 1009, 1021, 1031, 2020, 4099, 6126, 10007, 12289])
def test_single_bluestein_row_alone(n, dtype):
    """A single row of a Bluestein length runs alone (its transforms of m
    as one-row jobs, not one lane of W) where that measured faster:
    forward and inverse, every norm, a strided row, against float64."""
    g = torch.Generator().manual_seed(n)
    cols = torch.randn(n, 3, dtype=torch.complex128, generator=g).to(dtype).t()
    for x in (cols[:1].contiguous(), cols[1:2]):  # the second strided along n (stride 3)
        xn = to_np(x)
        for norm, forward in ((0, True), (1, False), (2, True), (2, False)):
            got = to_np(ops.fft_c2c(x, [1], norm, forward))
            ref = (sf.fft if forward else sf.ifft)(
                xn, axis=1, norm=("backward", "ortho", "forward" if forward else "backward")[norm])
            assert_near(got, ref, dtype)


# As one complex row: 523, 1021, 1031, 4099, 16383 = 3 * 43 * 127
# (Bluestein), 3063 = 3 * 1021 (its split), 12289 (Rader). On the lane
# engine: 509 (below 512), 1009 (Rader below 1024), 1205 = 5 * 241 (a
# split with Rader).
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("rows", [1, 2])
@pytest.mark.parametrize("n", [509, 523, 1009, 1021, 1031, 1205, 3063, 4099, 12289, 16383])
def test_few_odd_real_rows_as_one_complex_row(n, rows, dtype):
    """One or two real rows of an odd Bluestein length run as one complex row
    x0 + i x1 (Bluestein alone) and are split into their spectra: onesided
    and two-sided, every norm, a strided input, against float64."""
    g = torch.Generator().manual_seed(n + rows)
    cols = torch.randn(n, 3, dtype=torch.float64, generator=g).to(dtype).t()
    for x in (cols[:rows].contiguous(), cols[:rows]):  # the second strided along n
        xn = x.to(torch.float64).numpy()
        for norm, onesided in ((0, True), (1, False), (2, True)):
            got = to_np(ops.fft_r2c(x, [1], norm, onesided))
            ref = sf.fft(xn, axis=1, norm=("backward", "ortho", "forward")[norm])
            ref = ref[:, :n // 2 + 1] if onesided else ref
            assert got.shape == ref.shape
            assert_near(got, ref, dtype)


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("rows", [1, 2])
@pytest.mark.parametrize("n", [509, 523, 1009, 1021, 1031, 1205, 3063, 4099, 12289, 16383])
def test_few_odd_c2r_rows_as_one_complex_row(n, rows, dtype):
    """The inverse: one or two half spectra of an odd Bluestein length as one
    complex row of their Hermitian spectra (Im of bin 0 dropped, as torch
    does), every norm, a strided input, against float64."""
    g = torch.Generator().manual_seed(n + rows)
    h = n // 2 + 1
    cols = torch.randn(h, 3, dtype=torch.complex128, generator=g).to(dtype).t()
    for x in (cols[:rows].contiguous(), cols[:rows]):  # the second strided along the bins
        xn = to_np(x)
        for norm in (0, 1, 2):
            got = ops.fft_c2r(x, [1], norm, n)
            ref = sf.irfft(xn, n=n, axis=1, norm=("forward", "ortho", "backward")[norm])
            assert_near(got.to(torch.float64).numpy(), ref, dtype)


@pytest.mark.parametrize("n", [1024, 4096, 6000, 8192])
@pytest.mark.parametrize("dtype,tol", [(torch.complex64, 2e-6), (torch.complex128, 1e-13)])
def test_few_rows_take_the_four_step_split(n, dtype, tol):
    """A single row would fill one lane of W: it is split four-step instead."""
    x = torch.randn(1, n, dtype=dtype)
    for forward in (True, False):
        ref = (sf.fft if forward else sf.ifft)(x.numpy(), axis=1)
        got = ops.fft_c2c(x, [1], 2 if not forward else 0, forward).numpy()
        assert np.abs(got - ref).max() / np.abs(ref).max() < tol
    r = torch.randn(1, 2 * n, dtype=torch.float64 if dtype == torch.complex128 else torch.float32)
    ref = sf.rfft(r.numpy(), axis=1)
    got = ops.fft_r2c(r, [1], 0, True).numpy()
    assert np.abs(got - ref).max() / np.abs(ref).max() < tol
    back = ops.fft_c2r(torch.from_numpy(ref), [1], 2, 2 * n).numpy()
    assert np.abs(back - r.numpy()).max() / np.abs(r.numpy()).max() < tol


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [2, 4, 8, 12, 1000, 4096])
def test_real_fft_edge_bins_exactly_real(n, dtype):
    # The DC and Nyquist bins of a real signal's spectrum are real; the
    # twiddles at the quarter and half turns are exact 0 and +-1, so no
    # rounding residue of sin(pi) leaks into their imaginary parts.
    x = torch.arange(n, dtype=dtype).reshape(1, n).remainder(7) - 3
    X = complexext.fft.rfft(x)
    assert X[0, 0].imag.item() == 0.0
    assert X[0, n // 2].imag.item() == 0.0
    ref = np.fft.rfft(x.double().numpy())
    assert X[0, n // 2].real.item() == pytest.approx(ref[0, n // 2].real, rel=1e-6, abs=1e-6)


def row_kernel_inputs():
    """Rows in several layouts: one row, row counts that are not a multiple
    of 16, rows that step irregularly through memory (two batch dims, one
    of them sliced)."""
    yield "one row", lambda n, dt: torch.randn(1, n, dtype=dt)
    yield "37 rows", lambda n, dt: torch.randn(37, n, dtype=dt)
    yield "sliced batch", lambda n, dt: torch.randn(3, 10, n, dtype=dt)[:, 1::3]


# The row kernels (AVX-512, AVX2): 256 and 512 (lane_row256.h), and n = 16*m
# (lane_rowm.h) with m a multiple of 16 (1024, 4096) or not (400, 25 * 16).
ROW_LENGTHS = [256, 400, 512, 1024, 4096]


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("case", list(row_kernel_inputs()), ids=lambda c: c[0])
@pytest.mark.parametrize("n", ROW_LENGTHS)
def test_row_kernel_lengths(n, case, dtype):
    """fft_c2c at n, forward and inverse, and fft_r2c at 2n (whose pairs
    make a complex row of n), every norm, against scipy in float64:
    complex32 within 1.15 x the floor, complex64 at fp32 accuracy."""
    torch.manual_seed(n)
    x = case[1](n, torch.complex64).to(dtype)
    before = x.clone()
    xn = to_np(x)
    limit = (lambda ref: 1.15 * floor_of(ref)) if dtype == torch.complex32 else (lambda ref: 1e-6)
    for norm, scale in ((0, 1.0), (1, n ** -0.5), (2, 1.0 / n)):  # aten's normalization codes
        for forward in (True, False):
            got = ops.fft_c2c(x, [-1], norm, forward)
            ref = scale * (sf.fft(xn, axis=-1) if forward else n * sf.ifft(xn, axis=-1))
            assert rel_rms(to_np(got), ref) <= limit(ref), (norm, forward)
        r = torch.view_as_real(x).flatten(-2)  # 2n reals a row
        got = ops.fft_r2c(r, [-1], norm, True)
        ref = (scale / 2 ** (norm / 2)) * sf.rfft(to_np(r), axis=-1)
        assert got.shape[-1] == n + 1
        assert rel_rms(to_np(got), ref) <= limit(ref), ("r2c", norm)
    assert torch.equal(torch.view_as_real(x), torch.view_as_real(before))


ROW_CHECK = r"""
import json, numpy as np, scipy.fft as sf, torch, complexext
ops = torch.ops.complexext
torch.manual_seed(0)
def err(got, ref):  # relative RMS error, and the same for ref rounded to complex32
    got = got.to(torch.complex128).numpy()
    rnd = torch.from_numpy(ref).to(torch.complex32).to(torch.complex128).numpy()
    e = lambda a: float(np.sqrt(np.mean(np.abs(a - ref) ** 2) / np.mean(np.abs(ref) ** 2)))
    return e(got), e(rnd)
out = {"isa": ops.cpu_isa()}
for n in (256, 400, 512, 1024, 4096, 16384, 65536):
    x = torch.randn(3, n, dtype=torch.complex64).to(torch.complex32)
    xn = x.to(torch.complex128).numpy()
    for forward in (True, False):
        got = ops.fft_c2c(x, [1], 1, forward)
        out[f"c2c {n} {forward}"] = err(got, (sf.fft if forward else sf.ifft)(xn, axis=1, norm="ortho"))
    r = torch.randn(5, 2 * n).half()  # even real: pairs through the row of n; 400 in pairs of rows
    out[f"r2c {2 * n}"] = err(ops.fft_r2c(r, [1], 0, True), sf.rfft(r.double().numpy(), axis=1))
    if n <= 4096:
        w = torch.hann_window(n)
        got = complexext.stft(x.real.float().flatten().half(), n, n // 4, window=w, center=False,
                              return_complex=True)
        ref = torch.stft(x.real.float().flatten().double(), n, n // 4, window=w.double(),
                         center=False, return_complex=True).numpy()
        out[f"stft {n}"] = err(got, ref)
for m in range(17, 32):  # every partial block, m % 16 = 1 .. 15
    n = 16 * m
    x = torch.randn(3, n, dtype=torch.complex64).to(torch.complex32)
    got = ops.fft_c2c(x, [1], 1, True)
    out[f"c2c {n}"] = err(got, sf.fft(x.to(torch.complex128).numpy(), axis=1, norm="ortho"))
    r = torch.randn(3, 2 * n).half()
    out[f"r2c {2 * n}"] = err(ops.fft_r2c(r, [1], 0, True), sf.rfft(r.double().numpy(), axis=1))
print(json.dumps(out))
"""


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
def test_row_kernels_of_every_isa(isa):
    """The row kernels (16 lanes: one AVX-512 register, or two AVX2 ones) run
    under each instruction set that has them, so that a CPU with AVX-512
    checks the AVX2 kernels too: c2c both ways, even real rows (through the
    row of n/2, or two rows as one complex row at 800) and a windowed STFT,
    and n = 16 * m for every m % 16 (the partial block of each count),
    complex32 within 1.15 x the floor against float64."""
    out = run_under_isa(isa, ROW_CHECK)
    bad = {k: v for k, v in out.items() if v[0] > 1.15 * v[1]}
    assert not bad


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=str)
@pytest.mark.parametrize("rows", [1, 2, 7, 40])
@pytest.mark.parametrize("n", [400, 480, 4000])
def test_real_rows_in_pairs(n, rows, dtype):
    """Even real lengths whose half is not 16*m (400: 200 = 8 * 25) go two
    rows at a time through the length-n row kernel (x1 + i x2), an odd
    last row with zeros: every norm against scipy in float64, rows also
    taken from a sliced batch."""
    torch.manual_seed(rows)
    for x in (torch.randn(rows, n).to(dtype), torch.randn(2, 3 * rows, n).to(dtype)[:, ::3]):
        before = x.clone()
        for norm, scale in ((0, 1.0), (1, n ** -0.5), (2, 1.0 / n)):
            got = ops.fft_r2c(x, [-1], norm, True)
            ref = scale * sf.rfft(x.double().numpy(), axis=-1)
            assert got.shape[-1] == n // 2 + 1
            limit = 1.15 * floor_of(ref) if dtype == torch.float16 else 1e-6
            assert rel_rms(to_np(got), ref) <= limit, norm
        assert torch.equal(x, before)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("n", [17, 97, 1155])
def test_odd_real_rows_in_pairs(n, dtype):
    """Odd real lengths take two rows a lane in the lane engine (x1 + i x2,
    split after the transform): row counts around the pairs of every group
    (an odd last row with zeros), both sides and every norm, rows from a
    sliced batch, a strided output and a windowed STFT, against float64."""
    for rows in (1, 2, 7, 16, 17, 33):
        torch.manual_seed(rows)
        for x in (torch.randn(rows, n).to(dtype), torch.randn(2, 3 * rows, n).to(dtype)[:, ::3]):
            before = x.clone()
            for norm, scale in ((0, 1.0), (1, n ** -0.5), (2, 1.0 / n)):
                for onesided in (True, False):
                    got = ops.fft_r2c(x, [-1], norm, onesided)
                    ref = scale * sf.fft(x.double().numpy(), axis=-1)
                    ref = ref[..., : n // 2 + 1] if onesided else ref
                    limit = (1.15 * floor_of(ref) if dtype == torch.float16
                             else 1e-6 if dtype == torch.float32 else 1e-13)
                    assert rel_rms(to_np(got), ref) <= limit, (rows, norm, onesided)
            assert torch.equal(x, before)
    x = torch.randn(6, n).to(dtype)
    out = torch.empty(n // 2 + 1, 6, dtype=ops.fft_r2c(x, [1], 0, True).dtype).t()
    got = torch.fft.fft(x.double())[:, : n // 2 + 1]  # a strided out, through out=
    import complexext.fft as cf
    cf.rfft(x, out=out)
    assert rel_rms(to_np(out), got.numpy()) <= (1e-3 if dtype == torch.float16 else 1e-6)
    sig, w = torch.randn(3, 40 * n).to(dtype), torch.hann_window(n, dtype=torch.float64)
    import complexext
    got = complexext.stft(sig, n, n // 3, window=w.to(dtype if dtype != torch.float16 else
                                                      torch.float32), return_complex=True)
    ref = torch.stft(sig.double(), n, n // 3, window=w, return_complex=True).numpy()
    limit = 1.15 * floor_of(ref) if dtype == torch.float16 else 1e-6
    assert rel_rms(to_np(got), ref) <= limit


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("n", [2 ** 15, 3 * 2 ** 14, 65536])
def test_row_kernel_past_the_lane_lengths(n, dtype):
    """Lengths past the lane plans up to 65536 run one row at a time where
    a row kernel takes them (a row plan of n, axis.cpp) instead of
    four-step: c2c both ways and r2c at 2n, one row, three rows and rows
    from a sliced batch, against scipy in float64."""
    torch.manual_seed(n)
    limit = (lambda ref: 1.15 * floor_of(ref)) if dtype == torch.complex32 else (lambda ref: 1e-6)
    for x in (torch.randn(1, n, dtype=torch.complex64).to(dtype),
              torch.randn(3, n, dtype=torch.complex64).to(dtype),
              torch.randn(2, 4, n, dtype=torch.complex64).to(dtype)[:, 1::2]):
        xn = to_np(x)
        for forward in (True, False):
            got = ops.fft_c2c(x, [-1], 1, forward)
            ref = (sf.fft if forward else sf.ifft)(xn, axis=-1, norm="ortho")
            assert rel_rms(to_np(got), ref) <= limit(ref), forward
        r = torch.view_as_real(x).flatten(-2)
        got = ops.fft_r2c(r, [-1], 0, True)
        ref = sf.rfft(to_np(r), axis=-1)
        assert rel_rms(to_np(got), ref) <= limit(ref), "r2c"
