"""Row to warp, row to block: a thread-per-row kernel becomes a team of threads per row.

The row index, derived from blockIdx.x * blockDim.x + threadIdx.x in the original, becomes
the warp's index (warp team: blockDim.x / 32 rows per block) or the block's (block team).
Every loop the analysis calls `spread` then strides the row by the team (`j = S + lane;
j += TEAM`), optionally V elements at a time through packed 16-byte accesses with a scalar
tail; each reduction of the loop starts from its identity on every lane but the first and
is combined after the loop with shuffles (and shared memory across warps), so every lane
holds the row's value, as every thread did before. Everything else of the row runs on every
lane as written (the values are the same on all lanes); a barrier follows each piece of code
that writes memory when later code of the row touches memory.
"""
from __future__ import annotations

import re

from dataclasses import dataclass

from kernelpro.profilers.analysis.affine import coefficient
from kernelpro.profilers.analysis.loops import AND, MAX, ONLINE, OR, PROD, SUM, XOR, loop_start, text, writes_in
from kernelpro.profilers.analysis.patterns import RowKernel, RowLoop
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.source import SourceFile, walk

from .counted import counted_for
from .prelude import with_prelude
from .text import Refuse, ident_subs, line_indent, node_with, span_text

WARP_ROW = "blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32"


@dataclass
class Team:
    kind: str  # "warp" or "block"
    vec: int = 1  # elements per lane per step (packed accesses when > 1)
    unroll: int = 1  # packed steps unrolled (their loads in flight together)
    cache: bool = False  # a row read by several loops kept in dynamic shared memory (block teams)

    @property
    def size(self) -> str:
        return "32" if self.kind == "warp" else "blockDim.x"

    @property
    def lane(self) -> str:
        return "threadIdx.x % 32" if self.kind == "warp" else "threadIdx.x"

    @property
    def row(self) -> str:
        return WARP_ROW if self.kind == "warp" else "blockIdx.x"

    @property
    def sync(self) -> str:
        return "__syncwarp();" if self.kind == "warp" else "__syncthreads();"


def identity(op: str, type_text: str, src: SourceFile) -> str:
    """The identity of a reduction for a declared type."""
    if op in (SUM, OR, XOR):
        return "0"
    if op == PROD:
        return "1"
    if op == AND:
        return "~0"
    t = table_for(src).scalar(type_text)
    if t is None:
        if not re.fullmatch(r"[A-Za-z_]\w*", type_text):
            raise Refuse(f"the type `{type_text}` of a {op} reduction is not known")
        # a template parameter (or a type the table cannot size): its limits at instantiation
        return f"kp_limits<{type_text}>::{'lowest' if op == MAX else 'highest'}()"
    if t.is_float:
        return "-INFINITY" if op == MAX else "INFINITY"
    signed = not t.name.startswith(("uint", "bool"))
    if op == MAX:
        return f"(({type_text})(1ull << {8 * t.bytes - 1}))" if signed else "0"
    return f"(({type_text})(~0ull >> {65 - 8 * t.bytes}))" if signed else f"(({type_text})~0ull)"


def combine(op: str, fn: str | None) -> str:
    """A lambda combining two partial values of a reduction."""
    body = {SUM: "a + b", PROD: "a * b", OR: "a | b", AND: "a & b", XOR: "a ^ b"}.get(op)
    if body is None:
        if fn:
            body = f"{fn}(a, b)"
        else:
            body = "b > a ? b : a" if op == MAX else "b < a ? b : a"
    return f"[](auto a, auto b) {{ return {body}; }}"


def _declared_type(rk: RowKernel, var: str) -> str:
    t = rk.env.declared.get(var)
    if t is None:
        raise Refuse(f"the declaration of `{var}` was not found")
    if "auto" in t.split():
        raise Refuse(f"`{var}` is declared `auto`; its reduction needs a known type")
    return " ".join(w for w in t.split() if w not in ("const", "volatile", "static", "register"))


def _loop_var_type(rk: RowKernel, lp) -> str:
    t = lp.var_type or rk.env.declared.get(lp.var)
    if not t or "auto" in t.split():
        return "long long"
    return " ".join(w for w in t.split() if w not in ("const", "volatile", "static", "register"))


