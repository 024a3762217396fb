"""Launching the Metal kernels of csrc/metal: plan tables on the device,
the int64 argument lists (layout in csrc/metal/meta.h), grid and
threadgroup sizes.

Tensors are bound as the kernels read them: a complex tensor as its real
view (re, im pairs, fp16 or fp32), strides in elements of the row's kind
(complex or real). A set of rows is a list of batch dims (size, in_stride,
out_stride), outermost first; the kernels find row r's offsets from it.
"""
import functools
import math

import torch

from . import source as _metal_source
from .._ops import ops

MX = _metal_source.layout("MX_")
OLA = _metal_source.layout("OLA_")
COMPLEX, REAL, HERMITIAN = MX["COMPLEX"], MX["REAL"], MX["HERMITIAN"]
WIN_NONE, WIN_LOAD, WIN_STORE = MX["WIN_NONE"], MX["WIN_LOAD"], MX["WIN_STORE"]
MAX_DIMS = MX["IN_STRIDES"] - MX["SIZES"]
LARGE_ELEMS, SMALL_ELEMS = 4096, 1024  # complex values of the _l and _s kernels' memory
BLOCK_MAX = LARGE_ELEMS // 2  # longest row (n, or Bluestein's m) on chip: two buffers


# ---- plans: the planner's integer code (csrc/core/cx_factor.h) -------------
@functools.lru_cache(maxsize=1024)
def shape(n):
    """(m, n1, p) of length n, from the C++ planner (op _plan_shape):
    Bluestein's length m (0 when n has no prime factor above 13), n1 of
    the four-step split n = n1 * n2, and n's largest prime factor p."""
    m, n1, p = ops._plan_shape(n)
    return int(m), int(n1), int(p)


def factorable(n):
    """n has no prime factor above 13 (Stockham passes, no Bluestein)."""
    return shape(n)[0] == 0


def block_len(n):
    """Values a row of length n holds on chip: n, or Bluestein's m."""
    return shape(n)[0] or n


def fits(n):
    return block_len(n) <= BLOCK_MAX


class Tables:
    """A plan's tables on a device: one fp32 (re, im) buffer, offsets in it."""

    def __init__(self, n, device):
        passes, tw, roots, chirp, filt, m = ops._plan_tables(n, False)
        self.n, self.m, self.bluestein = n, int(m), int(m) > 0
        self.len = self.m if self.bluestein else n
        self.passes = [tuple(int(v) for v in p) for p in passes.tolist()]
        parts = [tw, roots, chirp, filt]
        offsets = [0]
        for p in parts:
            offsets.append(offsets[-1] + p.numel())
        self.tw, self.roots, self.chirp, self.filter = offsets[:4]
        flat = torch.cat([p.reshape(-1) for p in parts] + [torch.zeros(1, dtype=tw.dtype)])
        self.tab = torch.view_as_real(flat).to(device)


@functools.lru_cache(maxsize=64)
def tables(n, device):
    return Tables(n, torch.device(device))


@functools.lru_cache(maxsize=8)
def twiddles(n, device):
    """exp(-2*pi*i*k/n), k < n, computed in float64, stored as fp32 pairs."""
    a = torch.arange(n, dtype=torch.float64) * (2 * math.pi / n)
    return torch.stack([torch.cos(a), -torch.sin(a)], -1).to(torch.float32).to(device)


def clear_tables():
    """Frees the plan tables and twiddles kept on devices."""
    tables.cache_clear()
    twiddles.cache_clear()


@functools.lru_cache(maxsize=8)
def dummy(device):
    """Bound where a kernel's optional buffer is unused."""
    return torch.zeros(2, dtype=torch.float32, device=device)


# ---- argument lists ----------------------------------------------------------
def coalesce(rows):
    """Batch dims without size-1 dims, adjacent dims merged where both
    tensors allow it (the row numbering is unchanged)."""
    out = []
    for size, si, so in rows:
        if size == 1:
            continue
        if out and out[-1][1] == si * size and out[-1][2] == so * size:
            out[-1] = (out[-1][0] * size, si, so)
        else:
            out.append((size, si, so))
    return out


def meta(rows=(), passes=(), **fields):
    """The int64 list of a cx_fft_*/cx_map_* launch (MX_* of meta.h)."""
    rows = list(rows)
    if len(rows) > MAX_DIMS:
        raise ValueError(f"complexext (MPS): {len(rows)} batch dims, at most {MAX_DIMS}")
    if len(passes) > MX["MAX_PASSES"]:
        raise ValueError(f"complexext (MPS): {len(passes)} passes, at most {MX['MAX_PASSES']}")
    out = [0] * (MX["PASSES"] + 4 * len(passes))
    out[MX["MUL"]], out[MX["TW4_DIV"]], out[MX["TW4_MOD"]] = -1, 1, 1
    out[MX["NROWS"]] = math.prod(r[0] for r in rows)
    for key, value in fields.items():
        out[MX[key.upper()]] = int(value)
    out[MX["ND"]] = len(rows)
    for i, (size, si, so) in enumerate(rows):
        out[MX["SIZES"] + i], out[MX["IN_STRIDES"] + i], out[MX["OUT_STRIDES"] + i] = size, si, so
    out[MX["NPASSES"]] = len(passes)
    for i, p in enumerate(passes):
        out[MX["PASSES"] + 4 * i: MX["PASSES"] + 4 * i + 4] = list(p)
    return out


