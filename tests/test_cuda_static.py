# CPU only: compiles CUDA sources with nvcc (no GPU needed); skipped without nvcc or cuobjdump.
"""benchmarks/cuda_static.py, the static speed proxies of the CUDA kernels.

Stand-in kernels (tests/support/cuda_static/standin.cu) carry one violation of
each kind the SASS and ptxas checks look for (a run-time-indexed local
array, 16-bit global loads, a 64-bit division, register spills) beside a
clean reg_fft_kernel<256, 16, float>; the tool must report each violation
and fail the run when they are enforced, pass the clean kernel, leave the
float64 instantiation unchecked, and pass over csrc/cuda with the default
enforcement. The occupancy and threshold rules that no stand-in reaches
are checked on given figures.
"""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOL = ROOT / "benchmarks" / "cuda_static.py"
STANDIN = ROOT / "tests" / "support" / "cuda_static" / "standin.cu"

_spec = importlib.util.spec_from_file_location("cuda_static", TOOL)
cs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cs)

NVCC = cs.find_nvcc()
CUOBJDUMP = cs.find_binary("cuobjdump", NVCC)
needs_tools = pytest.mark.skipif(
    NVCC is None or CUOBJDUMP is None,
    reason="no nvcc (PATH, $CUDA_HOME/bin)" if NVCC is None else
    "no cuobjdump (pip install nvidia-cuda-cuobjdump)")


def _run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)


def _by_short(report):
    return {cs.short_name(k["name"]): k for k in report["kernels"]}


@pytest.fixture(scope="module")
def standin_enforced(tmp_path_factory):
    out = tmp_path_factory.mktemp("cuda_static") / "standin.json"
    p = _run(STANDIN, "--enforce", "bad_kernel", "--enforce", "spill_kernel", "--json", out)
    return p, json.loads(out.read_text())


@needs_tools
def test_violations_are_reported_and_fail(standin_enforced):
    p, report = standin_enforced
    assert p.returncode == 1, p.stdout + p.stderr
    k = _by_short(report)
    bad = k["bad_kernel"]
    assert bad["stack"] > 0 and bad["ldl_stl"] > 0
    assert bad["div64_calls"] >= 1 and any("div_s64" in h for h in bad["div64_helpers"])
    assert bad["g16"] >= 32  # 32 __half loads
    assert bad["enforced"] and bad["verdict"] == "FAIL"
    assert {"stack", "local", "div64", "g16"} <= set(bad["failed"])
    for check in ("stack", "local", "div64", "g16"):
        assert f"FAIL #1 bad_kernel: {check}:" in p.stdout
    spill = k["spill_kernel"]
    assert spill["min_blocks"] == 2 and spill["max_threads"] == 1024
    assert spill["spill_stores"] > 0 and spill["spill_loads"] > 0
    assert "spill" in spill["failed"] and "FAIL #2 spill_kernel: spill:" in p.stdout


@needs_tools
def test_clean_reg_fft_kernel_passes(standin_enforced):
    _, report = standin_enforced
    k = _by_short(report)
    fft = k["reg_fft_kernel<256, 16, float>"]
    assert (fft["n"], fft["ept"]) == (256, 16)
    assert fft["enforced"] and fft["verdict"] == "PASS", fft["failed"]
    assert all(fft["checks"][c] is True for c in cs.CHECKS), fft["checks"]
    assert fft["stack"] == 0 and fft["ldl_stl"] == 0 and fft["g16"] == 0
    assert fft["max_threads"] == 64 and fft["smem"] == 512
    assert fft["load_bytes_before_butterfly"] == 16 * 4  # sixteen __half2 loads
    assert fft["instructions_per_element"] == pytest.approx(fft["instructions"] / 16)
    f64 = k["reg_fft_kernel<256, 16, double>"]
    assert f64["float64"] and not f64["enforced"]
    assert all(v is None for v in f64["checks"].values())


@needs_tools
def test_not_enforced_is_reported_only():
    p = _run(STANDIN, "--only", "bad_kernel")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "not enforced (legacy)" in p.stdout and "FAIL #" not in p.stdout
    assert _run(STANDIN, "--only", "no_such_kernel").returncode == 2


@pytest.mark.slow  # compiles every kernel of csrc/cuda (minutes); .ci/run runs the tool itself
@needs_tools
def test_csrc_cuda_passes_default_enforcement(tmp_path):
    out = tmp_path / "csrc.json"
    p = _run("--json", out)
    assert p.returncode == 0, p.stdout + p.stderr
    report = json.loads(out.read_text())
    files = {k["file"] for k in report["kernels"]}
    assert files >= {"csrc/cuda/fft_block.cu", "csrc/cuda/ola.cu"}
    assert not any(f.startswith("csrc/cuda/check/") for f in files)
    for k in report["kernels"]:
        assert k["regs"] and k["instructions"] > 0, k["name"]
        assert k["threads_source"] in ("launch bounds", "manifest"), k["name"]
        if not k["enforced"]:
            assert k["verdict"] in ("not enforced (legacy)", "float64 (not checked)")


# --- rules on given figures -----------------------------------------------------------

