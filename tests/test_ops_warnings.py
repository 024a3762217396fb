"""torch's once-a-process "ComplexHalf support is experimental" warning:
complexext spends it on import (complexext._ops.load), so a complex32
tensor made inside an op called through torch.ops, where c10 would print
the warning to stderr past any Python filter, prints nothing."""
import subprocess
import sys


def _run(code):
    return subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                          text=True, timeout=120)


def test_no_complexhalf_warning_from_the_raw_ops():
    r = _run("import torch, complexext\n"
             "torch.ops.complexext.fft_r2c(torch.randn(8, 64).half(), [1], 0, True)\n"
             "complexext.stft(torch.randn(2, 800).half(), 64, return_complex=True)\n"
             "print('ok')")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert "ComplexHalf" not in r.stderr, r.stderr


def test_without_the_silencing_the_raw_op_prints_it():
    """The check above can fail: with the import's silencing call made a
    no-op, the same raw call prints torch's warning to stderr (c10's
    handler), past Python's -W error."""
    r = _run("import torch\n"
             "real = torch.empty\n"
             "torch.empty = lambda *a, **k: real(0)\n"
             "import complexext\n"
             "torch.empty = real\n"
             "torch.ops.complexext.fft_r2c(torch.randn(8, 64).half(), [1], 0, True)\n"
             "print('ok')")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    assert "ComplexHalf support is experimental" in r.stderr, r.stderr
