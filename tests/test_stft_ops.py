"""The stft/istft primitives: torch.library.opcheck, fake kernels, vmap rules,
and torch.compile(fullgraph=True) through complexext.stft/istft. On each
device; the float64 cases skip on MPS (no float64)."""
import warnings

import pytest
import torch
import torch._dynamo.testing
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as nnf

import complexext
from complexext._ops import ops
from conftest import skip_float64, to_cpu, to_device
from support.refs import rand

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")


def strided(x, kind, device="cpu"):
    """x (on the CPU) on device in the given layout."""
    if kind == "transposed":
        return to_device(x.transpose(0, 1).contiguous(), device).transpose(0, 1)
    if kind == "step":
        big = torch.zeros(*[2 * s for s in x.shape], dtype=x.dtype)
        big[tuple(slice(None, None, 2) for _ in x.shape)] = x
        return to_device(big, device)[tuple(slice(None, None, 2) for _ in x.shape)]
    return to_device(x, device)


SAMPLES = [  # op, dtype, shape, args after the window, layout
    ("stft", torch.float16, (2, 40), (16, 4, 0, True), "contiguous"),
    ("stft", torch.float32, (3, 37), (10, 3, 1, True), "transposed"),
    ("stft", torch.float64, (2, 33), (9, 5, 0, False), "step"),
    ("stft", torch.complex32, (2, 40), (16, 4, 1, False), "contiguous"),
    ("stft", torch.complex128, (1, 20), (20, 1, 0, False), "step"),
    ("stft", torch.float16, (2, 40), (16, 4, 0, True, 8, "reflect"), "contiguous"),
    ("stft", torch.float32, (3, 37), (10, 3, 1, True, 5, "circular"), "transposed"),
    ("stft", torch.complex64, (2, 33), (9, 5, 0, False, 4, "replicate"), "step"),
    ("stft", torch.float64, (2, 30), (16, 4, 0, True, 8, "constant"), "contiguous"),
    ("istft", torch.complex32, (2, 9, 5), (16, 4, 2, True, 8, 16), "contiguous"),
    ("istft", torch.complex64, (3, 6, 7), (10, 3, 1, True, 0, 28), "transposed"),
    ("istft", torch.complex128, (2, 9, 4), (9, 5, 2, False, 2, 30), "step"),
    ("istft", torch.complex64, (2, 8, 3), (8, 8, 1, False, 0, 24), "contiguous"),
]


def sample_id(s):
    pad = f"-pad{s[3][4]}{s[3][5]}" if s[0] == "stft" and len(s[3]) > 4 else ""
    return f"{s[0]}-{str(s[1]).split('.')[1]}-{'x'.join(map(str, s[2]))}-{s[4]}{pad}"


def inputs(sample, seed=4, device="cpu"):
    op, dtype, shape, args, layout = sample
    x = strided(rand(shape, dtype, seed=seed), layout, device)
    w = torch.hann_window(args[0], dtype=torch.float64) + 0.5
    wdtype = torch.float64 if dtype in (torch.float64, torch.complex128) else torch.float32
    if device != "mps" and dtype in (torch.float16, torch.complex32):
        wdtype = torch.float64  # any real window dtype is taken; MPS has no float64
    return x, w.to(wdtype).to(device), args


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_opcheck(sample, grad, device):
    x, w, args = inputs(sample, device=device)
    x.requires_grad_(grad)
    w.requires_grad_(grad)
    tests = ("test_schema", "test_autograd_registration", "test_faketensor",
             "test_aot_dispatch_dynamic")  # torch's defaults
    if grad and sample[0] == "stft" and sample[1] in (torch.complex32, torch.float16):
        # test_aot_dispatch_dynamic sums the complex32 output, and torch has
        # no complex32 sum on CPU; the fake and autograd tests still run.
        tests = tests[:3]
    torch.library.opcheck(getattr(ops, sample[0]).default, (x, w, *args), test_utils=tests)


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_id)
def test_fake_matches_kernel(sample, device):
    x, w, args = inputs(sample, device=device)
    real = getattr(ops, sample[0])(x, w, *args)
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        fake = getattr(ops, sample[0])(mode.from_tensor(x), mode.from_tensor(w), *args)
    assert (fake.shape, fake.dtype, fake.stride()) == (real.shape, real.dtype, real.stride())
    assert fake.device == real.device and real.device.type == device


