"""Theoretical occupancy: how many blocks of a kernel fit on one SM, and what limits them.

The rules mirror the CUDA toolkit's own calculator, `cuda_occupancy.h`
(`cudaOccMaxActiveBlocksPerMultiprocessor`, CUDA 13.0), with the device's default
shared-memory carveout and the kernel opted in to the largest per-block shared memory:

- registers: per warp, regs/thread x 32 rounded up to 256; a warp lives in one of 4
  sub-partitions of 16K registers each, so warps/SM = 4 x (16384 // regs_per_warp);
  a block whose warps, rounded up to a multiple of 4, need more than 64K registers
  cannot launch (0 blocks);
- shared memory: per block, (bytes + 1 KB reserved on cc >= 8.0) rounded up to 128
  bytes (256 on cc 7.5), into the per-SM capacity;
- warps: max warps/SM // warps per block;  blocks: a fixed per-SM cap.

The per-architecture numbers come from the CUDA Programming Guide, "Compute
Capabilities", Tables 30-32, and agree with `cuda_occupancy.h`. sm_88 is in neither
table; it takes the sm_86 figures, which is what `cuda_occupancy.h`'s cc 8.x branches
give it (16 blocks, 100 KB shared).

Input that no kernel can have (block size 0 or over 1024, more than 255 registers a
thread, more shared memory than a block may opt in to) raises ValueError. Input that is
legal on its own but cannot launch as a whole (1024 threads x 128 registers) gives
occupancy 0 with limiter "registers", as the toolkit's calculator does.

Not modelled: block barriers (with the usual one barrier they never bind), a non-default
shared-memory carveout, thread-block clusters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .advice import Evidence

UNLIMITED = 2**31 - 1  # INT_MAX, what cuda_occupancy.h reports for an unused resource
KB = 1024


def percent(fraction: float) -> str:
    """An occupancy as every report prints it (table, messages, evidence, hovers): 18.75%, 50%, 100%."""
    return f"{fraction * 100:.4g}%"


@dataclass(frozen=True)
class ArchLimits:
    """Per-architecture hardware limits (one SM)."""

    arch: str
    max_threads_per_block: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    max_registers_per_thread: int
    register_alloc_unit: int  # registers, per warp
    warp_alloc_granularity: int  # warps; = register sub-partitions per SM
    shared_per_sm: int  # bytes
    max_shared_per_block: int  # bytes, with opt-in (the default without is 48 KB)
    shared_alloc_unit: int  # bytes
    reserved_shared_per_block: int  # bytes the driver adds to each block
    warp_size: int = 32
    registers_per_block: int = 64 * KB


def _limits(arch, warps, blocks, smem_kb, smem_block_kb, smem_unit, reserved):
    return ArchLimits(
        arch=arch,
        max_threads_per_block=1024,
        max_threads_per_sm=warps * 32,
        max_warps_per_sm=warps,
        max_blocks_per_sm=blocks,
        registers_per_sm=64 * KB,
        max_registers_per_thread=255,
        register_alloc_unit=256,
        warp_alloc_granularity=4,
        shared_per_sm=smem_kb * KB,
        max_shared_per_block=smem_block_kb * KB,
        shared_alloc_unit=smem_unit,
        reserved_shared_per_block=reserved,
    )


# arch: (warps/SM, blocks/SM, shared KB/SM, max shared KB/block)
_TABLE = {
    "sm_75": (32, 16, 64, 64),
    "sm_80": (64, 32, 164, 163),
    "sm_86": (48, 16, 100, 99),
    "sm_87": (48, 16, 164, 163),
    "sm_88": (48, 16, 100, 99),  # assumed like sm_86, see the module docstring
    "sm_89": (48, 24, 100, 99),
    "sm_90": (64, 32, 228, 227),
    "sm_100": (64, 32, 228, 227),
    "sm_103": (64, 32, 228, 227),
    "sm_110": (48, 24, 228, 227),
    "sm_120": (48, 24, 100, 99),
    "sm_121": (48, 24, 100, 99),
}

ARCHS: dict[str, ArchLimits] = {
    name: _limits(
        name, w, b, s, sb,
        smem_unit=256 if name == "sm_75" else 128,
        reserved=0 if name == "sm_75" else 1 * KB,
    )
    for name, (w, b, s, sb) in _TABLE.items()
}

_ARCH_RE = re.compile(r"^(?:sm_|compute_)?(\d{2,3})([af]?)$")


def normalize_arch(arch: str) -> str:
    """'sm_90a', 'compute_90', '90', '9.0' -> 'sm_90'. Raises ValueError if unknown."""
    text = str(arch).strip().lower()
    dotted = re.fullmatch(r"(\d{1,2})\.(\d)", text)
    if dotted:
        text = dotted.group(1) + dotted.group(2)
    m = _ARCH_RE.match(text)
    if m:
        base, suffix = "sm_" + m.group(1), m.group(2)
        cc = int(m.group(1))
        suffix_ok = not suffix or (suffix == "a" and cc >= 90) or (suffix == "f" and cc >= 100)
        if base in ARCHS and suffix_ok:
            return base
    known = ", ".join(ARCHS)
    raise ValueError(
        f"unknown GPU architecture {arch!r}; known: {known} "
        "(with 'a' suffixes from sm_90 and 'f' suffixes from sm_100)"
    )


def arch_limits(arch: str) -> ArchLimits:
    return ARCHS[normalize_arch(arch)]


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def _warps_per_block(lim: ArchLimits, block_size: int) -> int:
    return -(-block_size // lim.warp_size)


def _blocks_by_registers(lim: ArchLimits, block_size: int, registers: int) -> int:
    warps = _warps_per_block(lim, block_size)
    per_warp = _round_up(registers * lim.warp_size, lim.register_alloc_unit)
    if per_warp == 0:
        return UNLIMITED
    # hardware check: allocation assumed across all sub-partitions at once
    if per_warp * _round_up(warps, lim.warp_alloc_granularity) > lim.registers_per_block:
        return 0
    per_partition = lim.registers_per_sm // lim.warp_alloc_granularity
    warps_per_sm = (per_partition // per_warp) * lim.warp_alloc_granularity
    return warps_per_sm // warps


def _shared_allocated(lim: ArchLimits, shared_bytes: int) -> int:
    return _round_up(shared_bytes + lim.reserved_shared_per_block, lim.shared_alloc_unit)


def _blocks_by_shared(lim: ArchLimits, shared_bytes: int) -> int:
    allocated = _shared_allocated(lim, shared_bytes)
    return lim.shared_per_sm // allocated if allocated else UNLIMITED


def _blocks_by(lim: ArchLimits, block_size: int, registers: int, shared_bytes: int) -> dict[str, int]:
    return {
        "registers": _blocks_by_registers(lim, block_size, registers),
        "shared_memory": _blocks_by_shared(lim, shared_bytes),
        "block_size": lim.max_warps_per_sm // _warps_per_block(lim, block_size),
        "blocks_per_sm": lim.max_blocks_per_sm,
    }


# on a tie the limiter named is the first of these (a tie with the warp or block cap
# means the kernel is at that cap whatever else changes)
_LIMITER_ORDER = ("block_size", "blocks_per_sm", "registers", "shared_memory")
# how a sentence names each limiter ("limited by shared memory"), as Occupancy.explain does
LIMITER_WORDS = {"registers": "registers", "shared_memory": "shared memory", "block_size": "warps per SM",
                 "blocks_per_sm": "blocks per SM"}


def limiter_words(limiter: str) -> str:
    return LIMITER_WORDS.get(limiter, limiter.replace("_", " "))


def _check(lim: ArchLimits, block_size: int, registers: int, shared_bytes: int) -> None:
    for name, value in (("block_size", block_size), ("registers", registers),
                        ("shared_bytes", shared_bytes)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if not 0 < block_size <= lim.max_threads_per_block:
        raise ValueError(
            f"block_size {block_size} is out of range for {lim.arch}: "
            f"1 to {lim.max_threads_per_block} threads"
        )
    if not 0 <= registers <= lim.max_registers_per_thread:
        raise ValueError(
            f"registers {registers} is out of range for {lim.arch}: "
            f"0 to {lim.max_registers_per_thread} per thread"
        )
    if not 0 <= shared_bytes <= lim.max_shared_per_block:
        raise ValueError(
            f"shared_bytes {shared_bytes} is out of range for {lim.arch}: 0 to "
            f"{lim.max_shared_per_block} bytes per block ({lim.max_shared_per_block // KB} KB, "
            "above 48 KB only as opt-in dynamic shared memory)"
        )


@dataclass
class Occupancy:
    arch: str
    block_size: int
    registers: int
    shared_bytes: int
    blocks_per_sm: int
    active_warps: int
    max_warps: int
    occupancy: float  # 0..1
    limiter: str  # "registers", "shared_memory", "block_size" or "blocks_per_sm"
    blocks_by: dict[str, int] = field(default_factory=dict)  # UNLIMITED when unused
    next_registers: int | None = None  # highest regs/thread that fits more blocks
    next_shared_bytes: int | None = None  # largest shared bytes/block that fits more blocks
    next_registers_blocks: int | None = None  # blocks/SM at next_registers
    next_shared_blocks: int | None = None  # blocks/SM at next_shared_bytes

    def explain(self) -> str:
        pct = percent(self.occupancy)
        head = f"{pct} occupancy ({self.active_warps} of {self.max_warps} warps), "
        blocks = f"{self.blocks_per_sm} block{'s' if self.blocks_per_sm != 1 else ''}"
        of = f"of {self.block_size} threads"
        if self.active_warps == self.max_warps:
            return (f"{pct} occupancy ({self.active_warps} of {self.max_warps} warps): "
                    f"{blocks} {of} fill the SM")
        if self.limiter == "registers":
            if self.blocks_per_sm == 0:
                body = (f"limited by registers: {self.block_size} threads x {self.registers} "
                        "regs/thread exceed the 64K registers a block may use")
            else:
                body = (f"limited by registers: {self.registers} regs/thread allows "
                        f"{blocks} {of}")
            if self.next_registers is not None:
                body += (f"; at most {self.next_registers} regs/thread would allow "
                         f"{self.next_registers_blocks}")
        elif self.limiter == "shared_memory":
            body = (f"limited by shared memory: {_bytes(self.shared_bytes)}/block allows "
                    f"{blocks} {of}")
            if self.next_shared_bytes is not None:
                body += (f"; at most {_bytes(self.next_shared_bytes)}/block would allow "
                         f"{self.next_shared_blocks}")
        elif self.limiter == "block_size":
            warps = self.active_warps // max(self.blocks_per_sm, 1)
            body = (f"limited by warps per SM: blocks {of} ({warps} warps) fit "
                    f"{self.blocks_per_sm} per SM")
            if self.active_warps < self.max_warps:
                body += "; a block size that divides the SM's warps evenly would fill it"
        else:
            body = (f"limited by blocks per SM: at most {blocks} {of} fit on one SM; "
                    "larger blocks would fill more warps")
        return head + body

    def evidence(self) -> list[Evidence]:
        """The numbers behind explain(), for an Advice."""
        ev = [
            Evidence("theoretical occupancy", round(self.occupancy * 100, 2), "%", "occupancy"),
            Evidence("active warps per SM", self.active_warps, "warps", "occupancy"),
            Evidence("max warps per SM", self.max_warps, "warps", "occupancy"),
            Evidence("blocks per SM", self.blocks_per_sm, "blocks", "occupancy"),
            Evidence("limiter", self.limiter, "", "occupancy"),
        ]
        for name, value in self.blocks_by.items():
            if value != UNLIMITED:
                ev.append(Evidence(f"blocks per SM allowed by {name}", value, "blocks", "occupancy"))
        return ev


def _bytes(n: int) -> str:
    return f"{n / KB:g} KB" if n % KB == 0 and n else f"{n} bytes"


def occupancy(arch: str, block_size: int, registers: int, shared_bytes: int = 0) -> Occupancy:
    """Theoretical occupancy of a kernel on one SM of `arch`.

    registers: per thread, as ptxas reports; shared_bytes: per block, static + dynamic.
    """
    lim = arch_limits(arch)
    _check(lim, block_size, registers, shared_bytes)
    by = _blocks_by(lim, block_size, registers, shared_bytes)
    blocks = min(by.values())
    limiter = next(k for k in _LIMITER_ORDER if by[k] == blocks)
    warps = blocks * _warps_per_block(lim, block_size)
    occ = Occupancy(
        arch=str(arch).strip(),
        block_size=block_size,
        registers=registers,
        shared_bytes=shared_bytes,
        blocks_per_sm=blocks,
        active_warps=warps,
        max_warps=lim.max_warps_per_sm,
        occupancy=warps / lim.max_warps_per_sm,
        limiter=limiter,
        blocks_by=by,
    )
    occ.next_registers, occ.next_registers_blocks = _next_registers(lim, by, block_size, registers)
    occ.next_shared_bytes, occ.next_shared_blocks = _next_shared(lim, by, shared_bytes)
    return occ


def _next_registers(lim, by, block_size, registers):
    """Highest register count below `registers` at which more blocks fit, with its blocks."""
    blocks = min(by.values())
    others = min(v for k, v in by.items() if k != "registers")
    if others <= blocks:
        return None, None
    for r in range(registers - 1, -1, -1):
        fit = min(others, _blocks_by_registers(lim, block_size, r))
        if fit > blocks:
            return r, fit
    return None, None


def _next_shared(lim, by, shared_bytes):
    """Largest shared bytes/block below `shared_bytes` at which more blocks fit."""
    blocks = min(by.values())
    others = min(v for k, v in by.items() if k != "shared_memory")
    if others <= blocks:
        return None, None
    per_block = lim.shared_per_sm // (blocks + 1)  # bytes each of blocks+1 may take
    s = per_block // lim.shared_alloc_unit * lim.shared_alloc_unit - lim.reserved_shared_per_block
    if s < 0 or s >= shared_bytes:
        return None, None
    return s, min(others, _blocks_by_shared(lim, s))


DEFAULT_BLOCK_SIZES = tuple(range(64, 1025, 64))


def best_block_sizes(
    arch: str, registers: int, shared_bytes: int = 0, candidates=DEFAULT_BLOCK_SIZES
) -> list[tuple[int, float]]:
    """(block size, occupancy) for each candidate, best first; ties go to the larger
    block, as cudaOccupancyMaxPotentialBlockSize picks."""
    results = [(b, occupancy(arch, b, registers, shared_bytes).occupancy) for b in candidates]
    return sorted(results, key=lambda t: (-t[1], -t[0]))
