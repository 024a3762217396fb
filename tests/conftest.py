"""Shared pytest setup: the --runslow option, the device list and the
hypothesis profiles."""
import os

import pytest
import torch
from hypothesis import HealthCheck, settings

import complexext  # noqa: F401  (registers the ops)
from complexext._ops import BUILT_WITH_CUDA


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run the tests marked slow (long sweeps)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _device_params():
    """cpu always; cuda and mps marked, and skipped with a reason when absent."""
    cuda_reason = ("no CUDA device" if not torch.cuda.is_available() else
                   "complexext was built without CUDA kernels")
    mps = getattr(torch.backends, "mps", None)
    return [
        pytest.param("cpu", id="cpu"),
        pytest.param("cuda", id="cuda", marks=[
            pytest.mark.cuda,
            pytest.mark.skipif(not (torch.cuda.is_available() and BUILT_WITH_CUDA),
                               reason=cuda_reason)]),
        pytest.param("mps", id="mps", marks=[
            pytest.mark.mps,
            pytest.mark.skipif(not (mps is not None and mps.is_available()),
                               reason="no Apple GPU (MPS) device")]),
    ]


DEVICES = _device_params()


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


# --- device helpers -------------------------------------------------------------
# MPS has no float64: a case on "mps" with a float64/complex128 parameter (also
# inside a tuple parameter), or marked float64, is skipped with that reason.

NO_FLOAT64 = "MPS has no float64"
DOUBLE = (torch.float64, torch.complex128)


def pytest_configure(config):
    config.addinivalue_line("markers", "float64: computes in float64/complex128 on the "
                                       "device (skipped on MPS: MPS has no float64)")


def _dtypes(value):
    if isinstance(value, torch.dtype):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            if isinstance(v, torch.dtype):
                yield v


def pytest_runtest_setup(item):
    spec = getattr(item, "callspec", None)
    if spec is None or spec.params.get("device") != "mps":
        return
    if item.get_closest_marker("float64") or any(
            d in DOUBLE for v in spec.params.values() for d in _dtypes(v)):
        pytest.skip(NO_FLOAT64)


def skip_float64(device, *dtypes):
    """Skips an MPS case that needs float64/complex128 (dtypes: those it uses)."""
    if device == "mps" and (not dtypes or any(d in DOUBLE for d in dtypes)):
        pytest.skip(NO_FLOAT64)


def widest(device, complex_=True):
    """The most precise dtype the device has: complex128/float64, or
    complex64/float32 on MPS."""
    if device == "mps":
        return torch.complex64 if complex_ else torch.float32
    return torch.complex128 if complex_ else torch.float64


def to_device(t, device):
    """t on device (on MPS complex tensors go through their real view, the way
    MPS copies complex32 whatever its own complex support). Keeps the conj bit."""
    if device == "mps" and t.is_complex():
        if t.is_conj():
            return to_device(t.conj(), device).conj()
        return torch.view_as_complex(torch.view_as_real(t).to(device))
    return t.to(device)


def to_cpu(t):
    """t on the CPU (complex MPS tensors through their real view)."""
    if t.device.type == "mps" and t.is_complex():
        return torch.view_as_complex(torch.view_as_real(t.resolve_conj()).cpu())
    return t.cpu()


# hypothesis profiles (tests/test_ops_properties.py, docs/testing.md): "ci", the
# default, runs 100 examples per test, derandomized (a fixed set, the same on
# every run, nothing stored); "dev" runs 1,000 per test, freshly random, and
# keeps failing examples in .hypothesis/ to replay them first next time.
# Choose with COMPLEXEXT_HYPOTHESIS_PROFILE=dev.
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True,
                          database=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("COMPLEXEXT_HYPOTHESIS_PROFILE", "ci"))
