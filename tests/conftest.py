"""Shared pytest setup: the --runslow option and the device list."""
import pytest
import torch

import complexext  # noqa: F401  (registers the ops)
from complexext._load import BUILT_WITH_CUDA


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
