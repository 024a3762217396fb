"""Bad input gets a clear error that starts with the function's name; the
opt-in overflow check. On each device (inputs made on the CPU and moved)."""
import pytest
import torch

import complexext
import complexext.fft as cf
from conftest import to_cpu, to_device
from support.refs import ALL_FUNCS, FUNCS_1D, c2r_output, rand, real_input


def call(name, x, **kw):
    return getattr(cf, name)(x, **kw)


def good_input(name, shape=(4, 6), device="cpu"):
    return to_device(rand(shape, torch.float32 if real_input(name) else torch.complex64), device)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8, torch.bool,
                                   torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_bad_dtype(name, dtype, device):
    x = torch.ones(4, 6, dtype=dtype, device=device)
    with pytest.raises(TypeError, match=f"^{name}: expected a .*{dtype}"):
        call(name, x)


@pytest.mark.parametrize("name", [f for f in ALL_FUNCS if real_input(f)])
def test_complex_input_to_real_only(name, device):
    with pytest.raises(TypeError, match=f"^{name}: expected a real input tensor"):
        call(name, to_device(rand((4, 6), torch.complex64), device))


def test_not_a_tensor():
    with pytest.raises(TypeError, match="^fft: expected a tensor, got list"):
        cf.fft([1.0, 2.0])


@pytest.mark.parametrize("n", [0, -1, -8])
@pytest.mark.parametrize("name", FUNCS_1D)
def test_n_below_one(name, n, device):
    with pytest.raises(ValueError, match=f"^{name}: n must be >= 1, got {n}"):
        call(name, good_input(name, device=device), n=n)


@pytest.mark.parametrize("name", [f for f in ALL_FUNCS if f not in FUNCS_1D])
def test_s_below_one(name, device):
    with pytest.raises(ValueError, match=fr"^{name}: s\[1\] must be >= 1, got 0"):
        call(name, good_input(name, device=device), s=(3, 0))


@pytest.mark.parametrize("name", [f for f in ALL_FUNCS if f not in FUNCS_1D])
def test_s_dim_length_mismatch(name, device):
    with pytest.raises(ValueError, match=f"^{name}: s and dim must have the same length"):
        call(name, good_input(name, device=device), s=(3, 4), dim=(0,))
    too_long = (f"^{name}: s and dim must have the same length, got 3 and 2" if
                name.endswith("2") else f"^{name}: s has 3 values but the input has only 2")
    with pytest.raises(ValueError, match=too_long):
        call(name, good_input(name, device=device), s=(3, 4, 5))


@pytest.mark.parametrize("name", [f for f in ALL_FUNCS if f not in FUNCS_1D])
def test_repeated_dims(name, device):
    for dim in [(0, 0), (1, -1), (-2, 0)]:
        with pytest.raises(ValueError, match=f"^{name}: dims must be unique"):
            call(name, good_input(name, device=device), dim=dim)


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_dim_out_of_range(name, device):
    bad = [2, -3] if name in FUNCS_1D else [(0, 2), (-3, 1)]
    for dim in bad:
        with pytest.raises(IndexError, match=f"^{name}: dim -?[23] out of range for a 2-d"):
            call(name, good_input(name, device=device), dim=dim)
    if name.endswith("2"):  # the default dims (-2, -1) on a 1-d tensor
        with pytest.raises(IndexError, match=f"^{name}: dim -2 out of range for a 1-d"):
            call(name, good_input(name, (6,), device=device))
    if name in FUNCS_1D:
        with pytest.raises(IndexError, match=f"^{name}: dim -1 out of range for a 0-d"):
            call(name, good_input(name, (), device=device))
        with pytest.raises(TypeError, match=f"^{name}: dim must be an int, got tuple"):
            call(name, good_input(name, device=device), dim=(0,))


@pytest.mark.parametrize("name", [f for f in ALL_FUNCS if c2r_output(f)])
def test_c2r_output_length_below_one(name, device):
    x = good_input(name, (4, 1), device=device)  # default length 2 * (1 - 1) = 0
    with pytest.raises(ValueError, match=f"^{name}: output length must be >= 1, got 2"):
        call(name, x)
    call(name, x, **({"n": 1} if name in FUNCS_1D else {"s": (4, 1)}))  # given: fine


@pytest.mark.parametrize("name", [f for f in ALL_FUNCS if f not in FUNCS_1D])
def test_no_dims(name, device):
    x = good_input(name, device=device)
    if name.startswith(("fft", "ifft")):
        call(name, x, dim=())  # like torch: the input, as complex
        return
    with pytest.raises(ValueError, match=f"^{name}: must transform at least one dim"):
        call(name, x, dim=())


@pytest.mark.parametrize("norm", ["Ortho", "none", "", 1])
@pytest.mark.parametrize("name", ALL_FUNCS)
def test_unknown_norm(name, norm, device):
    with pytest.raises(ValueError, match=f"^{name}: norm must be None, 'backward', 'ortho'"):
        call(name, good_input(name, device=device), norm=norm)


@pytest.mark.parametrize("name", ALL_FUNCS)
def test_empty_signal(name, device):
    """A transformed dim of size 0 with no n/s: torch refuses too."""
    with pytest.raises(ValueError, match=f"^{name}: "):
        call(name, good_input(name, (4, 0), device=device))


# --- overflow -----------------------------------------------------------------

def big(name, device, n=4096):
    """Input whose unnormalised transform overflows fp16 (|X[0]| = 40 n)."""
    x = torch.full((2, n), 40.0, dtype=torch.float16)
    return to_device(x if real_input(name) else x.to(torch.complex32), device)


@pytest.mark.parametrize("name", ["fft", "rfft", "hfft", "fft2", "rfftn", "hfftn"])
def test_overflow_gives_inf_by_default(name, device):
    assert not complexext.is_overflow_check_enabled()
    y = to_cpu(call(name, big(name, device)))
    assert torch.isinf(torch.view_as_real(y) if y.is_complex() else y).any()


@pytest.mark.parametrize("name", ["fft", "rfft", "hfft", "fft2", "rfftn", "hfftn",
                                  "ifft", "irfft", "ihfft"])
def test_overflow_check_raises(name, device):
    inverse = name in ("ifft", "irfft", "ihfft")
    kw = {"norm": "forward"} if inverse else {}  # inverse with norm="forward": unscaled
    with complexext.overflow_check():
        with pytest.raises(OverflowError, match=f"^{name}: the (complex32|float16) result "
                                                "overflowed"):
            call(name, big(name, device), **kw)
        call(name, big(name, device), norm="ortho" if not inverse else "backward")  # no overflow
        nan_in = big(name, device).clone()
        nan_in[0, 0] = float("nan")
        call(name, nan_in, **kw)  # non-finite input: non-finite output is no overflow
        call(name, big(name, device).to(torch.float32 if real_input(name) else torch.complex64), **kw)
    assert not complexext.is_overflow_check_enabled()


def test_set_overflow_check(device):
    complexext.set_overflow_check(True)
    try:
        assert complexext.is_overflow_check_enabled()
        with pytest.raises(OverflowError, match="^fft: "):
            cf.fft(big("fft", device))
        with complexext.overflow_check(False):
            assert torch.isinf(torch.view_as_real(to_cpu(cf.fft(big("fft", device))))).any()
        assert complexext.is_overflow_check_enabled()
    finally:
        complexext.set_overflow_check(False)
