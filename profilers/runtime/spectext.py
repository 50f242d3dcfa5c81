"""An inferred launch spec (runtime/infer.py's Plan) as text: the TOML with a comment per value, the summary
`spec init` and `optimize --infer-spec` print, and the files written (the spec and the reference snapshot)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from .infer import SPEC_SUFFIX, Plan, _mark, _q


def toml(p: Plan, reference: bool = True) -> str:
    """The spec as TOML, each value with a comment saying where it came from."""
    rel = lambda x: Path(x).name  # noqa: E731 - the spec, the source and the snapshot share a folder
    lines = [
        f"# Launch spec for {p.kernel} in {rel(p.source)}, inferred by `kernelpro spec init` from the kernel"
        + (" and the host code" if p.host else "") + " (docs/launch-specs.md).",
        "# Every value says where it came from; GUESS marks a default or a guess to check.",
        f"kernel = {_q(p.kernel)}",
    ]
    if p.source.resolve().parent != p.spec_path.resolve().parent or not _default_source(p):
        lines.append(f"source = {_q(_relpath(p.source, p.spec_path.parent))}")
    if p.template:
        lines.append(f"template = [{', '.join(_q(a) for a in p.template)}]  # the file instantiates {p.kernel} "
                     f"more than once: {p.instantiation} runs")
    elif p.instantiation:
        lines.append(f"# runs the instantiation {p.instantiation}")
    lines += ["", "[sizes]"]
    for v, g in p.variables.items():
        val = f" (the host's value: {g.value})" if g.value is not None else ""
        lines.append(f"# {v}: {_mark(g)}{val}")
    for name, env in p.sizes.items():
        body = ", ".join(f"{k} = {v}" for k, v in env.items())
        lines.append(f"{name} = {{ {body} }}  # {p.size_why.get(name, '')}")
    for a in p.args:
        lines += ["", "[[args]]", f"name = {_q(a.name)}"]
        if a.dtype is not None:
            lines.append(f"dtype = {_q(a.dtype.value)}  # {_mark(a.dtype)}")
        if a.buffer:
            shape = ", ".join(_q(s) if not str(s).isdigit() else str(s) for s in a.shape.value)
            lines.append(f"shape = [{shape}]  # {_mark(a.shape)}")
            if a.fill is not None:
                lines.append(f"fill = {_q(a.fill.value)}  # {_mark(a.fill)}")
            if a.role.value != "input":
                lines.append(f"output = true  # {a.role.value}: {_mark(a.role)}")
            else:
                lines.append(f"# input: {_mark(a.role)}")
        else:
            lines.append(f"value = {_q(a.value.value)}  # {_mark(a.value)}")
    lines += ["", "[launch]"]
    lines += _launch_lines(p)
    if p.python_reference:
        lines += ["", "[reference]", f"python = {_q(p.python_reference)}  # given to `spec init --reference`"]
    elif not reference:
        lines += ["", "# No reference: `kernelpro spec init` makes the kernel as it is now the reference (a copy beside",
                  "# the spec), or give one: [reference] python = \"FILE.py:FUNCTION\""]
    else:
        lines += ["", "# The reference: the kernel as written when this spec was made, a copy so that editing",
                  f"# {p.kernel} later does not move it; it runs with its own launch. A Python reference wins when "
                  "given:", f'# python = "{p.source.stem}_ref.py:reference"  (def reference(inputs, sizes, xp): ...)',
                  "[reference]", f"kernel = {_q(p.kernel)}", f"file = {_q(rel(p.snapshot))}"]
        lines += _launch_lines(p, comments=False)
    if not p.off_by_one.value:
        lines += ["", "[check]", f"off_by_one = false  # {_mark(p.off_by_one)}"]
    if p.notes:
        lines += ["", "# Notes from the inference:"] + [f"# - {n}" for n in p.notes]
    return "\n".join(lines) + "\n"


def _launch_lines(p: Plan, comments: bool = True) -> list[str]:
    def dims_text(v):
        return "[" + ", ".join(str(x) if str(x).isdigit() else _q(x) for x in v) + "]"
    sh = str(p.shared.value)
    return [f"grid = {dims_text(p.grid.value)}" + (f"  # {_mark(p.grid)}" if comments else ""),
            f"block = {dims_text(p.block.value)}" + (f"  # {_mark(p.block)}" if comments else ""),
            f"shared_bytes = {sh if sh.isdigit() else _q(sh)}" + (f"  # {_mark(p.shared)}" if comments else "")]


def _default_source(p: Plan) -> bool:
    name = p.spec_path.name[: -len(SPEC_SUFFIX)]
    return p.source.suffix == ".cu" and (name == p.source.stem or name.split(".")[0] == p.source.stem)


def _relpath(a: Path, base: Path) -> str:
    return os.path.relpath(a.resolve(), base.resolve())


def write(plan: Plan, text: str | None = None, force: bool = False) -> None:
    """Write the spec and the reference snapshot (a copy of the kernel's file as it is now). Without `force`
    an existing spec is an error (FileExistsError); the snapshot is written first, so a spec never names a
    missing one."""
    if plan.spec_path.exists() and not force:
        raise FileExistsError(str(plan.spec_path))
    plan.spec_path.parent.mkdir(parents=True, exist_ok=True)
    if not plan.python_reference:
        if text is not None:
            plan.snapshot.write_text(text)
        else:
            shutil.copyfile(plan.source, plan.snapshot)
    mode = "w" if force else "x"
    with open(plan.spec_path, mode, encoding="utf-8") as f:
        f.write(plan.toml())


def summary(plan: Plan) -> str:
    """What was inferred, in a few lines for a terminal: the files, sizes, arguments, launch and the guesses."""
    out = [f"{plan.spec_path}: a launch spec for {plan.kernel}, inferred from the kernel"
           + (" and the host code" if plan.host else "")]
    out.append("  reference: " + (f"{plan.python_reference} (Python)" if plan.python_reference else
                                  f"{plan.snapshot.name}, a copy of the kernel as it is now"))
    for name, env in plan.sizes.items():
        out.append(f"  size {name}: {', '.join(f'{k} = {v}' for k, v in env.items())} ({plan.size_why.get(name, '')})")
    for a in plan.args:
        if a.buffer:
            out.append(f"  {a.name}: {a.dtype.value} [{', '.join(map(str, a.shape.value))}] {a.role.value}, "
                       f"{_mark(a.shape)}")
        else:
            out.append(f"  {a.name} = {a.value.value} ({_mark(a.value)})")
    out.append(f"  launch: grid {list(plan.grid.value)} block {list(plan.block.value)} ({_mark(plan.grid)})")
    if not plan.off_by_one.value:
        out.append(f"  no off-by-one sizes: {plan.off_by_one.why}")
    g = plan.guesses
    if g:
        out.append(f"  {len(g)} guessed value{'s' if len(g) > 1 else ''} (GUESS in the file): " + "; ".join(g))
    for n in plan.notes:
        out.append(f"  note: {n}")
    return "\n".join(out)
