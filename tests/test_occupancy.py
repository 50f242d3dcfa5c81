"""Occupancy calculator: hand-worked cases, validation, and a cross-check against the
toolkit's own calculator (cuda_occupancy.h) compiled with g++ when it is present."""
from __future__ import annotations

import glob
import itertools
import shutil
import subprocess

import pytest

from kernelpro.profilers.occupancy import (
    ARCHS,
    UNLIMITED,
    arch_limits,
    best_block_sizes,
    normalize_arch,
    occupancy,
)

# Each case: (arch, threads, regs, smem) -> (blocks/SM, occupancy, limiter, next_regs, next_smem)
# Rules: regs/warp = round_up(regs*32, 256); warps/SM by regs = 4 * (16384 // regs/warp);
# smem/block = round_up(smem + reserved, unit), reserved 1 KB on cc >= 8.0 (0 on 7.5),
# unit 128 B (256 B on 7.5).
CASES = [
    # sm_90, 256 thr = 8 warps, 32 regs: 1024 regs/warp -> 16/partition -> 64 warps -> 8 blocks;
    # warps 64 // 8 = 8; cap 32; smem 233472 // 1024 = 228.  8 blocks = 64 warps = 100%.
    (("sm_90", 256, 32, 0), (8, 1.0, "block_size", None, None)),
    # sm_90, 256 thr, 64 regs: 2048/warp -> 8/partition -> 32 warps -> 4 blocks -> 50%.
    # 5 blocks need 40 warps = 10/partition -> <= 1638 regs/warp -> 1536 -> 48 regs/thread.
    (("sm_90", 256, 64, 0), (4, 0.5, "registers", 48, None)),
    # sm_90, 1024 thr = 32 warps, 33 regs: 1056 -> 1280/warp -> 12/partition -> 48 warps -> 1
    # block = 32 warps = 50%.  2 blocks need 16/partition -> 1024/warp -> 32 regs.
    (("sm_90", 1024, 33, 0), (1, 0.5, "registers", 32, None)),
    # sm_80, 256 thr, 32 regs, 48 KB: 49152 + 1024 = 50176 B/block; 167936 // 50176 = 3 blocks
    # = 24 of 64 warps = 37.5%.  4 blocks: 167936 // 4 = 41984 (= 328*128) - 1024 = 40960 B.
    (("sm_80", 256, 32, 48 * 1024), (3, 0.375, "shared_memory", None, 40960)),
    # sm_75 (32 warps, 64 KB), 128 thr = 4 warps, 64 regs -> 8 blocks by regs and warps;
    # 32 KB, no reserve, unit 256: 65536 // 32768 = 2 blocks = 8 of 32 warps = 25%.
    # 3 blocks: 65536 // 3 = 21845 -> 21760 (85*256).
    (("sm_75", 128, 64, 32 * 1024), (2, 0.25, "shared_memory", None, 21760)),
    # sm_75, 1024 thr, 32 regs: 32 warps // 32 warps = 1 block = 100%.
    (("sm_75", 1024, 32, 0), (1, 1.0, "block_size", None, None)),
    # sm_86 (48 warps, 16 blocks), 1024 thr: 48 // 32 = 1 block = 32 of 48 warps = 66.7%.
    (("sm_86", 1024, 32, 0), (1, 32 / 48, "block_size", None, None)),
    # sm_86, 512 thr = 16 warps, 32 regs: warps 48 // 16 = 3 blocks = 100% (regs allow 4).
    (("sm_86", 512, 32, 0), (3, 1.0, "block_size", None, None)),
    # sm_86, 64 thr = 2 warps, 16 regs: warps allow 24, cap 16 -> 32 of 48 warps = 66.7%.
    (("sm_86", 64, 16, 0), (16, 32 / 48, "blocks_per_sm", None, None)),
    # sm_90, 32 thr = 1 warp: cap 32 blocks = 32 of 64 warps = 50%.
    (("sm_90", 32, 32, 0), (32, 0.5, "blocks_per_sm", None, None)),
    # sm_90, 96 thr = 3 warps, 40 regs: 1280/warp -> 12/partition -> 48 warps -> 16 blocks =
    # 75% (a whole-SM count, 65536 // (1280*3) = 17, would be wrong).  At 32 regs:
    # 16/partition -> 64 warps -> 21 blocks (= the warp limit 64 // 3).
    (("sm_90", 96, 40, 0), (16, 0.75, "registers", 32, None)),
    # sm_90, 1024 thr, 72 regs: 2304/warp * 32 warps = 73728 > 65536 regs/block: cannot
    # launch -> 0.  64 regs: 2048 * 32 = 65536 fits, 8/partition -> 32 warps -> 1 block.
    (("sm_90", 1024, 72, 0), (0, 0.0, "registers", 64, None)),
    # sm_120 (48 warps), 768 thr = 24 warps, 40 regs: 12/partition -> 48 warps -> 2 blocks;
    # warps 48 // 24 = 2 -> 100%.
    (("sm_120", 768, 40, 0), (2, 1.0, "block_size", None, None)),
    # sm_90, 128 thr, 32 regs, 100 KB: 102400 + 1024 = 103424; 233472 // 103424 = 2 blocks
    # = 8 warps = 12.5%.  3 blocks: 233472 // 3 = 77824 (= 608*128) - 1024 = 76800 B.
    (("sm_90", 128, 32, 100 * 1024), (2, 0.125, "shared_memory", None, 76800)),
]


