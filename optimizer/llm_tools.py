"""The micro-profiling tools offered to the LLM coder as functions on its draft kernel."""
from __future__ import annotations

import json
import re
from pathlib import Path

from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.profile import profile_file

from .llm.agent import ToolSpec
from .llm.prompts import feedback_text

_SOURCE = {"type": "object", "properties": {"source": {"type": "string", "description": "the whole .cu text of the draft"}},
           "required": ["source"]}


def make_tools(path: Path, kernel: str, options: CompileOptions, feedback: str = "advice",
               measure=None) -> list[ToolSpec]:
    """compile_and_resources, static_advice, sass_search, hunt_building_blocks; measure_on_gpu when
    `measure` is given."""

    def profile(args: dict):
        src = args.get("source")
        if not isinstance(src, str) or not src.strip():
            raise ValueError("'source' must be the whole kernel file as a string")
        return profile_file(path, options, text=src, kernel=kernel)

    def compile_and_resources(args: dict) -> str:
        rep = profile(args)
        if not rep.ok:
            return "does not compile:\n" + "\n".join(f"line {d.line}: {d.message}" for d in rep.errors[:10])
        return json.dumps([{k: v for k, v in s.to_json().items() if k != "mangled"} for s in rep.kernels])

    def static_advice(args: dict) -> str:
        rep = profile(args)
        if not rep.ok:
            return compile_and_resources(args)
        return feedback_text(rep.advice, feedback) or "no findings"

    def sass_search(args: dict) -> str:
        rep = profile(args)
        if not rep.ok:
            return compile_and_resources(args)
        pat = re.compile(str(args.get("opcode", ".")))
        hits = []
        for b in rep.artifact.builds(kernel):
            for ins in b.sass:
                if pat.search(ins.opcode):
                    hits.append(f"line {ins.line_in(str(path))}: {ins.opcode} {ins.operands}")
        return "\n".join(hits[:80]) or "no instruction matches"

    def hunt_building_blocks(args: dict) -> str:
        from kernelpro.profilers.hunt.api import hunt
        from kernelpro.profilers.hunt.index import HuntError

        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ValueError("'query' must say what you need, e.g. 'warp reduce sum' or 'tma copy global to shared'")
        try:
            hits = hunt(query, limit=min(max(int(args.get("limit", 5)), 1), 10))
        except HuntError as e:
            return str(e)
        return "\n\n".join(h.text() for h in hits) or f"no building block matches {query!r}"

    tools = [
        ToolSpec("compile_and_resources", "Compile the draft with nvcc for the target GPU and return registers, "
                 "spills, stack, shared memory and theoretical occupancy per kernel, or the compile errors.",
                 _SOURCE, compile_and_resources),
        ToolSpec("static_advice", "Run KernelPro's static micro-profiling tools (spills, occupancy, FP64, "
                 "coalescing, vector width, restrict, unrolling, barriers, bank conflicts, tensor cores, slow "
                 "math) on the draft and return their findings with source lines.", _SOURCE, static_advice),
        ToolSpec("sass_search", "List the draft's SASS instructions whose opcode matches a regular expression "
                 "(e.g. 'LDG.*128', 'HMMA|HGMMA', 'LDL|STL'), with their source lines.",
                 {"type": "object", "properties": {**_SOURCE["properties"], "opcode": {"type": "string"}},
                  "required": ["source", "opcode"]}, sass_search),
        ToolSpec("hunt_building_blocks", "Search CUTLASS/CuTe, CUB, libcu++, cooperative groups and KernelPro's "
                 "tested building blocks (warp/block reductions, 128-bit loads, tiled transpose, online softmax, "
                 "sm90 wgmma GEMM) for a piece to use instead of hand-rolled code; returns each match's file, "
                 "lines, signature and the #include to use.",
                 {"type": "object", "properties": {"query": {"type": "string", "description": "what you need, in words"},
                                                   "limit": {"type": "integer", "description": "results (1-10)"}},
                  "required": ["query"]}, hunt_building_blocks),
    ]
    if measure is not None:
        tools.append(ToolSpec("measure_on_gpu", "Run the draft on the GPU on fresh random inputs at every size of "
                              "the launch spec: correctness against the reference and the median time per size.",
                              _SOURCE, lambda a: measure(str(a.get("source", "")))))
    return tools
