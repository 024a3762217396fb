"""Property-based tests (hypothesis) of every public function: the 18
complexext.fft functions, complexext.stft / istft and the four
complexext.nn.functional convolutions, each on drawn shapes, layouts, dtypes
and arguments, against a float64 reference.

What is drawn:
- shapes with size-0 and size-1 dims (batch dims, transformed dims with n/s
  given, empty batches of convolutions and STFTs);
- layouts: every input is a view over a flat, contiguous buffer made with
  `as_strided`, with its dims laid out in a drawn order (permuted /
  transposed), a drawn step per dim (slices with steps), a storage offset,
  and some dims of size 1 `.expand`ed to stride 0. A reversed ("flipped")
  view does not exist in torch (no negative strides; `torch.flip` copies),
  so the permuted and stepped layouts stand for it. Complex inputs may also
  be conjugate views (`.conj()`, the conj bit set);
- dtypes: complex32 in most examples, complex64 and complex128 in the rest;
  float16/32/64 for the real inputs of rfft*/ihfft*/stft (and sometimes of
  the other functions, which accept them), real weights and biases of
  convolutions;
- arguments: dim, n, s (with -1 entries), norm (None, "backward", "ortho",
  "forward"); conv stride, padding (ints, tuples, "same", "valid"), dilation,
  groups, bias, output_padding; stft/istft n_fft, hop_length, win_length,
  window (None or positive, of any float dtype), center, pad_mode,
  normalized, onesided, length, return_complex.
The values are standard normal numbers drawn from a seed that hypothesis
draws: the floor bounds below are statements about random data, which
values shrunk by hypothesis itself (zeros, ones, repeats) are not. Expanded
dims and zero padding still make constant and impulse signals.

What must hold, for every example:
- errors: an FFT whose signal length comes to 0 (an empty transformed dim
  without n/s, irfft/hfft of one value without n) raises a ValueError
  starting with the function's name. stft, istft and convolutions: where
  torch's own function on the float64/complex128 widening of the same
  inputs raises, complexext raises a TypeError/ValueError/IndexError/
  RuntimeError starting with the function's name, and where torch accepts
  them, so does complexext (nothing crashes). On an empty batch torch is no
  oracle (its CPU FFT, stft and istft fail on one; conv_transpose accepts
  output sizes of 0 it refuses with one row): there torch's verdict on one
  row stands. istft frames that cover only the centre padding give an
  empty signal, where torch fails (documented in docs/stft.md);
- the result has the reference's shape and complexext's documented dtype;
- its error against the float64 reference is within the bounds the accuracy
  tests use, as multiples of the floor (the error of the exact result
  rounded to the output dtype, on the same data):
  FFTs and STFT/ISTFT as tests/test_fft_accuracy.py's `check`: complex32
  (float16) outputs at most 1.15 x the floor, complex64 (float32) at most
  10 x the fp32 floor, complex128 (float64) a relative error below 1e-13;
  convolutions as tests/test_conv_accuracy.py: complex32 at most 1.15 x the
  floor, complex64 below sqrt(K) * 2^-24 for K real products per output,
  complex128 (whose reference is itself fp64) below 1e-13.
  Those bounds are statistics of many output values; outputs of a few values
  need three provisions, each explained at `within_floor` and FP32_FLOOR
  (an fp32 floor is taken at least at its random-data value; complex32 gets
  the fp32 compute's own allowance on top; a few-value complex64 output may
  instead be no worse than torch's own float32 result, and an istft window
  is measured against the norm it has in expectation). On outputs of many
  random values they leave the bounds as they are;
- the inputs' buffers are bitwise unchanged.

References: scipy.fft (FFTs), torch.stft / torch.istft in float64 and
complex128 (STFT/ISTFT), torch.nn.functional's convolutions in complex128.

Examples per run: one test per function, each with the profile's
max_examples (tests/conftest.py). The "ci" profile (the default) runs 100
each: 24 tests x 100 = 2,400 examples, derandomized (the same examples on
every run). COMPLEXEXT_HYPOTHESIS_PROFILE=dev runs 1,000 each, freshly
random. The examples are tiny, so the module runs torch on one thread (see
`one_thread`). See docs/testing.md.
"""
import math
import warnings
from collections import namedtuple

