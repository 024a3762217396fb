"""The CUDA convolution's method "auto" (csrc/conv_cuda/conv_method.cpp) and its table
of measured times (csrc/conv_cuda/conv_method_table.h, written and read by
benchmarks/conv_table.py), checked on the CPU through the op
_conv_cuda_method: the choice follows the table (nearest shape, fastest
eligible method), every method it may pick keeps complex32 at the floor,
COMPLEXEXT_CUDA_CONV overrides it, and the writer's header round-trips
through the reader, the C++ parser and a C++ compiler."""
import os
import re
import shutil
import subprocess
import sys

import pytest
import torch

import complexext  # noqa: F401  (registers the ops)
from test_conv_cuda_layout import (CASES, data, exact, floor_ratio, op_args, run,
                                   skip_where_torch_half_conv_misses_the_floor)

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks")
sys.path.insert(0, BENCH)
import conv_table as ct  # noqa: E402
import gpu  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
ops = torch.ops.complexext
C32, C64 = torch.complex32, torch.complex64
META = {"device": "test", "date": "2026-12-01", "unit": "ms", "source": "tests", "notes": []}
# What auto may take (the rule of docs/gpu.md): complex32 with a bias must
# not round twice, gauss never (about 2 x the floor in complex32).
ELIGIBLE = {(C32, True): ["rows32", "wide32"], (C32, False): ["rows", "rows32", "wide", "wide32"],
            (C64, True): ["rows", "wide"], (C64, False): ["rows", "wide"]}
FIXED = {(C32, True): "rows32", (C32, False): "rows", (C64, True): "rows", (C64, False): "rows"}
CLASSES = list(ELIGIBLE)


@pytest.fixture(autouse=True)
def no_method_override(monkeypatch):
    monkeypatch.delenv("COMPLEXEXT_CUDA_CONV", raising=False)


def shape(name, batch=8):
    fname, xs, ws, kw = gpu.CONV[name]
    xs = (batch,) + xs[1:]
    return fname, xs, ws, gpu.conv_op_args(fname, xs, kw)


def line(name, dtype, bias, batch=8, **ms):
    """A table line for a benchmark shape; ms: each method's time."""
    fname, xs, ws, _ = shape(name, batch)
    return ct.conv_table_line(name, fname, xs, ws, dtype, bias,
                              {k: v / 1e3 for k, v in dict(torch=1.0, **ms).items()})


def table(*lines):
    return ct.conv_table_text(ct.conv_table_header(list(lines), META))


def pick(name, dtype, bias, text=None, batch=8):
    _, xs, ws, oa = shape(name, batch)
    return ct.auto_pick(dtype, xs, ws, oa, bias, text)


def fastest_eligible(ln, dtype, bias):
    timed = [m for m in ELIGIBLE[(dtype, bias)] if ln[m] is not None]
    return min(timed, key=lambda m: ln[m]) if timed else None


@pytest.mark.parametrize("dtype,bias", CLASSES, ids=str)
def test_auto_takes_the_fastest_eligible_method_of_the_table(dtype, bias):
    """Each method made the fastest in turn: auto follows the table where
    the method is eligible (so the test fails if auto kept a fixed choice),
    and takes the fastest eligible one where it is not."""
    for name in gpu.CONV:
        for m in ct.METHODS:
            ms = {k: 1.0 + 0.1 * i for i, k in enumerate(ct.METHODS)}
            ms[m] = 0.5
            ln = line(name, dtype, bias, **ms)
            want = m if m in ELIGIBLE[(dtype, bias)] else fastest_eligible(ln, dtype, bias)
            assert pick(name, dtype, bias, table(ln)) == want, (name, m)
    assert {pick(n, dtype, bias, table(line(n, dtype, bias, wide=1.0, wide32=2.0)))
            for n in gpu.CONV} == {"wide" if "wide" in ELIGIBLE[(dtype, bias)] else "wide32"}


def test_nearest_line_by_kind_then_sizes():
    """The nearest line: same dtype and bias, fewest differences in
    (spatial dims, transposed), then the closest sizes in log2; the first on
    a tie. A line that times no eligible method does not count."""
    small = line("enc", C32, True, batch=1, rows32=1.0, wide32=2.0)  # 8 x fewer elements
    large = line("enc", C32, True, batch=64, rows32=2.0, wide32=1.0)
    t = table(small, large)
    assert pick("enc", C32, True, t, batch=2) == "rows32"
    assert pick("enc", C32, True, t, batch=32) == "wide32"
    assert pick("enc", C32, True, table(large, small), batch=8) == "wide32"  # a tie: the first
    # the kind first: dec (a transposed conv2d) is nearer to enc in sizes than enc at
    # batch 64 (channels swapped: 2 against 3), yet enc takes the line of its own kind
    dec = line("dec", C32, True, rows32=1.0, wide32=2.0)
    assert pick("enc", C32, True, table(dec, large)) == "wide32"
    assert pick("dec", C32, True, table(large, dec)) == "rows32"
    # a nearer line with only rows (not eligible with a bias) is passed over
    only_rows = line("enc", C32, True, rows=0.1)
    assert pick("enc", C32, True, table(only_rows, large)) == "wide32"


