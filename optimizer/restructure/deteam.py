"""A block per output, its threads striding a loop and combining partials in a shared-memory
tree, rewritten as the equivalent one-thread-per-output program (never run: the IR the column
split and the row teams start from).

The shape (the first kernel most people write for a bias gradient or a column mean):

    int o = blockIdx.x;  int tid = threadIdx.x;
    float acc = 0;
    for (int i = tid; i < E; i += blockDim.x) acc += x[i * OC + o];
    shared[tid] = acc;  __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) shared[tid] += shared[tid + s]; __syncthreads(); }
    if (tid == 0) out[o] = shared[0];

becomes `o = blockIdx.x * blockDim.x + threadIdx.x; if (o < N) { acc = 0; for (i = 0; i < E;
i++) ...; out[o] = acc; }` where N, the number of outputs (the old grid's x), must be a scalar
parameter of the kernel. Anything else in the kernel that touches threadIdx, the shared array
or a barrier makes it refuse.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import atom, index_poly
from kernelpro.profilers.analysis.loops import MAX, MIN, declared_names, single_update, statements, text, unparen, writes_in
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.source import Kernel, SourceFile, walk

from .text import NotThisShape, Refuse, line_indent, reindent, span_text

_SYNC = re.compile(r"^__syncthreads\(\)\s*;$")


def _is_float_type(src: SourceFile, type_text: str) -> bool:
    s = table_for(src).scalar(type_text)
    return s is not None and s.is_float


def _uncast(src: SourceFile, n):
    """`(float) sum`, `(float)(sum)`, `static_cast<float>(sum)` -> the node of `sum`. Only casts to
    a floating type: `(int) a` rounds each partial, which the lifted program would do once."""
    n = unparen(n)
    while n is not None:
        if n.type == "cast_expression" and _is_float_type(src, src.node_text(n.child_by_field_name("type"))):
            n = unparen(n.child_by_field_name("value"))
        elif n.type == "call_expression" and (m := re.fullmatch(r"static_cast\s*<(.*)>", src.node_text(
                n.child_by_field_name("function")), re.S)) and _is_float_type(src, m.group(1)):
            args = n.child_by_field_name("arguments").named_children
            n = unparen(args[0]) if len(args) == 1 else None
            break
        else:
            break
    return n


def _decl_one(src: SourceFile, s):
    if s.type != "declaration":
        return None
    ds = s.children_by_field_name("declarator")
    if len(ds) != 1:
        return None
    d = ds[0]
    if d.type == "init_declarator":
        return d.child_by_field_name("declarator"), d.child_by_field_name("value")
    return d, None


def _is_shared_decl(src: SourceFile, s) -> str | None:
    if s.type != "declaration" or not any(src.node_text(c) == "__shared__" for c in s.children):
        return None
    for d in walk(s):
        if d.type == "identifier" and d.parent is not None and d.parent.type in ("array_declarator",):
            return src.node_text(d)
    return None


def deteam(src: SourceFile, k: Kernel, outputs_param: str | None) -> tuple[str, dict]:
    """(the one-thread-per-output source, facts) or Refuse."""
    if k.body is None:
        raise NotThisShape("no body")
    stmts = statements(k.body)
    env = {}
    out_var, out_type, tid_names, bdim_names, shared = None, None, {"threadIdx.x"}, {"blockDim.x"}, None
    keep, used = [], set()
    loop = tree = epi = None
    i = 0
    # declarations: the output index, thread index, block size, the shared array
    for i, s in enumerate(stmts):
        name_val = _decl_one(src, s)
        sh = _is_shared_decl(src, s)
        if sh:
            shared = sh
            used.add(s)
            continue
        if name_val and name_val[0] is not None and name_val[0].type == "identifier" and name_val[1] is not None:
            name, val = src.node_text(name_val[0]), name_val[1]
            p = index_poly(src, val, env)
            if p == atom("blockIdx.x") and out_var is None:
                out_var = name
                t = s.child_by_field_name("type")
                out_type = text(src, t) if t is not None else "int"
                used.add(s)
                continue
            if p == atom("threadIdx.x"):
                tid_names.add(name)
                used.add(s)
                continue
            if p == atom("blockDim.x"):
                bdim_names.add(name)
                used.add(s)
                continue
        if s.type == "for_statement":
            break
        keep.append(s)
    if out_var is None:
        raise NotThisShape("no output index equal to blockIdx.x")
    if shared is None:
        raise NotThisShape("no __shared__ array for the block's partials")
    rest = stmts[i:]
    if len(rest) < 4:
        raise NotThisShape("not a strided loop, a shared store, a tree and an epilogue")
    loop, after = rest[0], rest[1:]
    # the strided loop: for (T v = tid; v < E; v += blockDim.x)
    init, cond, upd = (loop.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
    if len(ds) != 1 or ds[0].type != "init_declarator" or text(src, ds[0].child_by_field_name("value")) not in tid_names:
        raise NotThisShape("the loop does not start at the thread index")
    var = text(src, ds[0].child_by_field_name("declarator"))
    vtype = text(src, init.child_by_field_name("type"))
    c = unparen(cond)
    if c is None or c.type != "binary_expression" or text(src, c.child_by_field_name("left")) != var \
            or text(src, c.child_by_field_name("operator")) != "<":
        raise NotThisShape("the loop's condition is not `v < E`")
    bound = text(src, c.child_by_field_name("right"))
    if upd is None or upd.type != "assignment_expression" or text(src, upd.child_by_field_name("left")) != var \
            or text(src, upd.child_by_field_name("operator")) != "+=" \
            or text(src, upd.child_by_field_name("right")) not in bdim_names:
        raise NotThisShape("the loop does not step by the block size")
    # shared[tid] = acc; __syncthreads();
    st = after[0]
    e = st.named_children[0] if st.type == "expression_statement" and st.named_children else None
    if e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "=":
        raise Refuse("the partial is not stored to shared memory")
    left = e.child_by_field_name("left")
    if text(src, left).replace(" ", "") not in {f"{shared}[{t}]" for t in tid_names}:
        raise Refuse("the partial is not stored at shared[tid]")
    stored = e.child_by_field_name("right")
    acc = text(src, _uncast(src, stored))
    if not re.fullmatch(r"[A-Za-z_]\w*", acc):
        raise Refuse("the stored partial is not a variable (or a cast of one to a floating type)")
    stored_text = text(src, stored)  # what shared[0] holds: `sum` or `(float) sum`
    j = 1
    while j < len(after) and _SYNC.match(text(src, after[j])):
        j += 1
    # the tree: a loop that only combines shared[tid] with shared[tid + s] under tid < s
    tree = after[j]
    if tree.type != "for_statement":
        raise Refuse("no tree reduction after the store")
    op = _tree_op(src, tree, shared, tid_names)
    j += 1
    while j < len(after) and _SYNC.match(text(src, after[j])):
        j += 1
    if j != len(after) - 1 or after[j].type != "if_statement":
        raise Refuse("the epilogue is not one `if (tid == 0)`")
    epi = after[j]
    cnd = unparen(epi.child_by_field_name("condition"))
    if cnd is None or text(src, cnd).replace(" ", "") not in {f"{t}==0" for t in tid_names} \
            or epi.child_by_field_name("alternative") is not None:
        raise Refuse("the epilogue is not `if (tid == 0)`")
    # nothing else may use the thread index, the block size or the shared array
    for s in keep + [loop.child_by_field_name("body")]:
        for n in walk(s):
            t = src.node_text(n)
            if n.type == "identifier" and (t in tid_names | bdim_names | {shared} or t in ("threadIdx", "blockDim")):
                raise Refuse(f"line {n.start_point[0] + 1} uses the thread index, block size or shared array")
    body_epi = epi.child_by_field_name("consequence")
    epi_text = span_text(src, body_epi.start_byte, body_epi.end_byte,
                         [(n.start_byte, n.end_byte, acc if stored_text == acc else f"({stored_text})")
                          for n in walk(body_epi)
                          if n.type == "subscript_expression" and text(src, n).replace(" ", "") == f"{shared}[0]"])
    if re.search(rf"\b{re.escape(shared)}\b", epi_text) or any(
            re.search(rf"\b{re.escape(t)}\b", epi_text) for t in tid_names if t != "threadIdx.x"):
        raise Refuse("the epilogue uses other shared elements or the thread index")
    if outputs_param is None:
        raise Refuse("the number of outputs (the grid's x) is not a scalar parameter of the kernel")
    init = _initial(src, keep, acc)
    if op == "+" and (init is None or not re.fullmatch(r"0+(\.0*)?[fF]?|0?\.0+[fF]?", init)):
        raise Refuse(f"every thread starts `{acc}` at {init!r}: a sum over threads counts it once per thread")
    ind = line_indent(src, stmts[0])
    parts = [f"{out_type} {out_var} = blockIdx.x * blockDim.x + threadIdx.x;",
             f"{ind}if ({out_var} < {outputs_param}) {{"]
    for s in keep:
        parts.append(f"{ind}  {text(src, s)}")
    body = loop.child_by_field_name("body")
    parts.append(f"{ind}  for ({vtype} {var} = 0; {var} < {bound}; {var}++) {text(src, body)}")
    parts.append(f"{ind}  {epi_text}")
    parts.append(f"{ind}}}")
    new_body = "\n".join(parts)
    new = span_text(src, 0, len(src.data), [(stmts[0].start_byte, stmts[-1].end_byte, new_body)])
    return new, {"op": op, "accumulator": acc, "loop_var": var, "outputs": outputs_param,
                 "loop_line": loop.start_point[0] + 1}


def _position_names(src: SourceFile, s, env: dict) -> dict[str, str] | None:
    """name -> 'row' (blockIdx.x), 'tid' (threadIdx.x) or 'bdim' (blockDim.x) for every variable the
    declaration s declares, when each is one of those; None otherwise."""
    if s.type != "declaration" or not s.children_by_field_name("declarator"):
        return None
    out = {}
    for d in s.children_by_field_name("declarator"):
        n, v = (d.child_by_field_name("declarator"), d.child_by_field_name("value")) if d.type == "init_declarator" else (d, None)
        p = index_poly(src, v, env) if v is not None and n is not None and n.type == "identifier" else None
        role = None if p is None else "row" if p == atom("blockIdx.x") else "tid" if p == atom("threadIdx.x") \
            else "bdim" if p == atom("blockDim.x") else None
        if role is None or (role == "row" and "row" in out.values()):
            return None
        out[src.node_text(n)] = role
    return out


def _initial(src: SourceFile, stmts, name: str) -> str | None:
    for s in stmts:
        if s.type != "declaration":
            continue
        for d in s.children_by_field_name("declarator"):
            if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
                return text(src, d.child_by_field_name("value"))
    return None


def _tree_op(src: SourceFile, tree, shared: str, tid_names: set[str]) -> str:
    """'+', 'max', 'min' of a halving tree over shared[tid] and shared[tid + s]; else Refuse."""
    return _tree_ops(src, tree, [shared], tid_names)[shared]


def _halving(src: SourceFile, tree, bdims: set[str], tid_names: set[str]) -> str:
    """The loop variable s of `for (s = B / 2; s > 0; s >>= 1)` (or `/= 2`, `>= 1`) with B the block
    size, whose body combines only under `if (tid < s)` with partners at `tid + s`; else Refuse."""
    init, cond, upd = (tree.child_by_field_name(f) for f in ("initializer", "condition", "update"))
    ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
    if len(ds) != 1 or ds[0].type != "init_declarator":
        raise Refuse(f"line {tree.start_point[0] + 1}: the tree's loop does not declare its stride")
    s = text(src, ds[0].child_by_field_name("declarator"))
    start = text(src, ds[0].child_by_field_name("value")).replace(" ", "")
    if start not in {f"{b}/2" for b in bdims} | {f"{b}>>1" for b in bdims} | {f"({b})/2" for b in bdims}:
        raise Refuse(f"line {tree.start_point[0] + 1}: the tree does not start at half the block")
    if cond is None or text(src, unparen(cond)).replace(" ", "") not in (f"{s}>0", f"{s}>=1", f"0<{s}") or upd is None \
            or text(src, upd).replace(" ", "") not in (f"{s}>>=1", f"{s}/=2", f"{s}={s}/2", f"{s}={s}>>1"):
        raise Refuse(f"line {tree.start_point[0] + 1}: the tree does not halve its stride down to 1")
    guards = {f"{t}<{s}" for t in tid_names} | {f"{s}>{t}" for t in tid_names}
    for n in walk(tree.child_by_field_name("body")):
        if n.type == "subscript_expression" and "+" in text(src, n):
            idx = text(src, n).replace(" ", "")
            if not any(idx.endswith(f"[{t}+{s}]") or idx.endswith(f"[{s}+{t}]") for t in tid_names):
                raise Refuse(f"line {n.start_point[0] + 1}: a tree partner not at tid + {s}")
        if n.type == "assignment_expression":
            up = n.parent
            while up is not None and up != tree and not (
                    up.type == "if_statement" and text(src, unparen(up.child_by_field_name("condition"))).replace(" ", "") in guards):
                up = up.parent
            if up is None or up == tree:
                raise Refuse(f"line {n.start_point[0] + 1}: a tree step not under `if (tid < {s})`")
    return s


def _tree_ops(src: SourceFile, tree, arrays: list[str], tid_names: set[str], bdims: set[str] | None = None) -> dict[str, str]:
    """array -> '+', 'max' or 'min': a halving tree loop that combines each array[tid] with
    array[tid + s] exactly once per step (several arrays reduced together: a sum and a sum of
    squares); with bdims, its header and guard are checked too (_halving); else Refuse."""
    if bdims is not None:
        _halving(src, tree, bdims, tid_names)
    body = tree.child_by_field_name("body")
    ops: dict[str, list[str]] = {a: [] for a in arrays}
    for n in walk(body):
        if n.type == "call_expression" and "syncthreads" not in src.node_text(n) and not src.node_text(n).startswith(("fmaxf", "fminf", "max", "min", "fmax", "fmin")):
            raise Refuse("the tree calls something other than a barrier or min/max")
        if n.type == "assignment_expression":
            left = text(src, n.child_by_field_name("left")).replace(" ", "")
            shared = next((a for a in arrays if left in {f"{a}[{t}]" for t in tid_names}), None)
            if shared is None:
                raise Refuse("the tree writes something other than shared[tid]")
            o = text(src, n.child_by_field_name("operator"))
            r = text(src, n.child_by_field_name("right")).replace(" ", "")
            if o == "+=" and re.fullmatch(rf"{re.escape(shared)}\[\w+(\.\w)?\+\w+\]", r):
                ops[shared].append("+")
            elif o == "=" and re.fullmatch(rf"(fmaxf|fmax|max)\({re.escape(shared)}\[\w+(\.\w)?\],{re.escape(shared)}\[\w+(\.\w)?\+\w+\]\)", r):
                ops[shared].append("max")
            elif o == "=" and re.fullmatch(rf"(fminf|fmin|min)\({re.escape(shared)}\[\w+(\.\w)?\],{re.escape(shared)}\[\w+(\.\w)?\+\w+\]\)", r):
                ops[shared].append("min")
            elif o == "=" and (pick := _picked(src, n, shared)) is not None:
                ops[shared].append(pick)
            else:
                raise Refuse("the tree's step is not a sum, max or min of shared[tid] and shared[tid + s]")
    if any(len(v) != 1 for v in ops.values()):
        raise Refuse("the tree does not combine each stored array exactly once per step")
    return {a: v[0] for a, v in ops.items()}


def _writes_of(src: SourceFile, node, name: str) -> list:
    """The assignments and increments of the variable name under node."""
    return [n for v, n in writes_in(src, node) if v == name]


def check_accumulators(src: SourceFile, body, accs: list[tuple[str, object]], loops: list, what: str) -> None:
    """Each (accumulator, the statement that hands it to the team's combine) is written only inside the
    team's strided loops before that statement, and never mentioned after it: the lift reads the
    combined value where the kernel read it, so a partial used otherwise would change meaning."""
    for acc, handoff in accs:
        for w in _writes_of(src, body, acc):
            if not any(lp.start_byte <= w.start_byte < lp.end_byte and lp.end_byte <= handoff.start_byte for lp in loops):
                raise Refuse(f"line {w.start_point[0] + 1} changes `{acc}` outside the loop the {what} combines")
        later = [n for n in walk(body) if n.type == "identifier" and text(src, n) == acc and n.start_byte >= handoff.end_byte]
        if later:
            raise Refuse(f"line {later[0].start_point[0] + 1} uses a thread's own `{acc}` after the {what}")


def _assigned_outside(src: SourceFile, body) -> set[str]:
    """Plain variables a loop body assigns (=, op=, ++, --) that it does not declare."""
    return {v for v, _ in writes_in(src, body)} - declared_names(src, body)


def starts_at_zero(init: str | None) -> bool:
    """A sum's initial value as written is zero (every thread or lane may start it there)."""
    return init is not None and re.fullmatch(r"0+(\.0*)?[fF]?|0?\.0+[fF]?", init) is not None


def _without_thread_exit(src: SourceFile, s, tids: set[str]) -> str | None:
    """For `if (tid != 0 || X) return;` (also `tid > 0`, `0 != tid`): X ('' when that was all);
    None for any other statement."""
    body = s.child_by_field_name("consequence")
    if s.child_by_field_name("alternative") is not None or body is None or \
            text(src, body).replace(" ", "").strip("{}") != "return;":
        return None
    terms, n = [], unparen(s.child_by_field_name("condition"))
    while n is not None and n.type == "binary_expression" and text(src, n.child_by_field_name("operator")) == "||":
        terms.append(unparen(n.child_by_field_name("right")))
        n = unparen(n.child_by_field_name("left"))
    terms.append(n)
    exits = {f"{t}{op}" for t in tids for op in ("!=0", ">0", ">=1")} | {f"0!={t}" for t in tids}
    kept = [x for x in reversed(terms) if text(src, x).replace(" ", "") not in exits]
    if len(kept) == len(terms):
        return None
    return " || ".join(text(src, x) for x in kept)


def _thread_zero_and(src: SourceFile, cnd, tids: set[str]) -> list | None:
    """For `tid == 0 && X && ...` (also `0 == tid`, in any place of the conjunction): the other terms ([] when
    that was all); None for any other condition."""
    terms, n = [], unparen(cnd)
    while n is not None and n.type == "binary_expression" and text(src, n.child_by_field_name("operator")) == "&&":
        terms.append(unparen(n.child_by_field_name("right")))
        n = unparen(n.child_by_field_name("left"))
    terms.append(n)
    zero = {f"{t}==0" for t in tids} | {f"0=={t}" for t in tids}
    kept = [x for x in reversed(terms) if x is None or text(src, x).replace(" ", "") not in zero]
    return None if len(kept) == len(terms) or None in kept else kept


def _top_declared(src: SourceFile, node, skip=None) -> set[str]:
    """Names declared under node, outside `skip`."""
    out = set()
    for n in walk(node):
        if n.type == "declaration" and not (skip is not None and skip.start_byte <= n.start_byte < skip.end_byte):
            out |= declared_names(src, n)
    return out


def _picked(src: SourceFile, n, shared: str) -> str | None:
    """'max' or 'min' for a tree step that picks between shared[tid] and shared[tid + s] by a
    comparison (`sh[tid] = sh[tid + s] > sh[tid] ? sh[tid + s] : sh[tid]`, or the assignment under
    `if (sh[tid + s] > sh[tid])`), as the loops' reductions are recognised; else None."""
    left = n.child_by_field_name("left")
    got = single_update(src, text(src, left), n)
    partner = rf"{re.escape(shared)}\[\w+(\.\w)?\+\w+\]"
    holder = n.parent.parent if n.parent is not None else None
    scope = n if unparen(n.child_by_field_name("right")).type == "conditional_expression" else holder
    if got is None or got[0] not in (MAX, MIN) or scope is None or not any(
            m.type == "subscript_expression" and re.fullmatch(partner, text(src, m).replace(" ", "")) for m in walk(scope)):
        return None
    return "max" if got[0] == MAX else "min"


def deteam_rows(src: SourceFile, k: Kernel, outputs_param: str | None,
                block: int | None = None, lines: list[int] | None = None) -> tuple[str, list[tuple[str, str]]]:
    """A block per row whose threads stride the row (`for (i = tid; i < C; i += blockDim.x)`) and
    meet in shared-memory trees, each result read back as `shared[0]` by every thread (a layer
    norm's mean and variance, a softmax's max and sum), as the one-thread-per-row program: the
    strided loops run the whole row, each `shared[0]` after a tree is the accumulator the tree
    combined, barriers go, `if (tid == 0) S` is S. Returns (source, [(accumulator, tree op)]) for
    the caller to check against the loops' reductions; NotThisShape or Refuse otherwise.

    Without shared memory (no trees) the same lift serves a block per row whose threads only
    stride it (`for (c = tid; c < C; c += blockDim.x) out[...] = ...`) and a block per row where
    one thread does the row (`if (tid != 0 || row >= N) return;`, or a block of one thread). A
    variable the threads accumulate in a strided loop must reach a tree: alone, each thread's
    part is not the row's. A constant equal to the launch's `block` (a `#define`, or a template
    parameter's default) stands for blockDim.x; several arrays may be stored and reduced by one
    tree loop (a sum and a sum of squares). `lines`, when given, receives the strided loops' lines."""
    if k.body is None:
        raise NotThisShape("no body")
    stmts = statements(k.body)
    whole = stmts  # what the lifted code replaces
    env: dict = {}
    row, row_type, tids = None, "int", {"threadIdx.x"}
    bdims = {"blockDim.x"} | {n for n, v in _fixed_values(src, k).items() if block is not None and v == block}
    arrays: list[str] = []  # the shared arrays
    over = _rows_over_blocks(src, stmts)  # `for (r = blockIdx.x; r < R; r += gridDim.x) { the row }`
    if over is not None:
        i, row, row_type, bound = over
        stmts = stmts[:i] + statements(stmts[i].child_by_field_name("body"))
    seq, trees, current, pending = [], [], {}, []  # current: array -> its tree's result; pending: stores
    partials: dict[str, int] = {}  # accumulated in a strided loop, not yet stored for a tree: line
    strided, handoffs = [], []  # the strided loops; (accumulator, its store) of every tree
    ind = line_indent(src, stmts[0]) if stmts else "  "

    def uses_team(node) -> bool:  # the shared array's reads are broadcast()'s to check
        return any(n.type in ("identifier", "field_expression") and src.node_text(n).replace(" ", "") in
                   tids | bdims | {"threadIdx.x", "blockDim.x"} for n in walk(node))

    def broadcast(node) -> str:
        reads = [n for n in walk(node) if n.type == "subscript_expression"
                 and text(src, n).replace(" ", "") in {f"{a}[0]" for a in arrays}]
        for n in reads:
            if n.parent is not None and (n.parent.type == "update_expression" or n.parent.type == "assignment_expression"
                                         and n.parent.child_by_field_name("left") == n):
                raise Refuse(f"line {n.start_point[0] + 1} writes {text(src, n)}, the tree's result")
            if text(src, n).replace(" ", "")[:-3] not in current:
                raise Refuse(f"line {node.start_point[0] + 1} reads {text(src, n)} before any tree")
        out = span_text(src, node.start_byte, node.end_byte, [
            (n.start_byte, n.end_byte, f"({current[text(src, n).replace(' ', '')[:-3]]})") for n in reads])
        left = [n for n in walk(node) if n.type == "subscript_expression" and n not in reads
                and src.node_text(n.child_by_field_name("argument") or n) in arrays]
        if left or any(n.type == "identifier" and src.node_text(n) in (tids | bdims) for n in walk(node)) \
                or re.search(r"\b(threadIdx|blockDim)\b", out):
            raise Refuse(f"line {node.start_point[0] + 1} uses the thread index, block size or shared array")
        return out

    for s in stmts:
        sh = _is_shared_decl(src, s)  # `__shared__ T a[N];` or `extern __shared__ T a[];`
        if sh:
            arrays.append(sh)
            continue
        roles = _position_names(src, s, env)  # `int row = blockIdx.x, tid = threadIdx.x;`
        if roles is not None and (row is None or "row" not in roles.values()):
            for name, role in roles.items():
                if role == "row":
                    row, t = name, s.child_by_field_name("type")
                    row_type = text(src, t) if t is not None else "int"
                (tids if role == "tid" else bdims if role == "bdim" else set()).add(name)
            continue
        if _SYNC.match(text(src, s)) or text(src, s).startswith("#pragma"):
            continue  # barriers go, and hints for loops that the plans write anew
        if row is None:
            raise NotThisShape("no row index equal to blockIdx.x before the row's code")
        e = s.named_children[0] if s.type == "expression_statement" and s.named_children else None
        if e is not None and e.type == "assignment_expression" and arrays and \
                text(src, e.child_by_field_name("left")).replace(" ", "") in {f"{a}[{t}]" for a in arrays for t in tids}:
            stored = e.child_by_field_name("right")
            acc = text(src, _uncast(src, stored))
            if not re.fullmatch(r"[A-Za-z_]\w*", acc):
                raise Refuse("a stored partial is not a variable")
            arr = text(src, e.child_by_field_name("left").child_by_field_name("argument"))
            pending.append((arr, acc, text(src, stored)))
            handoffs.append((acc, s))
            partials.pop(acc, None)
            continue
        if s.type == "for_statement" and pending:  # the tree over the stored partials
            ops = _tree_ops(src, s, [a for a, _, _ in pending], tids, bdims)
            for arr, acc, stored in pending:
                trees.append((acc, ops[arr]))
                current[arr] = stored
            pending = []
            continue
        if pending:
            raise Refuse(f"line {s.start_point[0] + 1}: no tree after the partials' store")
        if s.type == "for_statement":
            init, cond, upd = (s.child_by_field_name(f) for f in ("initializer", "condition", "update"))
            ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
            if len(ds) == 1 and ds[0].type == "init_declarator" and text(src, ds[0].child_by_field_name("value")) in tids:
                var = text(src, ds[0].child_by_field_name("declarator"))
                if upd is None or upd.type != "assignment_expression" or text(src, upd.child_by_field_name("left")) != var \
                        or text(src, upd.child_by_field_name("operator")) != "+=" \
                        or text(src, upd.child_by_field_name("right")) not in bdims:
                    raise Refuse(f"line {s.start_point[0] + 1}: the loop does not step by the block size")
                body = s.child_by_field_name("body")
                if uses_team(body):
                    raise Refuse(f"line {s.start_point[0] + 1}: the loop's body uses the thread index or block size")
                if cond is None or unparen(cond).type != "binary_expression" or \
                        text(src, unparen(cond).child_by_field_name("left")) != var or \
                        text(src, unparen(cond).child_by_field_name("operator")) not in ("<", "<=") or \
                        var in {text(src, n) for n in walk(unparen(cond).child_by_field_name("right"))}:
                    raise Refuse(f"line {s.start_point[0] + 1}: the strided loop's end is not `{var} < E`")
                partials.update({v: s.start_point[0] + 1 for v in _assigned_outside(src, body)})
                strided.append(s)
                if lines is not None:  # the strided loops, as the caller's text numbers them
                    lines.append(s.start_point[0] + 1)
                seq.append(reindent(f"for ({text(src, init.child_by_field_name('type'))} {var} = 0; {broadcast(cond)}; "
                                    f"{var}++) {broadcast(body)}", line_indent(src, s), ind + "  "))
                continue
        if s.type == "if_statement":
            cnd = unparen(s.child_by_field_name("condition"))
            rest = _without_thread_exit(src, s, tids)
            if rest is not None and over is not None:
                raise Refuse(f"line {s.start_point[0] + 1}: a thread leaves the loop over the rows")
            if rest is not None:  # `if (tid != 0 || X) return;`: thread 0 does the row
                if rest:
                    seq.append(f"if ({rest}) return;")
                continue
            only = _thread_zero_and(src, cnd, tids)  # `if (tid == 0)`, `if (threadIdx.x == 0 && col < N)`
            if only is not None:
                if s.child_by_field_name("alternative") is not None:
                    raise Refuse(f"line {s.start_point[0] + 1}: `if (tid == 0)` with an else")
                cons = s.child_by_field_name("consequence")
                if only:  # the other terms: the threads that skip the work leave (the row's loop: the next row)
                    seq.append(f"if (!({' && '.join(broadcast(x) for x in only)})) {'continue' if over else 'return'};")
                inner = cons.named_children if cons.type == "compound_statement" and not (
                    _top_declared(src, cons) & _top_declared(src, k.body, cons)) else [cons]
                seq += [reindent(broadcast(x), line_indent(src, x), ind + "  ") for x in inner]
                continue
        seq.append(reindent(broadcast(s), line_indent(src, s), ind + "  "))
    if row is None or (arrays and not trees):
        raise NotThisShape("not a block per row (with shared-memory trees, or none)")
    if pending:
        raise Refuse("partials stored with no tree after them")
    for var, line in partials.items():
        raise Refuse(f"line {line}: each thread accumulates its own part of `{var}` and no tree combines them")
    check_accumulators(src, k.body, handoffs, strided, "tree")
    if over is not None:
        leaving = [n for s in stmts[over[0]:] for n in walk(s) if n.type == "return_statement"
                   or n.type == "break_statement" and not _in_inner_loop(n, s)]
        if leaving:
            raise Refuse(f"line {leaving[0].start_point[0] + 1}: a thread leaves the loop over the rows")
    if outputs_param is None and over is None:
        raise Refuse("the number of rows (the grid's x) is not a scalar parameter of the kernel")
    for acc, op in trees:
        init = _initial(src, stmts, acc)
        if op == "+" and not starts_at_zero(init):
            raise Refuse(f"every thread starts `{acc}` at {init!r}: a sum over threads counts it once per thread")
    if over is not None:  # one thread per row, the rows still strided by the grid
        parts = [f"for ({row_type} {row} = blockIdx.x * blockDim.x + threadIdx.x; {row} < {bound}; "
                 f"{row} += blockDim.x * gridDim.x) {{"]
    else:
        parts = [f"{row_type} {row} = blockIdx.x * blockDim.x + threadIdx.x;", f"{ind}if ({row} < {outputs_param}) {{"]
    parts += [f"{ind}  {p}" for p in seq]
    parts.append(f"{ind}}}")
    new = span_text(src, 0, len(src.data), [(whole[0].start_byte, whole[-1].end_byte, "\n".join(parts))])
    return new, trees


def _in_inner_loop(n, top) -> bool:
    """n sits in a loop or switch inside top, top included (a break there leaves that, not the row)."""
    p = n.parent
    while p is not None:
        if p.type in ("for_statement", "while_statement", "do_statement", "switch_statement"):
            return True
        if p == top:
            break
        p = p.parent
    return False


def _fixed_values(src: SourceFile, k: Kernel) -> dict[str, int]:
    """Names with a value known before any launch: the file's constants (`#define`, `constexpr`) and
    the kernel's template parameters' defaults (`template <int BLOCK = 128>`)."""
    out = dict(src.constants)
    decl = k.node.parent
    params = decl.child_by_field_name("parameters") if decl is not None and decl.type == "template_declaration" else None
    for c in params.named_children if params is not None else []:
        name, default = c.child_by_field_name("declarator"), c.child_by_field_name("default_value")
        v = src.eval_int(default) if default is not None else None
        if name is not None and v is not None:
            out[text(src, name)] = v
    return out


def _rows_over_blocks(src: SourceFile, stmts) -> tuple[int, str, str, str] | None:
    """(index, row, its type, the bound) of `for (T r = blockIdx.x; r < R; r += gridDim.x) {...}`
    when it is the kernel's last statement (barriers aside) and only declarations come before it."""
    for i, s in enumerate(stmts):
        if s.type != "for_statement":
            if s.type != "declaration":
                return None
            continue
        init, cond, upd = (s.child_by_field_name(f) for f in ("initializer", "condition", "update"))
        ds = init.children_by_field_name("declarator") if init is not None and init.type == "declaration" else []
        if len(ds) != 1 or ds[0].type != "init_declarator" or cond is None or upd is None:
            return None
        var = text(src, ds[0].child_by_field_name("declarator"))
        cond = unparen(cond)
        if text(src, ds[0].child_by_field_name("value")).replace(" ", "") != "blockIdx.x" \
                or cond.type != "binary_expression" or text(src, cond.child_by_field_name("operator")) != "<" \
                or text(src, cond.child_by_field_name("left")) != var \
                or upd.type != "assignment_expression" or text(src, upd.child_by_field_name("left")) != var \
                or text(src, upd.child_by_field_name("operator")) != "+=" \
                or text(src, upd.child_by_field_name("right")).replace(" ", "") != "gridDim.x" \
                or not all(_SYNC.match(text(src, x)) for x in stmts[i + 1:]):
            return None
        return i, var, text(src, init.child_by_field_name("type")), text(src, cond.child_by_field_name("right"))
    return None
