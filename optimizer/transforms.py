"""Built-in expert transforms: small, checked rewrites of a kernel's source, launch or flags.

Each transform reads the parsed source (tree-sitter) and returns zero or more Candidates.
A transform that cannot prove its pattern proposes nothing. Compiling the result is the
proposer's job (optimizer/builtin.py).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Callable

from kernelpro.profilers.source import Kernel, SourceFile, parse_source, walk

from .model import Candidate

BLOCK_SIZES = (128, 256, 512, 1024)
_CDIV = {"cdiv", "ceil_div", "div_up"}


@dataclass
class TransformInput:
    source: str
    kernel: str
    advice: list = field(default_factory=list)
    launch: dict = field(default_factory=dict)  # the effective launch: {"block", "grid", "shared_bytes"}
    flags: tuple[str, ...] = ()
    size_names: list[str] = field(default_factory=list)
    resources: dict = field(default_factory=dict)  # registers, spill_stores, ... of the kernel
    base_launch: dict | None = None  # the node's own launch overrides (None: the spec's)


@dataclass
class Transform:
    name: str
    answers: tuple[str, ...]
    apply: Callable[[TransformInput], list[Candidate]]
    prior: float = 0.3  # prior when no advice asks for it


# ---------------------------------------------------------------- edits


def apply_edits(text: str, edits: list[dict]) -> str:
    """Apply edits (1-based line/column, end exclusive, character columns), bottom-up."""
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)

    def offset(line, col, what, i):
        if not isinstance(line, int) or not isinstance(col, int):
            raise ValueError(f"edit {i}: {what} line and column must be integers, got {line!r}, {col!r}")
        if not 1 <= line <= len(lines):
            raise ValueError(f"edit {i}: {what} line {line} is outside the text (1..{len(lines)})")
        if not 1 <= col <= len(lines[line - 1]) + 1:
            raise ValueError(f"edit {i}: {what} column {col} is outside line {line} "
                             f"(1..{len(lines[line - 1]) + 1})")
        return starts[line - 1] + col - 1

    spans = []
    for i, e in enumerate(edits):
        try:
            a = offset(e["line"], e["column"], "start", i)
            b = offset(e["end_line"], e["end_column"], "end", i)
            new = e["new_text"]
        except KeyError as k:
            raise ValueError(f"edit {i}: missing key {k}") from None
        if not isinstance(new, str):
            raise ValueError(f"edit {i}: new_text must be a string")
        if b < a:
            raise ValueError(f"edit {i}: end {e['end_line']}:{e['end_column']} is before start {e['line']}:{e['column']}")
        spans.append((a, b, i, new))
    spans.sort(key=lambda s: (s[0], s[1], s[2]))
    for (a1, b1, i1, _), (a2, b2, i2, _) in zip(spans, spans[1:]):
        if a2 < b1:
            raise ValueError(f"edits {i1} and {i2} overlap")
    out = text
    # last first; at one start an insertion comes before a replacement (it lands in front of it)
    for a, b, _, new in sorted(spans, key=lambda s: (s[0], s[1], s[2]), reverse=True):
        out = out[:a] + new + out[b:]
    return out


def _pos(src: SourceFile, byte: int) -> tuple[int, int]:
    ls = src.data.rfind(b"\n", 0, byte) + 1
    line = src.data.count(b"\n", 0, byte) + 1
    return line, len(src.data[ls:byte].decode("utf-8", errors="replace")) + 1


def _edit(src: SourceFile, start: int, end: int, new: str) -> dict:
    """An edit over a byte range of src."""
    l1, c1 = _pos(src, start)
    l2, c2 = _pos(src, end)
    return {"line": l1, "column": c1, "end_line": l2, "end_column": c2, "new_text": new}


# ---------------------------------------------------------------- helpers


def _kernel(src: SourceFile, name: str) -> Kernel | None:
    k = src.kernel(name) if name else None
    if k is None and not name and len(src.kernels) == 1:
        k = src.kernels[0]
    return k if k is not None and k.body is not None else None


def _present(inp: TransformInput, rules) -> tuple[str, ...]:
    """The rule ids among `rules` that the input's advice (for its kernel) raises."""
    have = {a.rule for a in inp.advice if getattr(a, "kernel", None) in (None, inp.kernel)}
    return tuple(r for r in rules if r in have)


