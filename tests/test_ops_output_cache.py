# CPU only: the CPU output cache (complexext.backends.output_cache).
"""complexext.backends.output_cache: freed CPU outputs of >= 1 MiB are reused
instead of fresh pages; bounded in bytes; clearable; the tensors are ordinary
resizable CPU tensors; safe under threads."""
import concurrent.futures as cf_threads
import resource

import pytest
import torch

import complexext
import complexext.fft as cf
from complexext.backends import output_cache
from support.fork import child_survives_held_lock

MiB = 1 << 20


@pytest.fixture(autouse=True)
def fresh_cache():
    old = output_cache.max_size
    output_cache.clear()
    yield
    output_cache.max_size = old
    output_cache.clear()


def big(rows=512, n=1024, seed=0):
    """A complex64 input whose fft output is 4 MiB."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(rows, n, dtype=torch.complex64, generator=g)


def test_controls():
    assert complexext.backends.output_cache is output_cache
    assert output_cache.max_size == 64 * MiB
    assert output_cache.size == 0
    assert "OutputCache(size=0" in repr(output_cache)
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="output_cache.max_size must be an int >= 0"):
            output_cache.max_size = bad


def test_freed_output_is_reused_without_page_faults():
    x = big()
    for _ in range(5):  # plans, and every thread's scratch (threads take work dynamically)
        cf.fft(x)
    y = cf.fft(x)
    ptr = y.data_ptr()
    del y
    assert output_cache.size == 4 * MiB
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    y = cf.fft(x)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert y.data_ptr() == ptr
    assert output_cache.size == 0
    # a fresh 4 MiB would take ~1024 faults in 4 KiB pages (or 2 huge pages)
    assert faults < 64, faults
    torch.testing.assert_close(y, torch.fft.fft(x), rtol=1e-5, atol=1e-4)


def test_reused_memory_gives_correct_results():
    # the kernel must write every element: stale data from an earlier
    # result must not show through
    for seed in range(3):
        x = big(seed=seed)
        torch.testing.assert_close(cf.fft(x), torch.fft.fft(x), rtol=1e-5, atol=1e-4)
        r = torch.randn(600, 1000, generator=torch.Generator().manual_seed(seed))
        torch.testing.assert_close(cf.rfft(r), torch.fft.rfft(r), rtol=1e-5, atol=1e-4)


def test_small_outputs_are_not_cached():
    y = cf.fft(torch.randn(16, 64, dtype=torch.complex64))
    del y
    assert output_cache.size == 0


def test_bounded_and_clear():
    output_cache.max_size = 6 * MiB
    a, b = cf.fft(big(seed=1)), cf.fft(big(seed=2))
    del a, b  # 8 MiB freed: the older block goes
    assert output_cache.size == 4 * MiB
    output_cache.max_size = 0
    assert output_cache.size == 0
    y = cf.fft(big())
    del y
    assert output_cache.size == 0
    output_cache.max_size = 64 * MiB
    y = cf.fft(big())
    del y
    assert output_cache.size == 4 * MiB
    output_cache.clear()
    assert output_cache.size == 0


def test_outputs_are_ordinary_tensors():
    y = cf.fft(big())
    assert y.device.type == "cpu" and y.is_contiguous()
    keep = y.clone()
    y.resize_(1024, 1024)  # grows through the allocator: data kept, storage new
    torch.testing.assert_close(y[:512], keep)
    y.resize_(3)
    assert y.shape == (3,)
    assert y.untyped_storage().nbytes() >= 8 * MiB
    del y
    z = cf.fft(big())
    torch.testing.assert_close(z, torch.fft.fft(big()), rtol=1e-5, atol=1e-4)
    # views keep the block alive: it returns to the cache only with the last one
    held = output_cache.size  # y's grown block, freed with y
    v = z[10:20]
    del z
    assert output_cache.size == held
    del v
    assert output_cache.size == held + 4 * MiB


def test_stft_outputs_and_istft_buffers_use_it():
    x = torch.randn(8, 64000).half()
    w = torch.hann_window(512)
    S = complexext.stft(x, 512, 128, window=w, return_complex=True)
    y = complexext.istft(S, 512, 128, window=w, length=64000)
    assert output_cache.size > 0  # istft's frame buffer, freed inside the call
    ptr = S.data_ptr()
    del S
    S2 = complexext.stft(x, 512, 128, window=w, return_complex=True)
    assert S2.data_ptr() == ptr
    ref = torch.stft(x.double(), 512, 128, window=w.double(), return_complex=True)
    err = (S2.to(torch.complex128) - ref).abs().pow(2).sum().sqrt() / ref.abs().pow(2).sum().sqrt()
    assert err < 1e-3
    assert y.shape == (8, 64000)


def test_threads_share_it_safely():
    xs = [big(seed=s) for s in range(4)]
    refs = [torch.fft.fft(x) for x in xs]

    def work(i):
        for _ in range(25):
            for x, r in zip(xs, refs):
                torch.testing.assert_close(cf.fft(x), r, rtol=1e-5, atol=1e-4)
            if i == 0:
                output_cache.clear()
            if i == 1:
                output_cache.max_size = 8 * MiB if output_cache.max_size != 8 * MiB else 64 * MiB
        return True

    with cf_threads.ThreadPoolExecutor(6) as ex:
        assert all(f.result(timeout=300) for f in [ex.submit(work, i) for i in range(6)])
    assert output_cache.size <= output_cache.max_size


def _child_fft(q):
    x = big(seed=5)
    y = cf.fft(x)
    del y
    y = cf.fft(x)  # through the cache inherited from the parent
    q.put(bool(torch.allclose(y, torch.fft.fft(x), rtol=1e-5, atol=1e-4)))


def test_fork_while_another_thread_holds_the_lock():
    # A fork while another thread holds the cache's lock (here for 1.5 s, by
    # a test-only op) must give a child whose cache works: the lock is taken
    # around fork, so fork waits for it instead of copying it locked.
    assert child_survives_held_lock(torch.ops.complexext._output_cache_hold_lock, _child_fft)


def test_convolution_and_product_scratch_use_it():
    """complex32 convolution's output and its packed real input, and the
    matrix product's scratch (fp32 planes and partial products), come from
    the cache: a repeated call reuses them with no fresh pages."""
    import complexext.nn.functional as CF
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 8, 64, 256, dtype=torch.complex64, generator=g).to(torch.complex32)
    w = torch.randn(8, 8, 3, 3, dtype=torch.complex64, generator=g).to(torch.complex32)
    y = CF.conv2d(x, w, padding=1)
    assert output_cache.size >= 2 * MiB  # the packed input (fp32 planes), freed in the call
    ptr = y.data_ptr()
    del y
    y = CF.conv2d(x, w, padding=1)
    assert y.data_ptr() == ptr
    ref = torch.nn.functional.conv2d(x.to(torch.complex128), w.to(torch.complex128), padding=1)
    err = (y.to(torch.complex128) - ref).norm() / ref.norm()
    assert err < 1e-3

    output_cache.clear()
    a = torch.randn(256, 256, dtype=torch.complex64, generator=g).to(torch.complex32)
    b = torch.randn(256, 256, dtype=torch.complex64, generator=g).to(torch.complex32)
    p = complexext.matmul(a, b)
    held = output_cache.size
    assert held >= 2 * MiB  # 6 planes and 3 products of 256 KiB, freed in the call
    for _ in range(3):  # each call takes that block back: no second one is mapped
        p2 = complexext.matmul(a, b)
        assert output_cache.size == held
    assert torch.equal(p2.view(torch.int32), p.view(torch.int32))
