"""Forking while another thread holds one of complexext's locks."""
import multiprocessing as mp
import threading
import time

import torch


def child_survives_held_lock(hold, child):
    """Holds a lock for 1.5 s in another thread with the test-only op hold
    (torch.ops.complexext._*_hold_lock), forks meanwhile, and runs
    child(queue) in the child with one torch thread (the tests are of the
    locks, not of OpenMP after fork). Returns what the child put on the
    queue; fails if the child hangs (the lock copied locked) or fails."""
    t = threading.Thread(target=hold, args=(1500,))
    t.start()
    try:
        time.sleep(0.3)
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        p = ctx.Process(target=_run, args=(child, q))
        p.start()
        p.join(timeout=60)
        if p.exitcode is None:
            p.kill()
        assert p.exitcode == 0, "child hung on the lock or failed"
        return q.get(timeout=10)
    finally:
        t.join(timeout=60)


def _run(child, q):
    torch.set_num_threads(1)
    child(q)