@pytest.mark.parametrize("dtype,bias", CLASSES, ids=str)
def test_no_line_of_the_call_gives_the_fixed_rule(dtype, bias):
    """Lines of another dtype or another bias do not count; without one of
    its own the call takes rows32 (complex32 with a bias) or rows."""
    others = [line("enc", d, b, rows=0.1, rows32=0.2, wide=0.1, wide32=0.1) for d, b in CLASSES
              if (d, b) != (dtype, bias)]
    for name in gpu.CONV:
        assert pick(name, dtype, bias, table(*others)) == FIXED[(dtype, bias)]
        assert pick(name, dtype, bias, "") == FIXED[(dtype, bias)]


def test_real_weights_and_three_spatial_dims_take_the_fixed_rule():
    """The table times complex weights in 1 and 2 spatial dims only."""
    t = table(*[line(n, C32, b, wide32=0.1, rows32=1.0, wide=0.1, rows=1.0) for n in gpu.CONV
                for b in (True, False)])
    _, xs, ws, oa = shape("enc")
    x, wr = torch.zeros((), dtype=C32).expand(xs), torch.zeros(()).half().expand(ws)
    b = torch.zeros((), dtype=C32).expand(ws[0])
    assert ops._conv_cuda_method(x, wr, b, *oa, t) == "rows32"
    assert ops._conv_cuda_method(x, wr, None, *oa, t) == "rows"
    x3, w3 = torch.zeros((), dtype=C32).expand(2, 4, 5, 6, 7), torch.zeros((), dtype=C32).expand(
        3, 4, 1, 2, 3)
    args3 = ([1] * 3, [0] * 3, [1] * 3, False, [0] * 3, 1)
    assert ops._conv_cuda_method(x3, w3, torch.zeros((), dtype=C32).expand(3), *args3, t) == \
        "rows32"


@pytest.mark.parametrize("case", [c for c in CASES if not c[3]],
                         ids=lambda c: f"{c[0]}-{'x'.join(map(str, c[1]))}")
def test_whatever_the_table_says_complex32_stays_at_the_floor(case):
    """For each method timed alone: auto takes it only where eligible, and
    what it takes keeps complex32 at <= 1.15 times the floor."""
    skip_where_torch_half_conv_misses_the_floor(case)
    x, w, b = data(case, C32)
    for bias in (b, None):
        ref = exact(case, x, w, bias)
        taken = set()
        for m in ct.METHODS:
            ln = dict(line("enc", C32, bias is not None), **{m: 1.0})
            got = ops._conv_cuda_method(x, w, bias, *op_args(case), table(ln))
            taken.add(got)
            assert floor_ratio(run(case, x, w, bias, got), ref) <= 1.15, (m, got)
        assert taken - {FIXED[(C32, bias is not None)]} <= set(ELIGIBLE[(C32, bias is not None)])
        assert set(ELIGIBLE[(C32, bias is not None)]) <= taken


def test_the_checked_in_table_is_compiled_in_and_followed():
    """Every line of csrc/conv_cuda/conv_method_table.h: auto with the compiled table,
    and with the file's text, takes its fastest eligible method (the fixed
    rule where it times none). A stale build fails here."""
    with open(ct.CONV_TABLE, encoding="utf-8") as f:
        header = f.read()
    lines, _ = ct.read_conv_table(header)
    assert lines, "csrc/conv_cuda/conv_method_table.h has no line"
    for ln in lines:
        assert ln["shape"] in gpu.CONV
        dtype, bias = ct.DTYPES[ln["dtype"]], bool(ln["bias"])
        want = fastest_eligible(ln, dtype, bias) or FIXED[(dtype, bias)]
        for text in (None, ct.conv_table_text(header)):
            assert pick(ln["shape"], dtype, bias, text) == want, ln
    for name in gpu.CONV:
        for dtype, bias in CLASSES:
            assert pick(name, dtype, bias) == pick(name, dtype, bias, ct.conv_table_text(header))


