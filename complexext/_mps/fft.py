"""Transforms along one dim on Metal, at any length and any strides.

A row whose plan fits on chip (n, or Bluestein's m, at most 2048) takes
one cx_fft_* launch that reads the rows where they lie and writes them
where they go. Longer rows go through a contiguous fp32 work buffer:

    A = load(x)                          (cx_map: kind, conj, window)
    B = dft(A)                           four-step or Bluestein, below
    y = store(B)                         (cx_map: scale, conj, window, kind)

    four-step, n = n1*n2, x[j1*n2 + j2] -> X[k1 + n1*k2]:
      T[k1, j2] = dft_n1(x[:, j2])[k1] * w_n^(j2*k1)   (twiddle fused in the store)
      X[k1 + n1*k2] = dft_n2(T[k1, :])[k2]
    Bluestein (a prime factor too large for a block), m = smooth >= 2n-1:
      C = x * chirp (0 past n); D = dft_m(C); D = conj(D * filter);
      C = dft_m(D); X = conj(C) * chirp
A sub-length that does not fit a block recurses through a transposed copy.
"""
import functools
import math

import torch

from . import launch as L

COMPLEX, REAL, HERMITIAN = L.COMPLEX, L.REAL, L.HERMITIAN


def pairs(t):
    """The tensor the kernels bind for t: complex -> its (re, im) view."""
    return torch.view_as_real(t.resolve_conj()) if t.is_complex() else t