def _cand(inp: TransformInput, name: str, desc: str, answers, source=None, launch=None, flags=None,
          kind: str | None = None) -> Candidate:
    if kind is None:
        kind = "flags" if source is None and flags is not None else "launch" if source is None else "local"
    return Candidate(source=inp.source if source is None else source,
                     launch=inp.base_launch if launch is None else launch,
                     flags=tuple(inp.flags if flags is None else flags),
                     description=desc + (f" ({', '.join(answers)})" if answers else ""),
                     answers=tuple(answers), origin=f"builtin:{name}", kind=kind)


def _ints(vals) -> list[int] | None:
    out = []
    for v in vals or []:
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            out.append(v)
        elif isinstance(v, str) and v.strip().isdigit():
            out.append(int(v))
        else:
            return None
    return out or None


def block_threads(launch: dict) -> int | None:
    b = _ints(launch.get("block"))
    if b is None:
        return None
    t = 1
    for v in b:
        t *= v
    return t


def _with_launch(inp: TransformInput, **changes) -> dict:
    out = dict(inp.base_launch or {})
    out.update(changes)
    return out


def rescale_grid(expr, old: int, new: int) -> str | None:
    """`cdiv(E, old)` -> `cdiv(E, new)` (also `(E + old - 1) // old`); None if not of that form."""
    if not isinstance(expr, str):
        return None
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return None
    found = 0

    class T(ast.NodeTransformer):
        def visit_Call(self, n):
            nonlocal found
            self.generic_visit(n)
            if (isinstance(n.func, ast.Name) and n.func.id in _CDIV and len(n.args) == 2
                    and isinstance(n.args[1], ast.Constant) and n.args[1].value == old):
                found += 1
                n.args[1] = ast.Constant(new)
            return n

        def visit_BinOp(self, n):
            nonlocal found
            if (isinstance(n.op, ast.FloorDiv) and isinstance(n.right, ast.Constant) and n.right.value == old
                    and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, ast.Sub)
                    and isinstance(n.left.right, ast.Constant) and n.left.right.value == 1
                    and isinstance(n.left.left, ast.BinOp) and isinstance(n.left.left.op, ast.Add)
                    and isinstance(n.left.left.right, ast.Constant) and n.left.left.right.value == old):
                found += 1
                e = self.visit(n.left.left.left)
                return ast.Call(ast.Name("cdiv", ast.Load()), [e, ast.Constant(new)], [])
            self.generic_visit(n)
            return n

    tree = T().visit(tree)
    return ast.unparse(tree) if found else None


def _uses(src: SourceFile, node, name: str):
    return [n for n in walk(node) if n.type == "identifier" and src.node_text(n) == name]


# ---------------------------------------------------------------- 0. the advice's own fixes


def _join_titles(titles) -> str:
    """'Use __expf', 'Use __fdividef' -> 'Use __expf and __fdividef'."""
    titles = list(titles)
    verbs = {t.split(" ", 1)[0] for t in titles}
    if len(titles) > 1 and len(verbs) == 1 and all(" " in t for t in titles):
        return f"{titles[0]} and " + " and ".join(t.split(" ", 1)[1] for t in titles[1:])
    return " and ".join(titles)


def _title(a) -> str:
    return a.fix.get("title") or f"apply the {a.rule} fix"


def _fix_groups(inp: TransformInput) -> tuple[list[tuple[object, str]], dict[str, Candidate]]:
    """Each advice fix alone (the advice, the fixed source), and per rule with several fixes all
    of them together where their edits combine (a fix offered twice counts once)."""
    single, by_rule = [], {}
    for a in inp.advice:
        if not a.fix or not a.fix.get("edits") or getattr(a, "kernel", None) not in (None, inp.kernel):
            continue
        try:
            new = apply_edits(inp.source, a.fix["edits"])
        except ValueError:
            continue
        single.append((a, new))
        key = tuple(tuple(sorted(e.items())) for e in a.fix["edits"])
        by_rule.setdefault(a.rule, {}).setdefault(key, a)
    together = {}
    for rule, fixes in by_rule.items():
        items = list(fixes.values())
        if len(items) < 2:
            continue
        try:
            new = apply_edits(inp.source, [e for a in items for e in a.fix["edits"]])
        except ValueError:
            continue
        titles = _join_titles(sorted({_title(a) for a in items}))
        lines = sorted({a.line for a in items if getattr(a, "line", None)})
        where = f" on line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}" if lines else ""
        together[rule] = _cand(inp, "fix", f"{titles}{where}: all {len(items)} fixes", (rule,), source=new)
    return single, together


