"""The cheap way into the ops (complexext._C.call_below_autograd, taken by
eager calls that need no derivative): the same results as torch.ops, and
every case it must not serve goes the torch.ops way instead."""
import warnings

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import complexext
import complexext.nn.functional as CF
from complexext import _C
from complexext._autograd.common import direct
from complexext._ops import ops

warnings.filterwarnings("ignore", "ComplexHalf support is experimental")

C32 = torch.complex32


def rand(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        return torch.randn(shape, dtype=torch.complex64, generator=g).to(dtype)
    return torch.randn(shape, dtype=torch.float32, generator=g).to(dtype)


def same(a, b, strides=True):
    a, b = [torch.view_as_real(t) if t.is_complex() else t for t in (a, b)]
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b) \
        and (not strides or a.stride() == b.stride())


CALLS = [
    ("fft_c2c", lambda: (rand((3, 40), C32), (1,), 0, True)),
    ("fft_c2c", lambda: (rand((3, 40), torch.complex64)[:, ::2], [0, 1], 2, False)),
    ("fft_r2c", lambda: (rand((3, 40), torch.float16), (1,), 1, True)),
    ("fft_r2c", lambda: (rand((4, 6, 10), torch.float64), (0, 2), 0, False)),
    ("fft_c2r", lambda: (rand((3, 21), C32), (1,), 2, 40)),
    ("stft", lambda: (rand((2, 1000), torch.float32), torch.hann_window(128), 128, 32, 0, True,
                      64, "reflect")),
    ("stft", lambda: (rand((2, 1000), C32), torch.hann_window(64), 64, 16, 1, False, 0,
                      "constant")),
    ("istft", lambda: (rand((2, 65, 9), torch.complex64), torch.hann_window(128), 128, 32, 2,
                       True, 64, 256)),
    ("convolution", lambda: (rand((2, 3, 20), C32), rand((4, 3, 5), C32), rand((4,), C32),
                             (2,), (1,), (1,), False, (0,), 1)),
    ("convolution", lambda: (rand((1, 2, 8, 9), torch.complex64),
                             rand((2, 2, 3, 3), torch.float32), None, [1, 1], [0, 0], [1, 1],
                             True, [0, 0], 1)),
]


@pytest.mark.parametrize("name, make", CALLS, ids=[c[0] for c in CALLS])
def test_same_as_torch_ops_below_autograd(name, make):
    args = make()
    before = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    got = _C.call_below_autograd(name, *args)
    with torch._C._AutoDispatchBelowADInplaceOrView():
        want = getattr(ops, name)(*args)
    assert same(got, want)
    assert not got.requires_grad
    for a, b in zip(args, before):  # inputs untouched
        if isinstance(a, torch.Tensor):
            assert same(a, b, strides=False)


OUT_CALLS = [
    ("fft_c2c_out", lambda: (rand((3, 40), C32), (1,), 0, True), (3, 40), C32),
    ("fft_r2c_out", lambda: (rand((3, 40), torch.float16), (1,), 1, True), (3, 21), C32),
    ("fft_r2c_out", lambda: (rand((4, 6, 10), torch.float64), (0, 2), 0, False), (4, 6, 10),
     torch.complex128),
    ("fft_c2r_out", lambda: (rand((3, 21), C32), (1,), 2, 40), (3, 40), torch.float16),
]


@pytest.mark.parametrize("name, make, shape, dtype", OUT_CALLS, ids=[c[0] for c in OUT_CALLS])
def test_out_forms_write_out_or_answer_none(name, make, shape, dtype):
    """The out= forms write out (the same bits as the allocating op), move its
    version counter, and return it; for an out the op does not write itself
    (another shape or dtype, strided, aliasing the input, a conj view, not
    on the CPU) they return None and leave it as it was."""
    args = make()
    before = args[0].clone()
    want = _C.call_below_autograd(name[:-4], *args)
    out = torch.zeros(shape, dtype=dtype)
    v = out._version
    assert _C.call_below_autograd(name, *args, out) is out
    assert same(out, want) and out._version == v + 1 and same(args[0], before)
    wide = torch.complex64 if dtype.is_complex else torch.float32
    refused = [torch.zeros(shape[:-1] + (shape[-1] + 1,), dtype=dtype),
               torch.zeros(shape, dtype=wide),
               torch.zeros(shape[::-1], dtype=dtype).permute(*range(len(shape) - 1, -1, -1)),
               torch.zeros(shape, dtype=dtype, device="meta")]
    if dtype.is_complex:
        refused.append(torch.zeros(shape, dtype=dtype).conj())
    if args[0].shape == shape and args[0].dtype == dtype:
        refused.append(args[0])
    for bad in refused:
        snap = bad.clone()
        v = bad._version
        assert _C.call_below_autograd(name, *args, bad) is None
        if bad.device.type == "cpu":
            assert same(bad.resolve_conj(), snap.resolve_conj(), strides=False)
            assert bad._version == v