import numpy as np
import pytest
import scipy.fft
import torch
import torch.nn.functional as TF
from hypothesis import event, given
from hypothesis import strategies as st

import complexext
import complexext.fft as cf
import complexext.nn.functional as CF
from support.refs import (ALL_FUNCS, FUNCS_1D, FUNCS_2D, REAL_OF, WIDE, c2r_output, output_dtype,
                   rand, real_input, rel_rms, rounding_floor, to_numpy)

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
warnings.filterwarnings("ignore", message="A window was not provided")

C32, C64, C128 = torch.complex32, torch.complex64, torch.complex128
HALF = (C32, torch.float16)
DOUBLE = (C128, torch.float64)
# complex32 is the main dtype: three draws in five.
PRECISIONS = st.sampled_from([C32, C32, C32, C64, C128])
SEEDS = st.integers(0, 2 ** 31 - 1)
ERRORS = (TypeError, ValueError, IndexError, RuntimeError)
# The floor of fp32 outputs on random data, u * sqrt(1 / (8 ln 2)) with
# u = 2^-24 (docs/numerics.md derives the same for fp16): what the floor
# measured on many values comes to. An example with a few output values
# measures a floor of a few roundings, which may be far below it or 0 (when
# the exact values happen to be fp32 numbers) while fp32 arithmetic is
# legitimately a few ulps off; so fp32 floors are taken at least this large.
# The accuracy tests measure floors on 65536 values, where this changes
# nothing.
FP32_FLOOR = 2.0 ** -24 * (1 / (8 * math.log(2))) ** 0.5


def sizes(lo, hi):
    """lo..hi with every value about equally often (st.integers favours its
    ends, and so does sampled_from its first entry: 2 here), 1 one and a half
    times as often, 0 half as often (it makes many examples an error case)."""
    values = list(range(max(lo, 2), hi + 1))
    return st.sampled_from(values * 2 + [1] * 3 * (lo <= 1) + [0] * (lo == 0))


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The examples are tiny: on a busy machine, waking torch's intra-op
    threads costs up to 100 ms a call (torch's own complex128 convolution
    of a few values included), far more than the work. The module runs on
    one thread, and restores the count after; the multi-threaded kernel
    paths are the accuracy tests' business, at sizes that use them."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ---------------------------------------------------------------- layouts

Layout = namedtuple("Layout", "order steps expanded offset conj")


@st.composite
def layouts(draw, ndim, is_complex):
    """How a tensor lies over its buffer: dims in memory order `order`
    (outermost first), a step per dim, dims expanded to stride 0, a storage
    offset, and whether it is a conjugate view."""
    order = draw(st.permutations(range(ndim))) if draw(st.booleans()) else list(range(ndim))
    steps = draw(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=ndim, max_size=ndim))
    expanded = draw(st.lists(st.sampled_from([False] * 5 + [True]), min_size=ndim,
                             max_size=ndim))
    offset = draw(st.integers(0, 3))
    conj = is_complex and draw(st.booleans())
    return Layout(order, steps, expanded, offset, conj)


def make(shape, dtype, seed, layout):
    """A tensor of shape `shape` and dtype `dtype` laid out as `layout` over a
    fresh buffer of standard normal values; returns (tensor, buffer)."""
    base = [1 if e else s for s, e in zip(shape, layout.expanded)]
    strides, run = [0] * len(shape), 1
    for d in reversed(layout.order):
        strides[d] = run * layout.steps[d]
        run = strides[d] * max(base[d], 1)
    extent = sum((s - 1) * st_ for s, st_ in zip(base, strides) if s > 0)
    buf = rand((layout.offset + extent + 1,), dtype, seed=seed)
    x = buf.as_strided(base, strides, layout.offset)
    if layout.conj:
        x = x.conj()
    return x.expand(shape), buf


def tensor(draw, shape, dtype):
    """Draws a layout and a seed: (tensor, buffer, a copy of the buffer)."""
    layout = draw(layouts(len(shape), dtype.is_complex))
    x, buf = make(shape, dtype, draw(SEEDS), layout)
    kinds = [k for k, on in (("permuted", layout.order != sorted(layout.order)),
                             ("stepped", any(s > 1 for s in layout.steps)),
                             ("expanded", any(layout.expanded)), ("offset", layout.offset),
                             ("conj", layout.conj), ("size-0 dim", 0 in shape),
                             ("size-1 dim", 1 in shape)) if on]
    for kind in kinds or ["contiguous"]:
        event(f"input: {kind}")
    event(f"input dtype: {dtype}")
    return x, buf, buf.clone()


