"""complexext.fft against torch.fft in complex128: n/s, dims, norms, layouts,
empty batches, NaN/Inf, the dtype table, out=, inputs left unmodified.

On each device; torch.fft runs on the CPU copy of the input. On MPS (no
float64) the comparisons run in complex64/float32 with single-precision
tolerances, and the float64 rows of the dtype table are skipped."""
import pytest
import torch

import complexext.fft as cf
from conftest import to_cpu, to_device, widest
from support.refs import ALL_FUNCS, FUNCS_1D, REAL_OF, c2r_output, rand, real_input

CASES_1D = [{}, {"n": 3}, {"n": 13}, {"n": 1}, {"dim": 0}, {"dim": -2, "n": 6},
            {"dim": 1, "n": 2}]
CASES_2D = [{}, {"s": (3, 13)}, {"s": (7, 2)}, {"dim": (0, -1)}, {"dim": (-1, 0)},
            {"s": (-1, 7)}, {"s": (4, -1), "dim": (-1, 0)}, {"s": (1, 1)}]
CASES_ND = CASES_2D + [{"s": (5,)}, {"dim": (1,)}, {"s": (2, 3, 9)}, {"dim": (2, 0, 1)},
                       {"s": (9, 4), "dim": (2, 0)}]
NORMS = [None, "backward", "ortho", "forward"]


def wide_input(name, shape=(5, 8, 6), seed=0, device="cpu"):
    """On the CPU, in the most precise dtype that device has."""
    return rand(shape, widest(device, not real_input(name)), seed=seed)


def cases(name):
    return CASES_1D if name in FUNCS_1D else CASES_2D if name.endswith("2") else CASES_ND


def assert_same(a, b, device="cpu"):
    """a (ours, on device) equals b (torch's, on the CPU) to the precision of b."""
    assert a.device.type == device
    a = to_cpu(a)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    tol = 1e-12 if b.dtype in (torch.float64, torch.complex128) else 2e-5
    torch.testing.assert_close(a.resolve_conj(), b.resolve_conj(), rtol=tol, atol=tol)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_args_like_torch(name, norm, device):
    x = wide_input(name, device=device)
    xd = to_device(x, device)
    for kw in cases(name):
        assert_same(getattr(cf, name)(xd, norm=norm, **kw),
                    getattr(torch.fft, name)(x, norm=norm, **kw), device)


def layouts(x):
    """Views of x with unusual strides, each with a name."""
    yield "transposed", x.transpose(0, 2)
    yield "sliced with step", x[::2, :, ::3]
    yield "sliced with offset", x[1:, 2:, 1:]
    yield "expanded", x[:1].expand(4, -1, -1)
    yield "permuted", x.permute(1, 2, 0)
    yield "flipped", x.flip(-1)
    if x.is_complex():
        yield "conj view", x.conj()
        yield "neg view", x._neg_view()


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_strides_like_torch(name, device):
    x = wide_input(name, (4, 9, 6), device=device)
    for (what, v), (_, vc) in zip(layouts(to_device(x, device)), layouts(x)):
        a = getattr(cf, name)(v)
        b = getattr(torch.fft, name)(vc)
        assert_same(a, b, device)
        assert a.is_contiguous(), what


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_input_not_modified(name, device):
    for dtype in (torch.complex32, widest(device)):
        x = to_device(rand((3, 7, 10), dtype if not real_input(name) else
                           torch.float16 if dtype == torch.complex32 else dtype.to_real()),
                      device)
        keep = x.clone()
        for kw in ({}, {"norm": "ortho"}) if name in FUNCS_1D else ({}, {"s": (4, 12)}):
            getattr(cf, name)(x, **kw)
            getattr(cf, name)(x.transpose(0, 2), **kw)
        assert torch.equal(torch.view_as_real(x) if x.is_complex() else x,
                           torch.view_as_real(keep) if keep.is_complex() else keep)


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_empty_batch(name, device):
    """Shapes and dtypes as torch's meta kernels give (torch's MKL path fails here)."""
    shapes = [((0, 4, 6), (1, 2)), ((3, 0, 6), (0, 2))]
    shapes += [] if name.endswith("2") else [((0, 5), (1,))]
    for shape, dims in shapes:
        kw = {"dim": -1} if name in FUNCS_1D else {"dim": dims}
        x = wide_input(name, shape, device=device)
        got = getattr(cf, name)(to_device(x, device), **kw)
        expect = getattr(torch.fft, name)(x.to("meta"), **kw)
        assert got.numel() == 0 and got.shape == expect.shape and got.dtype == expect.dtype
        assert got.device.type == device


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_nan_inf_propagate(name, dtype, device):
    real = {torch.complex32: torch.float16, torch.complex64: torch.float32,
            torch.complex128: torch.float64}[dtype]
    x = rand((4, 6, 8), real if real_input(name) else dtype)
    x[1, 2, 3] = float("nan")
    x[2, 4, 5] = float("inf")
    x = to_device(x, device)
    y = getattr(cf, name)(x, dim=(-2, -1)) if name not in FUNCS_1D else getattr(cf, name)(x)
    finite = torch.isfinite(to_cpu(y))
    assert not finite[1].any() if name not in FUNCS_1D else not finite[1, 2].any()
    assert not finite[2].any() if name not in FUNCS_1D else not finite[2, 4].any()
    assert finite[0].all() and finite[3].all()