def _advice_fixes(inp: TransformInput) -> list[Candidate]:
    """A rule's fixes applied together (what an expert does with eight `Use __expf` findings,
    one evaluation instead of eight); each alone where they cannot be combined."""
    single, together = _fix_groups(inp)
    return list(together.values()) + [_cand(inp, "fix", _title(a), (a.rule,), source=new)
                                      for a, new in single if a.rule not in together]


def _advice_fix_parts(inp: TransformInput) -> list[Candidate]:
    """The fixes that were combined, each alone: a fallback at a low prior (they answer no advice
    of their own), for when the combined candidate fails the correctness wall."""
    single, together = _fix_groups(inp)
    return [_cand(inp, "fix-one", f"{_title(a)} alone", (), source=new) for a, new in single if a.rule in together]


# ---------------------------------------------------------------- 1. const __restrict__

_PTR_DECL = re.compile(r"^(?:const\s+)?([A-Za-z_][\w\s:]*?)\s*\*\s*(?:__restrict__\s+)?(\w+)$")


def read_only_pointers(src: SourceFile, k: Kernel) -> list[str]:
    """Pointer params the kernel provably only reads: used only as rvalue p[...] subscripts."""
    out = []
    for p in k.params:
        if not p.is_pointer:
            continue
        ok = True
        for u in _uses(src, k.body, p.name):
            par = u.parent
            if par.type != "subscript_expression" or par.child_by_field_name("argument") != u:
                ok = False
                break
            up = par.parent
            if up.type == "assignment_expression" and up.child_by_field_name("left") == par:
                ok = False
            elif up.type == "update_expression" or (up.type == "pointer_expression" and src.node_text(up).startswith("&")):
                ok = False
            if not ok:
                break
        if ok and _uses(src, k.body, p.name):
            out.append(p.name)
    return out


def _restrict(inp: TransformInput) -> list[Candidate]:
    src = parse_source(inp.source)
    k = _kernel(src, inp.kernel)
    if k is None:
        return []
    ro = set(read_only_pointers(src, k))
    edits, named = [], []
    for p in k.params:
        if not p.is_pointer or (p.is_restrict and (p.is_const or p.name not in ro)):
            continue
        text = src.data[p.decl_start:p.decl_end].decode()
        m = _PTR_DECL.match(" ".join(text.split()))
        if m is None:
            continue
        const = p.is_const or p.name in ro
        new = f"{'const ' if const else ''}{m.group(1).strip()}* __restrict__ {m.group(2)}"
        if new != text:
            edits.append(_edit(src, p.decl_start, p.decl_end, new))
            named.append(("const " if const and not p.is_const else "") + p.name)
    if not edits:
        return []
    consts = [n.removeprefix("const ") for n in named if n.startswith("const ")]
    plain = [n for n in named if not n.startswith("const ")]
    desc = "; ".join(x for x in (f"add const __restrict__ to {', '.join(consts)}" if consts else "",
                                 f"add __restrict__ to {', '.join(plain)}" if plain else "") if x)
    return [_cand(inp, "restrict", desc,
                  _present(inp, ("missing-restrict",)), source=apply_edits(inp.source, edits))]


# ---------------------------------------------------------------- 2. float literals and math

_FLOAT_LIT = re.compile(r"^(\d+\.\d*|\.\d+|\d+(?=[eE]))([eE][+-]?\d+)?$")
DOUBLE_MATH = {"sqrt", "rsqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p",
               "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
               "erf", "erfc", "fmod", "hypot", "floor", "ceil", "round", "trunc", "fabs", "fmin", "fmax", "fma"}


def _float_literals(inp: TransformInput) -> list[Candidate]:
    src = parse_source(inp.source)
    k = _kernel(src, inp.kernel)
    if k is None or re.search(r"\bdouble\b", src.node_text(k.node)):
        return []
    if not any(p.base_type == "float" for p in k.params) and "float" not in src.node_text(k.body):
        return []
    from kernelpro.profilers.rules.fp64 import template_type_of

    edits, lits, calls = [], 0, 0
    for n in walk(k.body):
        if n.type == "number_literal" and _FLOAT_LIT.match(src.node_text(n)):
            t = template_type_of(src, k, n)  # on a template's T: T(0.3), which stays double in T = double
            edits.append(_edit(src, n.start_byte, n.end_byte, f"{t}({src.node_text(n)})") if t
                         else _edit(src, n.end_byte, n.end_byte, "f"))
            lits += 1
        elif n.type == "call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type == "identifier" and src.node_text(f) in DOUBLE_MATH \
                    and template_type_of(src, k, n) is None:  # powf on a T would change T = double
                edits.append(_edit(src, f.end_byte, f.end_byte, "f"))
                calls += 1
    if not edits:
        return []
    what = " and ".join(x for x in (f"{lits} literal(s) to float" if lits else "",
                                    f"{calls} math call(s) to their float versions" if calls else "") if x)
    return [_cand(inp, "float-literals", f"make {what}", _present(inp, ("fp64-in-float-kernel",)),
                  source=apply_edits(inp.source, edits))]