def fft_grid(length, radices, nrows, elems, max_threads):
    """(threads per row, rows per group, groups): a thread per butterfly
    of the widest pass, as many rows per group as memory and threads allow."""
    widest = length // min(radices) if radices else 1
    tpr = max(1, min(widest, max_threads))
    rpg = max(1, min(elems // (2 * length), max_threads // tpr, nrows))
    return tpr, rpg, -(-nrows // rpg)


def _letter(t):
    if t.dtype not in (torch.float16, torch.float32):
        raise TypeError(f"complexext (MPS): kernels take fp16 or fp32 storage, got {t.dtype}")
    return "h" if t.dtype == torch.float16 else "f"


def _optional(t, device):
    return dummy(device) if t is None else t


def fft(lib, x, y, n, rows, *, in_kind, out_kind, nin, nout, in_stride, out_stride,
        conj_in=False, conj_out=False, scale=1.0, win=None, win_mode=WIN_NONE, tw4=None):
    """One-block transforms of length n (fits(n)) of the rows of x into y.
    tw4: (table, N, div, mod), the four-step twiddle on store."""
    T = tables(n, str(x.device))
    nrows = math.prod(r[0] for r in rows)
    if nrows == 0:
        return
    elems = SMALL_ELEMS if 2 * T.len <= SMALL_ELEMS else LARGE_ELEMS
    kernel = getattr(lib, f"cx_fft_{_letter(x)}{_letter(y)}_{'s' if elems == SMALL_ELEMS else 'l'}")
    max_threads = min(int(kernel.max_threads_per_threadgroup), 1024)
    tpr, rpg, groups = fft_grid(T.len, [p[0] for p in T.passes], nrows, elems, max_threads)
    tw_tab, tw_n, div, mod = tw4 if tw4 is not None else (None, 0, 1, 1)
    m = meta(rows, T.passes, n=n, len=T.len, bluestein=T.bluestein, in_kind=in_kind,
             out_kind=out_kind, nin=nin, nout=nout, in_stride=in_stride, out_stride=out_stride,
             conj_in=conj_in, conj_out=conj_out, tpr=tpr, rpg=rpg, tw=T.tw, roots=T.roots,
             chirp=T.chirp, filter=T.filter, win=win_mode, tw4_n=tw_n, tw4_div=div,
             tw4_mod=mod)
    kernel(x, y, T.tab, _optional(win, x.device), _optional(tw_tab, x.device), m, float(scale),
           threads=groups * rpg * tpr, group_size=rpg * tpr)


def map_(lib, x, y, rows, *, in_kind, out_kind, nin, nout, in_stride, out_stride, n=0,
         conj_in=False, conj_out=False, scale=1.0, table=None, mul=None, win=None,
         win_mode=WIN_NONE, tw4=None):
    """One thread per output element: y = store(conj?(conj?(load(x)) * table[mul + k]))."""
    nrows = math.prod(r[0] for r in rows)
    total = nrows * nout
    if total == 0:
        return
    if total >= 1 << 32:
        raise ValueError("complexext (MPS): more than 2^32 elements in one kernel launch")
    kernel = getattr(lib, f"cx_map_{_letter(x)}{_letter(y)}")
    tw_tab, tw_n, div, mod = tw4 if tw4 is not None else (None, 0, 1, 1)
    m = meta(rows, n=n, in_kind=in_kind, out_kind=out_kind, nin=nin, nout=nout,
             in_stride=in_stride, out_stride=out_stride, conj_in=conj_in, conj_out=conj_out,
             mul=-1 if mul is None else getattr(table, mul), win=win_mode, tw4_n=tw_n,
             tw4_div=div, tw4_mod=mod)
    tab = table.tab if table is not None else None
    group = min(256, int(kernel.max_threads_per_threadgroup))
    kernel(x, y, _optional(tab, x.device), _optional(win, x.device),
           _optional(tw_tab, x.device), m, float(scale), threads=total, group_size=group)


def ola(lib, frames, env, y, B, T, n_fft, hop, start, length, channels):
    """ISTFT overlap-add by gathering (cx_ola_*)."""
    total = B * length * channels
    if total == 0:
        return
    m = [0] * OLA["SIZE"]
    for key, value in (("B", B), ("T", T), ("NFFT", n_fft), ("HOP", hop), ("START", start),
                       ("LENGTH", length), ("C", channels)):
        m[OLA[key]] = int(value)
    kernel = getattr(lib, f"cx_ola_{_letter(y)}")
    group = min(256, int(kernel.max_threads_per_threadgroup))
    kernel(frames, env, y, m, threads=total, group_size=group)