def unchanged(*pairs):
    for buf, copy in pairs:
        assert torch.equal(buf.view(torch.uint8), copy.view(torch.uint8)), "input modified"


# ---------------------------------------------------------------- checks

def within_floor(what, y, ref, out_dtype, peer=None, size=None):
    """tests/test_fft_accuracy.py's `check`, for an output dtype, made sound
    for outputs of a few values (see FP32_FLOOR):
    - complex32 / float16: at most 1.15 x the floor, plus the allowance of
      the fp32 compute inside (10 x FP32_FLOOR, the complex64 bound; 0.1 %
      of a typical complex32 floor, but where the exact result is all fp16
      numbers and zeros, fp32 residues of 1e-7 legitimately survive as fp16
      subnormals);
    - complex64 / float32: at most 10 x the floor taken at least FP32_FLOOR,
      or no worse than torch's own result in the same precision (`peer`, a
      callable; tests/test_stft_accuracy.py's float32 bound), for outputs of
      a few values whose size cancels far below that of the terms summed;
    - complex128 / float64: a relative error below 1e-13.
    `size`: the norm the output has in expectation on random data (istft,
    whose output may be a window of one or two samples of a longer signal);
    for complex64/128 the error is taken relative to the larger of that and
    the output's norm (one sample's relative error is heavy-tailed: it may
    be far smaller than the values summed to make it)."""
    assert y.dtype == out_dtype, f"{what}: dtype {y.dtype}, expected {out_dtype}"
    assert tuple(y.shape) == tuple(ref.shape), f"{what}: shape {tuple(y.shape)} != {ref.shape}"
    err = rel_rms(y, ref)
    if size is not None and out_dtype not in HALF and size > np.linalg.norm(ref):
        err = float(np.linalg.norm(to_numpy(y) - ref) / size)
    if out_dtype in DOUBLE:
        assert err < 1e-13, f"{what}: float64 relative error {err:.3e}"
        return
    floor = rounding_floor(ref, out_dtype)
    if out_dtype in HALF:
        bound = 1.15 * floor + 10 * FP32_FLOOR
    else:
        floor = max(floor, FP32_FLOOR)
        bound = 10 * floor
        if err > bound and peer is not None:
            theirs = peer()
            if theirs is not None:
                bound = max(bound, rel_rms(theirs, ref))
    assert err <= bound, (f"{what} {out_dtype}: error {err:.4e} is {err / floor:.3f} x the "
                          f"floor {floor:.4e}, above the bound {bound:.4e}" if floor else
                          f"{what}: error {err} > {bound}")


def raises_like_torch(name, call, torch_error):
    """torch refused the arguments: complexext must refuse them too, with a
    message naming the function."""
    event("arguments refused")
    with pytest.raises(ERRORS) as info:
        call()
    assert str(info.value).startswith(name), (
        f"{name}: message {info.value!r} does not name the function (torch: {torch_error!r})")


def torch_or_error(call):
    try:
        return call(), None
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        return None, e


# ---------------------------------------------------------------- FFTs

def signed(draw, d, ndim):
    """d, or its negative spelling."""
    return d - ndim if draw(st.booleans()) else d