def _used_after(src: SourceFile, rk: RowKernel, lp) -> bool:
    """Whether the loop variable's value after the loop is read: its first mention after the loop
    is not `var = e;` in the loop's own block (a counter reset for the next loop)."""
    end = lp.node.end_byte
    after = sorted((n for s in rk.body for n in walk(s)
                    if n.start_byte >= end and n.type == "identifier" and src.node_text(n) == lp.var),
                   key=lambda n: n.start_byte)
    if not after:
        return False
    first = after[0]
    a = first.parent
    if a is not None and a.type == "assignment_expression" and a.child_by_field_name("left") == first \
            and src.node_text(a.child_by_field_name("operator")) == "=" and a.parent is not None \
            and a.parent.type == "expression_statement" and a.parent.parent == lp.node.parent \
            and not any(c.type == "identifier" and src.node_text(c) == lp.var
                        for c in walk(a.child_by_field_name("right"))):
        return False
    return True


@dataclass
class Group:
    """The packed accesses of one array in a vectorised loop: same base, stride 1."""
    name: str  # kp_p0, ...
    access: object  # a representative Access (its node: the subscript)
    key: tuple  # group_key
    nodes: list  # every subscript node of the group
    reads: bool
    writes: bool
    full_write: bool  # written by a top-level statement of the body (every iteration)


def group_key(a, var: str) -> tuple:
    """An access's array and the part of its index that does not move with the loop variable."""
    return (a.array, tuple(sorted((m, c) for m, c in a.index.items() if var not in m)))


def _groups(src: SourceFile, rk: RowKernel, lp) -> list[Group]:
    var = lp.var
    body = lp.body
    nested = [n for n in walk(body) if n is not body and n.type in ("for_statement", "while_statement", "do_statement")]
    groups: dict = {}
    top = [s for s in (body.named_children if body.type == "compound_statement" else [body])]
    for a in lp.accesses:
        if a.index is None or a.node.type != "subscript_expression":
            continue
        if any(n.start_byte <= a.node.start_byte < n.end_byte for n in nested):
            continue
        if coefficient(a.index, var) != {(): 1}:
            continue
        key = group_key(a, var)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(f"kp_p{len(groups)}", a, key, [], False, False, False)
        g.nodes.append(a.node)
        if a.is_write:
            g.writes = True
            par = a.node.parent
            if par.type == "update_expression" or text(src, par.child_by_field_name("operator")) != "=":
                g.reads = True
            elif par.parent is not None and par.parent.type == "expression_statement" and par.parent in top:
                g.full_write = True
        else:
            g.reads = True
    out = list(groups.values())
    # a read of one array after a write to another that may be the same buffer would see the
    # new value in the original but the packed (old) value here
    for g in out:
        if not g.writes:
            continue
        first_write = min(n.start_byte for n in g.nodes if _is_store(n))
        for h in out:
            if h is g or not h.reads or not _may_alias(rk, g.access.array, h.access.array):
                continue
            if any(_stmt_start(n, body) > _stmt_start_of_byte(first_write, body) for n in h.nodes if not _is_store(n)):
                raise Refuse(f"{h.access.array} is read after {g.access.array} is written in the same iteration "
                             "and they may be the same buffer (add __restrict__)")
    return out


def _is_store(n) -> bool:
    p = n.parent
    return p is not None and p.type in ("assignment_expression", "update_expression") and (
        p.child_by_field_name("left") == n or p.child_by_field_name("argument") == n)


def _stmt_start(n, body) -> int:
    while n.parent is not None and n.parent != body:
        n = n.parent
    return n.start_byte


def _stmt_start_of_byte(byte, body) -> int:
    for s in body.named_children if body.type == "compound_statement" else [body]:
        if s.start_byte <= byte < s.end_byte:
            return s.start_byte
    return byte


def _may_alias(rk: RowKernel, a: str, b: str) -> bool:
    from kernelpro.profilers.analysis.loops import may_alias
    return may_alias(rk.env, a, b)


def _access_at(src: SourceFile, node, var: str, at: str) -> str:
    return node_with(src, node, ident_subs(src, node, var, f"({at})"))


