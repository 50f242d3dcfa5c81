"""The micro-profiling tool registry: one list serves the editor, the CLI and the LLM.

A tool has a name, a description written for a model to choose it, the inputs it needs,
and a function from a Context to a list of Advice. A tool that cannot decide says nothing.
"""
from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from .advice import Advice
from .compile import CompiledArtifact, KernelBuild
from .sass import Instruction
from .source import Kernel, SourceFile

DEFAULT_BLOCK = 256


@dataclass
class BlockHint:
    threads: int
    origin: str  # "--block", "launch spec", "launch site line 42", "__launch_bounds__", "default"


@dataclass
class Instantiation:
    """One build of a template kernel: the rules judge it on its own SASS and types."""

    kernel: str
    build: KernelBuild
    binding: dict[str, str]  # template parameter -> argument: {"T": "float", "BLOCK": "256"}

    @property
    def label(self) -> str:
        return self.build.label


@dataclass
class Context:
    source: SourceFile
    artifact: CompiledArtifact | None
    arch: str = "sm_90"
    blocks: dict[str, BlockHint] = field(default_factory=dict)  # kernel name -> block size
    dynamic_shared: dict[str, int] = field(default_factory=dict)  # kernel name -> bytes
    spec: Any = None
    measurement: Any = None  # dynamic tools: the runtime's measurement for the kernel
    notes: list[str] = field(default_factory=list)
    instantiation: Instantiation | None = None  # set: the one build the rules look at for that kernel
    launch_sites: list = field(default_factory=list)  # every `<<<>>>` of the file and its headers (a header's kernel launched from the .cu)

    @property
    def path(self) -> str:
        return self.source.path

    def block(self, kernel: str) -> BlockHint:
        """The kernel's block size; for the instantiation being judged, that instantiation's own."""
        inst = self.instantiation
        if inst is not None and inst.kernel == kernel and inst.label in self.blocks:
            return self.blocks[inst.label]
        return self.blocks.get(kernel) or BlockHint(DEFAULT_BLOCK, "default")

    def builds(self, kernel: Kernel) -> list[KernelBuild]:
        inst = self.instantiation
        if inst is not None and inst.kernel == kernel.name:
            return [inst.build]
        return self.artifact.builds(kernel.name) if self.artifact and self.artifact.ok else []

    def label(self, kernel: Kernel) -> str:
        """How a message names the kernel: `reduce<float, 256>` when judging one instantiation."""
        inst = self.instantiation
        return inst.label if inst is not None and inst.kernel == kernel.name else kernel.name

    def type_of(self, kernel: Kernel, type_text: str) -> str:
        """A type as written in the kernel, with the instantiation's template arguments put in."""
        inst = self.instantiation
        if inst is None or inst.kernel != kernel.name or not inst.binding:
            return type_text
        return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: inst.binding.get(m.group(0), m.group(0)), type_text)

    def constants(self, kernel: Kernel) -> dict[str, int]:
        """Integer template arguments of the instantiation (`BLOCK` -> 256)."""
        inst = self.instantiation
        if inst is None or inst.kernel != kernel.name:
            return {}
        return {k: int(v) for k, v in inst.binding.items() if re.fullmatch(r"-?\d+", v)}

    def sass_by_line(self, kernel: Kernel) -> dict[int, list[Instruction]]:
        """SASS of the kernel's builds grouped by the line in this file that produced them."""
        out: dict[int, list[Instruction]] = {}
        for b in self.builds(kernel):
            for ins in b.sass:
                ln = ins.line_in(self.path)
                if ln is not None:
                    out.setdefault(ln, []).append(ins)
        return out


@dataclass
class MicroTool:
    name: str
    description: str
    needs: tuple[str, ...]  # "source", "artifact", "sass", "block", "spec", "gpu", "measurement"
    run: Callable[[Context], list[Advice]]
    kind: str = "static"  # or "dynamic"
    rules: tuple[str, ...] = ()  # rule ids it may emit

    def to_openai(self) -> dict:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                "parameters": {"type": "object", "properties": {}, "additionalProperties": False}}}


REGISTRY: dict[str, MicroTool] = {}


def tool(name: str, description: str, needs: tuple[str, ...], kind: str = "static", rules: tuple[str, ...] = ()):
    def deco(fn: Callable[[Context], list[Advice]]):
        REGISTRY[name] = MicroTool(name, " ".join(description.split()), needs, fn, kind, rules or (name,))
        return fn
    return deco


def load_builtin() -> dict[str, MicroTool]:
    from . import rules  # noqa: F401  (registers the built-in tools)
    return REGISTRY


def static_tools() -> list[MicroTool]:
    return [t for t in load_builtin().values() if t.kind == "static"]


def run_tools(ctx: Context, tools: list[MicroTool]) -> list[Advice]:
    """Run each tool; one that breaks adds a note instead of taking the others down."""
    out: list[Advice] = []
    for t in tools:
        if "artifact" in t.needs and (ctx.artifact is None or not ctx.artifact.ok):
            continue
        if "sass" in t.needs and (ctx.artifact is None or not ctx.artifact.sass_available):
            continue
        try:
            out.extend(t.run(ctx))
        except Exception as e:  # a bug in one rule must not hide the others
            ctx.notes.append(f"tool {t.name} failed: {e!r} at {traceback.format_exc(limit=-1).strip().splitlines()[-2].strip()}")
    return out