@st.composite
def fft_cases(draw, name):
    prec = draw(PRECISIONS)
    if real_input(name):
        dtype = REAL_OF[prec]
    else:  # the others accept real input too
        dtype = draw(st.sampled_from([prec, prec, prec, REAL_OF[prec]]))
    kw = {"norm": draw(st.sampled_from([None, "backward", "ortho", "forward"]))}
    if name in FUNCS_1D:
        ndim = draw(st.integers(1, 3))
        shape = draw(st.lists(sizes(0, 24 if ndim == 1 else 12), min_size=ndim,
                              max_size=ndim))
        if draw(st.booleans()):
            kw["dim"] = draw(st.integers(-ndim, ndim - 1))
        n = draw(st.one_of(st.none(), st.integers(1, 40)))
        if n is not None:
            kw["n"] = n
    else:
        ndim = draw(st.integers(2 if name in FUNCS_2D else 1, 3))
        shape = draw(st.lists(sizes(0, 10), min_size=ndim, max_size=ndim))
        dims = None
        if draw(st.booleans()):
            k = 2 if name in FUNCS_2D else draw(st.integers(1, ndim))
            dims = tuple(signed(draw, d, ndim) for d in draw(st.permutations(range(ndim)))[:k])
            kw["dim"] = dims
        if draw(st.booleans()):
            k = (2 if name in FUNCS_2D else len(dims) if dims is not None
                 else draw(st.integers(1, ndim)))
            kw["s"] = tuple(draw(st.one_of(st.just(-1), st.integers(1, 16))) for _ in range(k))
    x, buf, copy = tensor(draw, tuple(shape), dtype)
    return x, kw, prec, (buf, copy)


def transformed(name, shape, kw):
    """The transformed dims (non-negative) and the signal length in each,
    with torch's defaults: the input's size, 2*(m-1) for the last dim of the
    c2r functions, also where s says -1."""
    ndim = len(shape)
    if name in FUNCS_1D:
        dims, req = [kw.get("dim", -1)], [kw.get("n")]
    else:
        s, dims = kw.get("s"), kw.get("dim")
        if dims is None:
            dims = ((-2, -1) if name in FUNCS_2D else
                    range(ndim - len(s), ndim) if s is not None else range(ndim))
        req = list(s) if s is not None else [None] * len(dims)
    dims = [d % ndim for d in dims]
    lengths = []
    for i, (d, r) in enumerate(zip(dims, req)):
        if r is None or r == -1:
            last_c2r = c2r_output(name) and i == len(dims) - 1
            r = 2 * (shape[d] - 1) if last_c2r else shape[d]
        lengths.append(r)
    return dims, lengths


def fft_reference(name, x, kw):
    dims, lengths = transformed(name, tuple(x.shape), kw)
    if name in FUNCS_1D:
        args = {"n": lengths[0], "axis": dims[0]}
    else:
        args = {"s": lengths, "axes": dims}
    return getattr(scipy.fft, name)(to_numpy(x), norm=kw["norm"], **args)


@pytest.mark.parametrize("name", ALL_FUNCS)
@given(data=st.data())
def test_fft_family(name, data):
    """Against scipy.fft. The one error the drawn arguments can make is a
    signal length below 1 (an empty transformed dim without n or s, or one
    value into irfft/hfft without n): a ValueError. torch's own CPU FFT is no
    oracle here: it fails on empty batches (an MKL error) where complexext,
    as documented, returns an empty result."""
    x, kw, prec, buf = data.draw(fft_cases(name), label="input, kwargs, precision")
    fn = getattr(cf, name)
    if min(transformed(name, tuple(x.shape), kw)[1]) < 1:
        event("arguments refused")
        with pytest.raises(ValueError, match=f"^{name}: "):
            fn(x, **kw)
    else:
        within_floor(name, fn(x, **kw), fft_reference(name, x, kw), output_dtype(name, prec),
                     peer=lambda: torch_or_error(lambda: getattr(torch.fft, name)(x, **kw))[0])
    unchanged(buf)


# ---------------------------------------------------------------- STFT / ISTFT

def _window(draw, win_length):
    """None (rectangular), or a positive window (values in [0.25, 1), so that
    istft's envelope stays away from zero) of a drawn float dtype and layout;
    returns (window, (buffer, copy))."""
    if draw(st.booleans()):
        return None, None
    dtype = draw(st.sampled_from([torch.float16, torch.float32, torch.float64]))
    w, buf = make((win_length,), dtype, draw(SEEDS), draw(layouts(1, False)))
    buf.copy_(buf.double().abs().remainder(0.75).add(0.25).to(dtype))
    return w, (buf, buf.clone())


