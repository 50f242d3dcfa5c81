"""The timing's L2 flush (runner.l2_flusher): its PTX assembles for the GPUs the product supports
(ptxas, no GPU needed), and on a GPU it leaves L2 cold and clean: a read of a quarter of the L2 after
it runs at DRAM speed (slower than from a warm L2), and after a memset flush, whose dirty lines the
read must write back, it is slower still."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from kernelpro.profilers.runtime.runner import L2_READ_PTX


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90"])
def test_flush_kernel_assembles_and_stores_only_behind_its_guard(tmp_path, arch):
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("no ptxas on PATH")
    src = tmp_path / "flush.ptx"
    src.write_text(L2_READ_PTX)
    res = subprocess.run([ptxas, f"-arch={arch}", str(src), "-o", str(tmp_path / "flush.cubin")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    body = L2_READ_PTX.split("{", 1)[1]
    assert body.count("ld.global") == 1 and body.count("st.global") == 1
    # the only store is after the guard that a zeroed buffer never passes
    assert body.index("setp.ne.s32 %p3") < body.index("@%p3 bra DONE") < body.index("st.global")


def _median_us(drv, fn, before, reps=21):
    times = []
    for _ in range(reps):
        before()
        a, b = drv.Event(), drv.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(b.time_since(a) * 1e3)
    return sorted(times)[reps // 2]


@pytest.mark.gpu
def test_flush_leaves_l2_cold_and_clean():
    from kernelpro.profilers.runtime.measure import gpu_problem

    problem = gpu_problem()
    if problem:
        pytest.skip(f"no GPU: {problem}")
    import numpy as np

    from kernelpro.profilers.runtime import runner

    dev = runner.ensure_context(0)
    drv = runner._drv()
    flush = runner.l2_flusher(dev)
    read = drv.module_from_buffer(L2_READ_PTX.encode()).get_function("kp_l2_read")  # the probe: the same reader
    grid = 4 * dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    l2 = dev.get_attribute(drv.device_attribute.L2_CACHE_SIZE)
    words = l2 // 4 // 16  # a quarter of the L2: warm, it is all hits
    probe = drv.mem_alloc(words * 16)
    sink = drv.mem_alloc(4)
    drv.memset_d32(probe, 0, words * 4)
    dirty_words = l2 // 2  # 2x L2 in 32-bit words
    dirty = drv.mem_alloc(dirty_words * 4)

    def probe_read():
        read(probe, np.uint64(words), sink, block=(256, 1, 1), grid=(grid, 1))

    # the same busy time before each (the flush, then what differs), so the clocks are alike
    warm = _median_us(drv, probe_read, lambda: (flush(), probe_read()))  # the probe's lines in L2
    cold = _median_us(drv, probe_read, lambda: (probe_read(), flush()))  # L2 clean, without them
    after_memset = _median_us(drv, probe_read, lambda: (flush(), drv.memset_d32_async(dirty, 0, dirty_words, None)))
    print(f"read of {words * 16 >> 20} MB: warm L2 {warm:.1f} us, after the flush {cold:.1f} us, "
          f"after a memset {after_memset:.1f} us")
    for a in (probe, sink, dirty):
        a.free()
    assert cold > 1.1 * warm
    assert after_memset > 1.1 * cold
