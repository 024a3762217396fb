"""Training-step time of a DCCRN-style model under complexext.autocast against
the same model written with complexext's explicit calls.

    python benchmarks/amp.py [--steps N] [--tiny-steps N] [--threads T ...]
                             [--configs tiny full] [--check]

The model is examples/dccrn.py's DCCRN, trained in complex32 two ways on
the same weights and the same data:
  explicit  api="complexext": complexext.stft, complexext.nn.ComplexConv2d,
            complexext.istft, ...; the complex64 parameters cast to complex32
            by hand through torch.func.functional_call (dccrn.run)
  autocast  api="torch": torch.stft, torch.nn.Conv2d with complex64 weights,
            torch.istft, ..., run under complexext.autocast("cpu")
            (dccrn.run_amp); the mode reroutes those calls to complexext in
            complex32 and computes the rest of the complex32 ops in fp32
Both models are built from one init_seed (complexext's initialisation from
its own generator) and the explicit one then loads the autocast one's state
dict, so the two start from identical complex64 weights.

A step: forward (dccrn.run / dccrn.run_amp), loss (dccrn.neg_si_snr, the
negative SI-SNR against the clean signal), zero_grad, backward, Adam step
(torch.optim.Adam at its defaults, one optimiser per model, no loss
scaling: a GradScaler would cost both the same). The data is
dccrn.speech_like + dccrn.add_noise from a fixed generator, made before the
timing; step i of both peers trains on batch i.

Configs: tiny  n_fft 64, hop 16, channels (4, 8), batch 4 x 4000 samples
         full  n_fft 512, hop 128, channels (16, 32, 64, 64) (the example's
               default), batch 4 x 16000 samples
each at 1 intra-op thread and at the machine's CPU count
(torch.set_num_threads), unless --threads says otherwise; fresh models for
every row.

Time: two warm-up steps of each peer (the first builds the FFT plans and
fills the caches), then N timed steps (--steps for full, --tiny-steps for
tiny), the peers alternating step by step (explicit first on even steps,
autocast first on odd ones, so neither always follows the other); the
median wall time of each is kept. ratio = autocast / explicit; the bound
is 1.10 (autocast at most 10% slower than writing the complexext calls
by hand). loss: -SI-SNR in dB of the first (warm-up) step of each peer,
where the weights are still identical: the two should agree to about
1e-2 dB (different op order, the same complex32 roundings).

Exit status 0; with --check, 1 when some ratio exceeds the bound. A timed
bound is too noisy for a test on a shared machine: --check is for a person
reading the table, not for CI.
"""
import argparse
import os
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="ComplexHalf support is experimental")

import torch  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples"))
import complexext  # noqa: E402,F401
import dccrn  # noqa: E402

BOUND = 1.10
BATCH = 4
CONFIGS = {
    "tiny": dict(model=dict(n_fft=64, hop=16, channels=(4, 8)), samples=4000),
    "full": dict(model=dict(n_fft=512, hop=128, channels=(16, 32, 64, 64)), samples=16000),
}
WARMUP = 2
INIT_SEED, DATA_SEED = 2, 1


def batches(n, samples, seed=DATA_SEED):
    """n (clean, noisy) batches from one fixed generator."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        clean = dccrn.speech_like(BATCH, samples, generator=g)
        out.append((clean, dccrn.add_noise(clean, generator=g)))
    return out


class Peer:
    """One model, its optimiser and its forward (dccrn.run or run_amp)."""

    def __init__(self, model, forward):
        self.model, self.forward = model, forward
        self.opt = torch.optim.Adam(model.parameters())
        self.times, self.losses = [], []

    def step(self, clean, noisy):
        t0 = time.perf_counter()
        loss = dccrn.neg_si_snr(self.forward(self.model, noisy, torch.complex32), clean)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        value = loss.item()
        self.times.append(time.perf_counter() - t0)
        self.losses.append(value)


def peers(cfg):
    autocast = dccrn.DCCRN(**cfg, api="torch", init_seed=INIT_SEED)
    explicit = dccrn.DCCRN(**cfg, api="complexext", init_seed=INIT_SEED)
    explicit.load_state_dict(autocast.state_dict())
    return {"explicit": Peer(explicit, dccrn.run), "autocast": Peer(autocast, dccrn.run_amp)}


def measure(name, threads, steps):
    """One row: median step times of both peers and their first-step losses."""
    torch.set_num_threads(threads)
    cfg = CONFIGS[name]
    data = batches(WARMUP + steps, cfg["samples"])
    p = peers(cfg["model"])
    order = ("explicit", "autocast")
    for i, (clean, noisy) in enumerate(data):
        for k in (order if i % 2 == 0 else order[::-1]):
            p[k].step(clean, noisy)
    ms = {k: 1e3 * statistics.median(v.times[WARMUP:]) for k, v in p.items()}
    first = {k: v.losses[0] for k, v in p.items()}
    return ms, first


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=15,
                    help="timed steps of each peer, full config (default 15)")
    ap.add_argument("--tiny-steps", type=int, default=100,
                    help="timed steps of each peer, tiny config (default 100)")
    ap.add_argument("--threads", type=int, nargs="+", default=None,
                    help="intra-op thread counts (default: 1 and the CPU count)")
    ap.add_argument("--configs", nargs="+", choices=list(CONFIGS), default=list(CONFIGS))
    ap.add_argument("--check", action="store_true",
                    help=f"exit status 1 when some autocast/explicit ratio exceeds {BOUND:.2f}")
    args = ap.parse_args(argv)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = args.threads or sorted({1, cpus or 1})
    steps = {"tiny": args.tiny_steps, "full": args.steps}
    la = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"DCCRN training step, complex32, batch {BATCH}, torch {torch.__version__}, "
          f"{cpus} CPUs, load average {la}")
    print(f"median of N steps after {WARMUP} warm-up steps each; the peers alternate step by "
          f"step; ratio = autocast / explicit, bound {BOUND:.2f}")
    print()
    print("| config | threads | N | explicit ms/step | autocast ms/step | autocast / explicit "
          "| bound | first loss explicit dB | first loss autocast dB | loss diff dB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    over = []
    start = time.perf_counter()
    for name in args.configs:
        for t in threads:
            ms, first = measure(name, t, steps[name])
            ratio = ms["autocast"] / ms["explicit"]
            if ratio > BOUND:
                over.append((name, t))
            diff = abs(first["autocast"] - first["explicit"])
            print(f"| {name} | {t} | {steps[name]} | {ms['explicit']:.2f} | "
                  f"{ms['autocast']:.2f} | {ratio:.3f} | <= {BOUND:.2f}"
                  f"{'' if ratio <= BOUND else ' (over)'} | {first['explicit']:.4f} | "
                  f"{first['autocast']:.4f} | {diff:.1e} |", flush=True)
    print()
    print(f"{time.perf_counter() - start:.0f} s; "
          + ("every ratio within the bound" if not over else
             "over the bound: " + ", ".join(f"{n} at {t} thread(s)" for n, t in over)))
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