# ---------------------------------------------------------------- 3. #pragma unroll


def _pragma_edit(src: SourceFile, loop, text: str) -> dict | None:
    n = loop.node
    if n.parent is None or n.parent.type != "compound_statement":
        return None
    line = src.lines[n.start_point[0]]
    col = src.col(n.start_point)
    if line[: col - 1].strip():
        return None
    indent = line[: col - 1]
    return {"line": loop.line, "column": col, "end_line": loop.line, "end_column": col,
            "new_text": f"#pragma unroll{(' ' + text) if text else ''}\n{indent}"}


def _unroll(inp: TransformInput) -> list[Candidate]:
    src = parse_source(inp.source)
    k = _kernel(src, inp.kernel)
    if k is None:
        return []
    out = []
    const = [l for l in k.loops if l.trip_count is not None and l.pragma_unroll is None and 1 < l.trip_count <= 64]
    edits = [e for e in (_pragma_edit(src, l, "") for l in const) if e]
    if edits:
        lines = ", ".join(str(e["line"]) for e in edits)
        out.append(_cand(inp, "unroll", f"#pragma unroll on constant-trip loop(s) at line {lines}",
                         _present(inp, ("rolled-constant-loop",)), source=apply_edits(inp.source, edits)))
    runtime = [l for l in k.loops if l.node.type == "for_statement" and l.pragma_unroll is None
               and (l.trip_count is None or l.trip_count > 64)
               and "gridDim" not in src.node_text(l.node.child_by_field_name("update") or l.node)]
    for factor in (4, 2, 8):
        edits = [e for e in (_pragma_edit(src, l, str(factor)) for l in runtime) if e]
        if edits:
            lines = ", ".join(str(e["line"]) for e in edits)
            out.append(_cand(inp, "unroll", f"#pragma unroll {factor} on loop(s) at line {lines}",
                             _present(inp, ("rolled-constant-loop",)) if factor == 4 else (),
                             source=apply_edits(inp.source, edits)))
    return out


# ---------------------------------------------------------------- 4. __launch_bounds__