@dataclass
class RowCache:
    """A row that several spread loops read the same way (same array, start and end), never
    written in the row: the first loop keeps its packs in dynamic shared memory, the others read
    them from there. Each thread reads back only the packs it stored (same lanes, same stride),
    so no barrier is needed; a launch with too few shared bytes reads global memory as before."""
    key: tuple
    producer: object  # the first loop's node
    consumers: tuple  # the other loops' nodes
    array: str
    length: str  # the row's length as the loops' end expression (start 0)


def row_cache(src: SourceFile, rk: RowKernel) -> RowCache | None:
    from kernelpro.profilers.analysis.patterns import accesses_in

    writes = [a for a in accesses_in(rk) if a.is_write]
    assigned = {name for st in rk.body for name, _ in writes_in(src, st)}
    loops = [rl.info for rl in rk.spread]
    for i, lp in enumerate(loops):
        if _start_text(src, rk, lp) != "0" or lp.cmp != "<" or lp.step != 1:
            continue
        try:
            groups = _groups(src, rk, lp)
        except Refuse:
            continue
        for g in groups:
            if g.writes or not g.reads or any(_may_alias(rk, g.access.array, w.array) for w in writes):
                continue
            if {n for m, _ in g.key[1] for n in m} & assigned:  # the row's offset changes between passes
                continue
            users = []
            for other in loops[i + 1:]:
                if other.node.parent != lp.node.parent or other.cmp != "<" or other.step != 1 \
                        or _start_text(src, rk, other) != "0" or text(src, other.bound) != text(src, lp.bound):
                    continue
                try:
                    og = _groups(src, rk, other)
                except Refuse:
                    continue
                if any(h.key == g.key and h.reads and not h.writes for h in og):
                    users.append(other.node)
            if users:
                return RowCache(g.key, lp.node, tuple(users), g.access.array, text(src, lp.bound))
    return None


def _start_text(src: SourceFile, rk: RowKernel, lp) -> str | None:
    n = loop_start(src, lp)
    return text(src, n) if n is not None else None


