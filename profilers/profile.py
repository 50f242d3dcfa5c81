"""Static profile of one .cu file: compile, parse, run the static tools, build the report."""
from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .advice import Advice, sort_advice
from .cachekey import MAX_HEADER_BYTES, read_bounded
from .compile import CompiledArtifact, CompileOptions, compile_cuda, read_source
from .nvcc_diag import Diagnostic
from .scopes import run_static, sort_kernels
from .source import Kernel, LaunchSite, SourceFile, parse_source
from .specblocks import spec_block_sizes
from .toolchain import Toolchain
from .tools import DEFAULT_BLOCK, BlockHint, Context, static_tools

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kernelpro-parse")


@dataclass
class KernelSummary:
    name: str
    line: int
    registers: int | None = None
    spill_stores: int | None = None
    spill_loads: int | None = None
    stack_bytes: int | None = None
    shared_bytes: int | None = None
    constant_bytes: int | None = None
    barriers: int | None = None
    block: int = DEFAULT_BLOCK
    block_origin: str = "default"
    occupancy: float | None = None
    occupancy_limiter: str | None = None
    occupancy_text: str = ""
    instructions: int | None = None
    mangled: list[str] = field(default_factory=list)
    instantiation: str | None = None  # `reduce<float, 256>`: one row per instantiation of a template
    file: str = ""  # the file that defines it (a project header, or the profiled file)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ProfileReport:
    path: str
    arch: str
    source: SourceFile
    artifact: CompiledArtifact | None
    kernels: list[KernelSummary]
    advice: list[Advice]
    diagnostics: list[Diagnostic]
    notes: list[str]
    duration_s: float
    context: Context | None = None
    analysed: bool = True  # some kernel had machine code to analyse


    @property
    def ok(self) -> bool:
        return self.artifact is not None and self.artifact.ok

    @property
    def cache_hit(self) -> bool:
        return bool(self.artifact and self.artifact.cache_hit)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "arch": self.arch,
            "compiled": self.ok,
            "analysed": self.analysed,
            "cache_hit": self.cache_hit,
            "kernels": [k.to_json() for k in self.kernels],
            "advice": [a.to_json() for a in self.advice],
            "errors": [_diag_json(d) for d in self.diagnostics if d.severity == "error"],
            "warnings": [_diag_json(d) for d in self.diagnostics if d.severity != "error"],
            "notes": self.notes,
            "toolchain": self.artifact.toolchain if self.artifact else None,
            "duration_s": round(self.duration_s, 4),
        }


def _diag_json(d: Diagnostic) -> dict[str, Any]:
    return {"file": d.file, "line": d.line, "column": d.column, "message": d.message,
            "severity": d.severity, "code": d.code, "tool": d.tool}


def resolve_blocks(src: SourceFile, block: int | None = None, spec_blocks: dict[str, int] | None = None,
                   kernels: list[Kernel] | None = None, sites: list[LaunchSite] | None = None) -> dict[str, BlockHint]:
    """Block size per kernel: --block, then the launch spec, launch sites, __launch_bounds__, default.

    `kernels` and `sites` default to the file's own; a profile passes those of its headers too."""
    first_site: dict[str, LaunchSite] = {}
    for s in sites if sites is not None else src.launch_sites:
        if s.block_threads and s.kernel not in first_site:
            first_site[s.kernel] = s
    out: dict[str, BlockHint] = {}
    for k in kernels if kernels is not None else src.kernels:
        if block:
            out[k.name] = BlockHint(block, "--block")
        elif spec_blocks and spec_blocks.get(k.name):
            out[k.name] = BlockHint(spec_blocks[k.name], "launch spec")
        elif k.name in first_site:
            site = first_site[k.name]
            where = "" if site.file in (None, k.file) else f" of {Path(site.file).name}"
            out[k.name] = BlockHint(site.block_threads, f"launch site line {site.line}{where}")
        elif k.launch_bounds:
            out[k.name] = BlockHint(k.launch_bounds[0], "__launch_bounds__")
        else:
            out[k.name] = BlockHint(DEFAULT_BLOCK, "default")
    return out


def _int_arg(v: str) -> int | None:
    m = re.fullmatch(r"\(?\s*(-?\d+)[uUlL]*\s*\)?", v.strip())
    return int(m.group(1)) if m else None


