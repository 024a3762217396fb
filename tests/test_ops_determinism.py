"""Determinism across repeated calls and intra-op thread counts
(torch.set_num_threads 1, 2 and 4).

Bitwise the same at every count: the FFT family on the paths whose work is
split between threads (Stockham and lane-Bluestein rows in parallel
groups, four-step lengths with rows in parallel or one row split over its
column and row transforms, the few-rows four-step split, Bluestein around
four-step), STFT frames and ISTFT's gathered overlap-add. Complex
convolution, forward and backward, runs on oneDNN, whose sums depend on
the thread count: bitwise the same at one count, and as accurate at every
count (see docs/testing.md)."""
import warnings

import pytest
import torch

import torch.nn.functional as TF

import complexext
import complexext.fft as cf
import complexext.nn.functional as CF
from support.refs import rand

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
F16, F32, F64 = torch.float16, torch.float32, torch.float64
INT_OF = {F16: torch.int16, F32: torch.int32, F64: torch.int64}


def bits(t):
    """t's bit patterns as integers: torch.equal on them is bitwise
    equality (it tells -0 from 0 and compares NaNs by payload)."""
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    return t.contiguous().view(INT_OF[t.dtype])


def fft_case(name, dtype, shape, seed=0, **kw):
    x = rand(shape, dtype, seed=seed)
    return lambda: getattr(cf, name)(x, **kw)


def stft_case(dtype, shape, n_fft, hop, seed=0):
    x = rand(shape, dtype, seed=seed)
    w = torch.hann_window(n_fft, dtype=F64 if dtype in (F64, C128) else F32)
    return lambda: complexext.stft(x, n_fft, hop, window=w, return_complex=True)