def spread_loop(src: SourceFile, rk: RowKernel, rl: RowLoop, team: Team, ind: str,
                cache: RowCache | None = None) -> str:
    """The replacement text of one spread loop."""
    lp = rl.info
    var = lp.var
    start_node = loop_start(src, lp)
    if start_node is None:
        raise Refuse(f"the loop on line {lp.node.start_point[0] + 1} has no start value for `{var}`")
    if (lp.form == "while" or not lp.declared_in_header) and _used_after(src, rk, lp):
        raise Refuse(f"`{var}` is used after the loop on line {lp.node.start_point[0] + 1}")
    if lp.step != 1:
        raise Refuse(f"the loop on line {lp.node.start_point[0] + 1} steps by {lp.step}")
    jt = _loop_var_type(rk, lp)
    start = text(src, start_node)
    bound = text(src, lp.bound)
    end = f"({bound}) + 1" if lp.cmp == "<=" else f"({bound})"
    i1, i2, i3 = ind + "  ", ind + "    ", ind + "      "
    role = None if cache is None or team.vec <= 1 else \
        "produce" if lp.node == cache.producer else "consume" if lp.node in cache.consumers else None
    out = []
    if role == "produce":
        ct = _cache_pack(src, rk, cache, lp, team.vec)
        out += [f"long long kp_ca = -1, kp_cn = 0;  // kernelpro: packs [kp_ca, kp_ca + kp_cn) of the row "
                f"{cache.array} kept in shared memory",
                f"{ind}{ct}* const kp_cache = kp_row_cache<{ct}>();", ind]
    out[-1:] = [(out[-1] if out else "") + f"{{  // kernelpro: this loop spread over the {team.kind} (each lane strides the row)"]
    pragma = f"#pragma unroll {team.unroll}" if team.unroll > 1 else None
    # reductions: every lane but the first starts from the identity
    online = [r for r in lp.reductions if r.op == ONLINE]
    plain = [r for r in lp.reductions if r.op != ONLINE]
    resets = []
    for r in plain:
        resets.append(f"{r.var} = {identity(r.op, _declared_type(rk, r.var), src)};")
    for r in online:
        resets.append(f"{r.var} = {'-INFINITY' if r.role == 'max' else '0'};")
        _declared_type(rk, r.var)
    if resets:
        out.append(f"{i1}if (kp_lane != 0) {{ {' '.join(resets)} }}")
    body = lp.body
    inc = lp.increment
    body_subs = [(inc.start_byte, inc.end_byte, "")] if inc is not None else []
    body_text = node_with(src, body, body_subs)
    jdecl = f"{jt} " if (lp.declared_in_header or lp.form == "while") else ""
    if team.vec <= 1:
        out += counted_for(src, jt, var, f"({start}) + kp_lane", end, team.size,
                           _reindent_body(body_text, line_indent(src, body), i1), i1, declare=bool(jdecl),
                           pragma=pragma)
    else:
        groups = _groups(src, rk, lp)
        if not groups:
            raise Refuse(f"the loop on line {lp.node.start_point[0] + 1} has no stride-1 access to pack")
        v = team.vec
        g0 = groups[0]
        e0 = _elem(src, g0, var)
        out.append(f"{i1}const {jt} kp_s = ({start}), kp_e = {end};")
        # peel up to V-1 elements so that the packed accesses start 16-byte aligned; rows of an
        # odd length are all handled this way, each with its own head
        out.append(f"{i1}const unsigned long long kp_m = {v} * sizeof({e0}), "
                   f"kp_ad = (unsigned long long)(const void*)&{_access_at(src, g0.access.node, var, 'kp_s')};")
        out.append(f"{i1}{jt} kp_a = kp_s + ({jt})(((kp_m - kp_ad % kp_m) % kp_m) / sizeof({e0}));")
        al = " && ".join(
            f"((unsigned long long)(const void*)&{_access_at(src, g.access.node, var, 'kp_a')} % "
            f"({v} * sizeof({_elem(src, g, var)}))) == 0" for g in groups)
        out.append(f"{i1}{jt} kp_b = kp_a;  // [kp_a, kp_b): packed; the rest element by element")
        out.append(f"{i1}if (kp_ad % sizeof({e0}) == 0 && kp_a <= kp_e && {al}) {{")
        out.append(f"{i2}const {jt} kp_nv = (kp_e - kp_a) / {v};")
        if role == "produce":
            out.append(f"{i2}const bool kp_con = (unsigned long long)kp_nv * sizeof(*kp_cache) <= kp_dynamic_smem_bytes();")
        elif role == "consume":
            out.append(f"{i2}const bool kp_hit = kp_cn > 0 && (long long)kp_a == kp_ca && (long long)kp_nv == kp_cn;")
        packed = ["{"]  # the packed loop's body
        packed.append(f"{i3}const {jt} kp_j0 = kp_a + kp_q * {v};")
        for g in groups:
            et = _elem(src, g, var)
            addr = f"&{_access_at(src, g.access.node, var, 'kp_j0')}"
            cached = role is not None and g.key == cache.key and not g.writes
            if g.reads or not g.full_write:
                load = f"*reinterpret_cast<const kp_pack<{et}, {v}>*>({addr})"
                if cached and role == "consume":
                    load = f"kp_hit ? kp_cache[kp_q] : {load}"
                packed.append(f"{i3}kp_pack<{et}, {v}> {g.name} = {load};")
                if cached and role == "produce":
                    packed.append(f"{i3}if (kp_con) kp_cache[kp_q] = {g.name};")
            else:
                packed.append(f"{i3}kp_pack<{et}, {v}> {g.name};")
        subs = list(body_subs)
        for g in groups:
            subs += [(n.start_byte, n.end_byte, f"{g.name}.v[kp_v]") for n in g.nodes]
        vec_body = node_with(src, body, subs)
        packed.append(f"{i3}#pragma unroll")
        packed.append(f"{i3}for (int kp_v = 0; kp_v < {v}; ++kp_v) {{")
        packed.append(f"{i3}  const {jt} {var} = kp_j0 + kp_v;")
        packed.append(f"{i3}  " + _reindent_body(vec_body, line_indent(src, body), i3 + "  "))
        packed.append(f"{i3}}}")
        for g in groups:
            if g.writes:
                et = _elem(src, g, var)
                packed.append(f"{i3}*reinterpret_cast<kp_pack<{et}, {v}>*>(&{_access_at(src, g.access.node, var, 'kp_j0')}) = {g.name};")
        packed.append(f"{i2}}}")
        out += counted_for(src, jt, "kp_q", "kp_lane", "kp_nv", team.size, "\n".join(packed), i2, counter="kp_iq",
                           pragma=pragma)
        out.append(f"{i2}kp_b = kp_a + kp_nv * {v};")
        if role == "produce":
            out.append(f"{i2}if (kp_con) {{ kp_ca = (long long)kp_a; kp_cn = (long long)kp_nv; }}")
        out.append(f"{i1}}} else {{")
        out.append(f"{i2}kp_a = kp_s;")
        out.append(f"{i2}kp_b = kp_s;")
        out.append(f"{i1}}}")
        tail = ["{", f"{i2}const {jt} {var} = kp_t < kp_a - kp_s ? kp_s + kp_t : kp_b + (kp_t - (kp_a - kp_s));",
                f"{i2}" + _reindent_body(body_text, line_indent(src, body), i2), f"{i1}}}"]
        out += counted_for(src, jt, "kp_t", "kp_lane", "(kp_a - kp_s) + (kp_e - kp_b)", team.size, "\n".join(tail), i1,
                           counter="kp_it")
    # combine the partials
    for r in plain:
        if team.kind == "warp":
            out.append(f"{i1}{r.var} = kp_warp_allreduce({r.var}, {combine(r.op, r.fn)});")
        else:
            t = _declared_type(rk, r.var)
            out.append(f"{i1}{r.var} = kp_block_allreduce<{t}>({r.var}, {combine(r.op, r.fn)}, "
                       f"{identity(r.op, t, src)});")
    for r in online:
        if r.role != "max":
            continue
        fn = f"[](auto x) {{ return {r.exp_fn}(x); }}"
        out.append(f"{i1}kp_{team.kind}_online({r.var}, {r.partner}, {fn});")
    out.append(f"{ind}}}")
    return "\n".join(out)