_BUILTIN_TYPES = {"float", "double", "int", "unsigned", "unsigned int", "long", "long long", "short", "char",
                  "half", "__half", "__nv_bfloat16", "nv_bfloat16", "bool", "size_t", "int64_t", "uint32_t"}


def _site_env(written: list[str], actual: tuple[str, ...], exact: bool) -> dict[str, int] | None:
    """The names a launch's template arguments bind for one instantiation, or None when the
    launch is of another instantiation (`k<float>` for `k<double>`, `k<128>` for `k<256>`)."""
    if len(written) > len(actual):
        return None
    env: dict[str, int] = {}
    for w, a in zip(written, actual):
        w, a = " ".join(w.split()), " ".join(a.split())
        wi, ai = _int_arg(w), _int_arg(a)
        if w == a or (wi is not None and wi == ai):
            continue
        if exact or wi is not None or w in _BUILTIN_TYPES:
            return None
        if ai is not None and re.fullmatch(r"[A-Za-z_]\w*", w):
            env[w] = ai  # a template parameter of the launching code: `scale<BLOCK>` in `run<128>`
    return env


def instantiation_blocks(art: CompiledArtifact, kernels: list[Kernel], sites: list[LaunchSite],
                         hints: dict[str, BlockHint], sources: dict[str, SourceFile]) -> dict[str, BlockHint]:
    """Block size per instantiation of a template kernel (keyed by its label, `scale<128>`): a
    launch site of that instantiation, its block read with the template arguments bound
    (`scale<BLOCK><<<g, BLOCK>>>` in `run<128>`), else `__launch_bounds__` of the instantiation."""
    out: dict[str, BlockHint] = {}
    if not art.ok:
        return out
    for k in kernels:
        hint = hints.get(k.name)
        if not k.is_template or hint is None or hint.origin in ("--block", "launch spec"):
            continue
        for b in art.builds(k.name):
            args = b.template_args or ()
            found = None
            for exact in (True, False):
                for site in sites:
                    env = _site_env(site.template_args, args, exact) if site.kernel == k.name else None
                    threads = site.threads_with(env) if env is not None else None
                    if threads:
                        where = "" if site.file in (None, k.file) else f" of {Path(site.file).name}"
                        found = BlockHint(threads, f"launch site line {site.line}{where}")
                        break
                if found:
                    break
            src = sources.get(k.file)
            if found is None and hint.origin in ("default", "__launch_bounds__") and k.launch_bounds_nodes and src:
                bound = {name: _int_arg(a) for (_, name), a in zip(k.template_params, args) if _int_arg(a) is not None}
                threads = src.eval_int(k.launch_bounds_nodes[0], bound)
                if threads:
                    found = BlockHint(threads, "__launch_bounds__")
            if found is not None and found.threads != hint.threads:  # the same size: the kernel's hint stands
                out[b.label] = found
    return out


def header_sources(art: CompiledArtifact) -> list[SourceFile]:
    """The project headers the file includes that define kernels, parsed."""
    out = []
    for h in art.headers:
        try:
            text = read_bounded(h, MAX_HEADER_BYTES).decode(errors="replace")
        except OSError:
            continue
        if "__global__" in text:
            out.append(parse_source(text, h))
    return out


