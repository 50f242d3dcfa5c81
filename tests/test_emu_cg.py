"""The CPU emulator's cooperative groups and atomics (tests/emu/kp_emu.h, tests/emu/include/
cooperative_groups.h and cooperative_groups/reduce.h): kernels written as people write them (a block
reduction with cg::reduce over tiled_partition<32>, a shared-memory tree synchronised through
cg::thread_block, histograms with global and per-block bins, atomicMax/atomicCAS loops, a float max
through atomicCAS on the float's bits, warp-aggregated atomics with a ballot and __popc, tiles of 8
whose branches differ), run at sizes one off a block or a warp against numpy with exact integer
results. Every kernel also compiles with nvcc against CUDA's own headers, and what the emulator
refuses (a grid-wide sync, coalesced_threads, tiles over 32 threads, __activemask) or what CUDA
rejects (a reduce over a whole block, a 64-bit signed atomicAdd) fails to compile with a message
that says so, in the emulator and, where CUDA rejects it, in nvcc too. The emulator's two ways of
running a block (fibers, the default, and an OS thread per CUDA thread) give the same integers, and
lanes waiting for lanes that never come stop the run with a message saying which wait where."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
from emu_run import Batch, EmulationError, emulate

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ for the emulator")

HEAD = ("#include <climits>\n#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
        "namespace cg = cooperative_groups;\n")

KERNELS = {
    # a grid-stride sum, cg::reduce per warp, the warp sums through shared memory, cg::reduce again
    # by the first warp; the block's sum out and into a 64-bit total; the same for min and xor
    "warp_reduce": HEAD + r"""
__global__ void block_reduce(const int* __restrict__ in, int* __restrict__ block_sum, int* __restrict__ block_min,
                             unsigned* __restrict__ block_xor, unsigned long long* total, int n) {
  __shared__ int sums[32];
  __shared__ int mins[32];
  __shared__ unsigned xors[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int s = 0, m = INT_MAX;
  unsigned x = 0;
  for (int i = block.group_index().x * block.size() + block.thread_rank(); i < n; i += block.size() * gridDim.x) {
    s += in[i];
    m = min(m, in[i]);
    x ^= (unsigned)in[i] * 2654435761u;
  }
  s = cg::reduce(warp, s, cg::plus<int>());
  m = cg::reduce(warp, m, cg::less<int>());
  x = cg::reduce(warp, x, cg::bit_xor<unsigned>());
  if (warp.thread_rank() == 0) {
    sums[warp.meta_group_rank()] = s;
    mins[warp.meta_group_rank()] = m;
    xors[warp.meta_group_rank()] = x;
  }
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const bool mine = warp.thread_rank() < warp.meta_group_size();
    s = cg::reduce(warp, mine ? sums[warp.thread_rank()] : 0, cg::plus<int>());
    m = cg::reduce(warp, mine ? mins[warp.thread_rank()] : INT_MAX, cg::less<int>());
    x = cg::reduce(warp, mine ? xors[warp.thread_rank()] : 0u, cg::bit_xor<unsigned>());
    if (warp.thread_rank() == 0) {
      block_sum[blockIdx.x] = s;
      block_min[blockIdx.x] = m;
      block_xor[blockIdx.x] = x;
      atomicAdd(total, (unsigned long long)s);
    }
  }
}
""",
    # a float sum with cg::reduce over a tile passed to a helper as thread_block_tile<32> (no
    # parent), and the max with cg::greater, one atomicMax per block on the max's bits (>= 0)
    "float_reduce": HEAD + r"""
__device__ float warp_sum(cg::thread_block_tile<32> w, float v) { return cg::reduce(w, v, cg::plus<float>()); }
__global__ void row_sum_max(const float* __restrict__ x, float* __restrict__ row_sum, int* row_max_bits, int cols) {
  __shared__ float part[32];
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  const float* row = x + (size_t)blockIdx.x * cols;
  float s = 0.0f, m = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    s += row[c];
    m = fmaxf(m, row[c]);
  }
  s = warp_sum(warp, s);
  m = cg::reduce(warp, m, cg::greater<float>());
  if (warp.thread_rank() == 0) {
    part[warp.meta_group_rank()] = s;
    atomicMax(row_max_bits + blockIdx.x, __float_as_int(m));
  }
  cg::sync(block);
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) t += part[w];
    row_sum[blockIdx.x] = t;
  }
}
""",
    # the textbook tree in shared memory, synchronised with cg::sync(cta) and cta.sync(), over a 2-D
    # block (thread_rank linearises threadIdx x fastest), with the block's indices written out
    "tree": HEAD + r"""