def _geometry(t, kind):
    """Logical sizes and strides (in elements of kind) of a bound tensor."""
    if kind == REAL:
        return list(t.shape), list(t.stride())
    return list(t.shape[:-1]), [s // 2 for s in t.stride()[:-1]]


def _rows(src, src_kind, dst, dst_kind, d):
    sizes, si = _geometry(src, src_kind)
    _, so = _geometry(dst, dst_kind)
    return L.coalesce([(sizes[i], si[i], so[i]) for i in range(len(sizes)) if i != d])


def _empty(rows, n, device):
    return torch.empty(rows, n, 2, dtype=torch.float32, device=device)


def one_dim(lib, src, dst, d, n, *, in_kind, out_kind, nin, nout, conj_in=False,
            conj_out=False, scale=1.0, win=None, win_mode=L.WIN_NONE):
    """The length-n transform along logical dim d of src (bound tensor of
    in_kind, nin stored elements along d) into dst (nout elements along d)."""
    rows = _rows(src, in_kind, dst, out_kind, d)
    if len(rows) > L.MAX_DIMS:
        src = src.contiguous()
        rows = _rows(src, in_kind, dst, out_kind, d)
        if len(rows) > L.MAX_DIMS:
            dst_c = torch.empty_like(dst, memory_format=torch.contiguous_format)
            one_dim(lib, src, dst_c, d, n, in_kind=in_kind, out_kind=out_kind, nin=nin,
                    nout=nout, conj_in=conj_in, conj_out=conj_out, scale=scale, win=win,
                    win_mode=win_mode)
            dst.copy_(dst_c)
            return
    strides = dict(in_stride=_geometry(src, in_kind)[1][d],
                   out_stride=_geometry(dst, out_kind)[1][d])
    io = dict(in_kind=in_kind, out_kind=out_kind, nin=nin, nout=nout)
    if L.fits(n):
        L.fft(lib, src, dst, n, rows, **io, **strides, conj_in=conj_in, conj_out=conj_out,
              scale=scale, win=win, win_mode=win_mode)
        return
    # Longer rows: stage into a contiguous fp32 work buffer (rows, n).
    nrows = math.prod(r[0] for r in rows)
    inner = [math.prod(r[0] for r in rows[i + 1:]) * n for i in range(len(rows))]
    a = _empty(nrows, n, src.device)
    L.map_(lib, src, a, [(s, si, o) for (s, si, _), o in zip(rows, inner)], n=n,
           in_kind=in_kind, out_kind=COMPLEX, nin=nin, nout=n, in_stride=strides["in_stride"],
           out_stride=1, conj_in=conj_in, win=win,
           win_mode=win_mode if win_mode == L.WIN_LOAD else L.WIN_NONE)
    b = torch.empty_like(a)
    dft_contiguous(lib, a, b, n, nrows)
    L.map_(lib, b, dst, [(s, i, so) for (s, _, so), i in zip(rows, inner)], n=n,
           in_kind=COMPLEX, out_kind=out_kind, nin=n, nout=nout, in_stride=1,
           out_stride=strides["out_stride"], conj_out=conj_out, scale=scale, win=win,
           win_mode=win_mode if win_mode == L.WIN_STORE else L.WIN_NONE)


@functools.lru_cache(maxsize=256)
def split(n):
    """(n1, n2) for a four-step split of n (the C++ planners' split: n1 the
    largest divisor <= sqrt(n)), or None for Bluestein: n is prime, or has a
    prime factor that no block holds (then neither would every part). A part
    too long for a block is split again (dft_contiguous)."""
    _, n1, p = L.shape(n)
    if p == n or not L.fits(p):
        return None
    return n1, n // n1


def _transpose(lib, src, dst, rows_outer, a, b):
    """dst[r, j, i] = src[r, i, j] for (R, a, b) -> (R, b, a), fp32 pairs."""
    L.map_(lib, src, dst, [rows_outer, (b, 1, a)], in_kind=COMPLEX, out_kind=COMPLEX, nin=a,
           nout=a, in_stride=b, out_stride=1)


def dft_contiguous(lib, a, b, n, R):
    """b = forward DFT of the rows of a; both (R, n, 2) fp32, contiguous."""
    whole = (R, n, n)
    io = dict(in_kind=COMPLEX, out_kind=COMPLEX)
    if L.fits(n):
        L.fft(lib, a, b, n, [whole], **io, nin=n, nout=n, in_stride=1, out_stride=1)
        return
    s = split(n)
    if s is None:
        _bluestein(lib, a, b, n, R)
        return
    n1, n2 = s
    tw4 = (L.twiddles(n, str(a.device)), n, 1, n2)
    t = _empty(R, n, a.device)
    if L.fits(n1):  # columns j2: elements j1 at stride n2, results k1 at stride n2
        L.fft(lib, a, t, n1, [whole, (n2, 1, 1)], **io, nin=n1, nout=n1, in_stride=n2,
              out_stride=n2, tw4=tw4)
    else:
        at, bt = _empty(R * n2, n1, a.device), _empty(R * n2, n1, a.device)
        _transpose(lib, a, at, whole, n1, n2)
        dft_contiguous(lib, at, bt, n1, R * n2)
        L.map_(lib, bt, t, [whole, (n2, n1, 1)], **io, nin=n1, nout=n1, in_stride=1,
               out_stride=n2, tw4=tw4)
    if L.fits(n2):  # rows k1: elements j2 at stride 1, results k2 at stride n1
        L.fft(lib, t, b, n2, [whole, (n1, n2, 1)], **io, nin=n2, nout=n2, in_stride=1,
              out_stride=n1)
    else:
        t2 = _empty(R * n1, n2, a.device)
        dft_contiguous(lib, t, t2, n2, R * n1)
        L.map_(lib, t2, b, [whole, (n1, n2, 1)], **io, nin=n2, nout=n2, in_stride=1,
               out_stride=n1)


def _bluestein(lib, a, b, n, R):
    T = L.tables(n, str(a.device))
    m = T.m
    c, d = _empty(R, m, a.device), _empty(R, m, a.device)
    io = dict(in_kind=COMPLEX, out_kind=COMPLEX, in_stride=1, out_stride=1, table=T)
    L.map_(lib, a, c, [(R, n, m)], **io, nin=n, nout=m, mul="chirp")
    dft_contiguous(lib, c, d, m, R)
    L.map_(lib, d, d, [(R, m, m)], **io, nin=m, nout=m, mul="filter", conj_out=True)
    dft_contiguous(lib, d, c, m, R)
    L.map_(lib, c, b, [(R, m, n)], **io, nin=n, nout=n, mul="chirp", conj_in=True)