BAD = [  # op, input, window, args, message
    ("stft", rand((2, 8), torch.float32), torch.ones(16), (16, 4, 0, True), "shorter than"),
    ("stft", rand((8,), torch.float32), torch.ones(4), (4, 1, 0, True), "(batch, time)"),
    ("stft", rand((2, 8), torch.complex64), torch.ones(4), (4, 1, 0, True), "onesided needs"),
    ("stft", rand((2, 8), torch.float32), torch.ones(5), (4, 1, 0, True), "window of length"),
    ("stft", rand((2, 8), torch.float32), torch.ones(4), (4, 0, 0, True), "hop_length must"),
    ("stft", rand((2, 8), torch.float32), torch.ones(4), (4, 1, 0, True, -1, "reflect"),
     "pad must be >= 0"),
    ("stft", rand((2, 8), torch.float32), torch.ones(4), (4, 1, 0, True, 2, "edge"),
     "pad_mode must be one of reflect, constant, replicate, circular, got 'edge'"),
    ("stft", rand((2, 8), torch.float32), torch.ones(4), (4, 1, 0, True, 8, "reflect"),
     "reflect padding of 8 samples needs a signal longer than that, got 8"),
    ("stft", rand((2, 8), torch.float32), torch.ones(4), (4, 1, 0, True, 9, "circular"),
     "circular padding of 9 samples needs at least that many samples, got 8"),
    ("stft", rand((2, 0), torch.float32), torch.ones(4), (4, 1, 0, True, 2, "replicate"),
     "cannot replicate-pad an empty signal"),
    ("stft", rand((2, 3), torch.float32), torch.ones(16), (16, 1, 0, True, 2, "reflect"),
     "the signal \\(7 samples after padding\\) is shorter than n_fft = 16"),
    ("istft", rand((2, 5, 3), torch.complex64), torch.ones(8), (8, 2, 2, False, 0, 4),
     "expected 8 frequency bins"),
    ("istft", rand((2, 5, 3), torch.float32), torch.ones(8), (8, 2, 2, True, 0, 4),
     "complex \\(batch, freq, frames\\)"),
    ("istft", rand((2, 5, 3), torch.complex64), torch.ones(8), (8, 2, 0, True, 0, 4),
     "normalization must be 1 or 2"),
]


@pytest.mark.parametrize("op,x,w,args,msg", BAD, ids=[b[4] for b in BAD])
def test_ops_refuse_bad_arguments_like_their_fakes(op, x, w, args, msg, device):
    x, w = to_device(x, device), w.to(device)
    with pytest.raises(RuntimeError, match=f"{op}: .*{msg}"):
        getattr(ops, op)(x, w, *args)
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        with pytest.raises(RuntimeError, match=f"{op}: .*{msg}"):
            getattr(ops, op)(mode.from_tensor(x), mode.from_tensor(w), *args)


# (length, n_fft, hop, pad): frames clear of the padding in the middle, the
# fewest such (k head/tail frames, T = 2k + 1), none (the signal padded whole)
PADDED = [(1000, 64, 16, 32), (640, 512, 128, 256), (800, 400, 160, 200), (70, 64, 16, 32),
          (40, 64, 16, 32), (200, 16, 3, 8), (33, 64, 64, 32), (600, 300, 7, 150)]


@pytest.mark.parametrize("mode", ["reflect", "constant", "replicate", "circular"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64, torch.complex32,
                                   torch.complex64, torch.complex128])