def _cache_pack(src: SourceFile, rk: RowKernel, cache: RowCache, lp, v: int) -> str:
    g = next(g for g in _groups(src, rk, lp) if g.key == cache.key)
    return f"kp_pack<{_elem(src, g, lp.var)}, {v}>"


def _elem(src: SourceFile, g: Group, var: str) -> str:
    return f"typename kp_elem<decltype({_access_at(src, g.access.node, var, '0')})>::type"


def _reindent_body(text_: str, old: str, new: str) -> str:
    from .text import reindent
    return reindent(text_, old, new)


def _writes_memory(src: SourceFile, n) -> bool:
    for c in walk(n):
        if c.type in ("subscript_expression", "pointer_expression") and _is_store(c):
            return True
        if c.type == "call_expression":
            fn = c.child_by_field_name("function")
            if fn is not None and src.node_text(fn).startswith(("__st", "atomic")):
                return True
    return False


def _touches_memory(src: SourceFile, n) -> bool:
    return any(c.type in ("subscript_expression",) or (c.type == "pointer_expression" and src.node_text(c).startswith("*"))
               or (c.type == "call_expression" and src.node_text(c.child_by_field_name("function") or c).startswith("__ld"))
               for c in walk(n))


def team_rows(src: SourceFile, rk: RowKernel, team: Team) -> str:
    """The source with the kernel restructured to one team per row. Raises Refuse."""
    if not rk.ok:
        raise Refuse("; ".join(rk.reasons))
    spread = rk.spread
    if not spread:
        raise Refuse("no loop to spread over the row")
    one_lane = []  # the row's other code runs on every lane: an update of memory there runs on the first lane only
    for st in rk.body:
        for c in walk(st):
            if any(rl.info.node.start_byte <= c.start_byte < rl.info.node.end_byte for rl in spread):
                continue
            left = c.child_by_field_name("left") if c.type == "assignment_expression" else \
                c.child_by_field_name("argument") if c.type == "update_expression" else None
            if left is not None and left.type != "identifier" and (c.type == "update_expression" or
                                                                   src.node_text(c.child_by_field_name("operator")) != "="):
                stmt = c.parent
                if stmt is None or stmt.type != "expression_statement" or stmt.named_children[0] != c:
                    raise Refuse(f"line {c.start_point[0] + 1} updates memory inside a larger expression outside the "
                                 "spread loops (every lane of the team would do it)")
                one_lane.append(stmt)
    if rk.form == "none" and team.kind == "warp":
        pass  # the launch keeps whole rows per block (launch.py checks the block size divides)
    subs = []
    # the lane, then the row index of the team
    if rk.form == "loop":
        lp = rk.loops_all.at(rk.row_decl)
        ind = line_indent(src, rk.row_decl)
        rows_per_block = "(blockDim.x / 32)" if team.kind == "warp" else "1"
        subs.append((rk.row_decl.start_byte, rk.row_decl.start_byte, f"const int kp_lane = {team.lane};\n{ind}"))
        subs.append((lp.start.start_byte, lp.start.end_byte, team.row))
        subs.append((lp.step_node.start_byte, lp.step_node.end_byte, f"gridDim.x * {rows_per_block}"))
    else:
        ind = line_indent(src, rk.row_decl)
        value = rk.row_decl.children_by_field_name("declarator")[0].child_by_field_name("value")
        subs.append((rk.row_decl.start_byte, rk.row_decl.start_byte, f"const int kp_lane = {team.lane};\n{ind}"))
        subs.append((value.start_byte, value.end_byte, team.row))
    # spread loops, and barriers after code that writes memory when memory is touched later
    cache = None
    if team.cache:
        if team.kind != "block" or team.vec <= 1:
            raise Refuse("a row kept in shared memory needs a block per row and packed accesses")
        cache = row_cache(src, rk)
        if cache is None:
            raise Refuse("no row is read the same way by two loops and never written (nothing to keep in shared memory)")
    stmts_after = _row_statements(rk)
    spread_nodes = {rl.info.node: rl for rl in spread}
    for rl in spread:
        ind = line_indent(src, rl.info.node)
        new = spread_loop(src, rk, rl, team, ind, cache)
        if _writes_memory(src, rl.info.node) and _later_touch(src, stmts_after, rl.info.node.end_byte):
            new += f"\n{ind}{team.sync}  // kernelpro: the row's writes are seen by every lane after this"
        subs.append((rl.info.node.start_byte, rl.info.node.end_byte, new))
    for s in stmts_after:
        if s in spread_nodes or any(rl.info.node.start_byte >= s.start_byte and rl.info.node.end_byte <= s.end_byte
                                    for rl in spread):
            continue
        if s.type in ("declaration", "expression_statement") and _writes_memory(src, s) \
                and _later_touch(src, stmts_after, s.end_byte):
            subs.append((s.end_byte, s.end_byte, f"\n{line_indent(src, s)}{team.sync}"))
    for stmt in one_lane:  # the statement replaced whole: a barrier inserted after it stays outside the if
        subs.append((stmt.start_byte, stmt.end_byte, f"if (kp_lane == 0) {{ {src.node_text(stmt)} }}"))
    new_text = span_text(src, 0, len(src.data), subs)
    return with_prelude(new_text)


