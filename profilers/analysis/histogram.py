"""Histograms: `atomicAdd(&bins[f(x[i])], w)` straight into global memory, each thread at its own bin.

`histogram(src, k)` reads a kernel whose atomics are all atomicAdd at one pointer parameter (the bins), at an
index a thread's data picks (atomics.py's `uniform_address` says no), whose old value is unused, and whose bins
nothing else in the kernel reads or writes. The bin count bounds the index from above: a byte (`bins[buf[i]]`,
a `uchar4`'s field), `& 0xFF`, `% nbins`, `min(b, 255)`, a float scaled by the count (`(int)(v * NBINS)`), a
guard (`if (b < 26)`), a shift or division of one of these, a bounded value times a size and a sum of bounded
values (a joint histogram's `fixedBin * nbins + movingBin`), the largest of a local's assigned values (the
clamps `if (b > N - 1) b = N - 1;`, and a negative remainder wrapped by `if (b < 0) b += N;`). The count is C text over literals, constants and the kernel's
parameters (`nbins`); a count that nothing bounds is a `Refusal` with its reason, as are other updates
(atomicExch, an atomicCAS loop) and bins read in the kernel.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..source import Kernel, SourceFile, walk
from .affine import build_env, subscript_parts
from .extents import with_defines
from .loops import unparen
from .atomics import atomic_calls, uniform_address
from .refusal import Refusal
from .types import table_for

BYTE_TYPES = {"unsigned char", "uchar", "uint8_t", "char", "signed char", "int8_t", "uchar2", "uchar3", "uchar4",
              "char2", "char3", "char4", "bool"}
SHORT_TYPES = {"unsigned short", "ushort", "uint16_t", "short", "int16_t", "ushort2", "ushort4"}
ADD_TYPES = {"int", "unsigned int", "unsigned", "uint", "uint32_t", "int32_t", "unsigned long long",
             "unsigned long long int", "float", "double"}
TO_INT = {"__float2int_rd", "__float2int_rz", "__float2int_rn", "__float2uint_rd", "__float2uint_rz",
          "__float2uint_rn", "floorf", "floor", "truncf", "trunc"}
MINS, MAXS = {"min", "umin", "::min", "std::min", "imin"}, {"max", "umax", "::max", "std::max", "imax"}


@dataclass
class Histogram:
    kernel: str
    bins: str  # the bins' pointer parameter
    elem: str  # its element type
    calls: list = field(repr=False)  # the atomicAdd call nodes
    indices: list = field(repr=False)  # each call's bin index node
    count: str  # the bin count: C over literals and the kernel's parameters (an exclusive bound on the index)
    count_value: int | None  # the count where it is a constant
    grid_stride: bool  # the threads loop over the grid (gridDim only in `i += ...` steps)
    block_dims: int  # the thread dimensions the kernel uses (1 to 3)
    grid_dims: int  # the block dimensions it uses


@dataclass(frozen=True)
class Count:
    text: str
    value: int | None = None


def _lit(v: int) -> Count:
    return Count(str(v), v)


def _max(a: Count, b: Count) -> Count:
    if a.value is not None and b.value is not None:
        return _lit(max(a.value, b.value))
    return Count(f"max({a.text}, {b.text})")


def _min(a: Count | None, b: Count | None) -> Count | None:
    if a is None or b is None:
        return a or b
    if a.value is not None and b.value is not None:
        return _lit(min(a.value, b.value))
    return Count(f"min({a.text}, {b.text})")


def _plus(a: Count, c: int) -> Count:
    return _lit(a.value + c) if a.value is not None else Count(f"({a.text}) + {c}")


def _times(a: Count, s: Count) -> Count:
    """A bound on x * s for x below a and s a size (x * s <= (a - 1) * s)."""
    if a.value is not None and s.value is not None:
        return _lit((a.value - 1) * s.value + 1)
    return Count(f"(({a.text}) - 1) * ({s.text}) + 1")


def _sum(a: Count, b: Count) -> Count:
    """A bound on x + y for x below a and y below b."""
    if a.value is not None and b.value is not None:
        return _lit(a.value + b.value - 1)
    return Count(f"({a.text}) + ({b.text}) - 1")


def _cdiv(a: Count, c: int) -> Count:
    return _lit(-(-a.value // c)) if a.value is not None else Count(f"(({a.text}) + {c - 1}) / {c}")


def _unparen(n):
    while n is not None and n.type == "parenthesized_expression" and n.named_children:
        n = n.named_children[0]
    return n


class _Bounds:
    """Exclusive upper bounds of integer expressions at one call (module docstring)."""

    def __init__(self, src: SourceFile, k: Kernel):
        self.src, self.k = src, k
        self.decls, self.values = {}, {}  # local -> declared type text; local -> value nodes (None: not followed)
        for n in walk(k.body):
            if n.type == "declaration":
                t = " ".join(src.node_text(n.child_by_field_name("type")).split())
                for d in n.children_by_field_name("declarator"):
                    name, val = self._declarator(d)
                    if name:
                        self.decls[name] = t
                        self.values.setdefault(name, []).append(val)
            elif n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left is not None and left.type == "identifier":
                    op = src.node_text(n.child_by_field_name("operator"))
                    wrap = op == "+=" and self._below_zero(n, src.node_text(left))
                    self.values.setdefault(src.node_text(left), []).append(
                        n.child_by_field_name("right") if op == "=" else ("below", n.child_by_field_name("right"))
                        if wrap else None)
            elif n.type == "update_expression":
                arg = n.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    self.values.setdefault(src.node_text(arg), []).append(None)

    def _below_zero(self, n, name: str) -> bool:
        """`if (name < 0) name += E;`: a negative remainder wrapped into [0, E), so the new value is below E."""
        st = n.parent
        up = st.parent if st is not None and st.type == "expression_statement" else None
        if up is not None and up.type == "compound_statement" and len(up.named_children) == 1:
            up = up.parent
        if up is None or up.type != "if_statement" or up.child_by_field_name("alternative") is not None:
            return False
        c = unparen(up.child_by_field_name("condition"))
        return c is not None and " ".join(self.src.node_text(c).split()) in (f"{name} < 0", f"0 > {name}")

    def _declarator(self, d):
        val = d.child_by_field_name("value") if d.type == "init_declarator" else None
        while d is not None and d.type != "identifier":
            d = d.child_by_field_name("declarator")
        return (self.src.node_text(d) if d is not None else None), val

    def _size(self, n) -> Count | None:
        """The value of a literal, a constant or a scalar parameter (not a bound)."""
        n = _unparen(n)
        v = self.src.eval_int(n)
        if v is not None:
            return _lit(v)
        if n is not None and n.type == "cast_expression":  # `(float)nbins`: the count compared as another type
            return self._size(n.child_by_field_name("value"))
        if n is not None and n.type == "identifier":
            p = self.k.param(self.src.node_text(n))
            if p is not None and not p.is_pointer:
                return Count(p.name)
        if n is not None and n.type == "binary_expression" and self.src.node_text(n.child_by_field_name("operator")) == "*":
            a, b = self._size(n.child_by_field_name("left")), self._size(n.child_by_field_name("right"))
            if a is not None and b is not None:  # `histo_width * histo_height`: a product of sizes
                return _lit(a.value * b.value) if a.value is not None and b.value is not None else \
                    Count(f"({a.text}) * ({b.text})")
        return None

    def _type_of(self, n) -> str | None:
        n = _unparen(n)
        if n.type == "identifier":
            name = self.src.node_text(n)
            p = self.k.param(name)
            return p.base_type if p is not None and not p.is_pointer else self.decls.get(name)
        if n.type == "subscript_expression":
            parts = subscript_parts(self.src, n)
            p = self.k.param(parts[0]) if parts else None
            return p.base_type if p is not None and p.is_pointer else None
        return None

    def _clean(self, t: str | None) -> str:
        return " ".join(w for w in (t or "").split() if w not in ("const", "volatile", "__restrict__", "*"))

    def bound(self, n, at, depth: int = 0) -> Count | None:
        src = self.src
        n = _unparen(n)
        if n is None or depth > 12:
            return None
        t = n.type
        v = src.eval_int(n)
        if v is not None:  # a constant: its value
            return _lit(v + 1)
        if t == "char_literal":
            s = src.node_text(n)
            return _lit(ord(s[1]) + 1) if len(s) == 3 else None
        if t == "identifier":
            return self._name(src.node_text(n), at, depth)
        if t == "cast_expression":
            ty = self._clean(src.node_text(n.child_by_field_name("type")))
            if ty in BYTE_TYPES:
                return _lit(256)
            return self._scaled(n.child_by_field_name("value"), at, depth)
        if t in ("subscript_expression", "field_expression"):
            ty = self._clean(self._type_of(n.child_by_field_name("argument") if t == "field_expression" else n))
            return _lit(256) if ty in BYTE_TYPES else _lit(65536) if ty in SHORT_TYPES else None
        if t == "call_expression":
            fn = src.node_text(n.child_by_field_name("function"))
            args = n.child_by_field_name("arguments").named_children
            if fn in MINS and len(args) == 2:
                a, b = self.bound(args[0], at, depth + 1), self.bound(args[1], at, depth + 1)
                return _min(a, b)
            if fn in MAXS and len(args) == 2:
                a, b = self.bound(args[0], at, depth + 1), self.bound(args[1], at, depth + 1)
                return _max(a, b) if a and b else None
            if fn in TO_INT and len(args) == 1:
                return self._scaled(args[0], at, depth)
            return None
        if t == "conditional_expression":
            cond = n.child_by_field_name("condition")
            a = self.bound(n.child_by_field_name("consequence"), at, depth + 1) or \
                self._branch(cond, n.child_by_field_name("consequence"), False)
            b = self.bound(n.child_by_field_name("alternative"), at, depth + 1) or \
                self._branch(cond, n.child_by_field_name("alternative"), True)
            return _max(a, b) if a and b else None
        if t == "binary_expression":
            op = src.node_text(n.child_by_field_name("operator"))
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            r = src.eval_int(_unparen(right))
            if op == "&":
                l = src.eval_int(_unparen(left))
                c = r if r is not None else l
                if c is not None and c >= 0:
                    other = self.bound(left if r is not None else right, at, depth + 1)
                    return _min(_lit(c + 1), other)
                return None
            if op == "%":
                return self._size(right)
            if op in ("/", ">>") and r is not None and r > 0:
                a = self.bound(left, at, depth + 1)
                return _cdiv(a, r if op == "/" else 1 << r) if a else None
            if op == "+" and r is not None and r >= 0:
                a = self.bound(left, at, depth + 1)
                return _plus(a, r) if a else None
            l = src.eval_int(_unparen(left))
            if op == "+" and l is not None and l >= 0:  # `2 * NBINS + p.z`: the constant first
                a = self.bound(right, at, depth + 1)
                return _plus(a, l) if a else None
            if op == "*":  # `fixedBin * nbins`: a bounded value times a size
                for a_node, s_node in ((left, right), (right, left)):
                    size = self._size(s_node)
                    a = self.bound(a_node, at, depth + 1) if size is not None else None
                    if a is not None:
                        return _times(a, size)
            if op == "+":  # `fixedBin * nbins + movingBin`, `(z * ny + y) * nx + x`: two bounded values
                a, b = self.bound(left, at, depth + 1), self.bound(right, at, depth + 1)
                if a is not None and b is not None:
                    return _sum(a, b)
            if op == "-" and r is not None and r >= 0:
                a = self.bound(left, at, depth + 1)
                if a is None and r >= 1:  # `nbins - 1` (a clamp's top): below the count itself
                    return self._size(left)
                return (_lit(max(1, a.value - r)) if a.value is not None else a) if a else None
        return None

    def _branch(self, cond, branch, negate: bool) -> Count | None:
        """A bound on a branch of `c ? x : y` that is the compared value itself (through casts) where the branch runs
        only below a size: `f >= nbins ? nbins - 1 : (int)f` (y under f < nbins, so (int)f < nbins)."""
        v = _unparen(branch)
        while v is not None and v.type == "cast_expression":
            v = _unparen(v.child_by_field_name("value"))
        return self._compare(cond, self.src.node_text(v), negate) if v is not None else None

    def _scaled(self, n, at, depth) -> Count | None:
        """A float scaled by the bin count and made an integer: `(int)(v * nbins)`, `(int)((v - lo) / w * N)`."""
        n = _unparen(n)
        if n is not None and n.type == "binary_expression" and self.src.node_text(n.child_by_field_name("operator")) == "*":
            for side in (n.child_by_field_name("right"), n.child_by_field_name("left")):
                c = self._size(side)
                if c is not None:
                    return c
        if n is not None and n.type == "identifier":
            vals = self.values.get(self.src.node_text(n))
            if vals and len(vals) == 1 and vals[0] is not None:
                got = self._scaled(vals[0], at, depth + 1)
                if got is not None:
                    return got
        return self.bound(n, at, depth + 1)

    def _name(self, name: str, at, depth) -> Count | None:
        g = self._guard(name, at)
        if self.k.param(name) is not None:
            return g
        c = self.src.constants.get(name)
        if c is not None and name not in self.values:
            return _min(_lit(c + 1), g)
        ty = self._clean(self.decls.get(name))
        own = _lit(256) if ty in BYTE_TYPES else None
        vals = self.values.get(name)
        if own is None and vals and all(v is not None for v in vals):
            bs = [self._size(v[1]) if isinstance(v, tuple) else self.bound(v, at, depth + 1) for v in vals]
            if all(bs):
                own = bs[0]
                for b in bs[1:]:
                    own = _max(own, b)
        return _min(own, g)

    def _guard(self, name: str, at) -> Count | None:
        """A bound on `name` from the conditions that hold at `at`: an enclosing `if (name < e && ...)`, or an
        earlier `if (name >= e || ...) return;`."""
        src, best = self.src, None
        n = at
        while n is not None and n != self.k.body:
            p = n.parent
            if p is not None and p.type == "if_statement" and p.child_by_field_name("consequence") == n:
                for c in _conjuncts(p.child_by_field_name("condition"), "&&"):
                    best = _min(best, self._compare(c, name, False))
            if p is not None and p.type == "compound_statement":
                for s in p.named_children:
                    if s.start_byte >= n.start_byte:
                        break
                    if s.type == "if_statement" and s.child_by_field_name("alternative") is None and \
                            _leaves(s.child_by_field_name("consequence")):
                        for c in _conjuncts(s.child_by_field_name("condition"), "||"):
                            best = _min(best, self._compare(c, name, True))
            n = p
        return best

    def _compare(self, c, name: str, negate: bool) -> Count | None:
        c = _unparen(c)
        if c is None or c.type != "binary_expression":
            return None
        op = self.src.node_text(c.child_by_field_name("operator"))
        left, right = _unparen(c.child_by_field_name("left")), _unparen(c.child_by_field_name("right"))
        flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        if right is not None and self.src.node_text(right) == name and op in flip:  # (a name, or any value's text)
            left, right, op = right, left, flip[op]
        if left is None or self.src.node_text(left) != name:
            return None
        if negate:
            op = {">=": "<", ">": "<="}.get(op)
        size = self._size(right)
        if size is None or op not in ("<", "<="):
            return None
        return size if op == "<" else _plus(size, 1)


def _conjuncts(n, op: str) -> list:
    n = _unparen(n)
    if n is not None and n.type == "condition_clause":
        n = _unparen(n.named_children[-1]) if n.named_children else None
    if n is not None and n.type == "binary_expression" and n.child_by_field_name("operator").type == op:
        return _conjuncts(n.child_by_field_name("left"), op) + _conjuncts(n.child_by_field_name("right"), op)
    return [n] if n is not None else []


def _leaves(n) -> bool:
    if n is None:
        return False
    if n.type == "return_statement":
        return True
    return n.type == "compound_statement" and len(n.named_children) == 1 and n.named_children[0].type == "return_statement"


def _address(src: SourceFile, arg) -> tuple[str | None, object]:
    """(pointer, index node) of `&p[e]`, `&(p[e])`, `p + e`; (None, None) otherwise."""
    arg = _unparen(arg)
    if arg.type == "pointer_expression" and src.node_text(arg).startswith("&"):
        sub = _unparen(arg.child_by_field_name("argument"))
        parts = subscript_parts(src, sub) if sub is not None and sub.type == "subscript_expression" else None
        return parts if parts is not None else (None, None)
    if arg.type == "binary_expression" and src.node_text(arg.child_by_field_name("operator")) == "+":
        left = _unparen(arg.child_by_field_name("left"))
        if left.type == "identifier":
            return src.node_text(left), arg.child_by_field_name("right")
    return None, None


def _grid_stride(src: SourceFile, k: Kernel) -> bool:
    """gridDim appears only in the steps of loops over the grid: `i += blockDim.x * gridDim.x`, a for loop's
    update, or a local stride used only in `+=` steps."""
    uses = [n for n in walk(k.body) if n.type == "field_expression" and src.node_text(n).startswith("gridDim")]
    if not uses:
        return False
    strides = set()

    def in_step(n) -> bool:
        while n is not None and n != k.body:
            p = n.parent
            if p is not None and p.type == "assignment_expression" and src.node_text(p.child_by_field_name("operator")) == "+=" \
                    and p.child_by_field_name("right") == n:
                return True
            if p is not None and p.type == "for_statement" and p.child_by_field_name("update") == n:
                return True
            if p is not None and p.type == "init_declarator" and p.child_by_field_name("value") == n:
                d = p.child_by_field_name("declarator")
                strides.add(src.node_text(d))
                return True
            n = p
        return False
    if not all(in_step(u) for u in uses):
        return False
    for n in walk(k.body):
        if n.type == "identifier" and src.node_text(n) in strides and not (
                n.parent is not None and n.parent.type == "init_declarator") and not in_step(n):
            return False
    return "gridDim.y" not in src.node_text(k.body) and "gridDim.z" not in src.node_text(k.body)


def histogram(src: SourceFile, k: Kernel) -> Histogram | Refusal:
    if k.body is None:
        return Refusal(k.name, "no body")
    calls = atomic_calls(src, k)
    if not calls:
        return Refusal(k.name, "no atomics", not_this_shape=True)
    if "__shared__" in src.node_text(k.body):
        return Refusal(k.name, "the kernel has its own shared memory (private bins already, or other staging)")
    env = build_env(src, k)
    arrays, pairs = set(), []
    for fn, n in calls:
        args = n.child_by_field_name("arguments").named_children
        if not args:
            return Refusal(k.name, f"line {n.start_point[0] + 1}: {fn} without arguments")
        uniform, _ = uniform_address(src, env, args[0])
        array = _address(src, args[0])[0]
        if uniform:
            return Refusal(k.name, "an atomic at an address no thread index moves (one combined value per block, "
                                   "not bins)", not_this_shape=True)
        arrays.add(array)
        pairs.append((fn, n, args))
    line = lambda n: n.start_point[0] + 1  # noqa: E731
    for fn, n, args in pairs:
        if fn == "atomicCAS":
            return Refusal(k.name, f"line {line(n)}: an atomicCAS (a compare-and-swap loop's update is not one "
                                   "commutative add that private bins could hold)")
        if fn != "atomicAdd":
            return Refusal(k.name, f"line {line(n)}: {fn} is not a commutative add (private bins combine only "
                                   "atomicAdd)")
        if n.parent is None or n.parent.type != "expression_statement":
            return Refusal(k.name, f"line {line(n)}: the atomic's old value is used")
        if len(args) != 2:
            return Refusal(k.name, f"line {line(n)}: {fn} with {len(args)} arguments")
    if len(arrays) != 1 or None in arrays:
        return Refusal(k.name, "atomics at more than one array, or at an address that is not a pointer parameter")
    bins = next(iter(arrays))
    p = k.param(bins)
    elem = " ".join(w for w in p.base_type.split() if w not in ("const", "volatile"))
    sc = table_for(src).scalar(elem)  # through typedefs (`typedef unsigned int u32;`)
    if elem not in ADD_TYPES and (sc is None or sc.name not in ("int32", "uint32", "uint64", "float", "double")):
        return Refusal(k.name, f"bins of type {elem} (shared-memory atomicAdd takes int, unsigned, unsigned long "
                               "long, float and double)")
    indices = []
    for _, n, args in pairs:
        a, idx = _address(src, args[0])
        if a != bins:
            return Refusal(k.name, f"line {line(n)}: the address {src.node_text(args[0])} is not `&{bins}[bin]` or "
                                   f"`{bins} + bin`")
        indices.append(idx)
    inside = {x.start_byte for _, n, args in pairs for x in walk(args[0])}
    for x in walk(k.body):
        if x.type == "identifier" and src.node_text(x) == bins and x.start_byte not in inside:
            return Refusal(k.name, f"line {line(x)}: the bins ({bins}) are read or written in the kernel besides "
                                   "the atomics (private bins would hide the partial counts)")
    b = _Bounds(with_defines(src, k), k)
    count = None
    for (_, n, _), idx in zip(pairs, indices):
        c = b.bound(idx, n)
        if c is None:
            return Refusal(k.name, f"line {line(n)}: nothing bounds the bin index {src.node_text(idx)} (no byte, "
                                   "`& mask`, `% count`, `min`, guard or scaled float with a count from the kernel's "
                                   "parameters or constants): the bin count, and so the private copy's size, is "
                                   "not known")
        count = c if count is None else _max(count, c)
    body = src.node_text(k.body)
    dims = lambda w: 3 if f"{w}.z" in body else 2 if f"{w}.y" in body else 1  # noqa: E731
    return Histogram(k.name, bins, elem, [n for _, n, _ in pairs], indices, count.text, count.value,
                     _grid_stride(src, k), dims("threadIdx"), max(dims("blockIdx"), dims("gridDim")))
