"""How a kernel's threads map onto what it writes: which grid dimension covers which coordinate, how many
threads or blocks the guards need (`axes`), the block a shared array or an index implies, the row a
coordinate nothing bounds moves within, and the dynamic shared memory an `extern __shared__` array needs.
Read by runtime/infer.py where no launch in the host code gives the grid and block.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..source import walk
from .affine import Poly, add, atom, const, depends, finite_values, mul, poly_cases, subscript_parts
from .extents import DIMS, Atoms, Bound, KernelShapes, Use, _divides, reach, sample_env


@dataclass
class Axis:
    """One grid dimension as the writes use it: `threads` (blockIdx * blockDim + threadIdx of a thread
    dimension, several elements apart where `step` > 1), or `blocks` (blockIdx alone, a block per row)."""
    dim: str  # the blockIdx dimension
    mode: str  # threads, blocks
    thread: str | None  # the threadIdx dimension paired with it (threads)
    fixed_block: int | None  # `blockIdx.x * 16 + threadIdx.x`: the block must be 16
    count: tuple[Poly, int] | None  # the writes need cdiv(c, a) values of the coordinate (None: no guard says)
    step: int
    why: str
    cyclic: int = 1  # a thread's elements a block apart: blockIdx.x * blockDim.x * cyclic + threadIdx.x
    quotient_of: int | None = None  # the thread index is threadIdx.<thread> / quotient_of (a 1-D block cut into
    # rows of that many threads: `row = blockIdx.y * 16 + threadIdx.x / 16`); fixed_block rows per block


def _coef(p: Poly, name: str) -> Poly | None:
    from .affine import coefficient
    return coefficient(p, name)


def axes(ks: KernelShapes) -> dict[str, Axis]:
    """How each grid dimension covers the writes (the reads where no write says)."""
    writes = [u for p in ks.pointers.values() if p.role != "input" for u in p.uses if u.write and u.index is not None]
    reads = [u for p in ks.pointers.values() for u in p.uses if u.index is not None and not u.write]
    out = _axes(ks, writes)
    for d, a in _axes(ks, reads).items():
        if d not in out or (out[d].count is None and a.count is not None and a.mode == "threads"):
            out[d] = a
    return out


def _ratio(big: Poly, small: Poly) -> int | None:
    """c with big == c * small, c an integer above 1."""
    m = next(iter(small))
    if m not in big or big[m] % small[m]:
        return None
    c = big[m] // small[m]
    return c if c > 1 and big == mul(small, const(c)) else None


def _axes(ks: KernelShapes, use_list: list[Use]) -> dict[str, Axis]:
    f, A = ks.facts, ks.facts.atoms
    out: dict[str, Axis] = {}
    for d in DIMS:
        bx = f"blockIdx.{d}"
        found: Axis | None = None
        for u in use_list:
            # the index, or the dividend of a quotient in it (a warp per row: (blockIdx.x * blockDim.x + tid) / 32)
            # (or of a quotient or remainder by a size: `b = blockIdx.z / H`, `h = blockIdx.z % H`, a batch and a
            # head from one grid dimension)
            forms = [u.index] + [A.notes[a][1] for m in u.index for a in m
                                 if a in A.notes and A.notes[a][0] in ("floor", "/", "%")
                                 and isinstance(A.notes[a][1], dict)]
            found_form = None
            for P in forms:
                cb = _coef(P, bx)
                if cb:
                    found_form = (P, cb)
                    break
            if found_form is None:
                continue
            P, cb = found_form
            axis = None
            for e in DIMS:
                ct = _coef(P, f"threadIdx.{e}")
                if not ct:
                    continue
                step = ct.get((), 0) if set(ct) <= {()} else 1
                bd = atom(f"blockDim.{e}")
                if cb == mul(ct, bd):
                    axis = Axis(d, "threads", e, None, None, max(step, 1), "")
                elif _ratio(cb, ct):
                    axis = Axis(d, "threads", e, _ratio(cb, ct), None, max(step, 1), "")
                elif _ratio(cb, mul(ct, bd)):  # block-cyclic: blockIdx.x * blockDim.x * 4 + threadIdx.x
                    axis = Axis(d, "threads", e, None, None, max(step, 1), "", _ratio(cb, mul(ct, bd)))
                if axis is not None:
                    break
            if axis is None:
                axis = _quotient_axis(A, P, cb, d)
            if axis is None:
                axis = Axis(d, "blocks", None, None, None, cb.get((), 0) if set(cb) <= {()} and cb.get((), 0) > 0 else 1,
                            "")
            g = atom(bx)
            if axis.quotient_of:
                g = add(mul(atom(bx), const(axis.fixed_block)), atom(axis.why))
                axis.why = ""
            elif axis.mode == "threads":
                per = const(axis.fixed_block) if axis.fixed_block else mul(atom(f"blockDim.{axis.thread}"),
                                                                           const(axis.cyclic))
                g = add(mul(atom(bx), per), atom(f"threadIdx.{axis.thread}"))
            bounds = u.guards + f.derived(u.guards)
            sample = sample_env(A, [u.index] + [b.u for b in bounds])
            cnt = _count(g, bounds, A, sample)
            if cnt is not None:
                axis.count, axis.why = cnt[:2], cnt[2]
            if found is None or (axis.count is not None and (
                    found.count is None or _val(A, axis.count, sample) > _val(A, found.count, sample))):
                found = axis
        if found is not None:
            out[d] = found
    return out


def _quotient_axis(A: Atoms, P: Poly, cb: Poly, d: str) -> Axis | None:
    """blockIdx.d * T + threadIdx.e / D in the index: a 1-D block cut into rows of D threads, T rows a block."""
    for m in P:
        for a in m:
            note = A.notes.get(a) if len(m) >= 1 else None
            if not note or note[0] != "floor" or not isinstance(note[1], dict) or not isinstance(note[2], dict):
                continue
            (t, one), = note[1].items() if len(note[1]) == 1 else ((None, 0),)
            if t is None or one != 1 or len(t) != 1 or not t[0].startswith("threadIdx.") or set(note[2]) != {()}:
                continue
            cq = {mm: v for mm, v in (_coef(P, a) or {}).items() if mm in cb}  # (the remainder's -D * q apart)
            ratio = _ratio(cb, cq) if cq else None
            if ratio:
                return Axis(d, "threads", t[0][-1], ratio, None, 1, a, quotient_of=int(note[2][()]))
    return None


def _val(A: Atoms, c: tuple, sample: dict) -> float:
    v = A.eval(c[0], sample)
    return math.inf if v is None else v / c[1]


def _count(g: Poly, bounds: list[Bound], A: Atoms, sample: dict) -> tuple[Poly, int, str] | None:
    """(c, a, why): g <= (c - 1) / a by a bound `a * g + rest <= u` whose rest is never negative."""
    best = None
    for b in bounds:
        if b.kind == "not":
            continue
        first = next(iter(g))
        if first not in b.q or b.q[first] <= 0 or b.q[first] % g[first]:
            continue
        a = b.q[first] // g[first]
        if any(b.q.get(m) != a * c for m, c in g.items()):
            continue
        rest = add(b.q, mul(g, const(a)), -1)
        if any(not A.nonpositive(m, -c) for m, c in rest.items()):
            continue
        c = add(b.u, const(1))
        if best is None or _val(A, (c, a), sample) < _val(A, best[:2], sample):
            best = (c, a, f"`{b.text}`" + (f" (line {b.line})" if b.line else ""))
    return best


def thread_dims(ks: KernelShapes) -> set[str]:
    """The threadIdx dimensions the kernel uses anywhere."""
    src, k = ks.facts.src, ks.facts.kernel
    text = src.node_text(k.body) if k.body is not None else ""
    return {d for d in DIMS if f"threadIdx.{d}" in text.replace(" ", "")}


def rows_loop_step(ks: KernelShapes, axis: Axis) -> tuple[str, int] | None:
    """(j, S) where the writes' index adds a loop counter j to the thread index of a fixed-block axis
    (`y = blockIdx.y * TILE + threadIdx.y; for (j = 0; j < TILE; j += ROWS) out[(y + j) * w + x]`): the block
    of such a TILE x ROWS loop is ROWS along that thread dimension, each thread taking TILE / ROWS rows."""
    if not axis.fixed_block or not axis.thread:
        return None
    f = ks.facts
    src, k = f.src, f.kernel
    tid = f"threadIdx.{axis.thread}"
    writes = [u for p in ks.pointers.values() if p.role != "input" for u in p.uses if u.write and u.index is not None]
    for lp in k.loops:
        if not lp.var:
            continue
        upd, cond, init = (lp.node.child_by_field_name(x) for x in ("update", "condition", "initializer"))
        if upd is None or cond is None or init is None or upd.type != "assignment_expression" \
                or src.node_text(upd.child_by_field_name("operator")) != "+=" \
                or src.node_text(upd.child_by_field_name("left")).strip() != lp.var \
                or not re.search(r"=\s*0\s*;?$", src.node_text(init).strip()):
            continue
        while cond is not None and cond.type != "binary_expression" and cond.named_children:
            cond = cond.named_children[0]  # the condition clause's parentheses
        if cond is None or cond.type != "binary_expression" or src.node_text(cond.child_by_field_name("operator")) != "<" \
                or src.node_text(cond.child_by_field_name("left")).strip() != lp.var:
            continue
        step, end = src.eval_int(upd.child_by_field_name("right")), src.eval_int(cond.child_by_field_name("right"))
        if not step or end != axis.fixed_block or step >= end or end % step:
            continue
        for u in writes:
            ct, cj = _coef(u.index, tid), _coef(u.index, lp.var)
            if ct and ct == cj:
                return lp.var, step
    return None


def shared_block(ks: KernelShapes) -> tuple[int, ...] | None:
    """The block a shared array indexed by the thread indices implies: `__shared__ float s[256]; s[threadIdx.x]`
    gives (256,), `tile[TY][TX]` read at [threadIdx.y][threadIdx.x] gives (TX, TY)."""
    f = ks.facts
    src, k = f.src, f.kernel
    if k.body is None:
        return None
    arrays = {}
    for d in walk(k.body):
        if d.type == "declaration" and "__shared__" in src.node_text(d).split("[")[0]:
            for dec in d.children_by_field_name("declarator"):
                sizes, n = [], dec
                while n is not None and n.type == "array_declarator":
                    sizes.insert(0, src.eval_int(n.child_by_field_name("size")))
                    n = n.child_by_field_name("declarator")
                if n is not None and n.type == "identifier" and sizes and all(sizes):
                    arrays[src.node_text(n)] = sizes
    for n in walk(k.body):
        if n.type != "subscript_expression":
            continue
        idx, cur = [], n
        while cur is not None and cur.type == "subscript_expression":
            i = cur.child_by_field_name("indices")
            idx.insert(0, i.named_children[0] if i is not None and i.named_children else None)
            cur = cur.child_by_field_name("argument")
        if cur is None or cur.type != "identifier" or src.node_text(cur) not in arrays:
            continue
        sizes = arrays[src.node_text(cur)]
        if len(sizes) != len(idx) or any(i is None for i in idx):
            continue
        polys = [f.poly(i) for i in idx]
        want = [atom(f"threadIdx.{d}") for d in DIMS[:len(idx)]][::-1]
        if polys == want and all(s <= 1024 for s in sizes):
            block = tuple(reversed(sizes))
            if math.prod(block) <= 1024:
                return _fits(f, src, k, src.node_text(cur), block)
    return _block_through_helper(src, k, {a: s[0] for a, s in arrays.items() if len(s) == 1 and s[0] <= 1024})


def _block_through_helper(src, k, arrays: dict) -> tuple[int, ...] | None:
    """(N,) where the kernel passes a `__shared__ T s[N]` to a `__device__` helper that indexes that parameter at
    the thread's index (`__device__ float block_sum(float* smem, float v) { unsigned tid = threadIdx.x; smem[tid] =
    v; ..}`: a tree over the block, one element a thread); None otherwise."""
    if not arrays:
        return None
    helpers = {}
    for fn in walk(src.root):
        d = fn.child_by_field_name("declarator") if fn.type == "function_definition" else None
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
        if d is not None and d.type == "function_declarator" and "__device__" in src.node_text(fn).split("(")[0]:
            helpers[src.node_text(d.child_by_field_name("declarator"))] = (fn, d.child_by_field_name("parameters"))
    for call in walk(k.body):
        if call.type != "call_expression" or src.node_text(call.child_by_field_name("function")) not in helpers:
            continue
        fn, params = helpers[src.node_text(call.child_by_field_name("function"))]
        names = []
        for p in params.named_children:
            n = p.child_by_field_name("declarator")
            while n is not None and n.type in ("pointer_declarator", "array_declarator"):
                n = n.child_by_field_name("declarator")
            names.append(src.node_text(n) if n is not None else None)
        args = call.child_by_field_name("arguments").named_children
        for a, name in zip(args, names):
            size = arrays.get(src.node_text(a))
            if size is None or name is None:
                continue
            tids = {"threadIdx.x"} | {src.node_text(x.child_by_field_name("declarator")) for x in walk(fn)
                                      if x.type == "init_declarator" and x.child_by_field_name("value") is not None
                                      and "".join(src.node_text(x.child_by_field_name("value")).split()) == "threadIdx.x"}
            subs = [n for n in walk(fn) if n.type == "subscript_expression"
                    and src.node_text(n.child_by_field_name("argument")) == name]
            if any("blockDim" in src.node_text(n.child_by_field_name("indices")) for n in subs):
                continue  # (`s[t + blockDim.x]`: more than one element a thread)
            for n in subs:
                i = n.child_by_field_name("indices")
                i = i.named_children[0] if i is not None and i.named_children else None
                if i is not None and "".join(src.node_text(i).split()) in tids and not _under_thread_test(src, n, fn, tids):
                    return (size,)
    return None


def _under_thread_test(src, n, fn, tids: set) -> bool:
    """n runs only under an `if` whose condition reads the thread's index (`if (tid < blockDim.x / 32)`)."""
    p = n.parent
    while p is not None and p != fn:
        if p.type == "if_statement" and any(x.type in ("identifier", "field_expression") and
                                            "".join(src.node_text(x).split()) in tids
                                            for x in walk(p.child_by_field_name("condition"))):
            return True
        p = p.parent
    return False


def _fits(f, src, k, array: str, block: tuple) -> tuple:
    """A 1-D block no larger than the array's other subscripts allow: `s[threadIdx.x + blockDim.x]` in an array of
    1024 (PMPP's Brent-Kung section of two elements per thread) gives 512 threads."""
    if len(block) != 1:
        return block
    size, best = block[0], block[0]
    for n in walk(k.body):
        if n.type != "subscript_expression" or src.node_text(n.child_by_field_name("argument")) != array:
            continue
        i = n.child_by_field_name("indices")
        p = f.poly(i.named_children[0]) if i is not None and i.named_children else None
        if not p or p.get(("threadIdx.x",)) != 1 or any(m not in ((), ("threadIdx.x",), ("blockDim.x",)) for m in p):
            continue
        c, d = p.get(("blockDim.x",), 0), p.get((), 0)
        if c > 0 and d >= 0:  # the thread's element plus c blocks (and d): below the array's size (a constant
            # offset alone, `s[tid + 128]` under `if (tid < 128)`, is a tree's step, not the block's size)
            b = (size - d) // (c + 1)
            best = min(best, b - b % 32 if b >= 32 else b)
        elif c == 0 and d > 0 and not _thread_guarded(f, src, k, n):  # `temp[thid + THREADS]` with no test of the
            # thread around it (Blelloch's second element): every thread of the block writes there
            best = min(best, size - d)
    return (best,) if best > 0 else block


def _thread_guarded(f, src, k, n) -> bool:
    """Whether n runs under a condition or in a loop that reads the thread's index (a tree's `if (tid < s)`)."""
    up = n.parent
    while up is not None and up != k.body:
        if up.type in ("if_statement", "conditional_expression", "for_statement", "while_statement", "do_statement"):
            cond = up.child_by_field_name("condition")
            if cond is not None and any(x.type in ("identifier", "field_expression") and f.poly(x) is not None
                                        and depends(f.poly(x), "threadIdx.x") for x in walk(cond)):
                return True
        up = up.parent
    return False


def row_width(ks: KernelShapes, g: Poly, sample: dict | None = None) -> tuple[Poly, Use] | None:
    """For a coordinate nothing bounds (`col = blockIdx.x`), the row it moves within: another index term's
    stride is its stride times S (`dout[col + r * OC]`), so col < S (a guess: row-major data). The smallest
    such S over the accesses."""
    A = ks.facts.atoms
    g_atoms = {a for mono in g for a in mono if A.is_var(a)}
    lead = next(a for a in sorted(g_atoms) if a.startswith(("threadIdx", "blockIdx")))
    lead = next((a for a in g_atoms if a.startswith("threadIdx")), lead)
    best = None
    for p in ks.pointers.values():
        for u in p.uses:
            if u.index is None:
                continue
            c = _coef(u.index, lead)
            if not c or len(c) != 1:
                continue
            (mc, cc), = c.items()
            if cc <= 0 or any(A.is_var(a) for a in mc):
                continue
            for m, k in u.index.items():
                if not any(A.is_var(a) for a in m) or set(m) & g_atoms:
                    continue
                size = _divides(mc, tuple(a for a in m if not A.is_var(a)))
                if size and all(a.isidentifier() for a in size) and k % cc == 0 and k > 0:
                    cand = {size: k // cc}
                    v = A.eval(cand, sample or sample_env(A, [cand]))
                    if best is None or (v is not None and v < best[0]):
                        best = (v if v is not None else math.inf, cand, u)
    return (best[1], best[2]) if best else None


def dynamic_shared(ks: KernelShapes) -> tuple[int, Poly | None, str, bool] | None:
    """An `extern __shared__ T s[]` the kernel indexes: (bytes of T, elements its indices reach under the guards and
    the block (None: none bounded), the access, whether every index was bounded), for the launch's dynamic shared
    memory when no launch gives it."""
    f = ks.facts
    src, k = f.src, f.kernel
    found = re.search(r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?([\w:]+)\s+(\w+)\s*\[\s*\]", src.text)
    if not found or k.body is None:
        return None
    elem, name = found.group(1), found.group(2)
    size = f.types.bytes(elem) or 4
    end, text, complete = None, "", True
    views, moved = {name: const(0)}, set()  # the array and the pointers cut from it: `float* Bs = smem + T * T;`
    for d in walk(k.body):
        if d.type != "init_declarator":
            continue
        decl, v = d.child_by_field_name("declarator"), d.child_by_field_name("value")
        while decl is not None and decl.type == "pointer_declarator":
            decl = decl.child_by_field_name("declarator")
        if decl is None or decl.type != "identifier" or v is None:
            continue
        vt = re.sub(r"\s+", "", src.node_text(v))
        if vt == name:
            views[src.node_text(decl)] = const(0)
        elif v.type == "binary_expression" and src.node_text(v.child_by_field_name("operator")) == "+" \
                and src.node_text(v.child_by_field_name("left")).strip() == name:
            off = f.poly(v.child_by_field_name("right"))
            if off is not None:
                views[src.node_text(decl)] = off
    for n in walk(k.body):  # a view moved later (`As += T;`) is not followed: its accesses count as unbounded
        target = n.child_by_field_name("left") if n.type == "assignment_expression" else \
            n.child_by_field_name("argument") if n.type == "update_expression" else None
        if target is not None and src.node_text(target).strip() in views and src.node_text(target).strip() != name:
            moved.add(src.node_text(target).strip())
    few = None
    for n in walk(k.body):
        if n.type != "subscript_expression":
            continue
        parts = subscript_parts(src, n)
        if parts is None or parts[0] not in views:
            continue
        if parts[0] in moved:
            text, complete = text or f.text(n), False
            continue
        p = f.poly(parts[1])
        # `temp[pout * blockDim.x + tid]` with pout in {0, 1} (a double buffer): each value's reach
        ps = [p] if p is not None else poly_cases(f.env, parts[1], few if few is not None else
                                                  (few := finite_values(src, k))) or [None]
        bounds = f.guards(n) + ks.block_bounds
        bounds = bounds + f.derived(bounds)
        for p in ps:
            p = add(p, views[parts[0]]) if p is not None else None
            r = reach(p, bounds, f.atoms, sample_env(f.atoms, [p] + [b.u for b in bounds])) if p is not None else None
            if r is None:
                text, complete = text or f.text(n), False  # an index not followed: the others still give a lower bound
                continue
            v = f.atoms.eval(r.end, sample_env(f.atoms, [r.end]))
            if end is None or (v is not None and v > end[0]):
                end, text = (v if v is not None else 0, r.end), f.text(n)
    return size, (end[1] if end is not None else None), text, complete