@pytest.mark.parametrize("layout", ["contiguous", "step"])
def test_padding_read_in_place_equals_a_padded_signal(dtype, mode, layout, device):
    """The op's own padding (the padded signal never made) gives the stft of
    the signal padded by F.pad: bit for bit in float64 (rows independent of
    each other), to rounding elsewhere (the kernels may pair different rows).
    Frames at both ends reach into the padding; the signal is read strided
    too."""
    if device == "mps" and dtype in (torch.float64, torch.complex128):
        pytest.skip("MPS has no float64")
    wide = torch.complex128 if dtype.is_complex else torch.float64
    double = dtype in (torch.float64, torch.complex128)
    wdt = torch.float64 if double else torch.float32
    for i, (length, n_fft, hop, pad) in enumerate(PADDED):
        if mode == "reflect" and pad >= length:
            continue
        x = rand((3, length), dtype, seed=i)
        w = (torch.hann_window(n_fft, dtype=torch.float64) + 0.25).to(wdt).to(device)
        padded = nnf.pad(x.to(wide), [pad, pad], mode=mode).to(dtype)
        onesided = not dtype.is_complex
        got = ops.stft(strided(x, layout, device), w, n_fft, hop, 0, onesided, pad, mode)
        want = ops.stft(to_device(padded, device), w, n_fft, hop, 0, onesided)
        got, want = (torch.view_as_real(to_cpu(t).to(torch.complex128)) for t in (got, want))
        if double:
            assert torch.equal(got, want), (length, n_fft, hop, pad)
        else:
            eps = torch.finfo(torch.float16 if dtype in (torch.float16, torch.complex32)
                              else torch.float32).eps
            err = (got - want).abs().max() / want.abs().max()
            assert err <= 4 * eps, (length, n_fft, hop, pad, float(err))


@pytest.mark.parametrize("in_dims", [(0, None), (1, None), (-1, None), (None, 0), (2, 0)])
@pytest.mark.parametrize("sample", SAMPLES[1::2], ids=sample_id)
def test_vmap_rules(sample, in_dims, device):
    """vmap of each op (its registered rule) equals a loop over the batch."""
    x, w, args = inputs(sample, device=device)
    xd, wd = in_dims
    fn = lambda x, w: getattr(ops, sample[0])(x, w, *args)  # noqa: E731
    xs = [inputs(sample, seed=s, device=device)[0] for s in range(3)]
    ws = [w * (1 + s) for s in range(3)]
    xb = x if xd is None else torch.stack(xs, dim=xd)
    wb = w if wd is None else torch.stack(ws, dim=wd)
    got = torch.vmap(fn, in_dims=in_dims)(xb, wb)
    expect = torch.stack([fn(x if xd is None else xs[i], w if wd is None else ws[i])
                          for i in range(3)])
    real = lambda t: torch.view_as_real(to_cpu(t)) if t.is_complex() else t.cpu()  # noqa: E731
    assert torch.equal(real(got), real(expect))


@pytest.fixture
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def pipeline(x, w):
    spec = complexext.stft(x, 16, 4, window=w, return_complex=True)
    back = complexext.istft(spec * 2, 16, 4, window=w, length=x.shape[-1])
    return back.pow(2).sum() + spec.abs().sum()


def torch_pipeline(x, w):
    spec = torch.stft(x, 16, 4, window=w, return_complex=True)
    back = torch.istft(spec * 2, 16, 4, window=w, length=x.shape[-1])
    return back.pow(2).sum() + spec.abs().sum()


@pytest.mark.float64
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_compile_forward_and_backward(backend, fresh_dynamo, device):
    counter = torch._dynamo.testing.CompileCounterWithBackend(backend)
    x = rand((3, 40), torch.float64).requires_grad_()
    w = (torch.hann_window(16, dtype=torch.float64) + 0.1).requires_grad_()
    xd, wd = x.detach().to(device).requires_grad_(), w.detach().to(device).requires_grad_()
    out = torch.compile(pipeline, backend=counter, fullgraph=True)(xd, wd)
    grads = [g.cpu() for g in torch.autograd.grad(out, (xd, wd))]
    expect = torch_pipeline(x, w)
    torch.testing.assert_close(out.cpu(), expect)
    torch.testing.assert_close(grads, list(torch.autograd.grad(expect, (x, w))))
    assert counter.frame_count == 1


