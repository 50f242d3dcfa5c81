"""What the static rules look at, and in what pieces: the file and the project headers it
includes, each template instantiation on its own, and only code the preprocessor kept.

A template kernel has one build per instantiation (`reduce<float>` and `reduce<double>`):
the rules run once per build, with the build's SASS and its template arguments bound, and a
finding every instantiation shares with the same text is reported once under the template's
name; the others name their instantiation. Kernels defined in a project header are analysed
at the header's lines. A finding on a line the preprocessor switched off is dropped.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from .advice import Advice, Evidence, Location
from .compile import CompiledArtifact
from .source import Kernel, SourceFile
from .tools import Context, Instantiation, MicroTool, run_tools

CHUNK = 64  # kernels per rules pass: progress moves, and no pass holds the whole file


@dataclass
class Scoped:
    """The kernels of the profile, sorted by how they can be analysed."""

    kernels: list[Kernel] = field(default_factory=list)  # compiled and in scope, in file order
    uninstantiated: list[Kernel] = field(default_factory=list)  # templates no build came from
    switched_off: list[Kernel] = field(default_factory=list)  # inside code the preprocessor removed


def sort_kernels(sources: list[SourceFile], art: CompiledArtifact | None, only: str | None = None) -> Scoped:
    out = Scoped()
    for src in sources:
        for k in src.kernels:
            if only is not None and k.name != only:
                continue
            if art is not None and art.ok and not art.compiled(src.path, k.line):
                out.switched_off.append(k)
                continue
            out.kernels.append(k)
            if k.is_template and art is not None and art.ok and not art.builds(k.name):
                out.uninstantiated.append(k)
    return out


def binding(k: Kernel, args: tuple[str, ...] | None) -> dict[str, str]:
    return {name: a for (_, name), a in zip(k.template_params, args or ())}


def instantiations(k: Kernel, art: CompiledArtifact) -> list[Instantiation]:
    return [Instantiation(k.name, b, binding(k, b.template_args)) for b in art.builds(k.name)]


def run_static(base: Context, sources: list[SourceFile], tools: list[MicroTool], scoped: Scoped,
               progress: Callable[[int, int], None] | None = None) -> list[Advice]:
    """Every static tool over every kernel in scope, file by file and instantiation by instantiation."""
    art = base.artifact
    jobs: list[tuple[SourceFile, list[Kernel], Kernel | None]] = []  # (file, kernels, template judged per build)
    by_file: dict[str, list[Kernel]] = {}
    for k in scoped.kernels:
        by_file.setdefault(k.file, []).append(k)
    for src in sources:
        mine = by_file.get(src.path, [])
        per_build = [k for k in mine if k.is_template and art is not None and art.ok and art.builds(k.name)]
        chosen = {id(k) for k in per_build}
        plain = [k for k in mine if id(k) not in chosen]
        for i in range(0, len(plain), CHUNK):
            jobs.append((src, plain[i:i + CHUNK], None))
        jobs += [(src, [k], k) for k in per_build]
    if not jobs and sources:  # no kernels: the file-level rules still run once
        jobs.append((sources[0], [], None))
    out: list[Advice] = []
    done, total = 0, sum(len(ks) for _, ks, _ in jobs)
    if progress is not None:
        progress(0, total)
    for src, ks, template in jobs:
        if template is None:
            out += _run(base, src.view(ks), tools)
        else:
            per = [(inst, _run(base, src.view(ks), tools, inst)) for inst in instantiations(template, art)]
            out += merge(template, per)
        done += len(ks)
        if progress is not None:
            progress(done, total)
    out = [a for a in out if art is None or not art.ok or art.compiled(a.file, a.line)]
    return summarise(out)


# rules whose findings, past this many in one file, become one summary (the same advice on every
# element-wise kernel of a 3,000-line file is one piece of information, not a hundred)
SUMMARISED = {"narrow-elementwise-access": 3}


def summarise(advice: list[Advice]) -> list[Advice]:
    """One finding per file for a rule of SUMMARISED that fires on more kernels than its limit: at
    the first kernel, naming them all, the others as related locations."""
    groups: dict[tuple[str, str], list[Advice]] = {}
    for a in advice:
        if a.rule in SUMMARISED:
            groups.setdefault((a.rule, a.file), []).append(a)
    drop: set[int] = set()
    for (rule, file), items in groups.items():
        if len(items) <= SUMMARISED[rule]:
            continue
        items.sort(key=lambda a: (a.line, a.column or 0))
        first = items[0]
        names = list(dict.fromkeys(a.instantiation or a.kernel or "?" for a in items))
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        first.message = (f"{len(items)} element-wise kernels of this file ({shown}) each move one narrow element "
                         f"per access; here: {first.message}") if rule == "narrow-elementwise-access" else \
            f"{len(items)} kernels of this file ({shown}): {first.message}"
        first.related = [Location(a.file, a.line, a.column, a.end_line, a.end_column,
                                  message=f"{a.instantiation or a.kernel}: the same") for a in items[1:]] + first.related
        first.evidence.append(Evidence("kernels with this finding in the file", len(items), "", "source"))
        drop |= {id(a) for a in items[1:]}
    return [a for a in advice if id(a) not in drop]


def _run(base: Context, src: SourceFile, tools: list[MicroTool], inst: Instantiation | None = None) -> list[Advice]:
    ctx = replace(base, source=src, notes=[], instantiation=inst)
    advice = run_tools(ctx, tools)
    base.notes += [n for n in ctx.notes if n not in base.notes]
    return advice


def merge(k: Kernel, per: list[tuple[Instantiation, list[Advice]]]) -> list[Advice]:
    """One finding per source place (rule, file, line, column) across the instantiations: under
    the template's name when every instantiation reports it alike; otherwise the first
    instantiation's finding, saying which instantiations have it (its message names them, its
    evidence lists them), with a fix only when every one of them offers the same."""
    groups: dict[tuple, list[tuple[Instantiation, Advice]]] = {}
    for inst, advice in per:
        for a in advice:
            if a.kernel == k.name:
                a.instantiation = inst.label
            groups.setdefault((a.rule, a.file, a.line, a.column), []).append((inst, a))
    out = []
    for items in groups.values():
        texts = {_generic_text(a, inst.label, k.name) for inst, a in items}
        labels = list(dict.fromkeys(inst.label for inst, _ in items))
        if len(per) > 1 and len(items) == len(per) and len(texts) == 1:
            a = _generic(items[0][1], items[0][0].label, k.name)
            a.evidence.append(Evidence("instantiations", ", ".join(labels), "", "nvcc"))
            out.append(a)
            continue
        a = items[0][1]
        if a.kernel != k.name:
            out += [x for _, x in items]  # not this template's finding (a helper's): as reported
            continue
        if len({repr(x.fix) for _, x in items}) > 1:
            a.fix = None  # the instantiations need different edits: none fits them all
        a.message = _naming(a.message, labels, len(per))  # even a template's only build: say which it is
        a.instantiation = _shown(labels)
        if len(per) > 1:
            a.evidence.append(Evidence("instantiations", ", ".join(labels), f"{len(labels)} of {len(per)}", "nvcc"))
        out.append(a)
    return out


def _naming(message: str, labels: list[str], total: int) -> str:
    """The message with the instantiations it describes said: `(in scale_add<float>)`."""
    missing = [x for x in labels if x not in message]
    if not missing:
        return message
    every = ": every instantiation" if len(labels) == total > 1 else ""
    return f"{message} (in {_shown(labels)}{every})"


def _shown(labels: list[str]) -> str:
    return ", ".join(labels[:4]) + (f" and {len(labels) - 4} more" if len(labels) > 4 else "")


def _swap(text: str, label: str, name: str) -> str:
    return text.replace(label, name)


def _generic_text(a: Advice, label: str, name: str) -> tuple:
    return (_swap(a.message, label, name), _swap(a.remedy, label, name),
            tuple(_swap(e.text(), label, name) for e in a.evidence), repr(a.fix), a.severity)


def _generic(a: Advice, label: str, name: str) -> Advice:
    return replace(a, message=_swap(a.message, label, name), remedy=_swap(a.remedy, label, name),
                   evidence=[replace(e, value=_swap(e.value, label, name) if isinstance(e.value, str) else e.value)
                             for e in a.evidence], instantiation=None)