def _row_statements(rk: RowKernel) -> list:
    """The row's statements, flattened through blocks and ifs (each statement once)."""
    out = []

    def visit(stmts):
        for s in stmts:
            out.append(s)
            if s.type == "compound_statement":
                visit(s.named_children)
            elif s.type == "if_statement":
                c = s.child_by_field_name("consequence")
                visit(c.named_children if c is not None and c.type == "compound_statement" else [c] if c else [])
                alt = s.child_by_field_name("alternative")
                if alt is not None:
                    inner = alt.named_children[0] if alt.named_children else None
                    if inner is not None:
                        visit(inner.named_children if inner.type == "compound_statement" else [inner])
    visit(rk.body)
    return out


def _later_touch(src: SourceFile, stmts, after: int) -> bool:
    return any(s.start_byte >= after and _touches_memory(src, s) for s in stmts)


def describe(rk: RowKernel, team: Team) -> str:
    lines = ", ".join(str(rl.info.node.start_point[0] + 1) for rl in rk.spread)
    ops = sorted({("online max+sum" if r.op == ONLINE else r.op) for rl in rk.spread for r in rl.info.reductions})
    what = f"a {team.kind} per row" if team.kind == "warp" else "a block per row"
    red = f"; {', '.join(ops)} combined with shuffles" + (" and shared memory" if team.kind == "block" else "") if ops else ""
    vec = f", {team.vec} elements per access" if team.vec > 1 else ""
    if team.unroll > 1:
        vec += f", {team.unroll} steps' loads in flight"
    if team.cache:
        vec += ", the row kept in shared memory for the later passes"
    return f"spread the loop(s) on line {lines} over {what}{vec}{red}"




