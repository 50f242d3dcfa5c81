"""A warp per row, its lanes striding the row and meeting in shuffles, rewritten as the equivalent
one-thread-per-row program (never run: the IR the row teams start from), as deteam.py does for a
block per row with shared-memory trees.

The shape (how many people write a softmax or a layer norm once they know warps):

    int lane = threadIdx.x % 32;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32; row < N; row += gridDim.x * blockDim.x / 32) {
        float m = -INFINITY;
        for (int j = lane; j < C; j += 32) m = fmaxf(m, x[row * C + j]);
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
        ...
        if (lane == 0) out[row] = m;
    }

becomes a thread per row: the lane-strided loops run the whole row, a butterfly (or `__shfl_down_sync`
then a broadcast from lane 0, written out or in a helper such as `warp_sum(v)`) is the accumulator
itself, `if (lane == 0) S` is S. The warp index and the lane are recognised by their values (the
expression evaluated on sample thread positions), not by their spelling. The caller checks each shuffle against the loop's reduction.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.loops import statements, text, unparen
from kernelpro.profilers.source import Kernel, SourceFile, function_declarator, walk

from .deteam import _assigned_outside, _initial, _writes_of, starts_at_zero
from .text import NotThisShape, Refuse, line_indent, reindent, span_text

_SHFL = re.compile(r"^__shfl_(xor|down)_sync$")
_BROADCAST = re.compile(r"^__shfl_sync$")
_SYNC = re.compile(r"^__syncwarp\(\w*\)\s*;$")
# thread positions to evaluate an index on: blockIdx.x, blockDim.x (whole warps), threadIdx.x, gridDim.x
_SAMPLES = [(bx, bd, tx, gd) for bd in (32, 64, 256) for bx, gd in ((0, 1), (3, 7)) for tx in (0, 5, 31, bd - 1)]
_CAST = re.compile(r"\(\s*(?:unsigned|int|long|long long|size_t|int64_t|uint32_t|unsigned int)\s*\)")


def _value(expr: str, names: dict[str, str]):
    """expr's value at each sample position (a tuple), its names replaced by what they were declared as;
    None where it is not an integer expression of the thread's position."""
    for _ in range(4):
        expr = re.sub(r"\b[A-Za-z_]\w*\b(?!\s*[.(])", lambda m: f"({names[m.group(0)]})" if m.group(0) in names else m.group(0), expr)
    py = _CAST.sub("", expr).replace("warpSize", "32").replace("/", "//")
    py = re.sub(r"\b(blockIdx|blockDim|threadIdx|gridDim)\.x\b", lambda m: {"blockIdx": "bx", "blockDim": "bd", "threadIdx": "tx", "gridDim": "gd"}[m.group(1)], py)
    py = re.sub(r"(\d+)[uUlL]+\b", r"\1", py)
    if re.search(r"[A-Za-z_]\w*", re.sub(r"\b(bx|bd|tx|gd)\b", "", py)) or re.search(r"[?:;{}\[\]=]", py.replace("==", "")):
        return None
    try:
        return tuple(eval(py, {"__builtins__": {}}, {"bx": bx, "bd": bd, "tx": tx, "gd": gd})  # noqa: S307
                     for bx, bd, tx, gd in _SAMPLES)
    except Exception:  # noqa: BLE001 - anything that is not plain integer arithmetic
        return None


