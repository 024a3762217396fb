"""Controls of complexext's kernels, shaped like torch.backends.

``complexext.backends.plan_cache`` mirrors
``torch.backends.cuda.cufft_plan_cache``: the FFT plans (factorisation,
twiddles, Bluestein chirps) are cached per (length, compute precision,
kind) on the host and, for CUDA, per device as well (the tables uploaded
to it), bounded in number with least-recently-used eviction, and shared
safely by threads.

``complexext.backends.output_cache`` keeps CPU output memory of >= 1 MiB
freed by earlier results (up to ``max_size`` bytes, 64 MiB by default), so
that a repeated call reuses pages instead of faulting in fresh ones (one
page fault per 4 KiB otherwise, which for a few-MiB output costs about as
much as the transform).
"""
from ._ops import ops

__all__ = ["plan_cache", "output_cache"]


def _bound(name, value):
    """value, checked as a cache bound: an int >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return value


class _BoundedCache:
    """A cache behind the ops ``<prefix>_size``, ``<prefix>_max_size``,
    ``<prefix>_set_max_size`` and ``<prefix>_clear``: ``size`` (read-only),
    ``max_size`` (settable, an int >= 0), ``clear()``."""

    _prefix = ""  # set by each subclass

    @property
    def size(self):
        return getattr(ops, f"{self._prefix}_size")()

    @property
    def max_size(self):
        return getattr(ops, f"{self._prefix}_max_size")()

    @max_size.setter
    def max_size(self, value):
        getattr(ops, f"{self._prefix}_set_max_size")(_bound(f"{self._prefix}.max_size", value))

    def clear(self):
        getattr(ops, f"{self._prefix}_clear")()

    def __repr__(self):
        return f"{type(self).__name__}(size={self.size}, max_size={self.max_size})"


class PlanCache(_BoundedCache):
    """The FFT plan cache. ``size``: how many plans are cached now;
    ``max_size``: the most plans kept, the least recently used one going
    first; ``clear()`` drops every cached plan."""

    _prefix = "plan_cache"


plan_cache = PlanCache()


class OutputCache(_BoundedCache):
    """Freed CPU output memory kept for reuse. ``size``: bytes of freed
    output memory held now; ``max_size``: the most bytes kept, the least
    recently freed block going first (0 keeps nothing: every output is
    fresh memory); ``clear()`` gives every held block back to the operating
    system."""

    _prefix = "output_cache"


output_cache = OutputCache()
