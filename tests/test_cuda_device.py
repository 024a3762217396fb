"""CUDA only: streams, CUDA graphs, several GPUs, mixed devices, and the FFT
kernels' paths (non-power-of-two, Bluestein, multi-pass, strided input) in
every dtype against CPU float64 references and the CPU kernels' results.
Skipped with a reason where there is no CUDA device or complexext was built
without CUDA kernels.

Accuracy as in tests/test_fft_accuracy.py: complex32 within 1.15 times the
rounding floor (the error of the exact result rounded to complex32), complex64
within 10 times the same floor in fp32, complex128 below 1e-13; and the CUDA
result within 2.3 floors of the CPU kernels' (each is within 1.15 of exact)."""
import warnings

import pytest
import torch

import complexext
import complexext.fft as cf
import complexext.nn.functional as CF
from complexext._ops import BUILT_WITH_CUDA
from support.refs import (COMPLEX, FUNCS_1D, ALL_FUNCS, c2r_output, input_dtype, output_dtype, rand,
                   rel_rms, rounding_floor, scipy_ref)

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
    pytest.mark.skipif(not BUILT_WITH_CUDA, reason="complexext was built without CUDA kernels"),
]


def signal(name, shape, cdtype, seed=0):
    """CPU input whose transform has `shape` (half + 1 bins along the last dim for c2r)."""
    shape = list(shape)
    if c2r_output(name):
        shape[-1] = shape[-1] // 2 + 1
    return rand(shape, input_dtype(name, cdtype), seed=seed)


def check(name, y, ref, cdtype, cpu=None):
    """y (on CUDA) against the float64 reference, and against the CPU result cpu."""
    assert y.is_cuda and y.dtype == output_dtype(name, cdtype)
    err = rel_rms(y, ref)
    if cdtype == torch.complex128:
        assert err < 1e-13, f"{name}: complex128 relative error {err:.3e}"
        return
    floor = rounding_floor(ref, y.dtype)
    bound = 1.15 * floor if cdtype == torch.complex32 else 10 * floor
    assert err <= bound, f"{name} {cdtype}: error {err / floor:.3f} x the floor {floor:.3e}"
    if cpu is not None:
        apart = rel_rms(y, cpu.resolve_conj().cpu().to(torch.complex128 if cpu.is_complex()
                                                       else torch.float64).numpy())
        assert apart <= 2 * bound, f"{name}: CUDA and CPU results {apart / floor:.2f} floors apart"


def run(name, x, **kw):
    return getattr(cf, name)(x, **kw)


@pytest.mark.parametrize("cdtype", COMPLEX, ids=str)
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_every_function_and_dtype(name, cdtype):
    shape = (6, 40) if name in FUNCS_1D else (3, 12, 40)
    s = {"n": 40} if name in FUNCS_1D else {"s": shape[-2:] if name[-1] == "2" else shape}
    if not c2r_output(name):
        s = {}
    x = signal(name, shape, cdtype, seed=1)
    check(name, run(name, x.cuda(), **s), scipy_ref(name, x, **s), cdtype, run(name, x, **s))