def test_occupancy_sm90():
    # 76 registers, 256 threads: 2560 registers a warp, 6 warps per
    # sub-partition, 24 warps = 3 blocks (docs/cuda.md's figure).
    o = cs.occupancy(76, 256, 0)
    assert (o["warps_per_sm"], o["blocks_per_sm"], o["limiter"]) == (24, 3, "registers")
    assert cs.occupancy(168, 256, 0)["warps_per_sm"] == 8
    assert cs.occupancy(32, 256, 0)["warps_per_sm"] == 64
    assert cs.occupancy(16, 32, 0)["blocks_per_sm"] == 32          # the block cap
    # shared memory: 64 KiB + 1 KiB reserved a block: 3 blocks in 228 KiB
    o = cs.occupancy(32, 256, 64 * 1024)
    assert (o["blocks_per_sm"], o["limiter"]) == (3, "shared")
    assert cs.occupancy(32, 256, 228 * 1024)["blocks_per_sm"] == 0
    assert cs.occupancy(128, 1024, 0)["blocks_per_sm"] == 0         # 128 K registers a block


def _figures(**kw):
    k = {"name": "void reg_fft_kernel<1024, 16, float>(__half2 const*, __half2*)", "regs": 64,
         "stack": 0, "spill_stores": 0, "spill_loads": 0, "smem": 0, "max_threads": 256,
         "min_blocks": None, "maxreg": 255, "instructions": 900, "ldl_stl": 0,
         "div64_calls": 0, "div64_helpers": [], "g16": 0, "load_bytes_before_butterfly": 64}
    k.update(kw)
    return k


def test_thresholds_on_given_figures():
    ev = lambda **kw: cs.evaluate(_figures(**kw), cs.manifest_for(_figures(**kw)["name"]))
    ok = ev()
    assert ok["enforced"] and ok["verdict"] == "PASS", ok["failed"]
    assert ok["warps_per_sm"] == 32 and ok["loads_in_flight"] == 1024 * 64
    assert ok["instructions_per_element"] == pytest.approx(900 / 16)
    assert ev(instructions=61 * 16)["failed"] == ["ipe"]                  # N = 1024: <= 60
    n4096 = "void reg_fft_kernel<4096, 16, float>(__half2 const*, __half2*)"
    assert ev(name=n4096, instructions=69 * 16)["verdict"] == "PASS"     # N = 4096: <= 70
    assert ev(name=n4096, instructions=71 * 16)["failed"] == ["ipe"]
    assert ev(regs=168)["failed"] == ["warps"]                           # 8 warps < 16
    assert ev(load_bytes_before_butterfly=4)["failed"] == ["inflight"]   # 4 KiB < 16
    assert "regs" in ev(min_blocks=4, regs=128)["failed"]               # 2 blocks fit, 4 asked
    assert ev(maxreg=32, regs=40)["failed"] == ["regs"]
    assert "ipe" not in ev(name="void reg_fft_kernel<300, 10, float>(float*)",
                           instructions=10 ** 5)["failed"]              # no limit for N = 300
    legacy = cs.evaluate(_figures(name="void block_kernel<float>(int)", stack=200),
                         cs.manifest_for("void block_kernel<float>(int)"))
    assert legacy["verdict"] == "not enforced (legacy)" and legacy["failed"] == ["stack"]
    forced = cs.evaluate(_figures(name="void block_kernel<float>(int)", stack=200),
                         cs.manifest_for("void block_kernel<float>(int)", ["block_kernel"]))
    assert forced["verdict"] == "FAIL"
    # float64: template arguments only (a double* parameter does not count)
    assert cs.is_float64("void ola_kernel<double, double>(double const*)")
    assert not cs.is_float64("void (anonymous namespace)::ola_kernel<float, float>("
                             "float const*, double const*, float*)")


def test_sass_parsing():
    sass = """
        Function : k
        /*0000*/                   LDG.E.U16 R2, desc[UR4][R2.64] ;    /* 0x0 */
        /*0010*/               @P0 LDG.E.128.CONSTANT R4, desc[UR4][R6.64] ;    /* 0x0 */
        /*0020*/                   HADD2.F32 R0, -RZ, R2.H0_H0 ;    /* 0x0 */
        /*0030*/                   STL.64 [R1], R4 ;    /* 0x0 */
        /*0040*/                   CALL.REL.NOINC 0x100 ;    /* 0x0 */
        /*0050*/                   FFMA R0, R0, R0, R1 ;    /* 0x0 */
        /*0060*/                   LDG.E.64 R8, desc[UR4][R6.64] ;    /* 0x0 */
        /*0070*/                   STG.E.U8 desc[UR4][R6.64], R0 ;    /* 0x0 */
        /*0080*/                   NOP ;    /* 0x0 */
        /*0100*/                   CALL.REL.NOINC `($__internal_1_$__cuda_sm20_rem_u64) ;
"""
    insns = cs.parse_sass(sass)["k"]
    f = cs.sass_figures(insns, [(0x100, 0x40, "$__internal_0_$__cuda_sm20_div_u64")])
    assert f["instructions"] == 9 and f["ldl_stl"] == 1 and f["div64_calls"] == 2
    assert f["g16"] == 2 and f["global_loads"] == 3
    assert f["load_bytes_before_butterfly"] == 2 + 16   # HADD2.F32 is no butterfly
