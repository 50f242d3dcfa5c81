"""Relevance of the hunter over the real corpus: for each intent, an expected building block
is among the first three results. The answers were judged by hand from the corpus; an intent
may have several right answers (the class or one of its members, the header of a KernelPro
block, an equivalent in another library)."""
from __future__ import annotations

import pytest

from session_lock import session_lock

from kernelpro.profilers.hunt import api
from kernelpro.profilers.hunt.index import _strip_templates

pytestmark = pytest.mark.slow

# (query, acceptable answers): a hit is right when its qualified name (template arguments
# stripped) is an answer or lies inside one (a member of the expected class), or, for a file
# hit (a header or an example), when its path ends with the answer.
INTENTS = [
    ("warp reduce sum", ["kernelpro::warp_reduce_sum", "cub::WarpReduce"]),
    ("tma copy global to shared", ["cute::SM90_TMA_LOAD", "cute::make_tma_copy"]),
    ("wgmma bf16 gemm sm90", ["kernelpro::gemm_bf16_sm90", "kernelpro::GemmBf16Sm90", "kernelpro/gemm_sm90.cuh"]),
    ("block radix sort", ["cub::BlockRadixSort"]),
    ("block reduce", ["cub::BlockReduce", "kernelpro::block_reduce"]),
    ("block reduction with shuffles", ["kernelpro::block_reduce", "kernelpro/block_reduce.cuh"]),
    ("shared memory tiled transpose", ["kernelpro::transpose_tile", "kernelpro/transpose.cuh"]),
    ("online softmax", ["kernelpro::OnlineSoftmax", "kernelpro::softmax_row_block", "kernelpro/online_softmax.cuh"]),
    ("vectorized 128-bit loads with alignment check", ["kernelpro::load_vec", "kernelpro::transform_vectorized", "kernelpro/vector_io.cuh"]),
    ("device radix sort key value pairs", ["cub::DeviceRadixSort"]),
    ("exclusive prefix sum across a thread block", ["cub::BlockScan"]),
    ("inclusive scan within a warp", ["cub::WarpScan"]),
    ("grid wide synchronization cooperative groups", ["cooperative_groups::grid_group", "cooperative_groups::this_grid"]),
    ("tiled partition of a thread block", ["cooperative_groups::tiled_partition"]),
    ("atomic reference", ["cuda::atomic_ref", "cuda::std::atomic_ref"]),
    ("ldmatrix shared memory to registers", ["cute::SM75_U32x4_LDSM_N", "cute::SM75_U32x1_LDSM_N", "cute::SM75_U32x2_LDSM_N", "cute::SM75_U16x2_LDSM_T", "cute::SM75_U16x4_LDSM_T", "cute::SM75_U16x8_LDSM_T"]),
    ("cp.async copy global to shared memory", ["cute::SM80_CP_ASYNC_CACHEGLOBAL", "cute::SM80_CP_ASYNC_CACHEALWAYS", "cuda::device::experimental::cp_async_bulk_global_to_shared", "cuda::memcpy_async"]),
    ("hopper gemm with collective builder example", ["49_collective_builder.cu"]),
    ("tma pipeline producer consumer barrier", ["cutlass::PipelineTmaAsync"]),
    ("device wide sum reduction", ["cub::DeviceReduce"]),
    ("histogram of a block", ["cub::BlockHistogram"]),
    ("block load striped to blocked", ["cub::BlockLoad", "cub::LoadDirectStriped"]),
    ("fp8 e4m3 number type", ["cutlass::float_e4m3_t"]),
    ("tma multicast to a cluster", ["cute::SM90_TMA_LOAD_MULTICAST", "cute::create_tma_multicast_mask"]),
    ("epilogue linear combination alpha beta", ["cutlass::epilogue::thread::LinearCombination", "cutlass::epilogue::fusion::LinearCombination"]),
    ("memcpy async with barrier", ["cuda::memcpy_async"]),
    ("block exchange blocked to striped", ["cub::BlockExchange"]),
    ("device segmented reduction", ["cub::DeviceSegmentedReduce"]),
    ("select items with a predicate stream compaction", ["cub::DeviceSelect"]),
    ("warp shuffle butterfly", ["kernelpro::shfl_xor", "cuda::device::warp_shuffle_xor", "kernelpro::warp_reduce"]),
    ("bit cast", ["cuda::std::bit_cast", "cuda::bit_cast"]),
    ("coalesced transpose", ["kernelpro::transpose_tile", "kernelpro::transpose", "kernelpro/transpose.cuh"]),
    ("make tma copy", ["cute::make_tma_copy"]),
    ("cluster launch", ["cutlass::launch_kernel_on_cluster", "cutlass::ClusterLauncher"]),
    ("tiled mma", ["cute::TiledMMA", "cute::make_tiled_mma"]),
]


def _right(hit, answers) -> bool:
    name = _strip_templates(hit.symbol)
    for a in answers:
        if a.endswith((".cu", ".cuh", ".hpp", ".h")):
            if not hit.symbol and hit.file.endswith(a):
                return True
        elif name == a or name.startswith(a + "::"):
            return True
    return False


@pytest.fixture(scope="module")
def index():
    with session_lock("hunt-index"):  # built once per session (tests/test_hunt.py)
        return api.corpus_and_index()[1]


def test_there_are_enough_intents():
    assert len(INTENTS) >= 20 and len({q for q, _ in INTENTS}) == len(INTENTS)


@pytest.mark.parametrize("query,answers", INTENTS, ids=[q for q, _ in INTENTS])
def test_expected_building_block_in_top_three(index, query, answers):
    hits = index.search(query, limit=3)
    assert any(_right(h, answers) for h in hits), (
        f"{query!r}: none of {answers} in the top 3: " + "; ".join(h.symbol or h.file for h in hits))