# ---------------------------------------------------------------- the static shared memory beside the row

MAX_SHARED_PER_BLOCK = 227 * 1024  # sm_80/sm_90: static and dynamic shared memory of one block together
_SIZEOF = {"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
           "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2, "nv_bfloat16": 2,
           "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4, "half2": 4,
           "__half2": 4, "__nv_bfloat162": 4, "double": 8, "long": 8, "long long": 8, "unsigned long long": 8,
           "size_t": 8, "int64_t": 8, "uint64_t": 8, "float2": 8, "int2": 8, "float4": 16, "int4": 16,
           "double2": 16, "uint4": 16}
_UNKNOWN_SHARED = 1024  # a declaration whose size the source does not give (a template's): assumed this much
_SHARED_DECL = re.compile(r"(?<![\w])__shared__\s+((?:[A-Za-z_][\w:]*\s+)*?[A-Za-z_][\w:<>]*)\s*([A-Za-z_]\w*)"
                          r"\s*((?:\[[^\]]*\]\s*)*)(?:=[^;]*)?;")


def _functions(src: SourceFile) -> dict[str, str]:
    """Every function definition's name and text (overloads and template specialisations joined)."""
    out: dict[str, str] = {}
    for n in walk(src.root):
        if n.type != "function_definition":
            continue
        d = n.child_by_field_name("declarator")
        while d is not None and d.type != "function_declarator":
            d = d.child_by_field_name("declarator")
        name = d.child_by_field_name("declarator") if d is not None else None
        if name is not None:
            key = src.node_text(name).split("::")[-1]
            out[key] = out.get(key, "") + "\n" + src.node_text(n)
    return out


def _shared_size(src: SourceFile, type_text: str, dims: str) -> int:
    words = " ".join(w for w in type_text.split() if w not in ("const", "volatile", "static", "alignas", "__align__"))
    elem = _SIZEOF.get(words.split("::")[-1])
    total = elem if elem is not None else None
    for d in re.findall(r"\[([^\]]*)\]", dims):
        expr = re.sub(r"sizeof\s*\(\s*([^)]*?)\s*\)", lambda m: str(_SIZEOF.get(m.group(1), 8)), d)
        for name, val in src.constants.items():
            expr = re.sub(rf"\b{re.escape(name)}\b", str(val), expr)
        if not re.fullmatch(r"[\d\s()+*/-]+", expr):
            return _UNKNOWN_SHARED
        try:
            v = int(eval(expr.replace("/", "//"), {"__builtins__": {}}))  # digits and operators only
        except Exception:  # noqa: BLE001
            return _UNKNOWN_SHARED
        total = v if total is None else total * v
    return _UNKNOWN_SHARED if total is None else total


def static_shared_bytes(src: SourceFile, kernel: str) -> int:
    """An upper bound of the static shared memory of `kernel`: its `__shared__` declarations (not
    `extern`) and those of the functions it calls, by name, transitively (the prelude's reductions
    keep their partials in static buffers), each padded to 16 bytes (alignas); a size the source
    does not give counts as 1 KB."""
    funcs = _functions(src)
    seen, todo, total = set(), [kernel], 0
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.add(name)
        body = funcs[name]
        for m in _SHARED_DECL.finditer(body):
            if re.search(r"\bextern\s+(?:__align__\s*\([^)]*\)\s*)?$", body[max(0, m.start() - 40):m.start()]):
                continue
            type_text = re.sub(r"(alignas|__align__)\s*\([^)]*\)", "", m.group(1))
            total += -(-_shared_size(src, type_text, m.group(3)) // 16) * 16
        todo += [w for w in set(re.findall(r"\b([A-Za-z_]\w*)\s*(?:<[^<>;{}]*>)?\s*\(", body)) if w in funcs]
    return total


def dynamic_row_bytes(row_bytes: str, src: SourceFile, kernel: str) -> str:
    """The launch's dynamic shared bytes for a row kept in shared memory (a spec expression): the row,
    but no more than fits beside the kernel's own static shared memory in one block; a longer row
    reads global memory again (the kernel compares the row with what it was given)."""
    return f"min({row_bytes}, {MAX_SHARED_PER_BLOCK - static_shared_bytes(src, kernel)})"
