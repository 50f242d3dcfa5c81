"""A candidate's launch part and compile flags, read from and written into a launch spec."""
from __future__ import annotations

import json
import re

_EXPR_INT = re.compile(r"^-?\d+$")


def _value(v: str):
    return int(v) if _EXPR_INT.match(str(v).strip()) else str(v)


def base_launch(spec) -> dict:
    """The [launch] of the spec's main kernel as a candidate-launch dict."""
    step = next((s for s in spec.launches if s.kernel == spec.kernel), None)
    if step is None:
        return {}
    return {"grid": [_value(g) for g in step.grid], "block": [_value(b) for b in step.block],
            "shared_bytes": _value(step.shared_bytes)}


def _toml(v) -> str:
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, int):
        return str(v)
    return json.dumps(str(v))


def render_spec(text: str, launch: dict | None, flags: tuple[str, ...] = ()) -> str:
    """The spec text with [launch] keys replaced by `launch` and [compile] flags set to `flags`.

    Only the lines of those keys change, so comments and the rest of the file stay as written."""
    lines = text.split("\n")
    if launch:
        start = next((i for i, l in enumerate(lines) if l.strip() == "[launch]"), None)
        if start is None:
            raise ValueError("the spec has no [launch] table to change (multi-launch specs keep their launches)")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        for key in ("grid", "block", "shared_bytes"):
            if key not in launch:
                continue
            new = f"{key} = {_toml(launch[key])}"
            hit = next((i for i in range(start + 1, end) if re.match(rf"\s*{key}\s*=", lines[i])), None)
            if hit is None:
                lines.insert(start + 1, new)
                end += 1
            else:
                lines[hit] = new
    if flags:
        start = next((i for i, l in enumerate(lines) if l.strip() == "[compile]"), None)
        new = f"flags = {_toml(list(flags))}"
        if start is None:
            while lines and lines[-1] == "":
                lines.pop()
            lines += ["", "[compile]", new, ""]
        else:
            end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
            hit = next((i for i in range(start + 1, end) if re.match(r"\s*flags\s*=", lines[i])), None)
            if hit is None:
                lines.insert(start + 1, new)
            else:
                lines[hit] = new
    return "\n".join(lines)
