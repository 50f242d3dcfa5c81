"""Parse the ptxas resource report (-Xptxas -v), old and new formats.

New (CUDA 12.x/13.x):
    ptxas info    : Compiling entry function '_Z3addPfPKfi' for 'sm_90'
    ptxas info    : Function properties for _Z3addPfPKfi
        8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
    ptxas info    : Used 30 registers, used 1 barriers, 4096 bytes smem, 360 bytes cmem[0]
Old (CUDA <= 11): "Used 10 registers, 48+16 bytes smem, 352 bytes cmem[0], 8 bytes cmem[2]",
with no barrier count; "48+16" is static + reserved system shared memory.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

_COMPILING = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+)(?:\+(\d+))? bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
_GMEM = re.compile(r"(\d+) bytes gmem")


@dataclass
class KernelResources:
    mangled: str
    arch: str = ""
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_bytes: int = 0
    shared_bytes: int = 0  # static shared memory
    constant_bytes: int = 0  # cmem[0] (parameters and constants)
    barriers: int | None = None  # not reported by old ptxas

    def to_json(self) -> dict:
        return asdict(self)


def parse_ptxas(text: str) -> dict[str, KernelResources]:
    """Entry functions by mangled name. Device functions' frames are left out."""
    out: dict[str, KernelResources] = {}
    current: KernelResources | None = None
    props_for: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        m = _COMPILING.search(line)
        if m:
            current = out.setdefault(m.group(1), KernelResources(m.group(1), m.group(2)))
            current.arch = m.group(2)
            props_for = None
            continue
        m = _PROPS.search(line)
        if m:
            props_for = m.group(1)
            continue
        m = _FRAME.search(line)
        if m and props_for is not None:
            if props_for in out:  # frames of non-entry functions are not the kernel's
                k = out[props_for]
                k.stack_bytes, k.spill_stores, k.spill_loads = map(int, m.groups())
            elif current is not None and props_for == current.mangled:
                current.stack_bytes, current.spill_stores, current.spill_loads = map(int, m.groups())
            props_for = None
            continue
        m = _USED.search(line)
        if m and current is not None:
            current.registers = int(m.group(1))
            b = _BARRIERS.search(line)
            if b:
                current.barriers = int(b.group(1))
            s = _SMEM.search(line)
            if s:
                current.shared_bytes = int(s.group(1))
            for size, bank in _CMEM.findall(line):
                if bank == "0":
                    current.constant_bytes = int(size)
    return out
