#!/usr/bin/env bash
# compute-sanitizer over a few small complexext calls on a CUDA device:
#
#   bash benchmarks/sanitize_cuda.sh memcheck    FFT, STFT/ISTFT, convolution
#                                                (forward, backward, every method)
#   bash benchmarks/sanitize_cuda.sh racecheck   FFT and STFT/ISTFT only: the
#                                                shared-memory kernels are
#                                                complexext's; the convolutions
#                                                are cuDNN's
#
# Sizes are small (the tools slow kernels down by orders of magnitude) but
# reach each FFT path: a power of two, 3*5*... smooth lengths, a prime
# (Bluestein), several rows per block, real transforms, complex32 and
# complex64. PYTORCH_NO_CUDA_MEMORY_CACHING=1 gives every tensor its own
# allocation, so an access past its end is an error rather than a read of a
# neighbour in torch's pool. Prints the tool's ERROR SUMMARY; exit status
# non-zero on any error, a failed call or a missing compute-sanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOL=${1:-memcheck}
case "$TOOL" in
  memcheck) PART=all ;;
  racecheck) PART=fft ;;
  *) echo "sanitize_cuda.sh: expected memcheck or racecheck, got '$TOOL'" >&2; exit 2 ;;
esac

SAN=$(command -v compute-sanitizer || true)
if [[ -z "$SAN" ]]; then
  for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [[ -n "$d" && -x "$d/bin/compute-sanitizer" ]]; then SAN="$d/bin/compute-sanitizer"; fi
  done
fi
if [[ -z "$SAN" ]]; then
  echo "sanitize_cuda.sh: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)"
  exit 1
fi

PROG=$(mktemp "${TMPDIR:-/tmp}/cx_sanitize.XXXXXX.py")
LOG=$(mktemp "${TMPDIR:-/tmp}/cx_sanitize.XXXXXX.log")
trap 'rm -f "$PROG" "$LOG"' EXIT
cat > "$PROG" <<'EOF'
import sys
import warnings

warnings.filterwarnings("ignore")
import torch

import complexext
import complexext.nn.functional as CF

part, dev = sys.argv[1], "cuda"
g = torch.Generator(device=dev).manual_seed(0)


def randc(*shape, dtype=torch.complex32):
    re, im = (torch.randn(*shape, generator=g, device=dev) for _ in range(2))
    return torch.complex(re, im).to(dtype)


calls = 0
for dtype in (torch.complex32, torch.complex64):
    real = torch.float16 if dtype == torch.complex32 else torch.float32
    for n in (256, 400, 4099):
        x = randc(3, n, dtype=dtype)
        complexext.fft.ifft(complexext.fft.fft(x), norm="ortho")
        r = x.real.to(real).contiguous()
        complexext.fft.irfft(complexext.fft.rfft(r), n=n)
        calls += 4
    complexext.fft.fft2(randc(2, 24, 40, dtype=dtype))
    s = torch.randn(2, 4000, generator=g, device=dev).to(real)
    w = torch.hann_window(400, device=dev)
    X = complexext.stft(s, 400, 160, window=w, return_complex=True)
    complexext.istft(X, 400, 160, window=w, length=4000)
    calls += 3
    if part != "all":
        continue
    x = randc(2, 6, 9, 11, dtype=dtype).requires_grad_()
    wt = (randc(4, 6, 3, 2, dtype=torch.complex64) / 6).to(dtype).requires_grad_()
    b = randc(4, dtype=dtype).requires_grad_()
    y = CF.conv2d(x, wt, b, stride=(2, 1), padding=(1, 1))
    torch.view_as_real(y).float().sum().backward()
    CF.conv_transpose1d(randc(2, 6, 17, dtype=dtype), randc(6, 4, 3, dtype=dtype), stride=2)
    calls += 3
    args = ([1, 1], [1, 0], [1, 2], False, [0, 0], 2)
    for m in ("rows", "rows32", "wide", "wide32", "gauss"):
        torch.ops.complexext._conv_real_layout(x.detach(), wt.detach()[:, :3], b.detach(), *args, m)
        calls += 1
torch.cuda.synchronize()
print(f"sanitize: {calls} calls ({part}) done")
EOF

echo "$SAN --tool $TOOL on $PART"
rc=0
PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$SAN" --tool "$TOOL" --error-exitcode 3 --print-limit 20 \
  "${PYTHON:-python}" "$PROG" "$PART" > "$LOG" 2>&1 || rc=$?
tail -n 40 "$LOG"
echo "--- $TOOL summary: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG" | tail -n 1 || echo 'no summary line') (exit $rc)"
exit "$rc"