DTYPE_TABLE = {  # input dtype -> (output of c2c/r2c-type functions, of c2r-type ones)
    torch.float16: (torch.complex32, torch.float16),
    torch.complex32: (torch.complex32, torch.float16),
    torch.float32: (torch.complex64, torch.float32),
    torch.complex64: (torch.complex64, torch.float32),
    torch.float64: (torch.complex128, torch.float64),
    torch.complex128: (torch.complex128, torch.float64),
}


@pytest.mark.parametrize("name,dtype", [  # rfft*/ihfft* take real input only
    (f, d) for f in ALL_FUNCS for d in DTYPE_TABLE if not (real_input(f) and d.is_complex)],
    ids=str)
def test_dtype_table(name, dtype, device):
    x = to_device(rand((4, 6), dtype), device)
    y = getattr(cf, name)(x)
    assert y.dtype == DTYPE_TABLE[dtype][1 if c2r_output(name) else 0]
    assert y.device.type == device
    if dtype in (torch.float16, torch.complex32):  # same values as the float32 path
        wide = getattr(cf, name)(x.to(torch.complex64 if dtype.is_complex else torch.float32))
        torch.testing.assert_close(to_cpu(y).to(wide.dtype), to_cpu(wide).resolve_conj(),
                                   rtol=2e-3, atol=2e-3)


def test_real_input_to_complex_functions(device):
    """fft/ifft/fftn of real input equal those of the same input made complex."""
    x = rand((5, 6, 7), widest(device, False))
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "irfft", "hfft", "hfftn"):
        assert_same(getattr(cf, name)(to_device(x, device)), getattr(torch.fft, name)(x), device)


def test_fftn_no_dims_and_scalars(device):
    x = rand((3, 4), widest(device))
    xd = to_device(x, device)
    assert_same(cf.fftn(xd, dim=()), torch.fft.fftn(x, dim=()), device)
    assert_same(cf.ifftn(xd.real, dim=()), torch.fft.ifftn(x.real, dim=()), device)
    s = torch.tensor(2.5 + 1j, dtype=widest(device))
    assert_same(cf.fftn(to_device(s, device)), torch.fft.fftn(s), device)


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_out(name, device):
    x = to_device(wide_input(name, device=device), device)
    expect = getattr(cf, name)(x)
    for out in (torch.empty(0, dtype=expect.dtype, device=device),
                torch.empty_like(expect),
                torch.empty(expect.shape[::-1], dtype=expect.dtype, device=device).permute(2, 1, 0)):
        got = getattr(cf, name)(x, out=out)
        assert got is out
        assert_same(out, to_cpu(expect), device)
    wrong = torch.empty(0, dtype=torch.float32 if expect.is_complex() else torch.complex64,
                        device=device)
    with pytest.raises(TypeError, match=f"^{name}: out must be"):
        getattr(cf, name)(x, out=wrong)
    with pytest.raises(RuntimeError, match=f"^{name}: .*automatic differentiation"):
        getattr(cf, name)(x.clone().requires_grad_(), out=torch.empty_like(expect))
    other = "meta" if device == "cpu" else "cpu"  # out= on another device: refused
    with pytest.raises(RuntimeError, match=f"^{name}: out must be on the input's device"):
        getattr(cf, name)(x, out=torch.empty(0, dtype=expect.dtype, device=other))


