"""python -m complexext bench: the quick profile into a temporary folder,
its markdown tables and its PNG plots; the message and the tables where
matplotlib is missing; bad options."""
import math
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK_N = [256, 1000, 4099]  # the quick profile's sizes (benchmarks/report.py PROFILES)
PLOTS = ("fft_speed.png", "fft_accuracy.png", "stft_conv_speed.png")

# Runs the command as `python -m complexext bench` does, and writes the page
# a second time, into OUT_nompl, as where matplotlib is not installed.
DRIVER = """
import sys
from complexext._tools import report as _report
write = _report.write
def both(results, outdir):
    paths = write(results, outdir)
    sys.modules["matplotlib"] = None  # import matplotlib now raises ImportError
    write(results, outdir + "_nompl")
    return paths
_report.write = both
from complexext.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("bench") / "docs")
    r = subprocess.run([sys.executable, "-c", DRIVER, "bench", "--quick", "--threads", "1",
                        "--out", out], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    with open(os.path.join(out, "performance.md")) as f:
        md = f.read()
    return out, md, r


def table(md, heading):
    """The rows (lists of cells) of the first table after the line `heading`."""
    lines = md.splitlines()
    i = lines.index(heading)
    while not lines[i].startswith("|"):
        i += 1
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        rows.append([c.strip() for c in lines[i].strip("|").split("|")])
        i += 1
    assert rows[1][0] == "---"
    return rows[0], rows[2:]


def numbers(row, head, suffix):
    """The cells of the columns whose header ends with suffix, as floats."""
    vals = [float(c) for h, c in zip(head, row) if h.endswith(suffix)]
    assert vals and all(math.isfinite(v) and v > 0 for v in vals), (head, row)
    return vals


def test_progress_on_stderr(quick):
    _, _, r = quick
    steps = re.findall(r"^bench \[(\d+)/(\d+)\] (.+)  \((\d+\.\d) s elapsed\)$", r.stderr, re.M)
    assert len(steps) == int(steps[0][1]) > 3
    assert [int(s[0]) for s in steps] == list(range(1, len(steps) + 1))
    labels = [s[2] for s in steps]
    assert "fft n=4099" in labels and "stft/istft 512/128" in labels and "gpu" in labels
    assert [float(s[3]) for s in steps] == sorted(float(s[3]) for s in steps)


def test_fft_tables_have_a_ratio_for_every_peer_and_n(quick):
    _, md, _ = quick
    for kind, peers in (("fft complex32", ("torch c64", "upcast", "scipy c64")),
                        ("rfft float16 -> complex32", ("torch f32", "upcast", "scipy f32"))):
        head, rows = table(md, "### %s, %s (64 Ki values a call)" % tuple(kind.split(" ", 1)))
        assert [f"{p} / cx c32" for p in peers] == [h for h in head if h.endswith("/ cx c32")]
        assert [int(r[0]) for r in rows] == QUICK_N
        for r in rows:
            ms = numbers(r, head, " ms")
            ratios = numbers(r, head, "/ cx c32")
            # each ratio is that peer's time over complexext's, up to the
            # rounding of the printed times (2 decimals)
            c = ms[0]
            for t, q in zip(ms[1:], ratios):
                lo, hi = (t - 0.005) / (c + 0.005), (t + 0.005) / max(c - 0.005, 1e-9)
                assert lo - 0.005 <= q <= hi + 0.005, (r, t, c, q)


def test_accuracy_table_is_at_the_floor(quick):
    _, md, _ = quick
    head, rows = table(md, "## FFT accuracy, complex32: error / floor")
    assert head == ["n", "fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
    assert [int(r[0]) for r in rows] == QUICK_N
    for r in rows:
        # rounding the exact result is the least error possible: ratio >= 1;
        # the self-check's bar is 1.15
        assert all(0.999 <= float(c) <= 1.15 for c in r[1:]), r


def test_stft_and_conv_tables(quick):
    _, md, _ = quick
    head, rows = table(md, "## STFT / ISTFT, CPU")
    assert [r[1] for r in rows] == ["stft", "istft"]
    for r in rows:
        assert len(numbers(r, head, "/ cx c32")) == 3
        assert 0.999 <= float(r[-1]) <= 1.15
    head, rows = table(md, "## Complex convolution, CPU")
    assert rows and "torch c32 / cx c32" in head and "torch c64 / cx c32" in head
    for r in rows:
        cells = dict(zip(head, r))
        assert float(cells["torch c32 / cx c32"]) > 0 and float(cells["torch c64 / cx c32"]) > 0
        assert 0.999 <= float(cells["error / floor"]) <= 1.15


def test_header_names_machine_load_and_gpu(quick):
    _, md, _ = quick
    import torch

    assert md.startswith("# Performance")
    assert "a plotting library is needed for the PNG plots" in " ".join(md.split())
    assert f"torch {torch.__version__}" in md
    assert re.search(r"^- date: \d{4}-\d\d-\d\d \d\d:\d\d UTC; profile: quick", md, re.M)
    assert re.search(r"load average \(1, 5, 15 min\) at the start: [\d.]+, [\d.]+, [\d.]+", md)
    assert "torch threads and scipy workers: 1;" in md
    if torch.cuda.is_available() or torch.backends.mps.is_available():
        assert re.search(r"^Device: .+; run on \d{4}-\d\d-\d\d", md, re.M)
    else:
        assert "No GPU was used in this run" in md


def test_png_plots(quick):
    pytest.importorskip("matplotlib")
    out, md, _ = quick
    for name in PLOTS:
        with open(os.path.join(out, "img", name), "rb") as f:
            data = f.read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width >= 300 and height >= 200 and len(data) > 5000
        assert f"(img/{name})" in md


def test_without_matplotlib_tables_are_written_and_install_is_said(quick):
    out, md, r = quick
    with open(os.path.join(out + "_nompl", "performance.md")) as f:
        bare = f.read()
    assert "no PNG plots written" in r.stderr and "pip install matplotlib" in r.stderr
    assert "No plots: matplotlib was not installed" in bare
    assert "](img/" not in bare and not os.listdir(os.path.join(out + "_nompl", "img"))
    # the same tables as with plots
    strip = lambda s: [ln for ln in s.splitlines() if ln.startswith("|")]  # noqa: E731
    assert strip(bare) == strip(md)


def test_gpu_section_names_device_date_and_command():
    from complexext._tools import report as _report

    g = {"used": True, "device": "CUDA: Some GPU", "date": "2026-01-02 03:04 UTC",
         "script": "python benchmarks/gpu.py --mib 16 --reps 3", "rc": 0,
         "output": "fft n=256  cx 0.1 ms"}
    text = "\n".join(_report._gpu({"gpu": g}))
    assert "Device: CUDA: Some GPU; run on 2026-01-02 03:04 UTC" in text
    assert "`python benchmarks/gpu.py --mib 16 --reps 3` (exit status 0)" in text
    assert "```\nfft n=256  cx 0.1 ms\n```" in text
    none = "\n".join(_report._gpu({"gpu": {"used": False, "why": "no device"}}))
    assert "No GPU was used in this run: no device." in none and "Device:" not in none


def test_bad_options_are_refused_before_the_run(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    code = ("from complexext.__main__ import main\n"
            "for a in (['--threads', '0'], ['--out', %r]):\n"
            "    try:\n"
            "        main(['bench'] + a)\n"
            "    except SystemExit as e:\n"
            "        print('exit', e.code)\n" % str(blocker / "docs"))
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.stdout.split() == ["exit", "2", "exit", "2"], r.stdout + r.stderr
    assert "bench [1/" not in r.stderr  # refused before any benchmark ran
    errors = [ln for ln in r.stderr.splitlines() if "error:" in ln]
    assert errors[0].startswith("python -m complexext bench: error: --threads must be at least 1")
    assert errors[1].startswith(f"python -m complexext bench: error: --out {blocker / 'docs'}")
    assert "cannot make the folder" in errors[1]
