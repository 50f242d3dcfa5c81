"""SASS from nvdisasm with each instruction mapped to its source line (-lineinfo builds).

`nvdisasm -gi -c kernel.cubin` prints, before the instructions of a line,
    //## File "/path/k.cu", line 5
    //## File "/path/k.cu", line 2 inlined at "/path/k.cu", line 5
so an instruction of an inlined helper knows both the helper's line and the call site.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_SECTION = re.compile(r"^\s*\.section\s+\.text\.(\S+?),")
_FILE = re.compile(r'//## File "([^"]+)", line (\d+)((?: inlined at "[^"]+", line \d+)*)')
_INLINED = re.compile(r'inlined at "([^"]+)", line (\d+)')
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
_INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?P<pred>@!?U?P[T\d]+\s+)?(?P<op>[A-Z][A-Z0-9_.]*)(?P<rest>[^;]*);")


@dataclass
class Instruction:
    offset: int
    opcode: str  # with modifiers: "LDG.E.128.CONSTANT"
    operands: str
    predicate: str
    locations: list[tuple[str, int]] = field(default_factory=list)  # innermost first, then call sites
    target: int | None = None  # byte address a branch jumps to, when its label is known

    @property
    def base(self) -> str:
        return self.opcode.split(".")[0]

    @property
    def mods(self) -> list[str]:
        return self.opcode.split(".")[1:]

    def line_in(self, path: str) -> int | None:
        """The innermost line of this instruction that lies in `path`."""
        for f, ln in self.locations:
            if f == path:
                return ln
        return None


_OCTAL = re.compile(r"(?:\\[0-7]{3})+")


def unescape_path(path: str) -> str:
    """nvdisasm writes bytes outside ASCII as octal escapes: "/tmp/\\303\\274/k.cu" -> "/tmp/ü/k.cu"."""
    if "\\" not in path:
        return path
    return _OCTAL.sub(lambda m: bytes(int(o, 8) for o in m.group(0).split("\\")[1:]).decode("utf-8", "replace"), path)


def parse_sass(text: str) -> dict[str, list[Instruction]]:
    """Instructions per kernel (mangled name), in address order."""
    out: dict[str, list[Instruction]] = {}
    labels: dict[str, dict[str, int]] = {}
    pending: list[str] = []  # labels waiting for the next instruction's address
    cur: list[Instruction] | None = None
    loc: list[tuple[str, int]] = []
    more = False  # the last File line said "inlined at": the next File line continues the chain
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            cur = out.setdefault(m.group(1), [])
            lab = labels.setdefault(m.group(1), {})
            loc, more, pending = [], False, []
            continue
        if cur is None:
            continue
        m = _FILE.search(line)
        if m:
            here = (unescape_path(m.group(1)), int(m.group(2)))
            loc = loc + [here] if more and loc and loc[-1] != here else ([here] if not more else loc)
            more = bool(m.group(3))
            continue
        m = _LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = _INSN.search(line)
        if m:
            for lb in pending:
                lab[lb] = int(m.group(1), 16)
            pending = []
            cur.append(Instruction(int(m.group(1), 16), m.group("op"), m.group("rest").strip(),
                                   (m.group("pred") or "").strip(), list(loc)))
    for name, insns in out.items():
        for ins in insns:
            t = _TARGET.search(ins.operands)
            if t and t.group(1) in labels.get(name, {}):
                ins.target = labels[name][t.group(1)]
    return out


def without_padding(insns: list[Instruction]) -> list[Instruction]:
    """The instructions without the NOPs that pad the kernel's code after its last instruction."""
    end = len(insns)
    while end and insns[end - 1].base == "NOP":
        end -= 1
    return insns[:end]


def opcode_counts(insns: list[Instruction]) -> dict[str, int]:
    c: dict[str, int] = {}
    for i in insns:
        c[i.base] = c.get(i.base, 0) + 1
    return c


def line_runs(insns: list[Instruction], path: str) -> list[tuple[int | None, list[Instruction]]]:
    """The instructions in address order, cut into runs that come from one line of `path`
    (None: no line there, e.g. the prologue or an inlined header), like Compiler Explorer."""
    out: list[tuple[int | None, list[Instruction]]] = []
    for ins in insns:
        ln = ins.line_in(path)
        if out and out[-1][0] == ln:
            out[-1][1].append(ins)
        else:
            out.append((ln, [ins]))
    return out