def test_kernel_errors_arrive_with_their_message():
    x = rand((1, 40), torch.float32)
    with pytest.raises(RuntimeError, match="stft"):
        _C.call_below_autograd("stft", x, torch.ones(64), 64, 16, 0, True, 0, "constant")
    with pytest.raises(RuntimeError, match="dim"):
        _C.call_below_autograd("fft_c2c", rand((3, 4), C32), (5,), 0, True)


@pytest.mark.parametrize("args, match", [
    (("fft_c2c", 1, (0,), 0, True), "fft_c2c: self must be a Tensor"),
    (("fft_c2c", rand((4,), C32), 0, 0, True), "fft_c2c: dim must be a tuple or list"),
    (("fft_c2c", rand((4,), C32), (0,), 0, 1), "fft_c2c: forward must be a bool"),
    (("fft_r2c", rand((4,), torch.float32), (0,), 0.5, True), "normalization must be an int"),
    (("fft_c2r", rand((4,), C32), (0,), 0), "fft_c2r: expected 4 arguments, got 3"),
    (("stft", rand((1, 99), torch.float32), torch.ones(8), 8, 2, 0, True, 0, 3),
     "pad_mode must be a str"),
    (("convolution", rand((1, 1, 4), C32), rand((1, 1, 2), C32), 7, (1,), (0,), (1,), False,
      (0,), 1), "bias must be a Tensor"),
    ((b"fft_c2c",), "expected an op name first"),
])
def test_bad_arguments_name_the_op(args, match):
    with pytest.raises(TypeError, match=match):
        _C.call_below_autograd(*args)


def test_unknown_op():
    with pytest.raises(ValueError, match="no fast entry for op 'fft_foo'"):
        _C.call_below_autograd("fft_foo", rand((4,), C32))


def test_direct_only_when_nothing_can_ask_for_a_derivative():
    x = rand((8,), torch.complex64)
    assert direct(x)
    assert not direct(x.clone().requires_grad_())
    with torch.no_grad():
        assert direct(x.clone().requires_grad_())
    w = torch.ones(8, requires_grad=True)
    assert not direct(x, w) and not direct(x, None, w)
    assert not direct(torch.nn.Parameter(x))  # a subclass: __torch_function__ is consulted
    with torch.autograd.forward_ad.dual_level():
        assert not direct(x)
    seen = []

    def probe(t):
        seen.append(direct(t))
        return t
    torch.func.vmap(probe)(x.reshape(2, 4))
    assert seen == [False]


class Recorder(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def test_a_torch_function_mode_sees_the_ops():
    x = rand((4, 16), C32)
    with Recorder() as m:
        assert not direct(x)
        y = complexext.fft.fft(x)
    assert any("complexext.fft_c2c" in n for n in m.names), m.names
    assert same(y, complexext.fft.fft(x))


class Subclass(torch.Tensor):
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(str(func))
        return super().__torch_function__(func, types, args, kwargs or {})


def test_a_tensor_subclass_sees_the_ops():
    x = rand((2, 3, 20), torch.complex64)
    w = rand((4, 3, 5), torch.complex64)
    Subclass.calls.clear()
    y = CF.conv1d(x.as_subclass(Subclass), w)
    assert any("complexext.convolution" in n for n in Subclass.calls), Subclass.calls
    assert same(y.as_subclass(torch.Tensor), CF.conv1d(x, w))


class DispatchRecorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def test_dispatch_modes_still_see_the_fast_calls():
    """The fast entry goes through the dispatcher: Python dispatch modes
    (and fake tensors) see complexext's ops as they do from torch.ops."""
    x = rand((4, 16), torch.float32)
    with DispatchRecorder() as m:
        assert direct(x)
        complexext.fft.rfft(x)
        complexext.stft(x[0], 8, window=torch.ones(8), return_complex=True)
    assert any("complexext.fft_r2c" in n for n in m.names), m.names
    assert any("complexext.stft" in n for n in m.names), m.names
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode() as fm:
        fx = fm.from_tensor(rand((4, 16), C32))
        y = complexext.fft.ifft(fx, n=10)
    assert y.shape == (4, 10) and y.dtype == C32


def test_gradients_still_flow_after_fast_calls():
    x = rand((3, 16), torch.complex64)
    complexext.fft.fft(x)  # fast
    xr = x.clone().requires_grad_()
    complexext.fft.fft(xr).abs().sum().backward()
    assert xr.grad is not None and xr.grad.abs().sum() > 0
