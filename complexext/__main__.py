"""python -m complexext: the build, a self-check of every op, and a short
accuracy and speed table. Exits 1 when any check fails.

    python -m complexext            everything (about 8 s on 2 cores)
    python -m complexext --no-speed the build and the self-check only
    python -m complexext bench      the CPU benchmark report, docs/performance.md
                                    (source checkout; see bench --help)
"""
import argparse
import sys
import time


def parse(argv):
    p = argparse.ArgumentParser(
        prog="python -m complexext",
        description="Print the build, self-check every complexext op on each device against "
                    "float64 scipy.fft references, and print a complex32 accuracy/speed table.")
    p.add_argument("command", nargs="?",
                   help="bench: run the benchmarks and write docs/performance.md "
                        "(python -m complexext bench --help)")
    p.add_argument("--no-speed", action="store_true", help="skip the accuracy/speed table")
    p.add_argument("--seed", type=int, default=0, help="seed of the random test data")
    args = p.parse_args(argv)
    if args.command is not None:
        p.error(f"unknown command '{args.command}' (the one command is bench; see --help)")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        from complexext._tools.report import bench_main
        return bench_main(argv[1:])
    args = parse(argv)
    start = time.perf_counter()

    from complexext._tools import selfcheck as _selfcheck  # imports complexext: fails clearly on a bad build

    print("== build")
    for line in _selfcheck.build_lines():
        print(line)

    print("\n== self-check")
    ok = _selfcheck.run(seed=args.seed)
    from complexext._tools import selfcheck_ops as _selfcheck_ops
    ok = _selfcheck_ops.run(seed=args.seed) and ok

    if not args.no_speed:
        from complexext._tools import bench as _bench
        print("\n== complex32 accuracy and speed")
        _bench.table()

    print(f"\n{'ALL PASS' if ok else 'SOME CHECKS FAILED'}  "
          f"({time.perf_counter() - start:.1f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