def profile_file(
    path: str | Path,
    options: CompileOptions = CompileOptions(),
    text: str | None = None,
    kernel: str | None = None,
    block: int | None = None,
    spec_blocks: dict[str, int] | None = None,
    toolchain: Toolchain | None = None,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
) -> ProfileReport:
    """Compile, parse (the file and the project headers that define kernels), run the static tools.

    `progress(done, total)` is called as kernels are analysed."""
    t0 = time.perf_counter()
    p = Path(path).resolve()
    if text is None:
        text = read_source(p)
    # parse and load the rules in a helper thread while this one waits on nvcc (the GIL is
    # free then); the compile stays on the caller's thread so callers compiling in parallel
    # (the evaluator, the language server) are not funnelled through a shared pool
    preparing = _POOL.submit(lambda: (parse_source(text, str(p)), static_tools()))
    art = compile_cuda(p, options, text=text, toolchain=toolchain, use_cache=use_cache, cancel=cancel)
    src, tools = preparing.result()
    notes = list(art.notes)
    if spec_blocks is None and not block:
        spec_blocks, note = spec_block_sizes(p)
        if note:
            notes.append(note)
    sources = [src] + (header_sources(art) if art.ok or art.headers else [])
    scoped = sort_kernels(sources, art, kernel)
    every = [k for f in sources for k in f.kernels]
    sites = [s for f in sources for s in f.launch_sites]
    blocks = resolve_blocks(src, block, spec_blocks, every, sites)
    by_file = {f.path: f for f in sources}
    blocks.update(instantiation_blocks(art, every, sites, blocks, by_file))
    ctx = Context(source=src, artifact=art, arch=options.arch, blocks=blocks, launch_sites=sites)
    kernels = [s for k in scoped.kernels for s in summaries(ctx, k)]
    if kernel is not None and not scoped.kernels and not scoped.switched_off:
        names = ", ".join(dict.fromkeys(k.name for k in every)) or "none"
        notes.append(f"no kernel named '{kernel}' in {p.name} (kernels: {names})")
    advice = run_static(ctx, sources, tools, scoped, progress) if art.ok else []
    if kernel is not None:
        advice = [a for a in advice if a.kernel in (kernel, None)]
    notes += ctx.notes
    notes += [_uninstantiated_note(k, p) for k in scoped.uninstantiated]
    notes += [f"{k.name} ({_where(k, p)}) is switched off by the preprocessor: not analysed" for k in scoped.switched_off]
    if art.ok and not every:
        notes.append("no __global__ kernels found in this file or the project headers it includes")
    analysed = any(ctx.artifact.builds(k.name) for k in scoped.kernels) if art.ok else False
    if art.ok and not analysed and every:
        notes.append("nothing was compiled to analyse: no kernel here has machine code")
    return ProfileReport(str(p), options.arch, src, art, kernels, sort_advice(advice), art.diagnostics,
                         notes, time.perf_counter() - t0, ctx, analysed)


def _where(k: Kernel, main: Path) -> str:
    return f"line {k.line}" if k.file == str(main) else f"{Path(k.file).name}:{k.line}"


def _uninstantiated_note(k: Kernel, main: Path) -> str:
    params = ", ".join("float" if kind == "type" else "256" for kind, _ in k.template_params) or "float"
    return (f"{k.name} ({_where(k, main)}) is a template that {main.name} never instantiates, so nothing was "
            "compiled for it and only the source rules ran (no registers, SASS or occupancy): profile the .cu "
            f"file that launches it, or add an explicit instantiation such as `template __global__ void "
            f"{k.name}<{params}>(...);`")


def summaries(ctx: Context, k: Kernel) -> list[KernelSummary]:
    """One row per kernel; a template compiled more than once gets one row per instantiation."""
    builds = ctx.artifact.builds(k.name) if ctx.artifact and ctx.artifact.ok else []
    if k.is_template and len(builds) > 1:
        return [summarize(ctx, k.name, [b], b.label, k) for b in builds]
    return [summarize(ctx, k.name, builds, builds[0].label if k.is_template and builds else None, k)]


def summarize(ctx: Context, name: str, builds: list | None = None, instantiation: str | None = None,
              k: Kernel | None = None) -> KernelSummary:
    k = k or ctx.source.kernel(name)
    hint = (ctx.blocks.get(instantiation) if instantiation else None) or ctx.block(name)
    s = KernelSummary(name=name, line=k.line if k else 0, block=hint.threads, block_origin=hint.origin,
                      instantiation=instantiation, file=k.file if k else ctx.path)
    if builds is None:
        builds = ctx.artifact.builds(name) if ctx.artifact and ctx.artifact.ok else []
    if not builds:
        return s
    b = max(builds, key=lambda b: (b.resources.registers, b.resources.stack_bytes))
    r = b.resources
    s.registers, s.spill_stores, s.spill_loads = r.registers, r.spill_stores, r.spill_loads
    s.stack_bytes, s.shared_bytes, s.constant_bytes, s.barriers = r.stack_bytes, r.shared_bytes, r.constant_bytes, r.barriers
    s.instructions = len(b.sass) or None
    s.mangled = [x.mangled for x in builds]
    try:
        from .occupancy import occupancy as occupancy_of

        occ = occupancy_of(ctx.arch, hint.threads, r.registers, r.shared_bytes + ctx.dynamic_shared.get(name, 0))
        s.occupancy, s.occupancy_limiter, s.occupancy_text = round(occ.occupancy, 4), occ.limiter, occ.explain()
    except ValueError as e:
        s.occupancy_text = str(e)
    return s
