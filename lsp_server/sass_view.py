"""The SASS of a file's kernels as one read-only text, grouped by source line (like Compiler
Explorer), with the map between its lines and the source's.

`kernelpro.sass [uri, kernel?]` returns {"text", "blocks": [{"line", "start", "end"}], ...}:
each block is a run of instructions from one source line (1-based `line` in the editor's
current text, null when none), at 0-based lines `start` (its `//` header) to `end` of the text.
"""
from __future__ import annotations

from pathlib import Path

from kernelpro.profilers.sass import line_runs, without_padding

from .linemap import LineMap


def sass_document(report, path: str, kernel: str | None = None, line_map: LineMap | None = None) -> dict:
    art = report.artifact
    name = Path(path).name
    builds = [b for b in (art.kernels if art is not None and art.ok else []) if kernel in (None, b.name)]
    src = report.source.lines
    out = [f"// SASS of {name} for {report.arch}, grouped by source line (nvdisasm, -lineinfo build)"]
    blocks = []
    if not builds:
        why = "it did not compile" if art is None or not art.ok else (
            f"no kernel named {kernel}" if kernel else "it has no kernels")
        out.append(f"// no SASS: {why}")
    for b in builds:
        r = b.resources
        code = without_padding(b.sass)  # the NOPs after the last instruction are alignment, not code
        out += ["", f"// ==== {b.label} ({b.mangled}): {len(code)} instructions, {r.registers} registers, "
                    f"{r.stack_bytes} B stack, {r.spill_stores + r.spill_loads} B spilled"]
        for ln, run in line_runs(code, report.path):
            here = None
            if ln is not None:
                moved = ln - 1 if line_map is None else line_map.line(ln - 1)
                here = None if moved is None else moved + 1
                code = src[ln - 1].strip() if 0 < ln <= len(src) else ""
                out.append(f"// {name}:{here or ln}  {code}" + ("" if here else "  (changed since the profile)"))
            else:
                out.append("// (no source line)")
            start = len(out) - 1
            for ins in run:
                pred = f"{ins.predicate} " if ins.predicate else ""
                out.append(f"    /*{ins.offset:04x}*/  {pred}{ins.opcode} {ins.operands}".rstrip() + " ;")
            blocks.append({"line": here, "start": start, "end": len(out) - 1})
    return {"text": "\n".join(out) + "\n", "blocks": blocks, "kernels": sorted({b.name for b in builds}),
            "arch": report.arch}