# sizes for each path: small radix products, primes (Bluestein: in one
# register kernel up to 2048, 1009 on N = 2048; the block kernels above),
# large powers of two and large composites (two register passes: 65536,
# 2^20, 48000 = 200 x 240 and 98304 = 256 x 384 with kernels compiled at
# first use; the four-step of the block kernels: 3^10, 2^22), odd sizes in
# complex32
PATHS = [17, 97, 100, 243, 400, 1000, 1009, 4099, 10007, 48000, 65536, 65537, 98304, 3 ** 10,
         1 << 20, 1 << 22]


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("n", PATHS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_lengths(name, n, cdtype):
    x = signal(name, (max(1, (1 << 18) // n), n), cdtype, seed=n % 1000)
    kw = {"n": n, "norm": "ortho"} if c2r_output(name) else {"norm": "ortho"}
    check(name, run(name, x.cuda(), **kw), scipy_ref(name, x, **kw), cdtype, run(name, x, **kw))


# lengths outside the ahead-of-time table that have register kernels: the
# binding compiles them with NVRTC at first use (docs/cuda.md); rfft of 1440
# and 3840 runs on the kernels of 720 and 1920, that of 96 (48 a row: too
# few threads for the real kernels) on the block kernels
FIRST_USE = [96, 105, 243, 720, 1920, 1440, 3840]


@pytest.mark.parametrize("cdtype", [torch.complex32, torch.complex64], ids=str)
@pytest.mark.parametrize("n", FIRST_USE)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_lengths_compiled_at_first_use(name, n, cdtype, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPLEXEXT_CACHE_DIR", str(tmp_path))
    x = signal(name, (max(2, (1 << 16) // n), n), cdtype, seed=n % 1000)
    kw = {"n": n, "norm": "ortho"} if c2r_output(name) else {"norm": "ortho"}
    check(name, run(name, x.cuda(), **kw), scipy_ref(name, x, **kw), cdtype, run(name, x, **kw))
    got = torch.ops.complexext._cuda_rtc_kernels()
    built = {(got[i + 1], got[i + 2]) for i in range(0, len(got), 7) if got[i + 6]}
    failed = [got[i + 1] for i in range(0, len(got), 7) if not got[i + 6]]
    assert not failed, f"kernels that could not be compiled or loaded: lengths {failed}"
    ops = torch.ops.complexext
    real = name in ("rfft", "irfft")
    k = n // 2 if real else n
    plan = ops._gpu_reg_plan(k) if not real or n % 2 == 0 else []
    if plan and not ops._gpu_reg_ahead_of_time(k) and (not real or plan[1] >= 8):
        assert any(b[0] == k for b in built), f"no kernel of {k} compiled at first use"


def views(x):
    """Non-contiguous views of a CUDA tensor, each with a name."""
    yield "transposed", x.transpose(0, 2)
    yield "step", x[::2, :, ::3]
    yield "offset", x[1:, 2:, 1:]
    yield "expanded", x[:1].expand(4, -1, -1)
    if x.is_complex():
        yield "conj", x.conj()


@pytest.mark.parametrize("cdtype", COMPLEX, ids=str)
@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "ihfft2"])
def test_strided_inputs(name, cdtype):
    x = rand((4, 30, 26), input_dtype(name, cdtype), seed=2)
    for what, v in views(x.cuda()):
        host = v.cpu()
        check(name, run(name, v), scipy_ref(name, host, **(
            {"dim": (0, 1, 2)} if name == "fftn" else {})), cdtype, run(name, host))


def test_ops_run_on_the_current_stream():
    """On a side stream: a long sleep, then a write of the input, then the
    FFT, with no synchronisation in between. An op on another stream would
    read the input before the write lands; an op that synchronises the
    device would raise under the sync debug mode."""
    x_old, x_new = rand((8, 4096), torch.complex32, seed=3), rand((8, 4096), torch.complex32, 4)
    x = x_old.cuda()
    new = x_new.cuda()
    cf.fft(x)  # plan and tables made before timing matters
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time
        x.copy_(new)
        torch.cuda.set_sync_debug_mode("error")
        try:
            y = cf.fft(x)
            r = cf.rfft(x.real)
        finally:
            torch.cuda.set_sync_debug_mode(0)
    torch.cuda.current_stream().wait_stream(side)
    check("fft", y, scipy_ref("fft", x_new), torch.complex32)
    check("rfft", r, scipy_ref("rfft", x_new.real), torch.complex32)


def test_cuda_graph_capture_and_replay():
    """fft, rfft and stft of a static input captured in a CUDA graph; replayed
    on new data written into the same input."""
    x = rand((4, 4000), torch.complex32, seed=5).cuda()
    r = rand((4, 4000), torch.float16, seed=6).cuda()
    w = torch.hann_window(400, device="cuda")

    def work():
        return (cf.fft(x), cf.rfft(r), complexext.stft(r, 400, 160, window=w, return_complex=True))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up (plans, tables) outside the capture
        work()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = work()
    for seed in (7, 8):
        xn, rn = rand((4, 4000), torch.complex32, seed=seed), rand((4, 4000), torch.float16, seed)
        x.copy_(xn.cuda())
        r.copy_(rn.cuda())
        graph.replay()
        torch.cuda.synchronize()
        check("fft", outs[0], scipy_ref("fft", xn), torch.complex32)
        check("rfft", outs[1], scipy_ref("rfft", rn), torch.complex32)
        ref = torch.stft(rn.double(), 400, 160, window=w.double().cpu(), return_complex=True)
        assert rel_rms(outs[2], ref.numpy()) <= 1.15 * rounding_floor(ref.numpy(),
                                                                      torch.complex32)


needs_two = pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.device_count() < 2,
                               reason="needs two CUDA devices (cuda:1)")


@needs_two
def test_second_device():
    """A tensor on cuda:1 while cuda:0 is current, and the other way round
    inside torch.cuda.device(1): the op follows the tensor's device."""
    x = rand((4, 1000), torch.complex64, seed=9)
    ref = scipy_ref("fft", x)
    y = cf.fft(x.to("cuda:1"))
    assert y.device == torch.device("cuda:1")
    check("fft", y, ref, torch.complex64)
    with torch.cuda.device(1):
        z = cf.fft(x.to("cuda:0"))
        s = complexext.stft(x.real.contiguous().to("cuda:0"), 64, 16,
                            window=torch.hann_window(64, device="cuda:0"), return_complex=True)
    assert z.device == torch.device("cuda:0") and s.device == torch.device("cuda:0")
    check("fft", z, ref, torch.complex64)
    torch.testing.assert_close(s.cpu(), torch.stft(x.real, 64, 16, window=torch.hann_window(64),
                                                   return_complex=True), rtol=1e-5, atol=1e-5)


def test_mixed_devices_are_refused():
    x, w = rand((2, 4, 16), torch.complex64), rand((3, 4, 3), torch.complex64, seed=1)
    with pytest.raises(RuntimeError, match="^conv1d: .*same device, got cpu, cuda:0"):
        CF.conv1d(x, w.cuda())
    with pytest.raises(RuntimeError, match="^conv1d: .*same device, got cuda:0, cuda:0, cpu"):
        CF.conv1d(x.cuda(), w.cuda(), torch.zeros(3, dtype=torch.complex64))
    sig = rand((2, 1000), torch.float32)
    with pytest.raises(ValueError, match="^stft: the window is on cuda:0, the input on cpu"):
        complexext.stft(sig, 64, window=torch.hann_window(64, device="cuda"), return_complex=True)
    with pytest.raises(ValueError, match="^istft: the window is on cpu, the input on cuda:0"):
        complexext.istft(torch.stft(sig, 64, window=torch.hann_window(64), return_complex=True)
                         .cuda(), 64, window=torch.hann_window(64))


@pytest.mark.parametrize("cdtype", COMPLEX, ids=str)
def test_convolution_and_stft_against_cpu(cdtype):
    """Convolution and STFT/ISTFT on CUDA against complex128 on the CPU."""
    x = rand((2, 8, 30, 17), cdtype, seed=10)
    w = (rand((6, 8, 3, 3), torch.complex128, seed=11) / 5).to(cdtype)
    ref = torch.nn.functional.conv2d(x.to(torch.complex128), w.to(torch.complex128), padding=1)
    # complex64 runs as float32 convolutions, which use TF32 where torch's
    # own would (torch.backends.cudnn.allow_tf32, on by default): checked at
    # fp32 accuracy with TF32 off
    tf32 = torch.backends.cudnn.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
    try:
        y = CF.conv2d(x.cuda(), w.cuda(), padding=1)
    finally:
        torch.backends.cudnn.allow_tf32 = tf32
    assert y.is_cuda and y.dtype == cdtype
    floor = rounding_floor(ref.numpy(), cdtype)
    bounds = {torch.complex32: 1.15 * floor, torch.complex64: 10 * floor, torch.complex128: 1e-13}
    assert rel_rms(y, ref.numpy()) <= bounds[cdtype]
    sig = rand((2, 8000), input_dtype("rfft", cdtype), seed=12)
    win = torch.hann_window(512, dtype=torch.float64)
    wdtype = torch.float64 if cdtype == torch.complex128 else torch.float32
    spec = complexext.stft(sig.cuda(), 512, 128, window=win.to(wdtype).cuda(),
                           return_complex=True)
    assert spec.dtype == cdtype
    sref = torch.stft(sig.double(), 512, 128, window=win, return_complex=True).numpy()
    floor = rounding_floor(sref, cdtype)
    bound = {torch.complex32: 1.15 * floor, torch.complex64: 10 * floor,
             torch.complex128: 1e-13}[cdtype]
    assert spec.is_cuda and rel_rms(spec, sref) <= bound
