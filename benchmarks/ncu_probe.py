"""The calls that `benchmarks/device_check.sh` profiles with ncu, and the
emulation's predictions to read beside ncu's figures.

    python benchmarks/ncu_probe.py run [--n 1024 400] [--mib 64]
        one batched complex32 c2c per n on the GPU (after a warm-up call),
        for ncu --kernel-name regex:reg_fft_kernel to profile
    python benchmarks/ncu_probe.py predict [--n 1024 400]
        what the CPU emulation of the same kernels counts (sectors per
        request, bank wavefronts per shared access, bytes per element),
        printed as the numbers ncu's metrics should come close to

ncu's metrics to compare (device_check.sh asks for these):
  dram__throughput.avg.pct_of_peak_sustained_elapsed   share of DRAM bandwidth
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum /
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum      sectors per load request
                                                        (prediction: 4 x the sector ratio
                                                        for 4-byte lanes)
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum   bank conflicts (prediction: the
                                                        wavefronts above the minimum)
  sm__warps_active.avg.pct_of_peak_sustained_active    achieved occupancy
"""
import argparse
import sys

import torch

import complexext  # noqa: F401


def run(args):
    if not torch.cuda.is_available():
        print("ncu_probe: no CUDA device", file=sys.stderr)
        return 2
    for n in args.n:
        rows = max(1, args.mib * 2 ** 20 // (4 * n))
        x = torch.randn(rows, n, dtype=torch.complex64, device="cuda").to(torch.complex32)
        torch.ops.complexext.fft_c2c(x, [1], 0, True)  # warm-up: tables, attributes
        torch.cuda.synchronize()
        torch.ops.complexext.fft_c2c(x, [1], 0, True)
        torch.cuda.synchronize()
        print(f"ncu_probe: n={n}, {rows} rows of complex32")
    return 0


def predict(args):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import cuda_emulation as ce

    print(f"{'n':>6} {'kernel':<22} {'sectors/request':>15} {'wavefronts/access':>17} "
          f"{'conflicts/access':>16} {'B/elem':>6}")
    for n in args.n:
        m = ce.measure(n, max(2, 8192 // n), False)
        print(f"{n:>6} {ce.kernel_name(n):<22} {4 * m['sectors']:>15.2f} "
              f"{2 * m['wavefronts']:>17.2f} {2 * (m['wavefronts'] - 1):>16.2f} {m['bytes']:>6.2f}")
    print("(per warp request of 4-byte lanes: 4 sectors at best; per 8-byte shared access: "
          "2 wavefronts at best)")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["run", "predict"])
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 400])
    ap.add_argument("--mib", type=int, default=64)
    args = ap.parse_args(argv)
    return run(args) if args.what == "run" else predict(args)


if __name__ == "__main__":
    sys.exit(main())