def test_compile_complex32_and_dual_tensors(fresh_dynamo, device):
    """float16 -> complex32 -> float16 compiled with its backward, and forward-mode
    dual tensors through a compiled function (float64: not on MPS)."""
    def half_pipe(x, w):
        y = complexext.istft(complexext.stft(x, 64, 16, window=w, return_complex=True),
                             64, 16, window=w, length=x.shape[-1])
        return y.float().pow(2).sum()
    x = rand((2, 256), torch.float16).to(device).requires_grad_()
    w = torch.hann_window(64).to(device)
    out = torch.compile(half_pipe, backend="aot_eager", fullgraph=True)(x, w)
    (grad,) = torch.autograd.grad(out, x)
    (expect,) = torch.autograd.grad(half_pipe(x, w), x)
    assert grad.dtype == torch.float16 and grad.device.type == device
    assert torch.equal(grad, expect)
    skip_float64(device)
    xd, t = rand((3, 40), torch.float64), rand((3, 40), torch.float64, seed=1)
    wd = torch.hann_window(16, dtype=torch.float64) + 0.1
    _, expect = torch.func.jvp(lambda x: torch_pipeline(x, wd), (xd,), (t,))
    cfn = torch.compile(pipeline, backend="aot_eager", fullgraph=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(xd.to(device), t.to(device))
        tangent = fwAD.unpack_dual(cfn(dual, wd.to(device))).tangent
    torch.testing.assert_close(tangent.cpu(), expect)


@pytest.mark.float64
def test_compile_dynamic_shapes(fresh_dynamo, device):
    ones = torch.ones(16, dtype=torch.float64)

    def fn(x):
        return complexext.istft(complexext.stft(x, 16, 4, return_complex=True), 16, 4)
    cfn = torch.compile(fn, fullgraph=True, backend="aot_eager", dynamic=True)
    for n in (40, 57, 80):
        x = rand((2, n), torch.float64, seed=n).requires_grad_()
        xd = x.detach().to(device).requires_grad_()
        expect = torch.istft(torch.stft(x, 16, 4, window=ones, return_complex=True), 16, 4,
                             window=ones)
        got = cfn(xd)
        assert got.device.type == device
        torch.testing.assert_close(got.cpu(), expect)
        torch.testing.assert_close(torch.autograd.grad(got.sum(), xd)[0].cpu(),
                                   torch.autograd.grad(expect.sum(), x)[0])


def test_plain_calls_skip_the_autograd_kernel(monkeypatch):
    """With nothing to differentiate, complexext.stft/istft call the op below
    autograd; with a gradient or a forward-AD level to serve they go through
    its autograd kernel (which looks for tangents with unpack_dual), and
    still differentiate."""
    seen = []
    unpack = fwAD.unpack_dual
    monkeypatch.setattr(fwAD, "unpack_dual", lambda t, *a, **k: seen.append(1) or unpack(t, *a, **k))

    def kernel_entered(fn):
        seen.clear()
        out = fn()
        return bool(seen), out

    x, w = rand((2, 400), torch.float32), torch.hann_window(64)
    spec = complexext.stft(x, 64, 16, window=w, return_complex=True)
    st = lambda x: complexext.stft(x, 64, 16, window=w, return_complex=True)  # noqa: E731
    ist = lambda s: complexext.istft(s, 64, 16, window=w, length=400)  # noqa: E731
    for fn, arg in ((st, x), (ist, spec)):
        assert not kernel_entered(lambda: fn(arg))[0]
        req = arg.clone().requires_grad_()
        with torch.no_grad():
            assert not kernel_entered(lambda: fn(req))[0]
        with torch.inference_mode():
            assert not kernel_entered(lambda: fn(arg))[0]
        entered, out = kernel_entered(lambda: fn(req))
        assert entered and out.grad_fn is not None
        with fwAD.dual_level():
            dual = fwAD.make_dual(arg, torch.ones_like(arg))
            entered, out = kernel_entered(lambda: fn(dual))
            assert entered and fwAD.unpack_dual(out).tangent is not None
