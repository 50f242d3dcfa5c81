"""A product already staged through shared memory, read back as the plain loop it computes.

    for (t = 0; t < nt; ++t) {                         for (int k = 0; k < W; ++k)
      As[ty][tx] = c ? A[row*W + t*T + tx] : 0;   ->     acc += A[row*W + k] * B[k*W + col];
      Bs[ty][tx] = B[(t*T + ty)*W + col];
      __syncthreads();
      for (k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
      __syncthreads();
    }

Each shared element is the value one thread stored: the read `As[ty][k]` is the store's value in the
thread whose coordinates give that element (tx = k), so the global expression is the store's with
the thread's coordinates replaced by the read's. The tile loop and the loop over the tile become one
loop over k = t*T + k' when every index moves by T times as much per tile as per k'. Zero fills of
the loads go: a condition on k becomes the loop's bound (the tiles covering it, rounded up), one on
the output's row or column must be implied by the guard of the output's store. Pointers stepped
once per tile (`A += T;`) are read at the tile instead. Anything else in the loop, a shared array
read or written elsewhere, or an index that does not split so, and the kernel is left as it is.

The plans then see the plain product and rewrite it (tiles with register tiles, tensor cores).
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.affine import (Poly, add, atom, atoms, build_env, coefficient, const, global_accesses, mul,
                                                 poly_text, without, _pointer_base)
from kernelpro.profilers.analysis.blocksim import is_group_handle, is_sync_call
from kernelpro.profilers.analysis.types import table_for
from kernelpro.profilers.analysis.loops import _header, operands, statements, text, unparen, writes_in
from kernelpro.profilers.source import SourceFile, parse_source, walk

from .text import line_indent, span_text

IT = "kp_tile_"  # the tile loop's iteration number, an atom while the indices are solved


def _subst(p: Poly, name: str, value: Poly) -> Poly:
    out: Poly = {}
    for m, c in p.items():
        n = m.count(name)
        term = {tuple(x for x in m if x != name): c}
        for _ in range(n):
            term = mul(term, value)
        out = add(out, term)
    return out


def _subst_all(p: Poly, values: dict) -> Poly:
    """Every atom in values replaced at once (values may mention the atoms they replace)."""
    marks = {a: f"\x00{i}" for i, a in enumerate(values)}
    for a, m in marks.items():
        p = _subst(p, a, atom(m))
    for a, m in marks.items():
        p = _subst(p, m, values[a])
    return p


def _shared_arrays(src: SourceFile, k, consts: dict | None = None) -> dict[str, list[int]]:
    """Fixed-size __shared__ arrays of the kernel -> their dimensions."""
    out = {}
    for d in walk(k.body):
        if d.type != "declaration" or "__shared__" not in text(src, d) or "extern" in text(src, d):
            continue
        for dec in d.children_by_field_name("declarator"):
            dims, n = [], dec
            while n is not None and n.type == "array_declarator":
                v = src.eval_int(n.child_by_field_name("size"), consts or None)
                dims.insert(0, v)
                n = n.child_by_field_name("declarator")
            if n is not None and n.type == "identifier" and dims and all(v for v in dims):
                out[text(src, n)] = dims
    return out


def _subscript(src: SourceFile, n):
    """(array name, [index nodes]) of a[i][j]; None otherwise."""
    idx = []
    while n is not None and n.type == "subscript_expression":
        i = n.child_by_field_name("index")
        if i is None:
            idx_nodes = [c for c in n.named_children if c.type == "subscript_argument_list"]
            i = idx_nodes[0].named_children[0] if idx_nodes and idx_nodes[0].named_children else None
        if i is None:
            return None
        idx.insert(0, i)
        n = n.child_by_field_name("argument")
    if n is None or n.type != "identifier" or not idx:
        return None
    return text(src, n), idx


class _Fail(Exception):
    pass


class _Unstager:
    def __init__(self, src: SourceFile, k, loop, consts: dict | None = None, same: dict | None = None):
        self.src, self.k, self.loop = src, k, loop
        self.consts = consts or {}  # a template's value parameters as every launch instantiates them
        self.same = same or {}  # size parameter -> the one of equal value at every spec size it reads as
        self.assumed: list[str] = []
        self.position_guards: list[str] = []
        self.shared = _shared_arrays(src, k, self.consts)
        body = loop.child_by_field_name("body")
        self.stmts = statements(body) if body is not None else []
        thread_locals = set()
        for d in walk(k.body):
            if d.type == "init_declarator" and d.child_by_field_name("value") is not None \
                    and not loop.start_byte <= d.start_byte < loop.end_byte:  # (`int ka = t * TS + tx;`: followed)
                v = text(src, d.child_by_field_name("value"))
                if "threadIdx" in v and "blockIdx" not in v:
                    thread_locals.add(text(src, d.child_by_field_name("declarator")))
        self.loop_vars = self._loop_vars()
        keep = thread_locals | set(self.loop_vars)
        self.kept = thread_locals
        self.extra_names: list = []  # (name, value) declared before the loop by output_names
        self.env = build_env(src, k, keep=tuple(keep))

    def poly(self, n) -> Poly:
        p = self.env.poly(n)
        if p is None:
            raise _Fail(f"`{text(self.src, n)}` is not an affine index")
        return self._const(p)

    def _const(self, p: Poly | None) -> Poly | None:
        for name, v in self.consts.items():
            if p is not None:
                p = _subst(p, name, const(v))
        return p

    # --- the tile loop ---------------------------------------------------
    def _loop_vars(self) -> dict:
        """var -> (start node, step int) for the tile loop's variables (`a = b0, b = b1; ...; a += s, b += t`)."""
        src, n = self.src, self.loop
        init, upd = n.child_by_field_name("initializer"), n.child_by_field_name("update")
        starts = {}
        if init is not None and init.type == "declaration":
            for d in init.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    starts[text(src, d.child_by_field_name("declarator"))] = d.child_by_field_name("value")
        elif init is not None:
            for e in ([init] if init.type != "comma_expression" else _commas(init)):
                if e.type == "assignment_expression" and text(src, e.child_by_field_name("operator")) == "=":
                    starts[text(src, e.child_by_field_name("left"))] = e.child_by_field_name("right")
        steps = {}
        for e in (_commas(upd) if upd is not None and upd.type == "comma_expression" else [upd]):
            if e is None:
                continue
            if e.type == "update_expression" and "++" in text(src, e):
                steps[text(src, e.child_by_field_name("argument"))] = e
            elif e.type == "assignment_expression" and text(src, e.child_by_field_name("operator")) == "+=":
                steps[text(src, e.child_by_field_name("left"))] = e.child_by_field_name("right")
        if not starts or set(starts) != set(steps):
            raise _Fail("the tile loop is not counted")
        return {v: (starts[v], steps[v]) for v in starts}

    def tile_values(self) -> tuple[dict, str]:
        """Each loop variable as start + IT * step (polys), and the loop's trip count as C text."""
        vals, trip = {}, None
        for v, (start, step) in self.loop_vars.items():
            s = self._const(self.env.poly(start)) if start is not None else None
            d = const(1) if step.type == "update_expression" else self._const(self.env.poly(step))
            if s is None or d is None:
                raise _Fail(f"the tile loop's `{v}` does not step by a fixed amount")
            vals[v] = (s, d)
        cond = unparen(self.loop.child_by_field_name("condition"))
        if cond is None or cond.type != "binary_expression" or text(self.src, cond.child_by_field_name("operator")) \
                not in ("<", "<=") or text(self.src, cond.child_by_field_name("left")) not in vals:
            raise _Fail("the tile loop's condition is not `t < end`")
        v = text(self.src, cond.child_by_field_name("left"))
        end = self.poly(cond.child_by_field_name("right"))
        s, d = vals[v]
        span = add(end, s, -1)
        if text(self.src, cond.child_by_field_name("operator")) == "<=":
            span = add(span, const(1))
        if not d or list(d) != [()]:
            raise _Fail("the tile loop's step is not a constant")
        self.span, self.step = span, d[()]
        return {x: add(s0, mul(atom(IT), d0)) for x, (s0, d0) in vals.items()}, v

    # --- the statements of one tile ----------------------------------------
    def run(self):
        src = self.src
        values, _ = self.tile_values()
        stores, steps, inner = {}, {}, None
        for s in self.stmts:
            t = re.sub(r"\s+", "", text(src, s))
            if _barrier(src, s) or s.type == "declaration" and "__shared__" in text(src, s) \
                    or s.type.startswith("preproc"):  # `#pragma unroll` before the loop over the tile
                continue
            if s.type == "for_statement" and inner is None:
                inner = s
                continue
            if s.type == "declaration" and inner is None and self._index_locals(s):  # `int ka = t * TS + tx;`
                continue  # (followed into the stores' indices and conditions by the analysis)
            st = self._store(s)
            if st is not None and inner is None:
                stores.setdefault(st[0], []).append(st[1:])
                continue
            e = s.named_children[0] if s.type == "expression_statement" and s.named_children else None
            if e is not None and e.type == "assignment_expression" and text(src, e.child_by_field_name("operator")) \
                    == "+=" and e.child_by_field_name("left").type == "identifier":
                p = text(src, e.child_by_field_name("left"))
                d = self._const(self.env.poly(e.child_by_field_name("right")))
                if d is None or p in steps or p in self.loop_vars:
                    raise _Fail(f"line {s.start_point[0] + 1} steps {p} by an amount not followed")
                steps[p] = (d, s.start_byte)
                continue
            raise _Fail(f"line {s.start_point[0] + 1} does more in the tile loop than stage and sum")
        if inner is None or not stores or any(len(v) != 1 for v in stores.values()):
            raise _Fail("no staging stores and one loop over the tile")
        self.out_names = self.output_names()  # before the merge: the operands' indices fold into them
        return self._merge(values, stores, steps, inner)

    def _store(self, s):
        """(array, index nodes, value node or None for 0, condition node or None) of a staging store."""
        src = self.src
        cond, val = None, None
        if s.type == "if_statement":
            cond = s.child_by_field_name("condition")
            then, other = s.child_by_field_name("consequence"), s.child_by_field_name("alternative")
            a = self._assign(statements(then)[0] if then is not None and len(statements(then)) == 1 else then)
            if other is not None:
                other = other.named_children[-1] if other.type == "else_clause" else other
                b = self._assign(statements(other)[0] if len(statements(other)) == 1 else other)
            else:
                b = None
            if other is None and then is not None and len(statements(then)) == 1:
                inner = self._store(statements(then)[0])
                if inner is not None and self._within_extent(cond, inner[0], inner[1]):
                    return inner  # `if (tx < TK) As[ty][tx] = ...`: only the threads past the array's end skip it
            if a is None or (other is not None and (b is None or b[0] != a[0] or not _zero(src, b[2]))):
                return None
            name, idx, val = a
            if other is None:
                return None  # a store that may not happen leaves the old value: not a fill
            return name, idx, val, cond
        a = self._assign(s)
        if a is None:
            return None
        name, idx, val = a
        v = unparen(val)
        if v.type == "conditional_expression" and _zero(src, v.child_by_field_name("alternative")):
            return name, idx, v.child_by_field_name("consequence"), v.child_by_field_name("condition")
        return name, idx, val, None

    def _index_locals(self, decl) -> bool:
        """An integer declaration in the tile loop whose every value the analysis follows (no call, no store)."""
        src = self.src
        t = decl.child_by_field_name("type")
        if t is None or not table_for(src).is_int(text(src, t).replace("const", "").strip()):
            return False
        decs = decl.children_by_field_name("declarator")
        return bool(decs) and all(
            d.type == "init_declarator" and d.child_by_field_name("declarator").type == "identifier"
            and not any(n.type in ("call_expression", "assignment_expression", "update_expression")
                        for n in walk(d.child_by_field_name("value")))
            and self.env.poly(d.child_by_field_name("value")) is not None for d in decs)

    def _within_extent(self, cond, name: str, idx) -> bool:
        """cond is `i < E` with i one of the store's subscripts and E that dimension of the shared array: the
        threads it leaves out would store past the array's end."""
        src = self.src
        c = unparen(cond)
        if c is None or c.type != "binary_expression" or text(src, c.child_by_field_name("operator")) != "<":
            return False
        left = re.sub(r"\s+", "", text(src, c.child_by_field_name("left")))
        bound = src.eval_int(c.child_by_field_name("right"), self.consts or None)
        dims = self.shared.get(name, ())
        return bound is not None and len(idx) == len(dims) and any(
            re.sub(r"\s+", "", text(src, n)) == left and dims[i] == bound for i, n in enumerate(idx))

    def _assign(self, s):
        src = self.src
        e = s.named_children[0] if s is not None and s.type == "expression_statement" and s.named_children else None
        if e is None or e.type != "assignment_expression" or text(src, e.child_by_field_name("operator")) != "=":
            return None
        sub = _subscript(src, e.child_by_field_name("left"))
        if sub is None or sub[0] not in self.shared:
            return None
        return sub[0], sub[1], e.child_by_field_name("right")

    def _flat(self, name: str, idx) -> Poly:
        dims = self.shared[name]
        if len(idx) != len(dims):
            raise _Fail(f"{name} is indexed with {len(idx)} subscripts")
        p: Poly = {}
        for i, n in enumerate(idx):
            stride = 1
            for d in dims[i + 1:]:
                stride *= d
            p = add(p, mul(self.poly(n), const(stride)))
        return p

    def _merge(self, values: dict, stores: dict, steps: dict, inner):
        src = self.src
        h = _header(src, inner)
        kv = h["var"]
        tile = src.eval_int(h["bound"], self.consts or None) if h["bound"] is not None else None
        if kv is None or h["step"] != 1 or h["cmp"] != "<" or tile is None or h["start"] is None \
                or text(src, h["start"]) != "0" or not h["declared"]:
            raise _Fail("the loop over the tile is not `for (int k = 0; k < T; ++k)`")
        body = inner.child_by_field_name("body")
        ups = statements(body)
        if len(ups) != 1:
            raise _Fail("the loop over the tile does more than one update")
        upd = ups[0]
        reads, subs = [], []
        for n in walk(upd):
            sub = _subscript(src, n) if n.type == "subscript_expression" else None
            if sub is not None and sub[0] in self.shared and (n.parent is None or n.parent.type != "subscript_expression"):
                reads.append((n, sub))
        if not reads or {s[0] for _, s in reads} - set(stores):
            raise _Fail("the update reads shared arrays that the tile loop does not stage")
        if any(text(src, n) == kv for n in walk(upd) if n.type == "identifier"
               and not any(r.start_byte <= n.start_byte < r.end_byte for r, _ in reads)):
            raise _Fail(f"the update uses `{kv}` outside the shared reads")
        k_bounds = set()
        kk = f"{kv}"
        self.kv, self.tile = kv, tile
        for n, (name, idx) in reads:
            sidx, val, cond = stores[name][0]
            spoly = self._flat(name, sidx)
            rpoly = self._flat(name, idx)
            coords = self._solve(name, spoly, rpoly)
            value = self._value(val, coords, values, steps, tile, kv, kk)
            if cond is not None:
                k_bounds |= self._condition(cond, coords, values, tile, kv, kk)
            subs.append((n.start_byte, n.end_byte, value))
        self._check_shared_elsewhere(set(stores), [r for r, _ in reads])
        self._check_steps_unused(steps)
        K = self._bound(k_bounds, tile)
        acc = span_text(src, upd.start_byte, upd.end_byte, subs)
        loop = f"for (int {kk} = 0; {kk} < {K}; ++{kk}) {acc}"
        guards = list(dict.fromkeys(self.position_guards))  # outside the output the loads stay unread
        return f"if ({' && '.join(guards)}) {loop}" if guards else loop

    def _solve(self, name: str, spoly: Poly, rpoly: Poly) -> dict:
        """Thread coordinate atom -> its value (poly) in the thread that stored the element read."""
        coords = {}
        by_coef: dict[int, Poly] = {}
        for m, c in rpoly.items():
            by_coef[c] = add(by_coef.get(c, {}), {m: 1})
        for m, c in spoly.items():
            if len(m) != 1 or c not in by_coef:
                raise _Fail(f"{name}'s store index `{poly_text(spoly)}` and read `{poly_text(rpoly)}` do not match "
                            "term by term")
            coords[m[0]] = by_coef.pop(c)
        if by_coef or len(coords) != len(spoly):
            raise _Fail(f"{name}'s read `{poly_text(rpoly)}` is not the store's index at other coordinates")
        # each coordinate read must be one the threads stored: k across the tile, or a thread coordinate of
        # the same range (the ranges from the strides: the array's size over the largest, then ratios)
        size = 1
        for d in self.shared[name]:
            size *= d
        order = sorted(spoly.items(), key=lambda x: -x[1])
        ranges = {m[0]: (size // c if i == 0 else order[i - 1][1] // c) for i, (m, c) in enumerate(order)}
        for u, r in coords.items():
            ok = len(r) == 1 and list(r.values()) == [1] and len(next(iter(r))) == 1
            a = next(iter(r))[0] if ok else None
            if not ok or not (a == self.kv and self.tile <= ranges[u] or a in ranges and ranges[a] == ranges[u]):
                raise _Fail(f"{name}'s read `{poly_text(rpoly)}` takes `{poly_text(r)}` where the store has `{u}`: "
                            "not an element every tile stores")
        return coords

    def _tile_poly(self, p: Poly, coords: dict, values: dict, tile: int, kv: str) -> Poly:
        """p at the storing thread, the tile loop's variables at tile IT, then k' + IT * T as kv."""
        p = _subst_all(p, coords)
        p = _subst_all(p, values)
        ck, ci = coefficient(p, kv), coefficient(p, IT)
        if ck is None or ci is None or add(ci, mul(ck, const(tile)), -1):
            raise _Fail(f"`{poly_text(p)}` does not move by {tile} times as much per tile as along the tile")
        return without(p, IT)

    def _value(self, val, coords: dict, values: dict, steps: dict, tile: int, kv: str, kk: str) -> str:
        """The store's value as the update reads it: the global access at the solved coordinates."""
        src = self.src
        accs = [n for n in walk(val) if n.type == "subscript_expression" and (n.parent is None or
                n.parent.type != "subscript_expression")]
        if len(accs) != 1:
            raise _Fail(f"`{text(src, val)}` is not one load")
        acc = accs[0]
        sub = _subscript(src, acc)
        if sub is None or len(sub[1]) != 1 or sub[0] in self.shared:
            raise _Fail(f"`{text(src, acc)}` is not a load from a global array")
        ptr, (inode,) = sub
        p = self.poly(inode)
        param, off = self._base(ptr)
        if param is not None:  # a pointer set from a parameter (`A_1 = A + cRow * 32 * K`): read at the parameter
            p = add(p, off)
        if ptr in steps:  # stepped once per tile: read at the tile (after its step once the step has run)
            d, at = steps[ptr]
            tiles = add(atom(IT), const(1)) if at < acc.start_byte else atom(IT)
            p = add(p, mul(d, tiles))
        p = self._tile_poly(p, coords, values, tile, kv)
        others = [n for n in walk(val) if n.type == "identifier" and text(src, n) in coords
                  and not (inode.start_byte <= n.start_byte < inode.end_byte)]
        if others:
            raise _Fail(f"`{text(src, val)}` uses the thread's coordinates outside its index")
        inner = self.loop.child_by_field_name("body")
        local = {text(src, x) for d in walk(inner) if d.type == "declaration" for x in walk(d)
                 if x.type == "identifier" and x.parent is not None and x.parent.type == "init_declarator"
                 and x.parent.child_by_field_name("declarator") == x} if inner is not None else set()
        stray = sorted({text(src, n) for n in walk(val) if n.type == "identifier" and text(src, n) in local
                        and not (inode.start_byte <= n.start_byte < inode.end_byte)})
        if stray or any(n.type == "conditional_expression" for n in walk(val)):
            raise _Fail(f"the fill `{' '.join(text(src, val).split())}` reads "
                        + (f"{stray[0]}, a local of the tile loop," if stray else "a choice") + " besides the load")
        if param is not None and param != ptr:
            return "(" + span_text(src, val.start_byte, val.end_byte, [(acc.start_byte, acc.end_byte,
                                                                        f"{param}[{poly_text(self._named(p))}]")]) + ")"
        return "(" + span_text(src, val.start_byte, val.end_byte, [(inode.start_byte, inode.end_byte,
                                                                    poly_text(self._named(p)))]) + ")"

    def _base(self, ptr: str) -> tuple[str | None, Poly]:
        """(the parameter, the offset) a pointer was declared at before the loop (`const float* A_1 = A + off`),
        the pointer itself for a parameter; (None, {}) where not followed."""
        if self.k.param(ptr) is not None:
            return ptr, {}
        src = self.src
        params = {p.name: (p.name, {}) for p in self.k.params if p.is_pointer}
        for d in walk(self.k.body):
            if d.type == "init_declarator" and d.end_byte < self.loop.start_byte:
                target = d.child_by_field_name("declarator")
                while target is not None and target.type == "pointer_declarator":
                    target = target.child_by_field_name("declarator")
                if target is not None and text(src, target) == ptr and d.child_by_field_name("value") is not None:
                    got = _pointer_base(src, d.child_by_field_name("value"), self.env.values_at(d.start_byte), params)
                    if got is not None and not any(w == ptr for w, n in writes_in(src, self.k.body)
                                                   if not inside_(n, self.loop)):
                        return got[0], self._const(got[1])
        return None, {}

    def _named(self, p: Poly) -> Poly:
        """p written with the kernel's own locals where they fit (`Width*ty + 16*Width*blockIdx.y` ->
        `Width*Row` where `Row = by * 16 + ty`), so the output and the operands share their names."""
        src = self.src
        values = self.env.values_at(self.loop.start_byte)
        written = {src.node_text(n.child_by_field_name("left")) for n in walk(self.k.body)
                   if n.type == "assignment_expression"}
        names = []
        for d in walk(self.k.body):
            if d.type == "init_declarator" and d.end_byte < self.loop.start_byte:
                name = text(src, d.child_by_field_name("declarator"))
                v = self._const(values.get(name))
                if v and name not in written and name not in self.loop_vars and len(v) >= 1 and v != atom(name):
                    names.append((name, v))
        names += [(n, v) for n, v in self.extra_names if n not in {x for x, _ in names}]
        names.sort(key=lambda x: -len(x[1]))
        for name, v in names:
            lead = next((m for m in v if len(m) == 1 and m[0].startswith("blockIdx")), None) or \
                next((m for m in v if len(m) == 1), None)
            if lead is None:
                continue
            c0 = v[lead]
            cp = coefficient(p, lead[0])
            if not cp or any(c % c0 for c in cp.values()):
                continue
            f = {m: c // c0 for m, c in cp.items()}
            q = add(add(p, mul(f, v), -1), mul(f, atom(name)))
            if lead[0] not in atoms(q) and len(q) <= len(p):
                p = q
        return p

    def _condition(self, cond, coords: dict, values: dict, tile: int, kv: str, kk: str) -> set:
        """The fill's conjuncts: those on k (`k < E`, returned as E) and those on the output's position,
        which the guard of the output's store must already hold."""
        src = self.src
        out = set()
        for c in operands(cond):
            c = unparen(c)
            if c.type != "binary_expression" or text(src, c.child_by_field_name("operator")) not in ("<", "<="):
                raise _Fail(f"the fill's condition `{text(src, c)}` is not a bound")
            left = self._tile_poly(self.poly(c.child_by_field_name("left")), coords, values, tile, kv)
            right = self._tile_poly(self.poly(c.child_by_field_name("right")), coords, values, tile, kv)
            if kv in atoms(left):
                if left != atom(kv) or kv in atoms(right):
                    raise _Fail(f"the fill's condition `{text(src, c)}` is not `k < E`")
                if text(src, c.child_by_field_name("operator")) == "<=":
                    right = add(right, const(1))
                out.add(poly_text(right))
            elif not self._guarded(text(src, c)):
                raise _Fail(f"the fill's condition `{text(src, c)}` is not one the output's store is guarded by")
            else:
                self.position_guards.append(text(src, c))
        return out

    def _guarded(self, cond_text: str) -> bool:
        """A condition on the thread's position that an `if` around every store of the output holds,
        or an early return on its negation before the tile loop. Sizes the spec gives the same value at
        every size (`numARows` and `numCRows` of C = A·B) read as one, and the reading says so (`assumed`)."""
        canon = lambda t: re.sub(r"[A-Za-z_]\w*", lambda m: self.same.get(m.group(0), m.group(0)),  # noqa: E731
                                 re.sub(r"\s+", "", t))
        want = canon(cond_text)
        src = self.src
        for n in walk(self.k.body):
            if n.type == "if_statement" and n.start_byte > self.loop.end_byte:
                held = {re.sub(r"\s+", "", text(src, c)): " ".join(text(src, c).split())
                        for c in operands(n.child_by_field_name("condition"))}
                if want in {canon(h) for h in held}:
                    if re.sub(r"\s+", "", cond_text) not in held:
                        self.assumed.append(f"`{cond_text}` read as the store's "
                                            f"`{next(t for h, t in held.items() if canon(h) == want)}`")
                    rest = self.k.body.end_byte
                    return all(not _is_global_store(src, m, self.shared) or n.start_byte <= m.start_byte < n.end_byte
                               for m in walk(self.k.body) if self.loop.end_byte <= m.start_byte < rest)
        return False

    def output_names(self) -> tuple[list[str], list]:
        """The output's row and column named where its accesses spell them through other locals or pointer
        offsets (the CUDA sample's `C[c + wB * ty + tx]` with `c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx`;
        `C += cRow * 32 * N + cCol * 32; C[threadRow * N + threadCol]`): each block index that appears in
        every access of the output after the loop as T * blockIdx.d + t, t a thread index or a local of the
        thread's (`ty`, `threadRow = threadIdx.x / 32`), gets a declaration `const int kp_row_ = T * blockIdx.d +
        t;` before the loop, and the accesses are rewritten in it, at the kernel's parameter."""
        src, k = self.src, self.k
        accs = []
        for a in global_accesses(self.env, include_unknown=True):
            if a.node.start_byte > self.loop.end_byte and a.node.type == "subscript_expression":
                if a.index is None:
                    return [], []
                accs.append((a.node, a.array, self._const(a.index)))
        if not accs:
            return [], []
        thread_atoms = {a for _, _, p in accs for a in atoms(p) if a.startswith("threadIdx.") or a in self.kept}
        pairs = []  # (block atom, thread atom, T)
        for b in sorted({a for _, _, p in accs for a in atoms(p) if a.startswith("blockIdx.")}):
            found = None
            for t in sorted(thread_atoms):
                tiles = set()
                for _, _, p in accs:
                    cb, ct = coefficient(p, b), coefficient(p, t)
                    if not cb or not ct or set(cb) != set(ct) or any(cb[m] % ct[m] for m in cb):
                        tiles = set()
                        break
                    tiles |= {cb[m] // ct[m] for m in cb}
                if len(tiles) == 1:
                    found = (b, t, next(iter(tiles)))
                    break
            if found:
                pairs.append(found)
        if not pairs:
            return [], []
        values = self.env.values_at(self.loop.start_byte)
        written = {w for w, _ in writes_in(src, k.body)}
        held = [self._const(values.get(text(src, n.child_by_field_name("declarator"))))
                for n in walk(k.body) if n.type == "init_declarator" and n.end_byte < self.loop.start_byte
                and text(src, n.child_by_field_name("declarator")) not in written]
        decls, named = [], []
        for b, t, tile in pairs:
            value = add(mul(const(tile), atom(b)), atom(t))
            if value in held:
                continue  # a local of the kernel holds it already: the accesses read it through that
            contiguous = coefficient(accs[0][2], t) == const(1)  # the output's stride-1 index is its column
            name = "kp_col_" if contiguous else "kp_row_" if len(pairs) == 2 else f"kp_{b[-1]}_"
            decls.append(f"const int {name} = {tile} * {b} + {t};")
            self.extra_names.append((name, value))
            named.append((b, t, tile, name))
        if not named:
            return [], []
        subs = []
        for node, array, p in accs:
            q = p
            for b, t, tile, name in named:
                ct = coefficient(q, t)
                q = add(add(q, mul(ct, add(mul(const(tile), atom(b)), atom(t))), -1), mul(ct, atom(name)))
            if any(a.startswith("blockIdx") for a in atoms(q)):
                return [], []
            subs.append((node.start_byte, node.end_byte, f"{array}[{poly_text(q)}]"))
        return decls, subs

    def _check_shared_elsewhere(self, names: set, reads: list) -> None:
        src = self.src
        body = self.loop.child_by_field_name("body")
        for n in walk(self.k.body):
            if n.type == "identifier" and text(src, n) in names and not (body.start_byte <= n.start_byte < body.end_byte):
                par = n.parent
                while par is not None and par.type not in ("declaration",):
                    par = par.parent
                if par is None or "__shared__" not in text(src, par):
                    raise _Fail(f"line {n.start_point[0] + 1} uses {text(src, n)} outside the tile loop")

    def _check_steps_unused(self, steps: dict) -> None:
        src = self.src
        for p in steps:
            if any(text(src, n) == p for n in walk(self.k.body) if n.type == "identifier"
                   and n.start_byte >= self.loop.end_byte):
                raise _Fail(f"{p} is stepped in the tile loop and used after it")

    def _bound(self, k_bounds: set, tile: int) -> str:
        """The merged loop's end: the fill's `k < E` where the tiles cover E, else the tiles' extent
        (the tile loop's span, a multiple of the tile where the kernel as written is right)."""
        span = self.span
        if len(k_bounds) > 1:  # A's fill stops at numAColumns, B's at numBRows: the terms past either are zero
            ends = sorted(k_bounds)
            if self.step == 1 and any(_covers(span, e, tile, self.consts) for e in ends):
                return _min_text(ends)
            raise _Fail(f"the fills bound k differently ({', '.join(ends)}) and the tiles cover neither")
        if self.step != tile and self.step != 1:
            raise _Fail(f"the tile loop steps by {self.step}, the tile is {tile} wide")
        if self.step == 1:  # t counts tiles: the span is their number
            span = mul(span, const(tile)) if not k_bounds else span
            if k_bounds:
                e = next(iter(k_bounds))
                if not _covers(span, e, tile, self.consts):
                    raise _Fail(f"the tiles (`{poly_text(self.span)}` of them) do not cover k < {e}")
                return e
            return poly_text(span)
        # t steps by the tile: it covers the span
        if k_bounds:
            e = next(iter(k_bounds))
            if poly_text(span) != e:
                raise _Fail(f"the tiles cover `{poly_text(span)}`, the fill bounds k by {e}")
            return e
        return poly_text(span)


def _covers(count: Poly, e: str, tile: int, consts: dict | None = None) -> bool:
    """count tiles of `tile` cover k < e: count is `(e + tile - 1) / tile` (or `(e - 1) / tile + 1`), as written
    or in any order of its terms with the tile a template's value (`(BLOCK_SIZE + wA - 1) / BLOCK_SIZE`)."""
    if _covers_as_written(count, e, tile):
        return True
    return _covers_by_value(poly_text(count), e, tile, consts or {})


def _covers_by_value(count: str, e: str, tile: int, consts: dict) -> bool:
    """The count's value at the ends e takes (every name of e the same sample, the template's values in place)
    is the ceiling of e / tile: between e / tile and one more; False where the count reads another name."""
    names = set(re.findall(r"[A-Za-z_]\w*", e))
    extra = set(re.findall(r"[A-Za-z_]\w*", count)) - names - set(consts)
    if extra or not names or re.search(r"[^\w\s()+\-*/]", count + e):
        return False
    py = lambda t: re.sub(r"(?<!/)/(?!/)", "//", t)  # non-negative ints: C's division
    for v in (1, 2, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 97, 1000, 1023):
        env = {**{n: int(x) for n, x in consts.items() if str(x).lstrip("-").isdigit()}, **{n: max(v, 1) for n in names}}
        try:
            n, end = eval(py(count), {"__builtins__": {}}, env), eval(py(e), {"__builtins__": {}}, env)  # noqa: S307
        except Exception:
            return False
        if not isinstance(n, int) or not isinstance(end, int) or end < 1:
            continue
        if not (n * tile >= end and (n - 1) * tile < end):
            return False
    return True


def _covers_as_written(count: Poly, e: str, tile: int) -> bool:
    if len(count) == 2 and count.get(()) == 1:  # `(e - 1) / tile + 1`: the division an atom, the 1 a constant
        rest = {m: c for m, c in count.items() if m}
        (m, c), = rest.items()
        e_ = re.sub(r"\s+", "", e)
        return c == 1 and len(m) == 1 and re.sub(r"\s+", "", m[0]).strip("()") in (
            f"{e_}-1)/{tile}", f"({e_}-1)/{tile}")
    if len(count) != 1:
        return False
    (m, c), = count.items()
    if c != 1 or len(m) != 1:
        return False
    t = re.sub(r"\s+", "", m[0])
    e_ = re.sub(r"\s+", "", e)
    return t in (f"(({e_}+{tile - 1})/{tile})", f"(({e_}+{tile}-1)/{tile})", f"({e_}+{tile - 1})/{tile}",
                 f"(({e_}-1)/{tile}+1)", f"({e_}-1)/{tile}+1")  # (ECE408's `(n - 1) / TILE + 1`, for n >= 1)


def _min_text(ends: list[str]) -> str:
    out = ends[0]
    for e in ends[1:]:
        out = f"min({out}, {e})"
    return out


def _commas(n) -> list:
    if n is not None and n.type == "comma_expression":
        return _commas(n.child_by_field_name("left")) + _commas(n.child_by_field_name("right"))
    return [n]


def _zero(src: SourceFile, n) -> bool:
    """`0`, `0.0f`, `(float)0`, and a zero converted by a call (`T(0)`, `static_cast<T>(0)`, `__float2half(0.f)`)."""
    if n is None:
        return False
    if n.type == "identifier":  # a local set once to a zero (`const __half hzero = __float2half(0.0f);`)
        v = _set_once(src, n)
        return v is not None and v.type != "identifier" and _zero(src, v)
    t = " ".join(text(src, n).split())
    inner = re.fullmatch(r"\(?\s*(static_cast\s*<[^<>]+>|[A-Za-z_][\w:]*)\s*\((.*)\)\s*\)?", t)
    if inner is not None:  # a conversion of zero: a cast, a type's constructor (`T(0)`), a `__float2half`-style call
        fn = inner.group(1)
        if not (fn.startswith("static_cast") or re.fullmatch(r"__\w+2\w+(_r[nzdu])?|[A-Z]\w*|float|double|int|"
                                                           r"half|__half|__nv_bfloat16|nv_bfloat16|bfloat16", fn)):
            return False
        t = inner.group(2)
    return re.fullmatch(r"\(?\s*(\(\w+\)\s*)?0(\.0*)?[fF]?\s*\)?", t.strip()) is not None


def _set_once(src: SourceFile, n):
    """The value of local n's one declaration in its function where nothing else assigns it; else None."""
    f = n
    while f is not None and f.type != "function_definition":
        f = f.parent
    if f is None:
        return None
    name, values = text(src, n), []
    params = f.child_by_field_name("declarator")
    if params is not None and any(x.type == "identifier" and text(src, x) == name for x in walk(params)):
        return None  # a parameter of that name
    for d in walk(f):
        if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
            if d.start_byte > n.start_byte:
                return None  # declared after the use (another scope's)
            values.append(d.child_by_field_name("value"))
        elif d.type in ("assignment_expression", "update_expression"):
            target = d.child_by_field_name("left") if d.type == "assignment_expression" else \
                d.child_by_field_name("argument")
            if target is not None and text(src, target) == name:
                return None
    return values[0] if len(values) == 1 else None


def _is_global_store(src: SourceFile, n, shared) -> bool:
    if n.type != "assignment_expression":
        return False
    sub = _subscript(src, n.child_by_field_name("left"))
    return sub is not None and sub[0] not in shared


def unstage(src_text: str, path: str, kernel: str, same: dict | None = None, assumed: list | None = None
            ) -> tuple[str | None, str | None]:
    """(the kernel with its shared-memory tile loop read as the plain loop, None) or (None, why not)
    where a tile loop stages shared arrays; (None, None) where there is none. `same`: size parameters read as
    another of equal value at every spec size; what that reading assumed is appended to `assumed`."""
    src = parse_source(src_text, path)
    k = src.kernel(kernel)
    if k is None or k.body is None or "__shared__" not in text(src, k.body):
        return None, None
    why = None
    for lp in walk(k.body):
        if lp.type != "for_statement" or not any(n.type == "for_statement" for n in walk(lp.child_by_field_name("body"))):
            continue
        if not any(_barrier(src, n) for n in walk(lp.child_by_field_name("body"))):
            continue
        try:
            u = _Unstager(src, k, lp, src.instantiated(k), same)
            new = u.run()
            if assumed is not None:
                assumed += u.assumed
        except _Fail as e:
            why = why or f"line {lp.start_point[0] + 1}: {e}"
            continue
        decls, outs = u.out_names
        subs = [(lp.start_byte, lp.end_byte, "".join(d + "\n" + line_indent(src, lp) for d in decls) + new)] + outs
        staged = set(_shared_arrays(src, k, src.instantiated(k)))
        for d in walk(k.body):  # the staged arrays' declarations go (the loop's own went with it)
            if d.type == "declaration" and "__shared__" in text(src, d) and not inside_(d, lp):
                names = {text(src, n) for n in walk(d) if n.type == "identifier"}
                if names & staged and not any(text(src, n) in names & staged for n in walk(k.body)
                                              if n.type == "identifier" and not inside_(n, d) and not inside_(n, lp)):
                    ls = src.data.rfind(b"\n", 0, d.start_byte) + 1
                    le = src.data.find(b"\n", d.end_byte)
                    whole = not src.data[ls:d.start_byte].strip() and not src.data[d.end_byte:le].strip()
                    subs.append((ls, le + 1, "") if whole else (d.start_byte, d.end_byte, ""))
        return _drop_dead_locals(span_text(src, 0, len(src.data), subs), path, kernel), None
    return None, why


def _barrier(src: SourceFile, s) -> bool:
    """A block barrier statement: `__syncthreads();`, `cg::sync(block);`, `block.sync();`."""
    if s.type == "expression_statement" and s.named_children:
        s = s.named_children[0]
    return is_sync_call(src, s) and "__syncwarp" not in text(src, s)


def _drop_dead_locals(text_: str, path: str, kernel: str) -> str:
    """Declarations left unread by the merge (`int aStep = BLOCK_SIZE;`, `int c = ...;`) removed, their values
    free of calls and assignments; repeated until none is left (one may have read another)."""
    for _ in range(16):
        src = parse_source(text_, path)
        k = src.kernel(kernel)
        drop = None
        for d in walk(k.body):
            if d.type != "declaration" or d.parent is None or d.parent.type != "compound_statement" \
                    or "__shared__" in text(src, d):
                continue
            decs = d.children_by_field_name("declarator")
            if len(decs) != 1 or decs[0].type != "init_declarator":
                continue
            target = decs[0].child_by_field_name("declarator")
            while target is not None and target.type == "pointer_declarator":
                target = target.child_by_field_name("declarator")
            name = text(src, target) if target is not None else ""
            value = decs[0].child_by_field_name("value")
            if not re.fullmatch(r"\w+", name) or value is None or not is_group_handle(src, d) and any(
                    n.type in ("call_expression", "assignment_expression", "update_expression", "subscript_expression")
                    for n in walk(value)):  # (a cooperative group's handle, only synchronised on: gone with them)
                continue
            if not any(n.type == "identifier" and text(src, n) == name and not inside_(n, d) for n in walk(k.node)):
                drop = d
                break
        if drop is None:
            return text_
        ls = src.data.rfind(b"\n", 0, drop.start_byte) + 1
        le = src.data.find(b"\n", drop.end_byte)
        whole = not src.data[ls:drop.start_byte].strip() and not src.data[drop.end_byte:le].strip()
        text_ = span_text(src, 0, len(src.data), [(ls, le + 1, "") if whole else (drop.start_byte, drop.end_byte, "")])
    return text_


def inside_(n, outer) -> bool:
    return outer.start_byte <= n.start_byte and n.end_byte <= outer.end_byte