__global__ void tree_sum_sq(const int* __restrict__ in, unsigned long long* __restrict__ out, int* __restrict__ ranks,
                            int n) {
  extern __shared__ unsigned long long partial[];
  cg::thread_block cta = cg::this_thread_block();
  const unsigned t = cta.thread_rank();
  const unsigned nt = cta.num_threads();
  const dim3 ti = cta.thread_index(), bd = cta.dim_threads(), bi = cta.group_index();
  const unsigned block = bi.y * gridDim.x + bi.x;
  ranks[block * nt + ti.y * bd.x + ti.x] = (int)t;
  unsigned long long acc = 0;
  for (unsigned i = block * nt + t; i < (unsigned)n; i += nt * gridDim.x * gridDim.y)
    acc += (unsigned long long)((long long)in[i] * in[i]);
  partial[t] = acc;
  cg::sync(cta);
  for (unsigned s = nt / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    cta.sync();
  }
  if (t == 0) out[block] = partial[0];
}
""",
    # a histogram straight into global bins, and one through per-block bins in shared memory
    "histogram": r"""
__global__ void histogram_global(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % nbins], 1u);
}
__global__ void histogram_private(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n, int nbins) {
  extern __shared__ unsigned local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % nbins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
""",
    # a float max through atomicCAS on its bits (any sign), an argmax packed into 64 bits with
    # atomicMax, and the other integer atomics each in a form that gives an exact result
    "cas": r"""
__device__ float atomic_max_float(float* addr, float value) {
  int* a = (int*)addr;
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(a, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void maxes(const float* __restrict__ x, const int* __restrict__ v, float* fmax, unsigned long long* argmax,
                      int* imin, int* imax, unsigned* umin, unsigned long long* ullmax, long long* llmin, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomic_max_float(fmax, x[i]);
  // the float's order as unsigned bits (flip the negatives), the lowest index among equals wins
  unsigned key = __float_as_uint(x[i]);
  key = (key & 0x80000000u) ? ~key : key | 0x80000000u;
  atomicMax(argmax, ((unsigned long long)key << 32) | (0xffffffffu - (unsigned)i));
  atomicMin(imin, v[i]);
  atomicMax(imax, v[i]);
  atomicMin(umin, (unsigned)v[i]);
  atomicMax(ullmax, (unsigned long long)(long long)v[i]);
  atomicMin(llmin, (long long)v[i] * 1000000007LL);
}
__global__ void counters(unsigned* ring, unsigned* down, int* sub, unsigned long long* bits_or,
                         unsigned long long* bits_and, unsigned* bits_xor, int* exch_seen, float* fsum, double* dsum,
                         unsigned* slots, unsigned ring_size, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicInc(ring, ring_size - 1);   // counts modulo ring_size
  atomicDec(down, ring_size - 1);   // from 0 wraps to ring_size - 1, then down
  atomicSub(sub, i);
  atomicOr(bits_or, 1ull << (i % 64));
  atomicAnd(bits_and, ~(1ull << ((i * 7) % 64)));
  atomicXor(bits_xor, 1u << (i % 32));
  // each old value seen exactly once: the exchanged values form a chain through every thread
  const int prev = atomicExch(exch_seen + n, i);
  atomicAdd(exch_seen + (prev < 0 ? n + 1 : prev), 1);
  atomicAdd(fsum, 1.0f);
  atomicAdd(dsum, 0.5);
  // a slot claimed by atomicCAS from 0 (by the first 97 threads): each takes a distinct one
  if (i < 97)
    for (unsigned s = (unsigned)i * 5u % 97u;; s = (s + 1) % 97u)
      if (atomicCAS(&slots[s], 0u, (unsigned)i + 1u) == 0u) break;
}
""",
    # stream compaction with warp-aggregated atomics: a ballot, one atomicAdd per warp by its first
    # set lane, the base shuffled from it and each lane's place by __popc of the lanes before it;
    # then the same through a tile's ballot and shfl, with the block's count by __syncthreads_count
    "aggregated": HEAD + r"""
__device__ int aggregated_slot(int* counter, bool pred) {
  const unsigned mask = __ballot_sync(0xffffffffu, pred);
  const int lane = threadIdx.x % 32;
  const int leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(mask));
  base = __shfl_sync(0xffffffffu, base, leader < 0 ? 0 : leader);
  return base + __popc(mask & ((1u << lane) - 1u));
}
__global__ void compact(const int* __restrict__ in, int* __restrict__ out, int* counter, int* warp_calls, int n, int threshold) {
  for (int start = blockIdx.x * blockDim.x; start < n; start += blockDim.x * gridDim.x) {
    const int i = start + threadIdx.x;
    const bool keep = i < n && in[i] > threshold;
    const int slot = aggregated_slot(counter, keep);
    if (keep) out[slot] = in[i];
    const bool any = __any_sync(0xffffffffu, keep);
    if (threadIdx.x % 32 == 0 && any) atomicAdd(warp_calls, 1);
  }
}
__global__ void compact_tile(const int* __restrict__ in, int* __restrict__ out, int* counter, int* block_counts, int n,
                             int threshold) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool keep = i < n && in[i] > threshold;
  const unsigned mask = warp.ballot(keep);
  int base = 0;
  if (warp.thread_rank() == 0 && mask) base = atomicAdd(counter, __popc(mask));
  base = warp.shfl(base, 0);
  if (keep) out[base + __popc(mask & ((1u << warp.thread_rank()) - 1u))] = in[i];
  const int in_block = __syncthreads_count(keep);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = in_block;
}
""",
    # tiles of 8 whose branches differ (even tiles sum, odd tiles take the max, both with shuffles of
    # their own lanes only), tile.any/all, shfl_up scans of 16, a 16-lane branch synchronised with a
    # mask of those lanes, and threads that return before any of it (the tail of the last block)
    "subtiles": HEAD + r"""
__global__ void subtiles(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ scan, int* __restrict__ flags,
                         int* __restrict__ half_sum, int n) {
  cg::thread_block block = cg::this_thread_block();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto t8 = cg::tiled_partition<8>(block);
  int v = in[i];
  int r;
  if (t8.meta_group_rank() % 2 == 0) {
    r = v;
    for (int d = 4; d > 0; d /= 2) r += t8.shfl_down(r, d);
    r = t8.shfl(r, 0);
  } else {
    r = cg::reduce(t8, v, cg::greater<int>());
  }
  out[i] = r;
  auto t16 = cg::tiled_partition<16>(block);
  int s = v;
  for (int d = 1; d < 16; d *= 2) {
    const int up = t16.shfl_up(s, d);
    if ((int)t16.thread_rank() >= d) s += up;
  }
  scan[i] = s;
  flags[i] = t8.any(v < 0) * 1 + t8.all(v < 0) * 2 + (int)(t16.ballot(v & 1) << 2);
  const unsigned lane = threadIdx.x % 32;
  if (lane < 16) {
    int h = v;
    for (int m = 8; m > 0; m /= 2) h += __shfl_xor_sync(0x0000ffffu, h, m, 16);
    __syncwarp(0x0000ffffu);
    half_sum[i] = h;
  } else {
    half_sum[i] = -1;
  }
}
""",
}

# (file, kernel) pairs in the batch
ITEMS = [("warp_reduce", "block_reduce"), ("float_reduce", "row_sum_max"), ("tree", "tree_sum_sq"),
         ("histogram", "histogram_global"), ("histogram", "histogram_private"), ("cas", "maxes"), ("cas", "counters"),
         ("aggregated", "compact"), ("aggregated", "compact_tile"), ("subtiles", "subtiles")]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    return Batch([(KERNELS[f], k) for f, k in ITEMS], str(tmp_path_factory.mktemp("emu-cg")))


def run(batch, kernel, args, grid, block, shared_bytes=0):
    index = [k for _, k in ITEMS].index(kernel)
    return batch.run(index, args, grid, block, shared_bytes=shared_bytes)


def cdiv(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("n, grid", [(1, 1), (255, 1), (256, 1), (257, 2), (4097, 3)])
def test_block_reduction_with_cg_reduce_is_exact(batch, n, grid):
    rng = np.random.default_rng(n)
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    block = 256
    bs, bm, bx = np.zeros(grid, np.int32), np.zeros(grid, np.int32), np.zeros(grid, np.uint32)
    total = np.zeros(1, np.uint64)
    bs, bm, bx, total = run(batch, "block_reduce", [x, bs, bm, bx, total, n], (grid,), (block,))[1:5]
    # each block's elements: its threads' grid-stride strips
    want_s, want_m, want_x = [], [], []
    for b in range(grid):
        idx = np.concatenate([np.arange(s, min(s + block, n)) for s in range(b * block, n, block * grid)] or [[]])
        idx = idx.astype(int)
        want_s.append(int(x[idx].sum()))
        want_m.append(int(x[idx].min()) if len(idx) else 2**31 - 1)
        h = (x[idx].astype(np.uint32) * np.uint32(2654435761)).astype(np.uint32)
        want_x.append(int(np.bitwise_xor.reduce(h)) if len(idx) else 0)
    assert bs.tolist() == want_s
    assert bm.tolist() == want_m
    assert bx.tolist() == want_x
    assert int(total[0].astype(np.int64)) == int(x.astype(np.int64).sum())


@pytest.mark.parametrize("rows, cols", [(3, 1), (2, 31), (2, 33), (4, 255), (1, 1025)])
def test_float_reduce_and_max_bits_per_row(batch, rows, cols):
    rng = np.random.default_rng(cols)
    x = rng.random((rows, cols)).astype(np.float32)
    sums, maxb = np.zeros(rows, np.float32), np.zeros(rows, np.int32)
    sums, maxb = run(batch, "row_sum_max", [x, sums, maxb, cols], (rows,), (128,))[1:3]
    np.testing.assert_allclose(sums, x.astype(np.float64).sum(1), rtol=1e-5)
    assert maxb.view(np.float32).tolist() == x.max(1).tolist()


@pytest.mark.parametrize("n, grid, block", [(1, (1, 1), (8, 4)), (511, (2, 1), (16, 16)), (513, (2, 2), (32, 4)),
                                             (1000, (3, 1), (64, 1))])
def test_shared_tree_synchronised_by_cg_thread_block(batch, n, grid, block):
    rng = np.random.default_rng(n)
    x = rng.integers(-50000, 50000, n).astype(np.int32)
    nb, nt = grid[0] * grid[1], block[0] * block[1]
    out = np.zeros(nb, np.uint64)
    ranks = np.full(nb * nt, -1, np.int32)
    out, ranks = run(batch, "tree_sum_sq", [x, out, ranks, n], grid, block, shared_bytes=8 * nt)[1:3]
    sq = x.astype(np.int64) ** 2
    want = [int(sum(sq[i] for s in range(b * nt, n, nt * nb) for i in range(s, min(s + nt, n)))) for b in range(nb)]
    assert out.tolist() == want
    # thread_rank is threadIdx.x + threadIdx.y * blockDim.x, in every block
    assert ranks.tolist() == list(range(nt)) * nb


@pytest.mark.parametrize("kernel", ["histogram_global", "histogram_private"])
@pytest.mark.parametrize("n, nbins", [(1, 37), (255, 256), (257, 37), (4097, 256)])
def test_histograms_with_atomic_add_on_unsigned_bins(batch, kernel, n, nbins):
    rng = np.random.default_rng(n + nbins)
    data = rng.integers(0, 256, n).astype(np.uint8)
    bins = np.zeros(nbins, np.uint32)
    grid = min(cdiv(n, 128), 5)
    bins = run(batch, kernel, [data, bins, n, nbins], (grid,), (128,), shared_bytes=4 * nbins)[1]
    assert bins.tolist() == np.bincount(data.astype(int) % nbins, minlength=nbins).tolist()


@pytest.mark.parametrize("n", [1, 31, 33, 257])
def test_atomic_max_min_and_the_cas_loop_on_float_bits(batch, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 100).astype(np.float32)
    if n > 2:
        x[n // 2] = x.max()  # a tie: the lower index wins the argmax
    v = rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)
    fmax = np.array([-np.inf], np.float32)
    argmax = np.zeros(1, np.uint64)
    imin, imax = np.array([2**31 - 1], np.int32), np.array([-2**31], np.int32)
    umin, ullmax = np.array([2**32 - 1], np.uint32), np.zeros(1, np.uint64)
    llmin = np.array([2**63 - 1], np.int64)
    out = run(batch, "maxes", [x, v, fmax, argmax, imin, imax, umin, ullmax, llmin, n], (cdiv(n, 64),), (64,))
    fmax, argmax, imin, imax, umin, ullmax, llmin = out[2:9]
    assert fmax[0] == x.max()
    assert 0xFFFFFFFF - int(argmax[0] & np.uint64(0xFFFFFFFF)) == int(np.argmax(x))
    assert imin[0] == v.min() and imax[0] == v.max()
    assert umin[0] == v.view(np.uint32).min()
    assert ullmax[0] == v.astype(np.int64).view(np.uint64).max()
    assert llmin[0] == (v.astype(np.int64) * 1000000007).min()


@pytest.mark.parametrize("n", [1, 63, 65, 1000])
def test_integer_atomics_give_exact_results(batch, n):
    ring_size = 7
    ring, down = np.zeros(1, np.uint32), np.zeros(1, np.uint32)
    sub = np.array([5], np.int32)
    bits_or, bits_and = np.zeros(1, np.uint64), np.array([2**64 - 1], np.uint64)
    bits_xor = np.zeros(1, np.uint32)
    exch = np.zeros(n + 2, np.int32)
    exch[n] = -1
    fsum, dsum = np.zeros(1, np.float32), np.zeros(1, np.float64)
    slots = np.zeros(97, np.uint32)
    args = [ring, down, sub, bits_or, bits_and, bits_xor, exch, fsum, dsum, slots, ring_size, n]
    out = run(batch, "counters", args, (cdiv(n, 128),), (128,))
    ring, down, sub, bits_or, bits_and, bits_xor, exch, fsum, dsum, slots = out[:10]
    i = range(n)
    assert int(ring[0]) == n % ring_size
    assert int(down[0]) == (-n) % ring_size
    assert int(sub[0]) == 5 - sum(i)
    assert int(bits_or[0]) == sum(1 << b for b in {k % 64 for k in i})
    assert int(bits_and[0]) == (2**64 - 1) & ~sum(1 << b for b in {k * 7 % 64 for k in i})
    want_xor = 0
    for k in i:
        want_xor ^= 1 << (k % 32)
    assert int(bits_xor[0]) == want_xor
    # every thread's index came back from atomicExch once, but the last one (still in the slot);
    # the first exchange returned the -1 put there
    assert exch[:n].sum() == n - 1 and exch[n + 1] == 1 and 0 <= exch[n] < n and exch[exch[n]] == 0
    assert fsum[0] == n and dsum[0] == n / 2
    assert sorted(slots[slots > 0].tolist()) == list(range(1, min(n, 97) + 1))


HAMMER = r"""
__global__ void hammer(unsigned* c, unsigned long long* c64, float* f, int* shared_out, int reps) {
  __shared__ int s;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  for (int r = 0; r < reps; ++r) {
    atomicAdd(c, 1u);
    atomicAdd(c64, 3ull);
    atomicAdd(f, 1.0f);
    atomicAdd_block(&s, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) shared_out[blockIdx.x] = s;
}
"""


def test_an_atomic_counter_hammered_by_every_thread_is_exact(tmp_path):
    reps, blocks, threads = 200, 3, 256
    c, c64, f, s = np.zeros(1, np.uint32), np.zeros(1, np.uint64), np.zeros(1, np.float32), np.zeros(blocks, np.int32)
    c, c64, f, s = emulate(HAMMER, "hammer", [c, c64, f, s, reps], (blocks,), (threads,), str(tmp_path))[:4]
    total = reps * blocks * threads
    assert c[0] == total and c64[0] == 3 * total and f[0] == total  # 153600 < 2**24: exact in float
    assert s.tolist() == [reps * threads] * blocks


@pytest.mark.parametrize("n, grid", [(1, 1), (255, 1), (256, 2), (257, 2), (1025, 2)])
def test_warp_aggregated_atomics_compact_exactly(batch, n, grid):
    rng = np.random.default_rng(n)
    x = rng.integers(-100, 100, n).astype(np.int32)
    keep = x[x > 10]
    out, counter, calls = np.full(n, -999, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)
    out, counter, calls = run(batch, "compact", [x, out, counter, calls, n, 10], (grid,), (128,))[1:4]
    assert counter[0] == len(keep)
    assert sorted(out[:len(keep)].tolist()) == sorted(keep.tolist()) and (out[len(keep):] == -999).all()
    # one atomicAdd per warp-step that kept anything
    warps_keeping = sum(1 for s in range(0, max(n, 1), 32) if (x[s:s + 32] > 10).any())
    assert calls[0] == warps_keeping
    out, counter = np.full(n, -999, np.int32), np.zeros(1, np.int32)
    blocks = cdiv(n, 128)
    counts = np.zeros(blocks, np.int32)
    out, counter, counts = run(batch, "compact_tile", [x, out, counter, counts, n, 10], (blocks,), (128,))[1:4]
    assert counter[0] == len(keep)
    assert sorted(out[:len(keep)].tolist()) == sorted(keep.tolist())
    assert counts.tolist() == [int((x[b * 128:(b + 1) * 128] > 10).sum()) for b in range(blocks)]


@pytest.mark.parametrize("n", [1, 7, 9, 100, 250, 256])
def test_subtiles_that_branch_apart_and_threads_that_returned(batch, n):
    rng = np.random.default_rng(n)
    v = rng.integers(-20, 20, n).astype(np.int32)
    v[8:16] = -np.arange(1, 9)[:len(v[8:16])]  # a tile all negative
    out, scan, flags, half = (np.zeros(n, np.int32) for _ in range(4))
    out, scan, flags, half = run(batch, "subtiles", [v, out, scan, flags, half, n], (cdiv(n, 128),), (128,))[1:5]
    for t in range(0, n - n % 8, 8):  # a tile cut by the tail reads lanes that returned: undefined on a GPU
        group = v[t:t + 8]
        want = group.sum() if (t % 128) // 8 % 2 == 0 else group.max()
        assert out[t:t + 8].tolist() == [want] * 8, t
    for t in range(0, n - n % 16, 16):
        tile = v[t:t + 16]
        odd = sum(1 << k for k in range(16) if tile[k] & 1)
        for k in range(16):
            e = tile[k // 8 * 8:k // 8 * 8 + 8]
            assert flags[t + k] == int((e < 0).any()) + 2 * int((e < 0).all()) + (odd << 2), (t, k)
    for t in range(0, n - n % 16, 16):
        assert scan[t:t + 16].tolist() == np.cumsum(v[t:t + 16]).tolist()
    for t in range(0, n - n % 32, 32):
        assert half[t:t + 16].tolist() == [int(v[t:t + 16].sum())] * 16
        assert half[t + 16:t + 32].tolist() == [-1] * 16


# what the emulator refuses (CUDA takes it) and what CUDA rejects (so must the emulator): the kernel,
# what the emulator's error says (a regular expression), whether nvcc compiles it
REFUSED = {
    "grid_sync": (HEAD + """
__global__ void k(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = 1;
  grid.sync();
}""", re.escape("grid_group::sync() is not emulated"), True),
    "coalesced": (HEAD + """
__global__ void k(int* out, const int* in) {
  if (in[threadIdx.x] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    if (active.thread_rank() == 0) atomicAdd(out, (int)active.size());
  }
}""", re.escape("coalesced_threads() is not emulated"), True),
    "tile64": (HEAD + """
__global__ void k(int* out) {
  cg::thread_block_tile<64> t = cg::tiled_partition<64>(cg::this_thread_block());
  out[threadIdx.x] = t.thread_rank();
}""", re.escape("thread_block_tile of more than 32 threads"), True),
    "activemask": ("""
__global__ void k(int* out) { out[threadIdx.x] = __activemask(); }""", re.escape("__activemask() is not emulated"), True),
    "reduce_block": (HEAD + """
__global__ void k(int* out) { out[0] = cg::reduce(cg::this_thread_block(), 1, cg::plus<int>()); }""",
                     re.escape("does not exclusively represent a tile"), False),
    "reduce_types": (HEAD + """
__global__ void k(float* out) {
  auto w = cg::tiled_partition<32>(cg::this_thread_block());
  out[0] = cg::reduce(w, 1.0f, cg::plus<int>());
}""", re.escape("types differ"), False),
    "tile3": (HEAD + """
__global__ void k(int* out) { out[threadIdx.x] = cg::tiled_partition<3>(cg::this_thread_block()).thread_rank(); }""",
              re.escape("Size must be one of 1/2/4/8/16/32"), False),
    "atomic_add_s64": ("""
__global__ void k(long long* out) { atomicAdd(out, 1LL); }""", "invalid conversion from .long long int\\*.", False),
    "atomic_inc_int": ("""
__global__ void k(int* out) { atomicInc(out, 5); }""", "invalid conversion from .int\\*.", False),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_and_rejected_kernels_fail_to_compile_in_the_emulator_saying_why(tmp_path, name):
    src, says, _ = REFUSED[name]
    with pytest.raises(EmulationError) as e:
        Batch([(src, "k")], str(tmp_path))
    errors = [line for line in str(e.value).splitlines() if "error" in line]
    assert errors and any(re.search(says, line) for line in errors), str(e.value)[:3000]
    # at the kernel's line, not only inside the emulator's headers
    assert "kernel0.cu" in str(e.value)


def _nvcc(tmp_path, name: str, text: str) -> subprocess.CompletedProcess:
    (tmp_path / f"{name}.cu").write_text(text)
    return subprocess.run([shutil.which("nvcc"), "-arch=sm_90", "-cubin", "-o", str(tmp_path / f"{name}.cubin"),
                           str(tmp_path / f"{name}.cu")], capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_every_kernel_compiles_with_nvcc_against_cudas_headers(tmp_path):
    text = "\n".join([*KERNELS.values(), HAMMER])
    res = _nvcc(tmp_path, "all", text)
    assert res.returncode == 0, res.stderr[:3000]
    # the kernels are all there (their mangled names), not compiled away
    cubin = (tmp_path / "all.cubin").read_bytes()
    assert all(re.search(rb"_Z\d+" + k.encode() + rb"P", cubin) for _, k in [*ITEMS, ("", "hammer")])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on PATH")
def test_nvcc_takes_what_the_emulator_refuses_and_rejects_what_cuda_rejects(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        results = dict(zip(REFUSED, pool.map(lambda kv: _nvcc(tmp_path, kv[0], kv[1][0]), REFUSED.items())))
    for name, (_, _, cuda_takes_it) in REFUSED.items():
        assert (results[name].returncode == 0) == cuda_takes_it, (name, results[name].stderr[:2000])


@pytest.mark.parametrize("kernel, make, grid, block", [
    ("block_reduce", lambda: [np.arange(-300, 700, dtype=np.int32), np.zeros(2, np.int32), np.zeros(2, np.int32),
                              np.zeros(2, np.uint32), np.zeros(1, np.uint64), 1000], (2,), (256,)),
    ("subtiles", lambda: [np.arange(-50, 50, dtype=np.int32), *(np.zeros(100, np.int32) for _ in range(4)), 100],
     (1,), (128,)),
    ("compact_tile", lambda: [np.arange(-100, 157, dtype=np.int32) % 41, np.zeros(257, np.int32), np.zeros(1, np.int32),
                              np.zeros(3, np.int32), 257, 20], (3,), (96,)),
])
def test_os_threads_and_fibers_give_the_same_exact_results(batch, kernel, make, grid, block, monkeypatch):
    """The launch as fibers (the default) and as one OS thread per CUDA thread (KP_EMU_THREADS=1, the
    mode kept for kernel files with thread_local state): the same integers, the same order of
    compaction aside (the slots a warp gets depend on which warp comes first)."""
    fibers = run(batch, kernel, make(), grid, block)
    monkeypatch.setenv("KP_EMU_THREADS", "1")
    threads = run(batch, kernel, make(), grid, block)
    for a, b in zip(fibers, threads):
        if a is not None and kernel == "compact_tile":
            assert sorted(a.ravel().tolist()) == sorted(b.ravel().tolist())
        elif a is not None:
            assert a.tolist() == b.tolist()


def test_threads_waiting_for_lanes_that_never_come_stop_the_run_saying_where(tmp_path):
    # the first half-warp shuffles with a mask naming the whole warp while the second half waits at
    # a barrier the first never reaches: a hang on the GPU (or undefined), a message here
    src = r"""
__global__ void stuck(int* out) {
  int v = threadIdx.x;
  if (threadIdx.x < 16) v = __shfl_sync(0xffffffffu, v, 0);
  else __syncthreads();
  out[threadIdx.x] = v;
}
"""
    with pytest.raises(EmulationError) as e:
        emulate(src, "stuck", [np.zeros(64, np.int32)], (1,), (64,), str(tmp_path), timeout=60)
    msg = str(e.value)
    assert "deadlock in block (0, 0, 0)" in msg
    assert "threads 0-15 (warp 0) at a warp meet of mask 0xffffffff" in msg
    assert "threads 16-63 at __syncthreads" in msg
