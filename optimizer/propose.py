"""`kernelpro optimize FILE --kernel K --propose-only`: the candidates the first expansion would
try, without a GPU: each compiled, with its description, the advice it answers and a diff.
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path

from kernelpro.profilers.compile import CompileOptions, read_source
from kernelpro.profilers.source import parse_source

from .model import Candidate
from .restructure.prelude import GUARD, strip_prelude


@dataclass
class Proposed:
    candidate: Candidate
    prior: float
    compiled: str | None  # None: compiled; else the reason
    diff: str


@dataclass
class ProposeReport:
    file: str
    kernel: str
    launch: dict
    spec: str | None
    advice: list = field(default_factory=list)  # (rule, line, message)
    proposed: list = field(default_factory=list)
    not_applied: list = field(default_factory=list)  # why structural plans did not apply
    notes: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # (line, message): the kernel as written does not compile

    def problem(self) -> str | None:
        """Why the command fails (exit 1): the kernel as written, or every candidate, does not compile."""
        if self.errors:
            line, msg = self.errors[0]
            more = f" (and {len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
            return f"{self.file}:{line}: the kernel as written does not compile: {msg}{more}"
        if self.proposed and all(p.compiled is not None for p in self.proposed):
            return f"none of the {len(self.proposed)} candidates compiles"
        return None

    def to_json(self) -> dict:
        return {
            "file": self.file, "kernel": self.kernel, "launch": self.launch, "spec": self.spec,
            "advice": [{"rule": r, "line": ln, "message": m} for r, ln, m in self.advice],
            "candidates": [{
                "description": p.candidate.description, "origin": p.candidate.origin, "kind": p.candidate.kind,
                "answers": list(p.candidate.answers), "prior": p.prior, "launch": p.candidate.launch,
                "flags": list(p.candidate.flags), "knobs": dict(p.candidate.knobs), "notes": list(p.candidate.notes),
                "compiles": p.compiled is None, "compile_error": p.compiled, "diff": p.diff,
                "source": p.candidate.source}
                for p in self.proposed],
            "not_applied": self.not_applied, "notes": self.notes,
            "errors": [{"line": ln, "message": m} for ln, m in self.errors],
        }


def _diff(old: str, new: str, name: str, fold_helpers: bool) -> str:
    helpers = GUARD in new and GUARD not in old
    shown = strip_prelude(new) if (helpers and fold_helpers) else new
    d = "".join(difflib.unified_diff(old.splitlines(True), shown.splitlines(True), f"a/{name}", f"b/{name}", n=2))
    if helpers and fold_helpers:
        d += "+ (and the KernelPro helper templates, inserted once after the includes)\n"
    return d


def _inferred(path: Path, kernel: str, text: str, src, notes: list[str]):
    """(spec, its would-be path) inferred in memory, the guesses said in `notes`; OptimizeError if none can be."""
    from kernelpro.profilers.runtime.infer import InferError, infer_spec
    from kernelpro.profilers.runtime.spec import SpecError, loads_spec

    from .run import OptimizeError

    try:
        plan = infer_spec(path, kernel, text)
        spec = loads_spec(plan.toml(reference=False), plan.spec_path, src)
    except (InferError, SpecError) as e:
        raise OptimizeError(f"no launch spec beside {path}, and none can be inferred ({e}): write one") from None
    guessed = "; ".join(plan.guesses) or "nothing guessed"
    notes.append(f"launch spec inferred (--infer-spec; not written, {plan.spec_path.name} would hold it): "
                 f"sizes {plan.sizes}; guessed: {guessed}")
    return spec, str(plan.spec_path)


def propose_only(file: Path, kernel: str, options: CompileOptions, fold_helpers: bool = True,
                 infer: bool = False) -> ProposeReport:
    """The first expansion's candidates, compiled, none run. `infer`: without a launch spec, the one
    `--infer-spec` would write is used (in memory; nothing is written) and the report says so."""
    from kernelpro.profilers.profile import profile_file

    from .builtin import BuiltinProposer
    from .run import OptimizeError
    from .transforms import TransformInput

    path = Path(file)
    try:
        text = read_source(path.resolve())
    except Exception as e:
        raise OptimizeError(str(e)) from None
    src = parse_source(text, str(path.resolve()))
    if src.kernel(kernel) is None:
        names = ", ".join(k.name for k in src.kernels) or "none"
        raise OptimizeError(f"{path}: no __global__ kernel named '{kernel}' (kernels: {names})")
    spec, spec_path, notes = None, None, []
    from kernelpro.profilers.runtime.spec import SpecError, find_spec, load_spec

    sp = find_spec(path, kernel)
    if sp is not None:
        try:
            spec = load_spec(sp, src)
            spec_path = str(sp)
        except SpecError as e:
            raise OptimizeError(str(e)) from None
        if spec.kernel != kernel:
            notes.append(f"{sp} runs kernel '{spec.kernel}', not '{kernel}': its launch is not used")
            spec = None
    if spec is None and infer:
        spec, spec_path = _inferred(path, kernel, text, src, notes)
    if spec is None:
        notes.append(f"no launch spec for {kernel}: candidates that change the launch are not proposed "
                     f"(create one with `kernelpro spec init {path} --kernel {kernel}`)")
    from . import spec_edit

    base_launch = spec_edit.base_launch(spec) if spec is not None else {}
    if spec is not None and getattr(spec, "flags", ()):
        options = CompileOptions(arch=options.arch, include_paths=options.include_paths, defines=options.defines,
                                 extra_flags=tuple(options.extra_flags) + tuple(spec.flags),
                                 timeout_s=options.timeout_s)
    rep = profile_file(path.resolve(), options, text=text, kernel=kernel)
    advice = [a for a in rep.advice if a.kernel in (None, kernel)]
    size_names = sorted({v for s in spec.sizes.values() for v in s}) if spec is not None else []
    prop = BuiltinProposer(kernel, base_launch, size_names, arch=options.arch, path=path.resolve(),
                           compile_options=options, spec=spec)
    inp = TransformInput(source=text, kernel=kernel, advice=advice, launch=dict(base_launch), flags=(),
                         size_names=size_names, resources={}, base_launch=None)
    out = ProposeReport(str(path), kernel, base_launch, spec_path, notes=notes,
                        advice=[(a.rule, a.line, a.message) for a in advice],
                        errors=[(e.line, e.message) for e in rep.errors])
    seen = set()
    for c, prior in prop.candidates(inp):
        if c.key() in seen:  # the proposer offers each source once per node
            continue
        seen.add(c.key())
        err = prop.compile_error(c)
        out.proposed.append(Proposed(c, round(prior, 4), err, _diff(text, c.source, path.name, fold_helpers)))
    out.not_applied = [w for ws in prop.plans_refused.values() for w in ws]
    return out


def print_report(rep: ProposeReport, as_json: bool) -> None:
    if as_json:
        print(json.dumps(rep.to_json(), indent=2, default=str))
        return
    from rich.console import Console
    from rich.markup import escape

    c = Console(highlight=False, soft_wrap=True)  # never wrapped: the diffs must apply with `patch`
    c.print(f"[bold]{escape(rep.file)}[/bold]: {len(rep.proposed)} candidate(s) for [bold]{escape(rep.kernel)}[/bold]"
            f" the first expansion would try, best first (nothing was run)")
    for n in rep.notes:
        c.print(f"[yellow]note:[/yellow] {escape(n)}")
    for line, msg in rep.errors:
        c.print(f"[red]error:[/red] {escape(rep.file)}:{line}: {escape(msg)}")
    if rep.advice:
        c.print("advice on the kernel as written: " + ", ".join(sorted({f'{r}' for r, _, _ in rep.advice})))
    for i, p in enumerate(rep.proposed, 1):
        cand = p.candidate
        status = "[green]compiles[/green]" if p.compiled is None else f"[red]does not compile[/red]: {escape(p.compiled)}"
        c.print(f"\n[bold]{i}. {escape(cand.description)}[/bold]")
        c.print(f"   {cand.kind}, {cand.origin}, prior {p.prior:.2f}; {status}")
        if cand.answers:
            c.print(f"   answers: {', '.join(cand.answers)}")
        if cand.knobs:
            c.print(f"   knobs (tuned inside the node): {', '.join(f'{k}={v}' for k, v in cand.knobs)}")
        if cand.launch and cand.launch != rep.launch:
            c.print(f"   launch: {escape(json.dumps(cand.launch))}")
        if cand.flags:
            c.print(f"   flags: {' '.join(cand.flags)}")
        for n in cand.notes:
            c.print(f"   [yellow]note:[/yellow] {escape(n)}")
        if p.diff:  # as it is (tabs, trailing spaces, long lines), so that it applies with `patch`
            c.file.write(p.diff if p.diff.endswith("\n") else p.diff + "\n")
            c.file.flush()
    if rep.not_applied:
        c.print("\n[bold]restructuring not applied[/bold]")
        for w in rep.not_applied:
            c.print(f"- {escape(w)}")