def _launch_bounds(inp: TransformInput) -> list[Candidate]:
    src = parse_source(inp.source)
    k = _kernel(src, inp.kernel)
    t = block_threads(inp.launch)
    if k is None or k.launch_bounds or t is None or not 1 <= t <= 1024:
        return []
    # a register cap answers occupancy only when registers limit it
    regs_limit = any(a.rule == "low-occupancy" and "regist" in (a.message + a.remedy).lower() for a in inp.advice)
    answers = tuple(r for r in _present(inp, ("low-occupancy", "register-spill"))
                    if r != "low-occupancy" or regs_limit)
    out = []
    regs = inp.resources.get("registers")
    for mb in (None, min(32, max(1, 2048 // t)), max(1, 1024 // t)):
        if mb is not None and regs and not _cap_may_help(regs, t, mb):
            continue
        text = f"__launch_bounds__({t}{'' if mb is None else f', {mb}'})"
        new = apply_edits(inp.source, [{"line": k.line, "column": k.column, "end_line": k.line,
                                        "end_column": k.column, "new_text": text + " "}])
        c = _cand(inp, "launch-bounds", f"add {text}", answers if mb is not None else (), source=new)
        if c not in out:
            out.append(c)
    return out


def _cap_may_help(regs: int, threads: int, min_blocks: int) -> bool:
    """A minimum-blocks bound caps the registers at 64K / (whole warps x 32 x blocks) (rounded down to 8, at most
    255; ptxas ignores a bound past an SM's 64 warps): a
    cap at or above what the kernel uses changes nothing, one under three quarters of it spills (on the
    H100, `(256, 4)` on a tiled bf16 product of ~128 registers: 6x slower); only the band between can pay."""
    warps = -(-threads // 32)  # registers go to whole warps
    if warps * min_blocks > 64:  # more warps than an SM holds: ptxas ignores the bound
        return False
    cap = min(255, 65536 // (warps * 32 * min_blocks) // 8 * 8)
    return 0.75 * regs <= cap < regs


# ---------------------------------------------------------------- 5. block size (a tuning knob)


def block_size_safe(src: SourceFile, k: Kernel, old: int) -> bool:
    """The kernel reads its block size from blockDim.x and hard-codes no number equal to it."""
    body = src.node_text(k.body)
    if "blockDim.x" not in body or re.search(r"blockDim\.[yz]|threadIdx\.[yz]", body):
        return False
    for n in walk(k.body):
        if n.type == "number_literal" and src.eval_int(n) == old:
            return False
        if n.type == "identifier" and src.constants.get(src.node_text(n)) == old:
            return False
    return True


# ---------------------------------------------------------------- 9. shared-memory padding


def _pad_shared(inp: TransformInput) -> list[Candidate]:
    src = parse_source(inp.source)
    k = _kernel(src, inp.kernel)
    if k is None:
        return []
    edits, names = [], []
    for d in walk(k.body):
        if d.type != "declaration" or "__shared__" not in src.node_text(d):
            continue
        typ = src.node_text(d.child_by_field_name("type") or d)
        if typ not in ("float", "int", "unsigned", "unsigned int", "uint32_t", "int32_t"):
            continue
        for decl in d.children_by_field_name("declarator"):
            if decl.type != "array_declarator":
                continue
            inner = decl.child_by_field_name("declarator")
            if inner is None or inner.type != "array_declarator":
                continue
            if inner.child_by_field_name("declarator").type != "identifier":
                continue  # three or more dimensions
            size = decl.child_by_field_name("size")
            v = src.eval_int(size)
            if v is None or v % 32:
                continue
            name = src.node_text(inner.child_by_field_name("declarator"))
            uses = _uses(src, k.body, name)
            # every use indexes both dimensions: tile[a][b]
            if not all(u.parent.type == "subscript_expression" and u.parent.parent.type == "subscript_expression"
                       and u.parent.parent.child_by_field_name("argument") == u.parent
                       and u.parent.parent.parent.type != "subscript_expression"
                       and not (u.parent.parent.parent.type == "pointer_expression"
                                and src.node_text(u.parent.parent.parent).startswith("&"))
                       for u in uses if u != inner.child_by_field_name("declarator")):
                continue
            txt = src.node_text(size)
            new = str(v + 1) if txt.isdigit() else f"{txt} + 1"
            edits.append(_edit(src, size.start_byte, size.end_byte, new))
            names.append(name)
    if not edits:
        return []
    return [_cand(inp, "pad-shared", f"pad shared array(s) {', '.join(names)} by one word per row",
                  _present(inp, ("shared-bank-conflict",)), source=apply_edits(inp.source, edits))]


# ---------------------------------------------------------------- 7. compile flags



def _flags(inp: TransformInput) -> list[Candidate]:
    out = []
    if "--use_fast_math" not in inp.flags and "-use_fast_math" not in inp.flags:
        out.append(_cand(inp, "fast-math", "compile with --use_fast_math", _present(inp, ("slow-math-in-loop",)),
                         flags=inp.flags + ("--use_fast_math",)))
    if any(f.startswith("-maxrregcount") for f in inp.flags):
        return out
    caps = []
    for a in inp.advice:
        if a.rule == "low-occupancy" and getattr(a, "kernel", None) in (None, inp.kernel):
            cap = (getattr(a, "data", None) or {}).get("register_cap")
            if isinstance(cap, int):
                caps.append((cap, ("low-occupancy",)))
    regs = inp.resources.get("registers")
    if regs and regs > 64 and not inp.resources.get("spill_stores"):
        caps.append((64, ()))
    seen = set()
    for n, answers in caps:
        if n in seen or n < 16 or (regs and n >= regs):
            continue
        seen.add(n)
        out.append(_cand(inp, "maxrregcount", f"compile with -maxrregcount={n}", answers,
                         flags=inp.flags + (f"-maxrregcount={n}",)))
    return out


TRANSFORMS: list[Transform] = [
    Transform("fix", (), _advice_fixes, 0.5),
    Transform("fix-one", (), _advice_fix_parts, 0.15),
    Transform("restrict", ("missing-restrict",), _restrict, 0.35),
    Transform("float-literals", ("fp64-in-float-kernel",), _float_literals, 0.35),
    Transform("pad-shared", ("shared-bank-conflict",), _pad_shared, 0.3),
    Transform("unroll", ("rolled-constant-loop",), _unroll, 0.25),
    Transform("launch-bounds", ("low-occupancy", "register-spill"), _launch_bounds, 0.2),
    Transform("fast-math", ("slow-math-in-loop",), _flags, 0.2),
]
