"""KernelPro's own building blocks: headers shipped as package data under include/kernelpro/.

`include <kernelpro/NAME.cuh>` with `-I INCLUDE_DIR`. `nvcc_flags(header)` gives what each
header needs beyond that: the tensor-core GEMM needs CUTLASS's headers and sm_90a.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
LIBRARY_DIR = INCLUDE_DIR / "kernelpro"


@dataclass(frozen=True)
class Block:
    header: str  # e.g. "kernelpro/warp_reduce.cuh"
    symbol: str  # the main entry point, e.g. "kernelpro::warp_reduce_sum"
    summary: str
    arch: str = "sm_90"  # the architecture the CI build checks
    needs_cutlass: bool = False


BLOCKS = (
    Block("kernelpro/warp_reduce.cuh", "kernelpro::warp_reduce_sum",
          "warp reductions (sum, max, min, any operator) with __shfl_xor_sync, result in every lane"),
    Block("kernelpro/block_reduce.cuh", "kernelpro::block_reduce_sum",
          "thread-block reductions: warp shuffles, one shared array, two barriers, result in every thread"),
    Block("kernelpro/vector_io.cuh", "kernelpro::transform_vectorized",
          "128-bit loads and stores with alignment checks, scalar fallback and tail"),
    Block("kernelpro/transpose.cuh", "kernelpro::transpose_tile",
          "shared-memory tiled transpose with a padded tile: coalesced reads and writes, no bank conflicts"),
    Block("kernelpro/online_softmax.cuh", "kernelpro::softmax_row_block",
          "online softmax of a row: one pass for the maximum and the normalizer, one to write"),
    Block("kernelpro/scan.cuh", "kernelpro::scan",
          "device-wide prefix sum (inclusive or exclusive) in one pass: ordered tiles, warp-shuffle scans, decoupled "
          "look-back"),
    Block("kernelpro/gemm_sm90.cuh", "kernelpro::gemm_bf16_sm90",
          "bf16 GEMM on Hopper tensor cores: TMA, wgmma, warp-specialized persistent kernel (CUTLASS 3 / CuTe)",
          arch="sm_90a", needs_cutlass=True),
)


def block(header: str) -> Block | None:
    return next((b for b in BLOCKS if b.header == header), None)


def nvcc_flags(header: str, cutlass_include: Path | None = None) -> list[str]:
    """Flags to compile code that includes `header` (besides the architecture)."""
    flags = [f"-I{INCLUDE_DIR}"]
    b = block(header)
    if b is not None and b.needs_cutlass:
        if cutlass_include is not None:
            flags.append(f"-I{cutlass_include}")
        flags += ["-std=c++17", "--expt-relaxed-constexpr", "-DNDEBUG"]
    return flags


def version() -> str:
    """A hash of the library's headers (they are small)."""
    h = hashlib.sha256()
    for p in sorted(LIBRARY_DIR.glob("*.cuh")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]
