# CPU only: runs python -m complexext, the CPU benchmark and the setup commands as subprocesses.
"""The main job (python -m complexext), the CPU benchmark script, and the
setup commands that README.md promises and .ci/run runs."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, timeout=300):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_main_job_passes_and_reports_everything():
    r = run("-m", "complexext")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "compiled backends : cpu" in out
    assert "CPU ISA in use" in out and "device cpu" in out
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                 "irfft2", "rfftn", "irfftn", "hfft", "ihfft"):
        assert re.search(rf"^  {name} +PASS", out, re.M), name
    assert "FAIL" not in out
    assert "error/floor" in out and "speed vs torch c64" in out
    assert out.rstrip().splitlines()[-1].startswith("ALL PASS")


@pytest.mark.parametrize("cmd, words", [("frobnicate", "unknown command")])
def test_main_job_refuses_unknown_commands(cmd, words):
    r = run("-m", "complexext", cmd)
    assert r.returncode == 2
    assert words in r.stderr and cmd in r.stderr


def test_selfcheck_catches_a_wrong_result(monkeypatch):
    import torch

    import complexext
    from complexext._tools import selfcheck as _selfcheck

    good = complexext.fft.fft

    def off_by_a_little(x, *a, **k):  # 3e-4 relative: above the complex32 floor
        y = good(x, *a, **k)
        return (y.to(torch.complex128) * 1.0003).to(y.dtype)

    monkeypatch.setattr(complexext.fft, "fft", off_by_a_little)
    worst, fails = _selfcheck.check_function("fft", "cpu", torch.Generator().manual_seed(0))
    assert fails and worst["c32"] > _selfcheck.C32_MAX_RATIO
    assert worst["c128"] > _selfcheck.C128_MAX_ERR


def test_benchmark_script_runs_and_measures_memory():
    # At the benchmark's own size (4 Mi values a call), not --quick's 1 Mi:
    # the check is that no copy of the input's size is made, and the lane
    # engine's buffers are per thread, not per value. With AVX-512 and two
    # threads, 4099's Bluestein buffers (2 x 8640 vectors of 16 lanes a
    # thread, 4.4 MiB in all) are more than half of 1 Mi values' complex64
    # copy (8 MiB), and a quarter of 4 Mi values' (32 MiB).
    r = run("benchmarks/fft_cpu.py", "--n", "4099")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [ln for ln in r.stdout.splitlines() if re.match(r"^ +4099 \|", ln)]
    assert len(rows) == 1 and all(ln.rstrip().endswith("yes") for ln in rows), r.stdout


def test_readme_commands_are_the_ones_ci_runs():
    readme = open(os.path.join(ROOT, "README.md")).read()
    ci = open(os.path.join(ROOT, ".ci", "run")).read()
    blocks = re.findall(r"```\n(pip install torch[^\n]*)\n```", readme)
    assert len(blocks) == 2, blocks
    main_cmd, test_cmd = blocks
    assert main_cmd.endswith("python -m complexext")
    assert test_cmd.endswith("python -m pytest -q")
    assert main_cmd.rsplit("&&", 1)[0] == test_cmd.rsplit("&&", 1)[0]
    assert "torch==2.13.0" in test_cmd
    assert test_cmd in ci.splitlines()