WARP = tuple((bx * bd + tx) // 32 for bx, bd, tx, gd in _SAMPLES)
WARPS = tuple(gd * bd // 32 for bx, bd, tx, gd in _SAMPLES)
LANE = tuple(tx % 32 for bx, bd, tx, gd in _SAMPLES)


def _shuffle_loop(src: SourceFile, s) -> tuple[str, str, bool] | None:
    """(variable, '+'/'max'/'min', whether only lane 0 ends with the result) of a full warp's
    reduction: `for (o = 16; o > 0; o >>= 1) v = OP(v, __shfl_xor_sync(0xffffffff, v, o));` (or
    `/= 2`, `__shfl_down_sync`, `v += ...`), the offset the loop's variable, no width below 32;
    None for anything else."""
    if s.type != "for_statement":
        return None
    init, cond, upd = (s.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
    if len(ds) != 1 or ds[0].type != "init_declarator" or cond is None or upd is None:
        return None
    o = text(src, ds[0].child_by_field_name("declarator"))
    if _value(text(src, ds[0].child_by_field_name("value")), {}) != tuple(16 for _ in _SAMPLES) \
            or text(src, unparen(cond)).replace(" ", "") not in (f"{o}>0", f"{o}>=1", f"0<{o}") \
            or text(src, upd).replace(" ", "") not in (f"{o}>>=1", f"{o}/=2", f"{o}={o}/2", f"{o}={o}>>1"):
        return None
    body = s.child_by_field_name("body")
    stmts = statements(body) if body is not None and body.type == "compound_statement" else [body]
    if len(stmts) != 1 or stmts[0] is None or stmts[0].type != "expression_statement" or not stmts[0].named_children:
        return None
    w = stmts[0].named_children[0]
    if w.type != "assignment_expression" or w.child_by_field_name("left").type != "identifier":
        return None
    var = text(src, w.child_by_field_name("left"))
    calls = [n for n in walk(w) if n.type == "call_expression" and _SHFL.match(text(src, n.child_by_field_name("function")))]
    if len(calls) != 1:
        return None
    args = calls[0].child_by_field_name("arguments").named_children
    mask = text(src, args[0]).rstrip("uU") if args else ""
    if len(args) not in (3, 4) or text(src, args[1]) != var or text(src, args[2]) != o \
            or not re.fullmatch(r"0[xX][fF]{8}", mask) or len(args) == 4 and _value(text(src, args[3]), {}) != tuple(32 for _ in _SAMPLES):
        return None
    probe = " ".join(text(src, w).replace(text(src, calls[0]), "kp_other").split())
    v = re.escape(var)
    forms = {"+": [rf"{v} \+= kp_other", rf"{v} = {v} \+ kp_other", rf"{v} = kp_other \+ {v}"],
             "max": [rf"{v} = (fmaxf|fmax|max)\({v}, kp_other\)", rf"{v} = (fmaxf|fmax|max)\(kp_other, {v}\)"],
             "min": [rf"{v} = (fminf|fmin|min)\({v}, kp_other\)", rf"{v} = (fminf|fmin|min)\(kp_other, {v}\)"]}
    op = next((k for k, fs in forms.items() if any(re.fullmatch(f, probe) for f in fs)), None)
    if op is None:
        return None
    return var, op, "down" in text(src, calls[0].child_by_field_name("function"))


def _helper_reductions(src: SourceFile, k: Kernel) -> dict[str, str]:
    """name -> op of the file's __device__ functions `T f(T v) { <shuffle loop on v>; [v = broadcast;]
    return v | broadcast(v); }`: a warp's reduction, the identity for one thread."""
    out = {}
    for f in walk(src.root):
        if f.type != "function_definition" or f == k.node:
            continue
        d = function_declarator(f)
        params = d.child_by_field_name("parameters") if d is not None else None
        body = f.child_by_field_name("body")
        if d is None or params is None or body is None or len(params.named_children) != 1:
            continue
        pn = params.named_children[0].child_by_field_name("declarator")
        v = text(src, pn) if pn is not None and pn.type == "identifier" else None
        stmts = statements(body)
        if v is None or len(stmts) not in (2, 3):
            continue
        red = _shuffle_loop(src, stmts[0])
        ret = stmts[-1]
        if red is None or red[0] != v or ret.type != "return_statement" or not ret.named_children:
            continue
        middle = stmts[1:-1]
        if middle and not _is_broadcast_assign(src, middle[0], v):
            continue
        r = unparen(ret.named_children[0])
        if text(src, r) != v and not _is_broadcast(src, r, v):
            continue
        if red[2] and not middle and not _is_broadcast(src, r, v):
            continue  # shuffled down and not broadcast: only lane 0 holds the result
        out[text(src, d.child_by_field_name("declarator"))] = red[1]
    return out


def _is_broadcast(src: SourceFile, n, var: str) -> bool:
    """`__shfl_sync(mask, var, 0)`."""
    if n is None or n.type != "call_expression" or not _BROADCAST.match(text(src, n.child_by_field_name("function"))):
        return False
    args = n.child_by_field_name("arguments").named_children
    return len(args) >= 3 and text(src, args[1]) == var and text(src, args[2]) == "0"


def _is_broadcast_assign(src: SourceFile, s, var: str) -> bool:
    e = s.named_children[0] if s.type == "expression_statement" and s.named_children else None
    return e is not None and e.type == "assignment_expression" and text(src, e.child_by_field_name("left")) == var \
        and text(src, e.child_by_field_name("operator")) == "=" and _is_broadcast(src, unparen(e.child_by_field_name("right")), var)


def dewarp_rows(src: SourceFile, k: Kernel, lines: list[int] | None = None) -> tuple[str, list[tuple[str, str]], bool]:
    """(the kernel as one thread per row (the module's docstring), its reductions, whether its rows
    are strided over the grid); NotThisShape when it is not a warp per row, Refuse when it is but
    something in it cannot be lifted. `lines`, when given, receives the lane loops' lines."""
    if k.body is None or "__shfl" not in src.node_text(src.root):
        raise NotThisShape("no shuffles")
    names: dict[str, str] = {}  # int-valued locals declared from the thread's position
    lanes: set[str] = set()
    helpers = _helper_reductions(src, k)
    stmts, row, rtype, over, warp_names = statements(k.body), None, "int", None, []
    i = 0
    while i < len(stmts) and stmts[i].type == "declaration":  # the thread's position, named
        ds = stmts[i].children_by_field_name("declarator")
        vals = []
        for d in ds:
            if d.type != "init_declarator" or d.child_by_field_name("declarator").type != "identifier":
                break
            n, v = text(src, d.child_by_field_name("declarator")), text(src, d.child_by_field_name("value"))
            val = _value(v, names)
            if val is None:
                break
            vals.append((n, v, val))
        if not ds or len(vals) != len(ds):
            break
        for n, v, val in vals:
            names[n] = v
            lanes.update([n] if val == LANE else [])
            if val == WARP:
                warp_names.append((n, " ".join(text(src, stmts[i].child_by_field_name("type")).split())))
        i += 1
    s = stmts[i] if i < len(stmts) else None
    init = s.child_by_field_name("initializer") if s is not None and s.type == "for_statement" else None
    ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
    if len(ds) == 1 and ds[0].type == "init_declarator" and i == len(stmts) - 1 \
            and _value(text(src, ds[0].child_by_field_name("value")), names) == WARP:
        var = text(src, ds[0].child_by_field_name("declarator"))
        cond, upd = unparen(s.child_by_field_name("condition")), s.child_by_field_name("update")
        if cond is None or cond.type != "binary_expression" or text(src, cond.child_by_field_name("operator")) != "<" \
                or text(src, cond.child_by_field_name("left")) != var or upd is None or upd.type != "assignment_expression" \
                or text(src, upd.child_by_field_name("operator")) != "+=" \
                or _value(text(src, upd.child_by_field_name("right")), names) != WARPS:
            raise NotThisShape("a loop from the warp index that does not stride by the grid's warps")
        row, rtype = var, " ".join(text(src, init.child_by_field_name("type")).split())
        over = text(src, cond.child_by_field_name("right"))
        body_stmts = statements(s.child_by_field_name("body"))
    elif warp_names:
        row, rtype = warp_names[0]
        names.pop(row)
        body_stmts = stmts[i:]
    else:
        raise NotThisShape("no warp index")
    if not lanes:
        raise NotThisShape("no lane index")
    team = lanes | {"threadIdx.x", "blockDim.x", "gridDim.x", "blockIdx.x"}
    seq, reds, partials, handoffs, lane_loops = [], [], {}, [], []
    ind = line_indent(src, stmts[0])
    inner = ind + "  " if over is not None else ind

    def plain(node) -> str:
        """node's text with warp reductions through helpers replaced by their argument."""
        subs = []
        for n in walk(node):
            if n.type == "call_expression" and text(src, n.child_by_field_name("function")) in helpers:
                a = n.child_by_field_name("arguments").named_children
                if len(a) != 1 or a[0].type != "identifier":
                    raise Refuse(f"line {n.start_point[0] + 1}: a warp reduction of an expression")
                reds.append((text(src, a[0]), helpers[text(src, n.child_by_field_name("function"))]))
                handoffs.append((text(src, a[0]), n))
                partials.pop(text(src, a[0]), None)
                subs.append((n.start_byte, n.end_byte, f"({text(src, a[0])})"))
            elif n.type == "identifier" and text(src, n) in team | set(names) - {row} or \
                    n.type == "field_expression" and text(src, n).replace(" ", "") in team:
                raise Refuse(f"line {n.start_point[0] + 1} uses the lane or the thread's position")
            elif n.type == "call_expression" and "__shfl" in text(src, n.child_by_field_name("function")):
                raise Refuse(f"line {n.start_point[0] + 1}: a shuffle that is not a warp reduction")
        return span_text(src, node.start_byte, node.end_byte, subs)

    for s in body_stmts:
        if _SYNC.match(text(src, s)):
            continue
        red = _shuffle_loop(src, s)
        if red is not None:
            nxt = body_stmts[body_stmts.index(s) + 1] if body_stmts.index(s) + 1 < len(body_stmts) else None
            if red[2] and (nxt is None or not _is_broadcast_assign(src, nxt, red[0])):
                raise Refuse(f"line {s.start_point[0] + 1}: `{red[0]}` shuffled down reaches lane 0 only, "
                             "and no broadcast follows")
            reds.append(red[:2])
            handoffs.append((red[0], s))
            partials.pop(red[0], None)
            continue
        e = s.named_children[0] if s.type == "expression_statement" and s.named_children else None
        if e is not None and e.type == "assignment_expression" and _is_broadcast_assign(src, s, text(src, e.child_by_field_name("left"))):
            continue  # `v = __shfl_sync(mask, v, 0)`: everyone has it already
        if s.type == "for_statement":
            init, upd = s.child_by_field_name("initializer"), s.child_by_field_name("update")
            ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
            if len(ds) == 1 and ds[0].type == "init_declarator" and text(src, ds[0].child_by_field_name("value")) in lanes:
                var = text(src, ds[0].child_by_field_name("declarator"))
                if upd is None or upd.type != "assignment_expression" or text(src, upd.child_by_field_name("left")) != var \
                        or text(src, upd.child_by_field_name("operator")) != "+=" \
                        or _value(text(src, upd.child_by_field_name("right")), {}) != tuple(32 for _ in _SAMPLES):
                    raise Refuse(f"line {s.start_point[0] + 1}: a lane loop that does not step by 32")
                body = s.child_by_field_name("body")
                c = unparen(s.child_by_field_name("condition"))
                if c is None or c.type != "binary_expression" or text(src, c.child_by_field_name("left")) != var \
                        or text(src, c.child_by_field_name("operator")) not in ("<", "<="):
                    raise Refuse(f"line {s.start_point[0] + 1}: the lane loop's end is not `{var} < E`")
                partials.update({v: s.start_point[0] + 1 for v in _assigned_outside(src, body)})
                lane_loops.append(s)
                if lines is not None:  # the lane loops, as the caller's text numbers them
                    lines.append(s.start_point[0] + 1)
                cond = s.child_by_field_name("condition")
                seq.append(reindent(f"for ({text(src, init.child_by_field_name('type'))} {var} = 0; {plain(cond)}; {var}++) "
                                    f"{plain(body)}", line_indent(src, s), inner))
                continue
        if s.type == "if_statement" and s.child_by_field_name("alternative") is None:
            cnd = unparen(s.child_by_field_name("condition"))
            if cnd is not None and text(src, cnd).replace(" ", "") in {f"{x}==0" for x in lanes} | {f"0=={x}" for x in lanes}:
                seq.append(reindent(plain(s.child_by_field_name("consequence")), line_indent(src, s), inner))
                continue
        seq.append(reindent(plain(s), line_indent(src, s), inner))
    for var, line in partials.items():
        raise Refuse(f"line {line}: each lane accumulates its own part of `{var}` and no shuffle combines them")
    # before its shuffle, a lane's part changes only in the lane loops (after it, every lane holds the
    # whole row's value, as the lifted thread does)
    for acc, handoff in handoffs:
        for w in _writes_of(src, k.body, acc):
            if w.start_byte < handoff.start_byte and not w.start_byte <= handoff.start_byte < w.end_byte and not any(
                    lp.start_byte <= w.start_byte < lp.end_byte for lp in lane_loops):
                raise Refuse(f"line {w.start_point[0] + 1} changes a lane's part of `{acc}` outside the lane loops")
    for acc, op in reds:
        init = _initial(src, body_stmts, acc)
        if op == "+" and not starts_at_zero(init):
            raise Refuse(f"every lane starts `{acc}` at {init!r}: a sum over lanes counts it once per lane")
    if over is not None:
        head = [f"for ({rtype} {row} = blockIdx.x * blockDim.x + threadIdx.x; {row} < {over}; "
                f"{row} += blockDim.x * gridDim.x) {{"] + [f"{inner}{p}" for p in seq] + [f"{ind}}}"]
    else:
        head = [f"{rtype} {row} = blockIdx.x * blockDim.x + threadIdx.x;"] + [f"{inner}{p}" for p in seq]
    new = span_text(src, 0, len(src.data), [(stmts[0].start_byte, stmts[-1].end_byte, "\n".join(head))])
    return new, reds, over is not None