def test_the_checked_in_table_says_where_it_came_from():
    with open(ct.CONV_TABLE, encoding="utf-8") as f:
        header = f.read()
    lines, meta = ct.read_conv_table(header)
    assert ct.conv_table_header(lines, meta) == header  # the writer's own output
    assert meta["device"] and meta["source"] and meta["unit"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", meta["date"])


def test_the_override_wins_without_a_table(monkeypatch):
    t = table(line("enc", C32, True, wide32=1.0, rows32=2.0))
    assert pick("enc", C32, True, t) == "wide32"
    monkeypatch.setenv("COMPLEXEXT_CUDA_CONV", "gauss")
    assert pick("enc", C32, True) == "gauss"
    assert pick("enc", C32, True, t) == "wide32"  # a table asks what auto takes from it
    monkeypatch.setenv("COMPLEXEXT_CUDA_CONV", "auto")
    assert pick("enc", C32, True) == "rows32"
    monkeypatch.setenv("COMPLEXEXT_CUDA_CONV", "fast")
    with pytest.raises(RuntimeError, match="convolution: unknown method 'fast'"):
        pick("enc", C32, True)


@pytest.mark.parametrize("bad,message", [
    ("enc c32 2 0 1 100 10 64 128 1 - 1", "line 2: expected 15 fields"),
    ("enc c16 2 0 1 100 10 64 128 1 - 1 - - -", "line 2: expected a dtype c32, c64 or c128"),
    ("enc c32 2 0 yes 100 10 64 128 1 - 1 - - -", "line 2: expected 0 or 1, got 'yes'"),
    ("enc c32 2 0 1 100 10 64 128 1 - 0 - - -", "line 2: expected a positive number or '-'"),
    ("enc c32 2 0 1 1e9x 10 64 128 1 - 1 - - -", "line 2: expected a positive number, got"),
])
def test_a_bad_table_is_refused_with_its_line(bad, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        pick("enc", C32, True, "# a comment\n" + bad + "\n")


def test_the_op_checks_its_arguments():
    _, xs, ws, oa = shape("enc")
    x = torch.zeros((), dtype=C32).expand(xs)
    with pytest.raises(RuntimeError, match="convolution: expected an input with 64 channels"):
        ops._conv_cuda_method(x[:, :5], torch.zeros((), dtype=C32).expand(ws), None, *oa)


def test_the_writer_round_trips_and_prints_its_picks(tmp_path, capsys):
    """gpu.py's writer, without a GPU: its header reads back to the same
    lines and metadata, the C++ parser takes it, the picks it prints are
    the fastest eligible methods, and a C++ compiler accepts the file."""
    calls, want = [], []
    for i, name in enumerate(gpu.CONV):
        _, xs, ws, oa = shape(name)
        for dtype, bias in CLASSES:
            ms = {m: 1.0 + ((i + 3 * len(calls) + 5 * j) * 7 % 11) / 10
                  for j, m in enumerate(ct.METHODS)}
            if dtype == C64:
                ms["rows32"] = ms["wide32"] = None
            ln = line(name, dtype, bias, **{k: v for k, v in ms.items() if v is not None})
            calls.append((ln, xs, ws, oa))
            want.append(fastest_eligible(ln, dtype, bias))
    meta = dict(META, device="NVIDIA Test GPU", unit="ms, the median of 7 calls",
                notes=["a note long enough to be wrapped over more than one line of the header, "
                       "with a range 0.7-1.9x that must not be split at its hyphen"])
    path = tmp_path / "conv_method_table.h"
    picks = ct.write_conv_table(str(path), calls, meta)
    assert picks == want
    out = capsys.readouterr().out
    assert "conv method table written to" in out and f"conv1d  c64 no bias: {want[-1]}" in out
    header = path.read_text(encoding="utf-8")
    lines, got_meta = ct.read_conv_table(header)
    assert got_meta == meta
    assert [ln["shape"] for ln in lines] == [c[0]["shape"] for c in calls]
    for ln, (orig, *_) in zip(lines, calls):
        for k, v in orig.items():
            assert ln[k] == (round(v, 3) if isinstance(v, float) else v), k
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler to compile the header with")
    main = tmp_path / "main.cpp"
    main.write_text('#include "conv_method_table.h"\n'
                    "int main() { return sizeof(complexext::conv_table::kTimes) > 1 ? 0 : 1; }\n")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # no sanitizer runtime
    res = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", str(main)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60, env=env)
    assert res.returncode == 0, res.stderr


def test_a_cpu_run_does_not_replace_the_checked_in_table(capsys):
    with open(ct.CONV_TABLE, encoding="utf-8") as f:
        before = f.read()
    _, xs, ws, oa = shape("enc")
    calls = [(line("enc", C32, True, rows32=1.0), xs, ws, oa)]
    assert ct.write_conv_table(ct.CONV_TABLE, calls, dict(META, device="cpu")) == []
    assert "does not replace" in capsys.readouterr().out
    with open(ct.CONV_TABLE, encoding="utf-8") as f:
        assert f.read() == before


def test_gpu_py_plans_the_table():
    res = subprocess.run([sys.executable, os.path.join(BENCH, "gpu.py"), "--dry-run", "--only",
                          "conv", "--write-conv-table"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert "conv method table: written to" in res.stdout
    assert "conv_method_table.h" in res.stdout
