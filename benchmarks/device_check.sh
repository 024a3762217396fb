#!/usr/bin/env bash
# Everything that needs a CUDA GPU, in one command of under 8 minutes:
#
#   bash benchmarks/device_check.sh
#
# Stages, each timed and under its own `timeout` (a later stage runs even
# when an earlier one failed, except after a failed build; the exit status is
# non-zero if any failed):
#   setup      torch, numpy, scipy, pytest, hypothesis importable (pip
#              installs only what is missing; torch is never reinstalled)
#   build      COMPLEXEXT_CUDA=1 pip install --no-build-isolation -e .,
#              for this GPU's architecture only (TORCH_CUDA_ARCH_LIST), with
#              the CPU emulation of the register kernels at a few lengths
#              (COMPLEXEXT_REG_EMU_FEW=1: CI runs the whole of it; on the
#              device it only costs build minutes)
#   tests      tests/test_cuda_device.py, then pytest -m cuda over tests/
#              (the compile tests last)
#   bench      python benchmarks/gpu.py --write-conv-table (FFT,
#              convolution, STFT against torch; PASS/FAIL per target; a
#              missed target fails the stage; writes the convolution
#              method table from the run's times: csrc/conv_method_table.h,
#              or $OUT/conv_method_table.h when $OUT is set)
#   ncu        ncu --clock-control none on the register FFT kernels of
#              n = 1024 and 400 (DRAM throughput, sectors per request, bank
#              conflicts, achieved occupancy), printed after the emulation's
#              predictions for the same kernels (benchmarks/ncu_probe.py)
#   memcheck   compute-sanitizer --tool memcheck on a few small calls
#   racecheck  compute-sanitizer --tool racecheck on the FFT/STFT calls
#              (benchmarks/sanitize_cuda.sh)
# The whole run is held to DEVICE_CHECK_BUDGET seconds (default 470): a
# stage gets the smaller of its own limit and the time left, and is
# skipped (counted as failed) when under 15 s are left.
# The log goes to stdout and, when $OUT is set, to $OUT/device_check.log
# (the benchmark's table also to $OUT/gpu_bench.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

BUDGET=${DEVICE_CHECK_BUDGET:-470}
START=$SECONDS
PY=${PYTHON:-python}
declare -a SUMMARY=()
FAILED=0

# stage NAME LIMIT COMMAND...: run COMMAND under timeout, record the result.
stage() {
  local name=$1 limit=$2
  shift 2
  local left=$((BUDGET - (SECONDS - START)))
  if ((left < 15)); then
    SUMMARY+=("$(printf '%-10s SKIPPED  (time budget spent)' "$name")")
    FAILED=1
    return 0
  fi
  ((limit > left)) && limit=$left
  echo
  echo "=== $name (limit ${limit}s) ==="
  local t0=$SECONDS rc=0
  timeout --kill-after=10 "$limit" "$@" || rc=$?
  local took=$((SECONDS - t0)) verdict=ok
  if ((rc == 124 || rc == 137)); then
    verdict="TIMEOUT"
  elif ((rc != 0)); then
    verdict="FAILED (exit $rc)"
  fi
  [[ $verdict == ok ]] || FAILED=1
  SUMMARY+=("$(printf '%-10s %-16s %4ds' "$name" "$verdict" "$took")")
  echo "=== $name: $verdict in ${took}s"
}