def stft_args(draw, n_fft, for_istft):
    """win_length, hop_length (each None, the default, half the time) and
    the window. A window shorter than n_fft is zero-padded: istft then fails
    the NOLA condition where frames do not overlap its zeros, so istft draws
    win_length from n_fft // 2 up, and only a quarter of the time."""
    kw = {}
    if draw(st.sampled_from([False, False, False, True] if for_istft else [False, True])):
        kw["win_length"] = draw(sizes(max(1, n_fft // 2) if for_istft else 1, n_fft))
    win_length = kw.get("win_length", n_fft)
    if for_istft:  # istft needs hop <= win_length
        hop = draw(st.one_of(st.none(), sizes(1, win_length)))
    else:
        hop = draw(st.one_of(st.none(), sizes(1, n_fft + 2)))
    if hop is not None:
        kw["hop_length"] = hop
    kw["center"] = draw(st.booleans())
    kw["normalized"] = draw(st.booleans())
    window, wbuf = _window(draw, win_length)
    kw["window"] = window
    return kw, wbuf


def widened(kw):
    w = kw.get("window")
    return dict(kw, window=None if w is None else w.double())


def istft_size(spec, n_fft, kw):
    """The norm istft's output has in expectation for a spectrum of random
    values: its frames (the inverse DFT of each column, real from the first
    n_fft // 2 + 1 bins unless return_complex, scaled as istft scales) have
    values of RMS sigma, and a sample s, the windowed frames over it divided
    by the envelope E[s] = sum_t w[s - t*hop]^2, has E|y[s]|^2 = sigma^2 / E[s]."""
    a = np.moveaxis(to_numpy(spec), -2, -1)
    norm = "ortho" if kw.get("normalized") else "backward"
    if kw.get("return_complex"):
        frames = scipy.fft.ifft(a, n=n_fft, norm=norm)
    else:
        frames = scipy.fft.irfft(a[..., :n_fft // 2 + 1], n=n_fft, norm=norm)
    if frames.size == 0:
        return 0.0
    sigma2 = np.mean(np.abs(frames) ** 2)
    win_length = kw.get("win_length", n_fft)
    w = np.ones(win_length) if kw.get("window") is None else to_numpy(kw["window"])
    left = (n_fft - win_length) // 2
    hop, count = kw.get("hop_length", n_fft // 4), spec.shape[-1]
    env = np.zeros(n_fft + hop * (count - 1))
    for t in range(count):
        env[t * hop + left:t * hop + left + win_length] += w ** 2
    start = n_fft // 2 if kw["center"] else 0
    stop = len(env) - start if kw.get("length") is None else start + kw["length"]
    env = env[start:stop]
    batch = math.prod(spec.shape[:-2])
    return float(np.sqrt(sigma2 * batch * np.sum(1 / env[env > 0])))


def single(kw):
    """kw for torch's float32/complex64 stft/istft: a float32 window."""
    w = kw.get("window")
    return dict(kw, window=None if w is None else w.float())


def torch_reference(fn, x, batched, wide=None):
    """fn (torch's function with the other arguments bound) on x widened to
    `wide` (float64/complex128): (result, None) or (None, the error it
    raised). On an empty batch torch is no oracle (stft and istft refuse it;
    conv_transpose accepts arguments that fail with one row): there torch's
    result on one row of zeros gives the error status and the row's shape."""
    wide = wide or WIDE[x.dtype]
    if batched and x.shape[0] == 0:
        row, error = torch_or_error(lambda: fn(torch.zeros((1,) + tuple(x.shape[1:]),
                                                           dtype=wide)))
        return (None if row is None else row[:0]), error
    return torch_or_error(lambda: fn(x.to(wide)))


@given(data=st.data())
def test_stft(data):
    draw = data.draw
    prec = draw(PRECISIONS, label="precision")
    dtype = draw(st.sampled_from([REAL_OF[prec]] * 3 + [prec]), label="signal dtype")
    n_fft = draw(sizes(1, 24), label="n_fft")
    kw, wbuf = stft_args(draw, n_fft, for_istft=False)
    kw["pad_mode"] = draw(st.sampled_from(["reflect", "constant", "replicate", "circular"]))
    kw["onesided"] = draw(st.sampled_from([None, True, False]))
    shape = ((draw(st.integers(0, 3)),) if draw(st.booleans()) else ()) + (
        draw(sizes(1, 80)),)
    x, buf, copy = tensor(draw, shape, dtype)
    draw(st.just((tuple(x.shape), x.stride(), kw)), label="signal shape, strides, kwargs")

    expect, error = torch_reference(
        lambda t: torch.stft(t, n_fft, return_complex=True, **widened(kw)), x, x.dim() == 2)
    call = lambda: complexext.stft(x, n_fft, return_complex=True, **kw)  # noqa: E731
    if error is not None:
        raises_like_torch("stft", call, error)
    else:
        within_floor("stft", call(), to_numpy(expect), prec, peer=lambda: torch_or_error(
            lambda: torch.stft(x, n_fft, return_complex=True, **single(kw)))[0])
    unchanged((buf, copy), *([wbuf] if wbuf else []))


@given(data=st.data())
def test_istft(data):
    draw = data.draw
    prec = draw(PRECISIONS, label="precision")
    # n_fft = 1 with center=True is a documented difference (torch fails on
    # an empty range, complexext returns the signal): not drawn.
    center = draw(st.booleans(), label="center")
    n_fft = draw(sizes(2 if center else 1, 24), label="n_fft")
    kw, wbuf = stft_args(draw, n_fft, for_istft=True)
    kw["center"] = center
    onesided = draw(st.sampled_from([None, True, False]), label="onesided")
    if onesided is not None:
        kw["onesided"] = onesided
    freq = n_fft if onesided is False or (onesided is None and draw(st.booleans())) else (
        n_fft // 2 + 1)
    two_sided = freq == n_fft and onesided is not True
    kw["return_complex"] = two_sided and draw(st.booleans())
    frames = draw(sizes(1, 8), label="frames")
    shape = ((draw(st.integers(0, 3)),) if draw(st.booleans()) else ()) + (freq, frames)
    kw["length"] = draw(st.one_of(st.none(), st.integers(1, 80)), label="length")
    spec, buf, copy = tensor(draw, shape, prec)
    draw(st.just((tuple(spec.shape), spec.stride(), kw)), label="spectrum shape, strides, kwargs")

    expect, error = torch_reference(lambda t: torch.istft(t, n_fft, **widened(kw)), spec,
                                    spec.dim() == 3)
    call = lambda: complexext.istft(spec, n_fft, **kw)  # noqa: E731
    out = prec if kw["return_complex"] else REAL_OF[prec]
    hop = kw.get("hop_length", n_fft // 4)
    samples = n_fft + hop * (frames - 1) - (2 * (n_fft // 2) if center else 0)
    valid_hop = 1 <= hop <= kw.get("win_length", n_fft)
    if error is not None and kw["length"] is None and valid_hop and samples == 0:
        # frames that cover only the centre padding: torch fails on the empty
        # range, complexext returns an empty signal (docs/stft.md)
        event("empty istft range")
        y = call()
        assert y.dtype == out and tuple(y.shape) == shape[:-2] + (0,)
    elif error is not None:
        raises_like_torch("istft", call, error)
    else:
        within_floor("istft", call(), to_numpy(expect), out, peer=lambda: torch_or_error(
            lambda: torch.istft(spec, n_fft, **single(kw)))[0], size=istft_size(spec, n_fft, kw))
    unchanged((buf, copy), *([wbuf] if wbuf else []))


# ---------------------------------------------------------------- convolutions

CONVS = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def per_dim(draw, nsp, values):
    """An int or a tuple of nsp ints."""
    if draw(st.booleans()):
        return draw(values)
    return tuple(draw(values) for _ in range(nsp))


def as_tuple(v, nsp):
    return v if isinstance(v, tuple) else (v,) * nsp


@st.composite
def conv_cases(draw, name):
    nsp = 2 if name.endswith("2d") else 1
    transposed = "transpose" in name
    prec = draw(PRECISIONS)
    groups = draw(st.integers(1, 3))
    cin_g, cout_g = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kernel = tuple(draw(st.integers(1, 4 if nsp == 1 else 3)) for _ in range(nsp))
    kw = {"stride": per_dim(draw, nsp, st.integers(1, 3)),
          "dilation": per_dim(draw, nsp, st.sampled_from([1, 1, 1, 2, 3])),
          "groups": groups}
    if transposed:
        kw["padding"] = per_dim(draw, nsp, st.integers(0, 3))
        bounds = [max(s, d) for s, d in zip(as_tuple(kw["stride"], nsp),
                                            as_tuple(kw["dilation"], nsp))]
        kw["output_padding"] = tuple(draw(st.integers(0, b - 1)) for b in bounds)
    else:
        kind = draw(st.sampled_from(["numbers", "numbers", "same", "valid"]))
        kw["padding"] = per_dim(draw, nsp, st.integers(0, 3)) if kind == "numbers" else kind
        if kw["padding"] == "same" and draw(st.sampled_from([True, True, True, False])):
            kw["stride"] = 1  # "same" needs stride 1; a stride > 1 is left to raise
    spatial = tuple(draw(sizes(1, 14 if nsp == 1 else 8)) for _ in range(nsp))
    batch = (draw(st.integers(0, 3)),) if draw(st.booleans()) else ()
    # transposed weight (Cin, Cout/groups, *k); forward weight (Cout, Cin/groups, *k)
    wshape = ((groups * cin_g, cout_g) if transposed else (groups * cout_g, cin_g)) + kernel
    real_x = draw(st.sampled_from([False] * 7 + [True]))
    real_w = not real_x and draw(st.sampled_from([False, False, True]))
    bias = draw(st.sampled_from([None, "complex", "real"]))
    real = REAL_OF[prec]
    x = tensor(draw, batch + (groups * cin_g,) + spatial, real if real_x else prec)
    w = tensor(draw, wshape, real if real_w else prec)
    b = None if bias is None else tensor(draw, (groups * cout_g,), real if bias == "real"
                                         else prec)
    return x, w, b, kw, prec, cin_g * math.prod(kernel), real_w


def conv_size(name, x, w, b, kw):
    """The norm a convolution's output has in expectation for inputs of
    random values: E|y|^2 = sum |w|^2 |x|^2 + |b|^2 over each output's terms,
    the same convolution of the squared magnitudes. An output of a few values
    may cancel far below it, and its relative error with it."""
    sq = lambda t: t.to(C128).abs() ** 2  # noqa: E731
    y2 = getattr(TF, name)(sq(x), sq(w), None, **kw)
    total = float(y2.sum())
    if b is not None:  # every output channel has y2.numel() // Cout values
        total += float(sq(b).sum()) * (y2.numel() // b.numel())
    return total ** 0.5


@pytest.mark.parametrize("name", CONVS)
@given(data=st.data())
def test_conv(name, data):
    x, w, b, kw, prec, fan, real_w = data.draw(conv_cases(name),
                                               label="x, weight, bias, kwargs, ...")
    xs, ws = x[0], w[0]
    bs = None if b is None else b[0]
    fn = getattr(CF, name)
    wide = lambda t: None if t is None else t.to(C128)  # noqa: E731
    nsp = 2 if name.endswith("2d") else 1
    expect, error = torch_reference(lambda t: getattr(TF, name)(t, wide(ws), wide(bs), **kw),
                                    xs, xs.dim() == nsp + 2, wide=C128)
    if error is not None:
        raises_like_torch(name, lambda: fn(xs, ws, bs, **kw), error)
    else:
        y = fn(xs, ws, bs, **kw)
        assert y.dtype == prec and tuple(y.shape) == tuple(expect.shape)
        ref = to_numpy(expect)
        err = rel_rms(y, ref)
        if prec != C32:  # as within_floor's `size`
            size = conv_size(name, xs, ws, bs, kw)
            if size > np.linalg.norm(ref):
                err = float(np.linalg.norm(to_numpy(y) - ref) / size)
        if prec == C32:
            floor = rounding_floor(ref, C32)
            assert err <= 1.15 * floor, (f"{name}: error {err:.4e} is {err / floor:.3f} x the "
                                         f"floor {floor:.4e}" if floor else
                                         f"{name}: error {err} > 0 = floor")
        elif prec == C64:
            terms = (1 if real_w else 2) * fan
            assert err < terms ** 0.5 * 2.0 ** -24, (
                f"{name}: complex64 error {err:.3e} >= sqrt({terms}) * 2^-24")
        else:  # the reference is itself fp64: test_fft_accuracy's complex128 bound
            assert err < 1e-13, f"{name}: complex128 relative error {err:.3e}"
    unchanged(*[(t[1], t[2]) for t in (x, w, b) if t is not None])
