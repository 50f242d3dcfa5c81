"""The micro-profiling tools offered to the LLM coder as functions on its draft kernel.

A draft is the model's code: before a tool compiles it, it goes through the answer's check
(llm/police.check_source, with the kernel file as the reference: what the draft copies from it
unchanged is the user's), and it is compiled with include roots limited to the CUDA toolkit
and the project folder (the kernel file's folder): the options' include folders outside those
are dropped, so are include-like flags, and the check has resolved every include the draft
makes (and those of the project headers it reaches) inside them.
"""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.profile import profile_file

from .llm.agent import ToolSpec
from .llm.police import check_source, toolkit_include_dirs
from .llm.prompts import feedback_text

# flags that add include folders or pre-included files, or hand options to the host compiler
_INCLUDE_FLAGS = ("-I", "--include-path", "-isystem", "--system-include", "-idirafter", "-iquote", "-include",
                  "--pre-include", "-Xcompiler", "--compiler-options", "-ccbin", "--compiler-bindir",
                  "-Xcudafe", "--options-file", "-optf", "-imacros")


def tool_options(options: CompileOptions, project_dir: Path, toolkit: tuple[str, ...] | None = None) -> CompileOptions:
    """The options for compiling a model's draft: include folders only inside the project folder or
    the toolkit's include folders, no flag that adds others."""
    toolkit = toolkit_include_dirs() if toolkit is None else toolkit
    roots = [Path(project_dir).resolve()] + [Path(d).resolve() for d in toolkit]
    incs = tuple(p for p in options.include_paths if any(Path(p).resolve().is_relative_to(r) for r in roots))
    flags: list[str] = []
    skip_next = False
    for f in options.extra_flags:
        if skip_next:
            skip_next = False
            continue
        hit = next((x for x in _INCLUDE_FLAGS if f == x or f.startswith(x)), None)
        if hit is not None:
            skip_next = f == hit  # the folder or file is the next argument
            continue
        flags.append(f)
    return dataclasses.replace(options, include_paths=incs, extra_flags=tuple(flags))

_SOURCE = {"type": "object", "properties": {"source": {"type": "string", "description": "the whole .cu text of the draft"}},
           "required": ["source"]}


def make_tools(path: Path, kernel: str, options: CompileOptions, feedback: str = "advice",
               measure=None) -> list[ToolSpec]:
    """compile_and_resources, static_advice, sass_search, hunt_building_blocks; measure_on_gpu when
    `measure` is given."""

    project = Path(path).resolve().parent
    opts = tool_options(options, project)

    def checked(args: dict) -> str:
        """The draft in `source`, through the answer check (BadAnswer: not compiled, not run)."""
        src = args.get("source")
        if not isinstance(src, str) or not src.strip():
            raise ValueError("'source' must be the whole kernel file as a string")
        try:
            reference = Path(path).read_text(errors="replace")
        except OSError:
            reference = None
        check_source(src, project, reference=reference, include_paths=opts.include_paths)
        return src

    def profile(args: dict):
        return profile_file(path, opts, text=checked(args), kernel=kernel)

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

    def measure_on_gpu(args: dict) -> str:
        return measure(checked(args))

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
                              _SOURCE, measure_on_gpu))
    return tools
