"""Loads complexext._C and checks that it matches the installed torch."""
import torch

_REBUILD = "rebuild it with: pip install --no-build-isolation -e ."

try:
    from .. import _C  # noqa: F401  (runs the op registrations)
except ImportError as e:  # missing, or built against another torch ABI
    raise ImportError(
        "complexext: the compiled extension complexext._C could not be loaded "
        f"({e}). It must be built against the installed torch {torch.__version__}; "
        + _REBUILD) from e

ops = torch.ops.complexext

try:
    _built = ops.built_with()
except (AttributeError, RuntimeError) as e:
    raise ImportError("complexext: complexext._C loaded but registered no ops; " + _REBUILD) from e

_built_torch = dict(kv.split("=", 1) for kv in _built.split())["torch"]
if _built_torch.split("+")[0] != torch.__version__.split("+")[0]:
    raise ImportError(
        f"complexext: complexext._C was built against torch {_built_torch} but torch "
        f"{torch.__version__} is installed; " + _REBUILD)

BUILT_WITH_CUDA = " cuda=1" in _built


def _silence_complexhalf_warning():
    """torch warns once a process, the first time any complex32 tensor is
    made, that "ComplexHalf support is experimental". Made inside an op
    called through torch.ops, that warning bypasses Python's warnings
    module (c10 prints it to stderr), so no filter could hold it back.
    complex32 is what this package is for, so on import it makes one empty
    complex32 tensor with the warning ignored: the once-a-process warning is
    spent there, and neither complexext nor the code using it prints it
    (docs/porting.md)."""
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")
        torch.empty(0, dtype=torch.complex32)


_silence_complexhalf_warning()
