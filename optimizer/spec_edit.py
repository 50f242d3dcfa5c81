"""A candidate's launch part and compile flags, read from and written into a launch spec."""
from __future__ import annotations

import json
import re
import tomllib

from kernelpro.profilers.runtime.spec import rebind_launch

_EXPR_INT = re.compile(r"^-?\d+$")


def _value(v: str):
    return int(v) if _EXPR_INT.match(str(v).strip()) else str(v)


def base_launch(spec) -> dict:
    """The [launch] of the spec's main kernel as a candidate-launch dict."""
    step = next((s for s in spec.launches if s.kernel == spec.kernel), None)
    return {} if step is None else step_launch(step)


def step_launch(step) -> dict:
    """One launch step's grid, block and shared_bytes as a candidate-launch dict."""
    return {"grid": [_value(g) for g in step.grid], "block": [_value(b) for b in step.block],
            "shared_bytes": _value(step.shared_bytes)}


def _toml(v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, int):
        return str(v)
    return json.dumps(str(v))


_HEADER = r"^\s*\[\s*{}\s*\]\s*(#.*)?$"


def _header(lines: list[str], name: str, array: bool = False) -> list[int]:
    pat = re.compile(_HEADER.format(rf"\[\s*{name}\s*\]" if array else name))
    return [i for i, l in enumerate(lines) if pat.match(l)]


def _table_end(lines: list[str], start: int) -> int:
    return next((i for i in range(start + 1, len(lines)) if re.match(r"\s*\[\[?\s*[A-Za-z0-9_.\-\"]+\s*\]", lines[i])
                 and not _in_value(lines, start, i)), len(lines))


def _in_value(lines: list[str], start: int, i: int) -> bool:
    """Whether line i continues a multi-line value that begins after line start."""
    depth = 0
    for l in lines[start + 1:i]:
        depth += _depth(l)
    return depth > 0


def _depth(line: str) -> int:
    line = re.sub(r'"(\\.|[^"\\])*"|\'[^\']*\'', '""', line).split("#", 1)[0]
    return line.count("[") + line.count("{") - line.count("]") - line.count("}")


def _set_key(lines: list[str], start: int, end: int, key: str, new: str) -> int:
    """Set key = ... in the table lines[start+1:end]; returns the table's new end."""
    hit = next((i for i in range(start + 1, end) if re.match(rf"\s*\"?{key}\"?\s*=", lines[i])
                and not _in_value(lines, start, i)), None)
    if hit is None:
        lines.insert(start + 1, new)
        return end + 1
    last, depth = hit, _depth(lines[hit])
    while depth > 0 and last + 1 < end:  # a value over several lines is replaced whole
        last += 1
        depth += _depth(lines[last])
    lines[hit:last + 1] = [new]
    return end - (last - hit)


