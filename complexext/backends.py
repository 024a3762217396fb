"""Controls of complexext's kernels, shaped like torch.backends.

``complexext.backends.plan_cache`` mirrors
``torch.backends.cuda.cufft_plan_cache``: the FFT plans (factorisation,
twiddles, Bluestein chirps) are cached per (length, dtype, device), bounded
in number with least-recently-used eviction, and shared safely by threads.

``complexext.backends.output_cache`` keeps CPU output memory of >= 1 MiB
freed by earlier results (up to ``max_size`` bytes, 64 MiB by default), so
that a repeated call reuses pages instead of faulting in fresh ones (one
page fault per 4 KiB otherwise, which for a few-MiB output costs about as
much as the transform).
"""
from ._load import ops

__all__ = ["plan_cache", "output_cache"]


def _bound(name, value):
    """value, checked as a cache bound: an int >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return value


class PlanCache:
    """The FFT plan cache: ``size`` (read-only), ``max_size``, ``clear()``."""

    @property
    def size(self):
        """How many plans are cached now."""
        return ops.plan_cache_size()

    @property
    def max_size(self):
        """The most plans kept; the least recently used one goes first."""
        return ops.plan_cache_max_size()

    @max_size.setter
    def max_size(self, value):
        ops.plan_cache_set_max_size(_bound("plan_cache.max_size", value))

    def clear(self):
        """Drops every cached plan."""
        ops.plan_cache_clear()

    def __repr__(self):
        return f"PlanCache(size={self.size}, max_size={self.max_size})"


plan_cache = PlanCache()


class OutputCache:
    """Freed CPU output memory kept for reuse: ``size`` (bytes held now,
    read-only), ``max_size`` (bytes), ``clear()``."""

    @property
    def size(self):
        """Bytes of freed output memory held now."""
        return ops.output_cache_size()

    @property
    def max_size(self):
        """The most bytes kept; the least recently freed block goes first.
        0 keeps nothing (every output is fresh memory)."""
        return ops.output_cache_max_size()

    @max_size.setter
    def max_size(self, value):
        ops.output_cache_set_max_size(_bound("output_cache.max_size", value))

    def clear(self):
        """Gives every held block back to the operating system."""
        ops.output_cache_clear()

    def __repr__(self):
        return f"OutputCache(size={self.size}, max_size={self.max_size})"


output_cache = OutputCache()