setup() {
  if ! "$PY" -c 'import torch' 2>/dev/null; then
    echo "torch missing: pip install torch"
    "$PY" -m pip install -q torch
  fi
  local missing=()
  for m in numpy scipy pytest hypothesis; do
    "$PY" -c "import $m" 2>/dev/null || missing+=("$m")
  done
  if ((${#missing[@]})); then
    echo "pip install ${missing[*]}"
    "$PY" -m pip install -q "${missing[@]}"
  fi
  "$PY" - <<'EOF'
import torch
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
      f"device: {torch.cuda.get_device_name() if torch.cuda.is_available() else 'none'}")
if not torch.cuda.is_available():
    raise SystemExit("setup: torch sees no CUDA device")
EOF
  command -v nvcc || ls "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
}

build() {
  local arch
  arch=$("$PY" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())')
  echo "building for sm ${arch} with $(nproc) jobs"
  COMPLEXEXT_CUDA=1 COMPLEXEXT_REG_EMU_FEW=1 TORCH_CUDA_ARCH_LIST="$arch" MAX_JOBS=$(nproc) \
    "$PY" -m pip install --no-build-isolation -e . -q
  "$PY" -c 'import torch, complexext; print("built:", torch.ops.complexext.built_with())'
}

tests() {
  # In the order of what each tells: the binding's own device tests first
  # (tests/test_cuda_device.py), then every device-parametrised test on
  # cuda but the compile tests, then those (each compiles for seconds), so
  # that a stage cut by its limit loses the least. --durations says where
  # the time went, for the next run's limits.
  local rc=0 r=0 common=(-q -p no:cacheprovider --tb=short --durations=8)
  if [[ -f tests/test_cuda_device.py ]]; then
    "$PY" -m pytest "${common[@]}" tests/test_cuda_device.py || rc=$?
  else
    echo "no tests/test_cuda_device.py"
    rc=1
  fi
  "$PY" -m pytest "${common[@]}" -m cuda -k "not compile" \
    --ignore=tests/test_cuda_device.py tests || r=$?
  # exit 5: nothing collected
  ((r == 0 || r == 5)) || rc=$r
  r=0
  "$PY" -m pytest "${common[@]}" -m cuda -k compile --ignore=tests/test_cuda_device.py tests || r=$?
  ((r == 0 || r == 5)) || rc=$r
  return "$rc"
}

ncu_stage() {
  local ncu_bin
  ncu_bin=$(command -v ncu || ls "${CUDA_HOME:-/usr/local/cuda}"/bin/ncu 2>/dev/null || true)
  echo "-- predicted by the CPU emulation"
  "$PY" benchmarks/ncu_probe.py predict --n 1024 400
  if [[ -z "$ncu_bin" ]]; then
    echo "ncu not found"
    return 1
  fi
  echo "-- measured by ncu"
  "$ncu_bin" --clock-control none --kernel-name regex:reg_fft_kernel --launch-skip 0 \
    --launch-count 4 --csv --page raw --metrics \
dram__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
    "$PY" benchmarks/ncu_probe.py run --n 1024 400
}

# The built _C defines no copy of libstdc++'s stream code (the CUDA build's
# crash on error messages, docs/gpu.md).
so_check() {
  if [[ -f benchmarks/check_built_so.py ]]; then
    "$PY" benchmarks/check_built_so.py
  else
    echo "benchmarks/check_built_so.py missing"
    return 1
  fi
}

bench() {
  if [[ -n "${OUT:-}" ]]; then
    "$PY" benchmarks/gpu.py --write-conv-table "$OUT/conv_method_table.h" |
      tee "$OUT/gpu_bench.txt"
  else
    "$PY" benchmarks/gpu.py --write-conv-table
  fi
  # the complex32 product on the tensor cores against torch complex64
  # (target: 3 x at 4096^2), after the FFT table so that it cannot crowd it out
  "$PY" benchmarks/matmul.py --device cuda --sizes 1024 4096 --reps 3 || true
}

# `bash device_check.sh _stage NAME` runs one stage function (timeout runs
# commands, not functions).
if [[ ${1:-} == _stage ]]; then
  "$2"
  exit
fi

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/device_check.log") 2>&1
fi

SELF=benchmarks/device_check.sh
stage setup 60 bash "$SELF" _stage setup
stage build 240 bash "$SELF" _stage build
# Every later stage runs the built extension: after a failed build they are
# skipped (each would only fail on the import), so the run ends at once and
# the device time goes to the next try.
if [[ ${SUMMARY[-1]} == build*ok* ]]; then
  stage so-check 15 bash "$SELF" _stage so_check
  stage tests 90 bash "$SELF" _stage tests
  stage bench 90 bash "$SELF" _stage bench
  stage ncu 45 bash "$SELF" _stage ncu_stage
  stage memcheck 45 bash benchmarks/sanitize_cuda.sh memcheck
  stage racecheck 35 bash benchmarks/sanitize_cuda.sh racecheck
else
  for s in so-check tests bench ncu memcheck racecheck; do
    SUMMARY+=("$(printf '%-10s SKIPPED  (the build failed)' "$s")")
  done
fi

echo
echo "=== summary ($((SECONDS - START))s of ${BUDGET}s)"
printf '  %s\n' "${SUMMARY[@]}"
if ((FAILED)); then
  echo "device check: FAILED"
  exit 1
fi
echo "device check: all stages passed"