def render_spec(text: str, launch: dict | None, flags: tuple[str, ...] = (), kernel: str | None = None) -> str:
    """The spec text with the launch keys replaced by `launch` and `flags` added to [compile] flags.

    The launch is that of [launch] or of each [[launches]] step running `kernel` (default: the
    spec's kernel), as `LaunchSpec.with_launch` applies it. The spec's own flags stay: the
    evaluator builds with them and the candidate's. Only the lines of those keys change, so
    comments and the rest of the file stay as written."""
    data = tomllib.loads(text)
    lines = text.split("\n")
    if launch and "host" in launch:  # the kernel's launches become calls of a host launcher: [[launches]] steps
        launch = {"launches": _host_steps(data, launch["host"], kernel or data.get("kernel"))}
    ref, old = data.get("reference") or {}, data.get("launch")
    if launch and ref.get("kernel") and isinstance(old, dict) and not ("grid" in ref and "block" in ref) and (
            "launches" in launch or any(k in launch and launch[k] != old.get(k) for k in ("grid", "block",
                                                                                        "shared_bytes"))):
        starts = _header(lines, "reference")  # the kernel-as-reference took [launch]'s: now said in [reference]
        if not starts:
            raise ValueError("the spec's reference kernel takes [launch]'s grid and block, and [reference] is "
                             "not a table of its own to write them into")
        end = _table_end(lines, starts[0])
        for key in ("shared_bytes", "block", "grid"):
            if key in old:
                end = _set_key(lines, starts[0], end, key, f"{key} = {_toml(old[key])}")
    if launch and "launches" in launch:  # a new sequence of launches (a per-size dispatch): the old ones replaced
        lines = _replace_launches(lines, launch["launches"])
        launch = {k: v for k, v in launch.items() if k != "launches"}
    if launch:
        keys = [k for k in ("grid", "block", "shared_bytes") if k in launch]
        starts, own = _header(lines, "launch"), []
        if not starts:
            target = kernel or data.get("kernel")
            steps = data.get("launches") if isinstance(data.get("launches"), list) else []
            heads = _header(lines, "launches", array=True)
            mine = [(h, st) for h, st in zip(heads, steps)
                    if "memset" not in st and st.get("kernel", data.get("kernel")) == target]
            starts = [h for h, _ in mine]
            # each step gets the launch written for the first, in its own arguments (LaunchSpec.with_launch)
            values = {a.get("name"): a.get("value") for a in data.get("args") or [] if isinstance(a, dict)}
            own = [rebind_launch({k: launch[k] for k in keys}, mine[0][1].get("args") or [], st.get("args") or [],
                                 values) for _, st in mine]
        if starts:
            for start, mine_ in reversed(list(zip(starts, own or [launch] * len(starts)))):
                end = _table_end(lines, start)
                for key in keys:
                    end = _set_key(lines, start, end, key, f"{key} = {_toml(mine_[key])}")
        elif isinstance(data.get("launch"), dict):  # launch = { ... } inline, on one line
            hit = next(i for i, l in enumerate(lines) if re.match(r"\s*\"?launch\"?\s*=\s*\{", l))
            merged = {**data["launch"], **{k: launch[k] for k in keys}}
            lines[hit] = "launch = { " + ", ".join(f"{k} = {_toml(v)}" for k, v in merged.items()) + " }"
        else:
            raise ValueError(f"the spec has no launch of kernel '{kernel or data.get('kernel')}' to change")
    if flags:
        own = list((data.get("compile") or {}).get("flags") or [])
        new = f"flags = {_toml(own + [f for f in flags if f not in own])}"
        starts = _header(lines, "compile")
        if not starts:
            while lines and lines[-1] == "":
                lines.pop()
            lines += ["", "[compile]", new, ""]
        else:
            _set_key(lines, starts[0], _table_end(lines, starts[0]), "flags", new)
    return "\n".join(lines)


STEP_ORDER = ("kernel", "host", "memset", "value", "when", "grid", "block", "shared_bytes", "args")


def _host_steps(data: dict, host: str, kernel: str) -> list[dict]:
    """The spec's launches with each launch of `kernel` a host step (its arguments kept, no grid or block)."""
    steps = data.get("launches") if isinstance(data.get("launches"), list) else None
    if steps is None:  # [launch]: the spec's args, in order, as the kernel's (LaunchSpec's default)
        return [{"kernel": kernel, "host": host}]
    out = []
    for st in steps:
        if "memset" not in st and st.get("kernel", data.get("kernel")) == kernel:
            st = {k: v for k, v in st.items() if k not in ("grid", "block", "shared_bytes")}
            st.update(kernel=kernel, host=host)
        out.append(st)
    return out


def _replace_launches(lines: list[str], steps: list[dict]) -> list[str]:
    """The spec's [launch] table (or inline `launch = {...}`) and its [[launches]] tables removed, `steps` written
    as [[launches]] tables at the end."""
    drop = set()
    for start in _header(lines, "launch") + _header(lines, "launches", array=True):
        drop |= set(range(start, _table_end(lines, start)))
    inline = [i for i, l in enumerate(lines) if re.match(r"\s*\"?launch\"?\s*=\s*\{", l)]
    drop |= set(inline)
    out = [l for i, l in enumerate(lines) if i not in drop]
    while out and out[-1] == "":
        out.pop()
    for st in steps:
        out += ["", "[[launches]]"] + [f"{k} = {_toml(st[k])}" for k in STEP_ORDER if k in st and st[k] is not None]
    return out + [""]