def istft_case(dtype, batch, n_fft, hop, frames, seed=0):
    x = rand((batch, n_fft // 2 + 1, frames), dtype, seed=seed)
    w = torch.hann_window(n_fft, dtype=F64 if dtype == C128 else F32)
    return lambda: complexext.istft(x, n_fft, hop, window=w)


class ConvCase:
    """A complex convolution (forward, or forward and backward) on fixed
    data; run(exact=True) is torch's own in complex128 on the same values."""

    def __init__(self, name, dtype, xshape, wshape, backward=False, **kw):
        self.name, self.backward, self.kw = name, backward, kw
        self.x = rand(xshape, dtype, seed=1)
        self.w = (rand(wshape, C128, seed=2) / (wshape[1] * wshape[-1]) ** 0.5).to(dtype)
        cout = wshape[1] * kw.get("groups", 1) if "transpose" in name else wshape[0]
        self.b = rand((cout,), dtype, seed=3)
        out = getattr(TF, name)(*self.wide(), **kw)
        self.out_numel = out.numel()
        self.g = rand(out.shape, dtype, seed=4) if backward else None

    def wide(self):
        return [t.to(C128) for t in (self.x, self.w, self.b)]

    def __call__(self):
        return self.run()

    def run(self, exact=False):
        fn = getattr(TF if exact else CF, self.name)
        args = self.wide() if exact else [self.x, self.w, self.b]
        if not self.backward:
            return (fn(*args, **self.kw),)
        args = [t.detach().requires_grad_() for t in args]
        y = fn(*args, **self.kw)
        y.backward(self.g.to(y.dtype))
        return tuple(t.grad for t in args)

    def sum_lengths(self):
        """Per result, the mean number of products in the fp32 sum behind
        one real element: 2 (complex) * multiply-adds / elements. Each
        output (input, for a transposed one) element takes w[0].numel()."""
        per = self.x.numel() if "transpose" in self.name else self.out_numel
        macs = per * self.w[0].numel()
        if not self.backward:
            return [2 * macs / self.out_numel]
        return [2 * macs / self.x.numel(), 2 * macs / self.w.numel(),
                self.out_numel / self.b.numel()]


# name: a call taking no arguments. Lengths: 64 (Stockham), 97, 4099, 10007
# (lane Bluestein), 16384 (lane plan, row kernels), 24576 (four-step),
# 16411 (Bluestein around four-step); one row of 1024 to 8192 points (the few-rows four-step split
# on every instruction set: it needs 4 * rows <= lanes); many rows (parallel
# row groups).
FFT_CASES = {
    "fft-c32-256x1024": fft_case("fft", C32, (256, 1024)),
    "ifft-c64-64x97": fft_case("ifft", C64, (64, 97), norm="ortho"),
    "fft-c128-8x4099": fft_case("fft", C128, (8, 4099)),
    "fft-c32-4x16384": fft_case("fft", C32, (4, 16384)),
    "ifft-c64-1x24576": fft_case("ifft", C64, (1, 24576)),
    "fft-c64-2x10007": fft_case("fft", C64, (2, 10007), norm="forward"),
    "fft-c64-2x16411": fft_case("fft", C64, (2, 16411)),
    "fft-c32-1x4096-few-rows": fft_case("fft", C32, (1, 4096)),
    "fft-c128-1x6000-few-rows": fft_case("fft", C128, (1, 6000)),
    "rfft-f32-1x8192-few-rows": fft_case("rfft", F32, (1, 8192)),
    "irfft-c32-1x4097-few-rows": fft_case("irfft", C32, (1, 4097), norm="ortho"),
    "rfft-f16-64x1001": fft_case("rfft", F16, (64, 1001)),
    "irfft-c64-32x513": fft_case("irfft", C64, (32, 513)),
    "hfft-c32-16x129": fft_case("hfft", C32, (16, 129)),
    "ihfft-f64-16x300": fft_case("ihfft", F64, (16, 300)),
    "fft2-c32-4x48x40": fft_case("fft2", C32, (4, 48, 40)),
    "ifftn-c64-3x17x30": fft_case("ifftn", C64, (3, 17, 30)),
    "rfft2-f16-2x64x60": fft_case("rfft2", F16, (2, 64, 60)),
    "irfftn-c32-2x40x33": fft_case("irfftn", C32, (2, 40, 33)),
    "fft-c32-dim0-strided": fft_case("fft", C32, (300, 40), dim=0),
}
STFT_CASES = {
    "stft-f32-4x16000": stft_case(F32, (4, 16000), 512, 128),
    "stft-f16-2x8000-n400": stft_case(F16, (2, 8000), 400, 160),
    "stft-c32-2x3000-n97": stft_case(C32, (2, 3000), 97, 24),
    "istft-c64-4x257x120": istft_case(C64, 4, 512, 128, 120),
    "istft-c32-2x201x60": istft_case(C32, 2, 400, 100, 60),
    "istft-c128-1x65x40": istft_case(C128, 1, 128, 32, 40),
}
CONV_ARGS = {
    "conv1d-c32": ("conv1d", C32, (4, 16, 500), (24, 16, 5), {"padding": 2}),
    "conv2d-c64": ("conv2d", C64, (2, 8, 32, 30), (12, 8, 3, 3), {"stride": 2}),
    "conv2d-c32-groups": ("conv2d", C32, (2, 12, 20, 20), (12, 4, 3, 3), {"groups": 3}),
    "conv_transpose1d-c64": ("conv_transpose1d", C64, (3, 16, 200), (16, 8, 4), {"stride": 2}),
    "conv_transpose2d-c32": ("conv_transpose2d", C32, (2, 8, 16, 15), (8, 6, 3, 3),
                             {"stride": 2, "output_padding": 1}),
}
CONV_CASES = {k: ConvCase(*a[:4], **a[4]) for k, a in CONV_ARGS.items()}
CONV_BACKWARD_CASES = {k + "-backward": ConvCase(*a[:4], backward=True, **a[4])
                       for k, a in CONV_ARGS.items()}

FORWARD_CASES = {**FFT_CASES, **STFT_CASES, **CONV_CASES}
CONV_ALL = {**CONV_CASES, **CONV_BACKWARD_CASES}


def result_bits(fn):
    out = fn()
    return [bits(t) for t in (out if isinstance(out, tuple) else (out,))]


def same_bits(a, b):
    return len(a) == len(b) and all(torch.equal(u, v) for u, v in zip(a, b))


@pytest.fixture
def num_threads():
    old = torch.get_num_threads()
    yield
    torch.set_num_threads(old)


@pytest.mark.parametrize("name", list({**FFT_CASES, **STFT_CASES}))
def test_fft_stft_istft_same_bits_for_any_thread_count(name, num_threads):
    """complexext's own kernels split work by whole rows, columns or output
    samples and never reduce across threads: bitwise the same results."""
    fn = {**FFT_CASES, **STFT_CASES}[name]
    torch.set_num_threads(1)
    want = result_bits(fn)
    assert same_bits(result_bits(fn), want), "a second call differs"
    for n in (2, 4):
        torch.set_num_threads(n)
        assert torch.get_num_threads() == n
        assert same_bits(result_bits(fn), want), f"{n} threads differ from 1 thread"
        assert same_bits(result_bits(fn), want), f"a second call with {n} threads differs"


def rel_rms(a, ref):
    return float((a.to(C128) - ref).abs().norm() / ref.abs().norm())


@pytest.mark.parametrize("name", list(CONV_ALL))
def test_conv_same_bits_per_thread_count_and_accurate_for_any(name, num_threads):
    """The real convolution inside is oneDNN's, whose partition of a sum
    between threads depends on the thread count (docs/testing.md): results
    repeat bitwise at one thread count, and at every thread count each is
    as accurate as one fp32 sum allows against torch's complex128 result:
    complex32 within 1.15 x its rounding floor, complex64 within
    sqrt(K) * 2^-24 for sums of K products."""
    case = CONV_ALL[name]
    exact = case.run(exact=True)
    for n in (1, 2, 4):
        torch.set_num_threads(n)
        got = case()
        assert same_bits([bits(t) for t in case()], [bits(t) for t in got]), \
            f"a second call with {n} threads differs"
        for what, y, ref, k in zip(("out/input", "weight", "bias"), got, exact,
                                   case.sum_lengths()):
            err = rel_rms(y, ref)
            if y.dtype == C32:
                floor = rel_rms(ref.to(C32), ref)
                assert err <= 1.15 * floor, f"{what} with {n} threads: {err / floor:.3f} x floor"
            else:
                assert err <= k ** 0.5 * 2.0 ** -24, f"{what} with {n} threads: {err:.3g}"


def test_bits_tells_one_ulp_apart():
    """The comparison itself: one ulp in one element, or -0 against 0, is a
    difference (torch.equal on the values would call -0 and 0 equal)."""
    for dtype in (C32, C64, C128, F16):
        x = rand((3, 8), dtype)
        y = x.clone()
        r = torch.view_as_real(y) if y.is_complex() else y
        r.view(INT_OF[r.dtype]).view(-1)[5] += 1  # the next float away from 0
        assert not torch.equal(bits(x), bits(y))
        assert (y != x).sum() == 1
    z = torch.zeros(4)
    assert torch.equal(z, -z) and not torch.equal(bits(z), bits(-z))