def _bits(t):
    """t's bytes, to compare complex32 results exactly (torch.equal has no complex32)."""
    return t.contiguous().view(torch.uint8) if t.dtype != torch.complex32 else t.view(torch.int32)


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_out_written_directly_on_cpu(name, dtype, monkeypatch):
    """On the CPU a contiguous out of the result's shape and dtype is written by
    the kernel itself (the op's out= form, fft_*_out; no result to copy over), with
    the same bits as the allocating call; inverse-of-real functions (ihfft*:
    a conjugate of an r2c, and ifft* of real input) still compute and copy."""
    from complexext._frontend import fft as frontend
    real = real_input(name)
    x = rand((3, 10, 16), REAL_OF[dtype] if real else dtype, seed=1)
    expect = getattr(cf, name)(x)
    copies = []
    finish = frontend._finish
    monkeypatch.setattr(frontend, "_finish", lambda *a: copies.append(a[0]) or finish(*a))
    out = torch.full_like(expect, float("nan"))
    assert getattr(cf, name)(x, out=out) is out
    assert torch.equal(_bits(out), _bits(expect))
    assert copies == ([name] if name.startswith("ihfft") else [])
    # out aliasing the input, or strided: computed, then copied (torch's semantics)
    copies.clear()
    y = x.clone()
    if y.dtype == expect.dtype and y.shape == expect.shape:
        assert getattr(cf, name)(y, out=y) is y
        assert torch.equal(_bits(y), _bits(expect)) and copies == [name]


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_out_bumps_version_as_torch_does(name):
    """Writing out= is an in-place write: out's version counter moves (on the
    kernel's direct path and on compute-then-copy alike), so a backward that
    saved out before it was overwritten raises, as with torch.fft, instead
    of using the new values."""
    real = real_input(name)
    x = rand((3, 16), torch.float32 if real else torch.complex64, seed=3)
    expect = getattr(torch.fft, name)(x)
    for out in (torch.empty_like(expect),  # written by the kernel (CPU)
                torch.empty(expect.shape[::-1], dtype=expect.dtype).t()):  # copied
        for fft in (getattr(torch.fft, name), getattr(cf, name)):
            out.copy_(expect)
            a = torch.ones(expect.shape, dtype=expect.dtype, requires_grad=True)
            loss = (a * out).sum().abs()  # saves out for a's gradient
            v = out._version
            assert fft(x * 2, out=out) is out
            assert out._version > v
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                loss.backward()
    # the op itself, called through torch.ops, bumps it too
    if not real:
        out = torch.empty_like(x)
        v = out._version
        torch.ops.complexext.fft_c2c_out(x, [1], 0, True, out=out)
        assert out._version == v + 1


def test_out_inference_tensor_as_torch_does():
    """An inference tensor as out: written inside inference mode, refused
    outside it with torch's own error (as torch.fft does)."""
    x = rand((3, 16), torch.complex64, seed=4)
    with torch.inference_mode():
        out = torch.empty(3, 16, dtype=torch.complex64)
    for fft in (torch.fft.fft, cf.fft):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
            fft(x, out=out)
    with torch.inference_mode():
        assert cf.fft(x, out=out) is out
    assert torch.equal(out, cf.fft(x))


@pytest.mark.parametrize("op, args, shape, dtype", [
    ("fft_c2c", ([1], 0, True), (4, 8), torch.complex32),
    ("fft_r2c", ([1], 0, True), (4, 5), torch.complex32),
    ("fft_c2r", ([1], 2, 8), (4, 8), torch.float16)])
def test_out_overloads_refuse_bad_outputs(op, args, shape, dtype):
    """The out= forms (fft_*_out) take only what they can write directly, and say so."""
    x = rand((4, 8), torch.float16 if op == "fft_r2c" else torch.complex32, seed=2)
    f = getattr(torch.ops.complexext, op + "_out")
    good = torch.empty(shape, dtype=dtype)
    assert f(x, *args, out=good) is good
    bad = [(torch.empty(1, dtype=dtype), "out must have shape"),
           (torch.empty(shape, dtype=torch.complex64 if dtype.is_complex else torch.float32),
            "out must be"),
           (torch.empty(shape[::-1], dtype=dtype).t(), "out must be contiguous")]
    if op == "fft_c2c":
        bad.append((x, "out must not share memory with the input"))
    for out, msg in bad:
        with pytest.raises(RuntimeError, match=f"^{op}_out: {msg}"):  # the op's name
            f(x, *args, out=out)
    # fake tensors: the overload returns out, checked the same way
    with torch._subclasses.FakeTensorMode():
        xf, of = torch.empty(x.shape, dtype=x.dtype), torch.empty(shape, dtype=dtype)
        assert f(xf, *args, out=of) is of


def test_public_names_match_torch():
    import inspect
    for name in ALL_FUNCS:
        ours = inspect.signature(getattr(cf, name))
        theirs = inspect.signature(getattr(torch.fft, name)) if inspect.isfunction(
            getattr(torch.fft, name)) else None
        assert list(ours.parameters)[:4] == ["input", "n" if name in FUNCS_1D else "s",
                                             "dim", "norm"]
        assert ours.parameters["out"].kind is inspect.Parameter.KEYWORD_ONLY
        assert theirs is None or list(theirs.parameters) == list(ours.parameters)
        assert getattr(cf, name).__doc__ and "overflow" in getattr(cf, name).__doc__.lower()