@pytest.mark.parametrize("args,expected", CASES, ids=[str(c[0]) for c in CASES])
def test_hand_worked_cases(args, expected):
    blocks, occ, limiter, next_regs, next_smem = expected
    o = occupancy(*args)
    assert o.blocks_per_sm == blocks
    assert o.occupancy == pytest.approx(occ)
    assert o.active_warps == blocks * -(-args[1] // 32)
    assert o.limiter == limiter
    assert o.next_registers == next_regs
    assert o.next_shared_bytes == next_smem


def test_next_values_deliver_more_blocks():
    o = occupancy("sm_90", 256, 64)
    assert occupancy("sm_90", 256, o.next_registers).blocks_per_sm == o.next_registers_blocks == 5
    assert occupancy("sm_90", 256, o.next_registers + 1).blocks_per_sm == 4
    s = occupancy("sm_80", 256, 32, 48 * 1024)
    assert occupancy("sm_80", 256, 32, s.next_shared_bytes).blocks_per_sm == 4
    assert occupancy("sm_80", 256, 32, s.next_shared_bytes + 1).blocks_per_sm == 3


@pytest.mark.parametrize("arch", ["sm_75", "sm_86", "sm_90", "sm_120"])
def test_next_values_match_brute_force(arch):
    for block, regs, smem in itertools.product((64, 96, 256, 640), (40, 72, 130), (0, 20000, 45000)):
        o = occupancy(arch, block, regs, smem)
        higher = [r for r in range(regs) if occupancy(arch, block, r, smem).blocks_per_sm > o.blocks_per_sm]
        assert o.next_registers == (max(higher) if higher else None)
        step = arch_limits(arch).shared_alloc_unit
        # candidates: just below each allocation boundary, and 0
        cands = {0} | {s for k in range(smem // step + 1) for s in (k * step, k * step - 1) if 0 <= s < smem}
        more = [s for s in cands if occupancy(arch, block, regs, s).blocks_per_sm > o.blocks_per_sm]
        assert o.next_shared_bytes == (max(more) if more else None)


def test_explain_names_limiter_and_fix():
    text = occupancy("sm_90", 256, 64).explain()
    assert text == ("50% occupancy (32 of 64 warps), limited by registers: 64 regs/thread allows "
                    "4 blocks of 256 threads; at most 48 regs/thread would allow 5")
    assert "shared memory: 48 KB/block allows 3 blocks" in occupancy("sm_80", 256, 32, 49152).explain()
    assert "at most 40 KB/block would allow 4" in occupancy("sm_80", 256, 32, 49152).explain()
    assert "blocks per SM" in occupancy("sm_90", 32, 32).explain()
    assert "exceed the 64K registers" in occupancy("sm_90", 1024, 72).explain()
    assert occupancy("sm_90", 256, 32).explain().startswith("100% occupancy (64 of 64 warps)")
    ev = {e.name: e.value for e in occupancy("sm_90", 256, 64).evidence()}
    assert ev["theoretical occupancy"] == 50.0 and ev["limiter"] == "registers"


def test_blocks_by_reports_each_resource():
    o = occupancy("sm_75", 256, 0)
    assert o.blocks_by == {"registers": UNLIMITED, "shared_memory": UNLIMITED,
                           "block_size": 4, "blocks_per_sm": 16}
    assert occupancy("sm_90", 256, 0).blocks_by["shared_memory"] == 228  # 1 KB reserved each


def test_arch_names():
    for name in ("sm_90a", "compute_90", "90", "9.0", " SM_90 "):
        assert normalize_arch(name) == "sm_90"
    for name in ("sm_100a", "sm_100f", "sm_103f", "sm_110f", "sm_120a", "sm_121f"):
        assert normalize_arch(name) == name[:-1]
    assert set(ARCHS) == {"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90",
                          "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"}
    for bad in ("sm_70", "sm_90f", "sm_89a", "hopper", ""):
        with pytest.raises(ValueError, match="known: sm_75, sm_80"):
            arch_limits(bad)
    assert arch_limits("sm_89").max_blocks_per_sm == 24
    assert arch_limits("sm_87").shared_per_sm == 164 * 1024
    assert arch_limits("sm_110").max_warps_per_sm == 48


def test_validation():
    with pytest.raises(ValueError, match="block_size 0"):
        occupancy("sm_90", 0, 32)
    with pytest.raises(ValueError, match="block_size 1025 .* 1 to 1024"):
        occupancy("sm_90", 1025, 32)
    with pytest.raises(ValueError, match="registers 256 .* 0 to 255"):
        occupancy("sm_90", 128, 256)
    with pytest.raises(ValueError, match="registers -1"):
        occupancy("sm_90", 128, -1)
    with pytest.raises(ValueError, match=r"shared_bytes 232449 .*\(227 KB"):
        occupancy("sm_90", 128, 32, 227 * 1024 + 1)
    with pytest.raises(ValueError, match="shared_bytes 101377"):
        occupancy("sm_86", 128, 32, 99 * 1024 + 1)
    with pytest.raises(ValueError, match="must be an integer"):
        occupancy("sm_90", 128.0, 32)
    assert occupancy("sm_90", 128, 32, 227 * 1024).blocks_per_sm == 1
    assert occupancy("sm_75", 128, 32, 64 * 1024).blocks_per_sm == 1


def test_best_block_sizes():
    # sm_86, 32 regs: occupancy = warps * min(48 // warps, 16) / 48; 100% for
    # 128, 192, 256, 384, 512, 768 threads; ties go to the larger block.
    ranked = best_block_sizes("sm_86", 32)
    assert ranked[0] == (768, 1.0)
    assert [b for b, occ in ranked if occ == 1.0] == [768, 512, 384, 256, 192, 128]
    assert dict(ranked)[1024] == pytest.approx(32 / 48)
    occs = [occ for _, occ in ranked]
    assert occs == sorted(occs, reverse=True)
    assert best_block_sizes("sm_90", 64, candidates=(128, 256)) == [(256, 0.5), (128, 0.5)]


# --- cross-check against cuda_occupancy.h -----------------------------------------------

HEADER = sorted(glob.glob("/usr/local/cuda*/include/cuda_occupancy.h"))

HARNESS = r"""
#include <cstdio>
#include <cuda_occupancy.h>
int main() {
    int major, minor, tpsm, blocks, regs;
    long smem_sm, optin, reserved, smem;
    while (scanf("%d %d %d %ld %ld %ld %d %d %ld", &major, &minor, &tpsm, &smem_sm, &optin,
                 &reserved, &blocks, &regs, &smem) == 9) {
        cudaOccDeviceProp p;
        p.computeMajor = major; p.computeMinor = minor;
        p.maxThreadsPerBlock = 1024; p.maxThreadsPerMultiprocessor = tpsm;
        p.regsPerBlock = 65536; p.regsPerMultiprocessor = 65536; p.warpSize = 32;
        p.sharedMemPerBlock = 48 * 1024; p.sharedMemPerMultiprocessor = smem_sm;
        p.numSms = 1; p.sharedMemPerBlockOptin = optin; p.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes a;
        a.maxThreadsPerBlock = 1024; a.numRegs = regs; a.sharedSizeBytes = 0;
        a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        a.maxDynamicSharedSizeBytes = optin; a.numBlockBarriers = 1; a.virtualResourceCount = 0;
        cudaOccDeviceState s;
        cudaOccResult r;
        int err = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, blocks, smem);
        printf("%d %d %u %d %d %d %d\n", err, r.activeBlocksPerMultiprocessor, r.limitingFactors,
               r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitWarps, r.blockLimitBlocks);
    }
}
"""

FLAGS = {"block_size": 0x01, "registers": 0x02, "shared_memory": 0x04, "blocks_per_sm": 0x08}


@pytest.mark.skipif(not HEADER or not shutil.which("g++"), reason="cuda_occupancy.h or g++ absent")
def test_matches_cuda_occupancy_h(tmp_path):
    src = tmp_path / "occ.cpp"
    src.write_text(HARNESS)
    exe = tmp_path / "occ"
    include = HEADER[-1].rsplit("/", 1)[0]
    subprocess.run(["g++", "-O1", "-I", include, str(src), "-o", str(exe)], check=True)

    blocks = (32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 992, 1024)
    regs = (0, 16, 24, 32, 33, 40, 48, 56, 64, 65, 72, 80, 96, 128, 168, 200, 255)
    grid, lines = [], []
    for name, lim in ARCHS.items():
        cc = int(name[3:])
        major, minor = divmod(cc, 10)
        smems = (0, 1, 1000, 4096, 12288, 32768, 49152, 65536, 100000,
                 lim.max_shared_per_block - 1, lim.max_shared_per_block)
        for b, r, s in itertools.product(blocks, regs, smems):
            if s > lim.max_shared_per_block:
                continue
            grid.append((name, b, r, s))
            lines.append(f"{major} {minor} {lim.max_threads_per_sm} {lim.shared_per_sm} "
                         f"{lim.max_shared_per_block} {lim.reserved_shared_per_block} {b} {r} {s}")
    out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert len(grid) > 20000 and len(out) == len(grid)
    for case, line in zip(grid, out, strict=True):
        err, active, flags, lregs, lsmem, lwarps, lblocks = map(int, line.split())
        o = occupancy(*case)
        assert err == 0, case
        assert o.blocks_per_sm == active, case
        assert o.blocks_by == {"registers": lregs, "shared_memory": lsmem,
                               "block_size": lwarps, "blocks_per_sm": lblocks}, case
        assert flags & FLAGS[o.limiter], (case, o.limiter, flags)


# --- cross-check against the driver on a real GPU ---------------------------------------

GPU_SOURCE = r"""
#include <cstdio>
#include <cuda_runtime.h>
// N values carried in registers; ptxas picks the count, cudaFuncGetAttributes reports it
template <int N> __global__ void k(float* out, float x, int iters) {
    extern __shared__ float sm[];
    float a[N];
#pragma unroll
    for (int i = 0; i < N; i++) a[i] = x * (i + 1) + threadIdx.x;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int i = 0; i < N; i++) a[i] = a[i] * a[(i + 1) % N] + 1.0f;
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < N; i++) s += a[i];
    out[threadIdx.x] = s + sm[threadIdx.x % 4];
}
template <int N> void run(const cudaDeviceProp& p) {
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, k<N>);
    cudaFuncSetAttribute(k<N>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         (int)p.sharedMemPerBlockOptin - (int)a.sharedSizeBytes);
    const int blocks[] = {32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024};
    const int smems[] = {0, 1, 1000, 12288, 49152, 65536, 100000, 150000, 232448};
    for (int b : blocks)
        for (int s : smems) {
            if (s + a.sharedSizeBytes > p.sharedMemPerBlockOptin) continue;
            int n = -1;
            cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k<N>, b, s);
            printf("occ %d %d %d %d %d %d\n", a.numRegs, (int)a.sharedSizeBytes, b, s, n, (int)e);
        }
}
int main() {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 3;
    printf("dev %d %d %d %d %zu %zu %zu %d\n", p.major, p.minor, p.maxThreadsPerMultiProcessor,
           p.maxBlocksPerMultiProcessor, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin,
           p.reservedSharedMemPerBlock, p.regsPerMultiprocessor);
    run<1>(p); run<8>(p); run<16>(p); run<28>(p); run<40>(p); run<56>(p);
    run<72>(p); run<96>(p); run<128>(p); run<160>(p); run<200>(p); run<240>(p);
}
"""


def _gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi or not shutil.which("nvcc"):
        return False
    return subprocess.run([smi, "-L"], capture_output=True).returncode == 0


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu_present(), reason="needs an NVIDIA GPU, nvidia-smi and nvcc")
def test_matches_driver_on_this_gpu(tmp_path):
    src = tmp_path / "occ_gpu.cu"
    src.write_text(GPU_SOURCE)
    exe = tmp_path / "occ_gpu"
    subprocess.run(["nvcc", "-O3", "-arch=native", str(src), "-o", str(exe)], check=True,
                   capture_output=True, timeout=240)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    lines = [ln.split() for ln in out.splitlines()]
    major, minor, tpsm, bpsm, smem_sm, optin, reserved, regs_sm = map(int, lines[0][1:])
    lim = arch_limits(f"sm_{major}{minor}")
    assert (lim.max_threads_per_sm, lim.max_blocks_per_sm, lim.shared_per_sm,
            lim.max_shared_per_block, lim.reserved_shared_per_block, lim.registers_per_sm) == (
        tpsm, bpsm, smem_sm, optin, reserved, regs_sm)
    seen_regs, checked = set(), 0
    for row in lines[1:]:
        regs, static, block, dyn, active, err = map(int, row[1:])
        assert err == 0, row
        assert occupancy(lim.arch, block, regs, static + dyn).blocks_per_sm == active, row
        seen_regs.add(regs)
        checked += 1
    assert checked > 500 and len(seen_regs) >= 6
