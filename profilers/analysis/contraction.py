"""Matrix products in any spelling: a loop over k whose body accumulates products of an operand
indexed by (output row, k) and one indexed by (k, output column).

`contractions(src, k)` finds every such loop of a kernel. The thread's coordinates (locals
computed from threadIdx/blockIdx, quotients of them, loop variables around the k loop) stay
atoms of the index polynomials (affine.py), so each access reads as `base + row*s_r + k*s_k`
whatever the spelling: indices written out, pointers to rows (`const float* x = inp + bt*C`),
transposed layouts (`b[j*K + k]`), a batch index shared by both operands and the output. The
update may be `acc += a*b`, `acc = fmaf(a, b, acc)`, `c[i*N+j] += alpha*a*b`, a sum of several
products, or go through locals (`float x = a[..]; acc += x * w;`). What the loop is not
(a dependence besides the sum, an output that is an operand, an operand written in the loop,
`acc = acc*x + y`) is a `Refusal` with its reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..source import Kernel, SourceFile, walk
from .affine import (Access, Poly, add, atom, atoms, mul, build_env, coefficient, global_accesses, index_poly, poly_text,
                     recording, text_poly, without)
from .loops import analyze_loop, inside, text, unparen, uses, writes_in
from .types import table_for

BUILTIN = ("threadIdx", "blockIdx")
CONVERT = ("__half2float", "__bfloat162float", "float", "double", "static_cast<float>", "static_cast<double>",
           "__ldg", "__low2float", "__high2float")
FMA = ("fmaf", "fma", "__fmaf_rn", "__fma_rn", "__hfma")


@dataclass
class Operand:
    array: str  # the pointer parameter
    elem: str  # its element type as declared ("const float" -> "float")
    index: Poly = field(repr=False)  # over coordinates, k and parameters
    offset: str  # the index with every coordinate and k at 0 (C text)
    k_stride: str  # elements between k and k + 1
    strides: dict  # coordinate -> elements between it and it + 1 (C text)
    nodes: list = field(repr=False, default_factory=list)  # the value nodes (casts included) in the update
    # a value subtracted from each element, fixed along k (`(x[k*m + j1] - mean[j1])`, a centered operand): C text
    # over the operand's own coordinate and the parameters; None for the element as it is
    shift: str | None = None
    # a weight along k multiplying each element (`occ[i] * C[mu + i*ldc] * C[nu + i*ldc]`, C·diag(w)·Cᵀ): C text over
    # kp_k (the element's k) and the parameters; None for none
    scale: str | None = None
    scale_node: object = field(repr=False, default=None)  # the weight's read in the update (the replay puts 1 there)

    @property
    def contiguous(self) -> str | None:
        """'k' or the coordinate with stride 1, None when no dimension is contiguous."""
        if self.k_stride == "1":
            return "k"
        return next((c for c, s in self.strides.items() if s == "1"), None)


@dataclass
class Axis:
    atoms: tuple  # the coordinate atoms that make it (one named local in most kernels)
    extent: str | None  # its bound as C text (a guard `row < M`, a loop bound), None unknown
    thread: str | None  # "x", "y", "z" (the thread index it comes from), "loop", "digits" (see Digits)
    digits: Digits | None = None  # for a batch of the flat index's higher digits: the count is `extent`
    parts: dict | None = None  # for a batch of block positions ("blocks"): atom -> its count (None unknown)


def parts_count(parts: dict) -> str | None:
    """A batch of block positions' count: the product of its parts' counts, None while one is unknown."""
    return None if None in parts.values() else " * ".join(f"({e})" for e in parts.values())


@dataclass
class Digits:
    """A batch whose coordinates are digits of one flat index that the row (and column) split too (`t2 = idx % T, t = (idx / T) % T, h = (idx / (T*T)) % NH, b = idx / (NH*T*T)`)."""
    root: str  # the flat index's name
    flat: str  # the flat index of batch kp_b with the row and column 0 (C text over kp_b and parameters)
    row_place: str
    col_place: str | None  # None: the column comes from a loop, not from the index
    # locals the digits' definitions divide by, as their own definitions (`hs` -> `(C / NH)`, _exact_quotients)
    quotients: tuple = ()

    def spelled(self, definition: str) -> str:
        """A digit's definition as the kernel writes it, with those locals written out."""
        for name, value in self.quotients:
            definition = re.sub(rf"\b{name}\b", value, definition)
        return definition


@dataclass
class Contraction:
    kernel: str
    loop: object = field(repr=False)  # the k loop's node
    k: str  # its variable
    k_start: str
    K: str  # the loop's end (C text, exclusive)
    causal: bool  # the k range (its bound or a mask in the loop) depends on the output's coordinates
    bound: Poly = field(repr=False)  # the loop's end (exclusive) over parameters and coordinates
    condition: str | None  # an `if` around the loop comparing the row and column (`t2 <= t`)
    row: Axis
    col: Axis
    batch: Axis | None
    terms: list  # [(A operand, B operand)] summed in the update
    out: Operand  # where the result is stored
    accumulate: str  # "local" (a scalar or a register array), "global" (out[..] += in the loop)
    acc: str  # the accumulator's text (`sum`, `c[i*N+j]`, `acc[m][n]`)
    acc_type: str  # its type (the output's element type for the global kind)
    init: str | None  # the accumulator's starting value as written (`0.0f`, `bias[o]`)
    alpha: str | None  # a factor of every product or of the sum when stored
    beta: str | None  # the factor of the output's old value in the store
    bias: str | None  # a value added to the sum (its start or in the store)
    mask: str | None  # a condition on the update inside the loop
    per_thread: tuple  # (rows, columns) of outputs per thread
    update: object = field(repr=False, default=None)  # the update statement's node
    store: object = field(repr=False, default=None)  # the statement storing the output (local kind)
    coords: dict = field(default_factory=dict)  # coordinate -> its definition as C text
    lines: list = field(default_factory=list)  # the k loop, the update, the store
    assumes: list = field(default_factory=list)  # pointer pairs assumed not to overlap
    # a sum of another function of one A and one B element than their product (`d = x - y; acc += d * d`, squared
    # distances): that function as C text over kp_x (A's element) and kp_y (B's); None for the product. Shared
    # memory tiles apply; tensor cores and the library GEMM, which multiply, do not.
    combine: str | None = None
    # several sums updated in the one k loop and stored at the same output position (a complex product in planar
    # storage: `re += ar*br - ai*bi; im += ar*bi + ai*br;`): each (update node, its first term, one past its last) in
    # `terms`; empty for one sum. The SIMT tiles sum every term and the kernel's code adds them up; what computes
    # one product (tensor cores, the library GEMM) does not apply.
    sums: tuple = ()
    # the store's value is computed from the sum through locals after the loop (a requantisation, `int q =
    # __float2int_rn(alpha * acc); out[..] = (int8_t)q;`): alpha, beta and bias say nothing, the kernel's own code
    # computes the output (the tiles run it as written; the library GEMM, which computes alpha * sum + beta * C, not)
    opaque_store: bool = False

    @property
    def plain(self) -> bool:
        """One sum of products of the elements as stored (no other function of them, no shift, no second sum): what
        tensor cores, the library GEMM and the symmetric tiles compute."""
        return self.combine is None and not self.shifted and not self.sums

    @property
    def shifted(self) -> bool:
        """Some operand is centered or weighted along k (Operand.shift, Operand.scale): the tiles subtract or
        multiply as they load; what multiplies raw elements (tensor cores, the library GEMM) does not apply."""
        return any(o.shift or o.scale for t in self.terms for o in t)

    @property
    def M(self) -> str | None:
        return self.row.extent

    @property
    def N(self) -> str | None:
        return self.col.extent

    @property
    def elem(self) -> str:
        return self.terms[0][0].elem


@dataclass
class Refusal:
    line: int  # the loop's line
    reason: str
    # a loop summing several products (a small tile of outputs in named sums): each (update node, the two
    # operands' arrays, the sum's text), for the rules, which judge the loop's arithmetic, not its outputs
    updates: list = field(default_factory=list)


@dataclass
class Found:
    products: list  # Contraction
    refused: list  # Refusal


def _elem(src: SourceFile, k: Kernel, array: str) -> str:
    """An array parameter's element type, typedefs resolved (`DATA_TYPE` -> `float`)."""
    p = k.param(array)
    t = p.base_type if p is not None else "float"
    t = " ".join(w for w in t.split() if w not in ("const", "volatile", "__restrict__")) or "float"
    return table_for(src).resolve(t) or t


def _mentions_builtin(src: SourceFile, n) -> bool:
    return any(c.type == "field_expression" and text(src, c.child_by_field_name("argument")) in BUILTIN
               for c in walk(n))


def coordinates(src: SourceFile, k: Kernel) -> dict[str, str]:
    """Locals that name a thread's position: name -> the thread indices they come from ("x", "yz", or
    "" for one computed from other coordinates through a quotient)."""
    out: dict[str, str] = {}
    if k.body is None:
        return out
    for d in walk(k.body):
        if d.type != "declaration" or (d.parent is not None and d.parent.type == "for_statement"):
            continue
        for dec in d.children_by_field_name("declarator"):
            if dec.type != "init_declarator":
                continue
            name, value = dec.child_by_field_name("declarator"), dec.child_by_field_name("value")
            if name is None or value is None or name.type != "identifier":
                continue
            axes = "".join(sorted({text(src, c)[-1] for c in walk(value) if c.type == "field_expression"
                                   and text(src, c.child_by_field_name("argument")) == "threadIdx"}
                                  | {a for c in walk(value) if c.type == "identifier" and src.node_text(c) in out
                                     for a in out[src.node_text(c)] if "B" not in out[src.node_text(c)]}))
            if not axes:  # a block's position only (`int b = blockIdx.z;`): "block z"
                axes = "".join(sorted({"B" + text(src, c)[-1] for c in walk(value) if c.type == "field_expression"
                                       and text(src, c.child_by_field_name("argument")) == "blockIdx"}))
            if _mentions_builtin(src, value):
                out[src.node_text(name)] = axes
            elif any(c.type == "identifier" and src.node_text(c) in out for c in walk(value)):
                via = [out[src.node_text(c)] for c in walk(value) if c.type == "identifier" and src.node_text(c) in out]
                if any(c.type == "binary_expression" and text(src, c.child_by_field_name("operator")) in ("/", "%")
                       for c in walk(value)):
                    out[src.node_text(name)] = "".join(sorted(set("".join(via))))
                elif len(via) == 2 and sum(1 for v in via if v and "B" not in v) == 1 and \
                        sum(1 for v in via if v.startswith("B")) == 1:  # `Row = by * TILE + ty` of named parts
                    out[src.node_text(name)] = next(v for v in via if "B" not in v)
    return out


def _coord_atoms(p: Poly, coords: set, loop_vars: set) -> set:
    return {a for a in atoms(p) if a in coords or a in loop_vars or a.split(".")[0] in BUILTIN}


def _value(src: SourceFile, n, privates: dict, depth: int = 0, by_node: dict | None = None):
    """n without casts, conversion calls and parentheses; a private local of the loop body read
    as its initial value (`float x = a[..];`); an access (in by_node) as it is (`__ldg(&a[i])`)."""
    while n is not None:
        if by_node is not None and n.id in by_node:
            return n
        if n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
        elif n.type == "cast_expression":
            n = n.child_by_field_name("value")
        elif n.type == "call_expression" and _converts(text(src, n.child_by_field_name("function"))):
            args = n.child_by_field_name("arguments")
            if args is None or len(args.named_children) != 1:
                return n
            n = args.named_children[0]
        elif n.type == "identifier" and src.node_text(n) in privates and depth < 4:
            return _value(src, privates[src.node_text(n)], privates, depth + 1, by_node)
        else:
            return n
    return n


def _converts(fn: str) -> bool:
    """A value conversion: CONVERT's, or `static_cast<T>` to any value type (`static_cast<int32_t>(a8[i])`)."""
    return fn in CONVERT or (fn.replace(" ", "").startswith("static_cast<") and "*" not in fn and "&" not in fn)


def _keeps_values(src: SourceFile, k: Kernel, decl, value, by_node: dict, types) -> bool:
    """A local of the loop body read as its initial value only where its declared type keeps the values of the
    buffers it reads (`float d = x[i] - y[i]`, `int a = a8[i]`; not `int d = x[i] - y[i]` of floats)."""
    t = types.scalar(" ".join(src.node_text(decl.child_by_field_name("type")).replace("const", "").split())) \
        if decl.child_by_field_name("type") is not None else None
    if t is None or value is None:
        return True  # (auto, a template parameter: the value's own type)
    for c in walk(value):
        a = by_node.get(c.id)
        e = types.scalar(_elem(src, k, a.array)) if a is not None else None
        if e is not None and not t.keeps(e):
            return False
        if c.type == "number_literal" and not t.is_float and re.search(r"[.eEfF]", src.node_text(c)) \
                and not src.node_text(c).lower().startswith("0x"):
            return False
    return True


def _changing_cast(src: SourceFile, k: Kernel, f, array: str) -> str | None:
    """The type of a cast around an operand's read (`static_cast<int>(A[i])`, `(int8_t)x[k]`) that changes the
    element's value: to an integer type from a floating one, or to a narrower type of its kind; None otherwise."""
    types = table_for(src)
    elem = types.scalar(_elem(src, k, array))
    if elem is None:
        return None
    n = f
    while n is not None:
        target = None
        if n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
            continue
        if n.type == "cast_expression":
            target, n = src.node_text(n.child_by_field_name("type")), n.child_by_field_name("value")
        elif n.type == "call_expression" and _converts(text(src, n.child_by_field_name("function"))):
            fn = text(src, n.child_by_field_name("function"))
            m = re.fullmatch(r"static_cast\s*<(.+)>", fn.strip())
            target = m.group(1) if m else fn if fn in ("float", "double") else None
            args = n.child_by_field_name("arguments")
            n = args.named_children[0] if args is not None and len(args.named_children) == 1 else None
        else:
            return None
        t = types.scalar(" ".join(target.replace("const", "").split())) if target else None
        if t is not None and not t.keeps(elem):
            return " ".join(target.split())
    return None


def _terms(src: SourceFile, e, sign: int = 1) -> list:
    """The summands of e: [(sign, node)] through + and - (and a cast around them, `(double)(a * b)`)."""
    e = unparen(e)
    while e is not None and e.type == "cast_expression":
        e = unparen(e.child_by_field_name("value"))
    if e is not None and e.type == "binary_expression" and text(src, e.child_by_field_name("operator")) in ("+", "-"):
        op = text(src, e.child_by_field_name("operator"))
        return _terms(src, e.child_by_field_name("left"), sign) + \
            _terms(src, e.child_by_field_name("right"), sign if op == "+" else -sign)
    return [(sign, e)]


def _factors(src: SourceFile, e) -> list:
    e = unparen(e)
    while e is not None and e.type == "cast_expression" and text(src, e.child_by_field_name("type")).replace(
            "const", "").strip() in ("float", "double") and _factors(src, e.child_by_field_name("value")) != \
            [unparen(e.child_by_field_name("value"))]:  # `(double)(alpha * a * b)`: the product's factors (not
        # through `(short)(a * 100.f)`, which truncates the product)
        e = unparen(e.child_by_field_name("value"))
    if e is not None and e.type == "binary_expression" and text(src, e.child_by_field_name("operator")) == "*":
        return _factors(src, e.child_by_field_name("left")) + _factors(src, e.child_by_field_name("right"))
    return [e]


def _private_factors(src: SourceFile, fs: list, privates: dict, depth: int = 0) -> list:
    """Factors with a private local that holds a product read as that product's factors (Darknet's
    `float A_PART = ALPHA * A[i*lda+k]; C[..] += A_PART * B[..];`: ALPHA, A[..] and B[..])."""
    out = []
    for f in fs:
        g = unparen(f)
        v = privates.get(src.node_text(g)) if g is not None and g.type == "identifier" and depth < 4 else None
        inner = _factors(src, v) if v is not None else [f]  # (casts as _factors reads them: `(short)(..)` is no product)
        out += _private_factors(src, inner, privates, depth + 1) if len(inner) > 1 else [f]
    return out


def _products_along(src: SourceFile, e, var: str, privates: dict, by_node: dict) -> bool:
    """e multiplies two accesses that move with var."""
    for n in walk(e) if e is not None else ():
        if n.type == "binary_expression" and text(src, n.child_by_field_name("operator")) == "*":
            hits = 0
            for f in _factors(src, n):
                v = _value(src, f, privates, by_node=by_node)
                a = by_node.get(v.id) if v is not None else None
                hits += a is not None and a.index is not None and bool(coefficient(a.index, var))
            if hits >= 2:
                return True
    return False


def _update(src: SourceFile, w):
    """(accumulator node, added expression node or [fma a, fma b]) of `acc += e`, `acc = acc + e`,
    `acc = fmaf(a, b, acc)`; None for another shape."""
    if w.type != "assignment_expression":
        return None
    op = text(src, w.child_by_field_name("operator"))
    left, right = w.child_by_field_name("left"), unparen(w.child_by_field_name("right"))
    acc = text(src, left)
    if op == "+=":
        return left, right
    if op != "=" or right is None:
        return None
    if right.type == "call_expression" and text(src, right.child_by_field_name("function")) in FMA:
        args = right.child_by_field_name("arguments").named_children
        if len(args) == 3 and text(src, unparen(args[2])) == acc:
            return left, [args[0], args[1]]
        return None
    if right.type == "binary_expression" and text(src, right.child_by_field_name("operator")) == "+":
        a, b = right.child_by_field_name("left"), right.child_by_field_name("right")
        for x, y in ((a, b), (b, a)):
            if text(src, unparen(x)) == acc:
                return left, y
    return None


def contractions(src: SourceFile, k: Kernel) -> Found:
    """Every matrix-product loop of k, and why loops that multiply two operands along k are not
    (kept per source and kernel: the rules and the transforms ask again)."""
    memo = src.memo.setdefault("contractions", {})
    key = (k.name, k.node.start_byte)
    if key not in memo:
        with recording():  # follows `int k; for (k = 0; ...)` (PolyBench's C89 counters) too
            memo[key] = _contractions(src, k)
    return memo[key]


def _contractions(src: SourceFile, k: Kernel) -> Found:
    found = Found([], [])
    if k.body is None:
        return found
    coords = coordinates(src, k)
    env = build_env(src, k, keep=set(coords))
    plain = build_env(src, k)  # the coordinates' own values (thread indices)
    accs = global_accesses(env, include_unknown=True)
    by_node = {a.node.id: a for a in accs}
    loop_vars = {lp.var for lp in k.loops if lp.var}
    compound = _compound_coordinates(src, k, env, coords)
    if compound:  # `row = by * BS + ty` beside a store at `c + wB * ty + tx` (c = wB * BS * by + BS * bx): one spelling
        for a in accs:
            if a.index is not None:
                a.index = _fold(a.index, compound)
    roots = _split_roots(src, k, coords)
    if roots:
        for a in accs:
            for root, value in roots.items():
                if a.index is not None and any(root in m for m in a.index):
                    a.index = _subst(a.index, root, value)
    refused = []
    for lp in k.loops:
        if not lp.var:
            continue
        got = _one(src, k, env, plain, coords, loop_vars, by_node, accs, lp)
        if isinstance(got, Contraction):
            found.products.append(got)
        elif isinstance(got, Refusal):
            refused.append((lp.node, got))
    found.refused = [r for n, r in refused if not any(inside(c.loop, n) for c in found.products)]
    return found


def _compound_coordinates(src: SourceFile, k: Kernel, env, coords: dict) -> dict:
    """Coordinates defined as a sum of others (`int row = by * BLOCK_SIZE + ty;` with by and ty coordinates too):
    name -> its definition over them, for the indices written with the parts to be read with the whole."""
    out = {}
    for name in coords:
        v = _coord_value(src, k, name)
        p = env.poly(v) if v is not None else None
        if p is None or len(p) < 2 or any(not (set(m) & set(coords)) for m in p) or name in {a for m in p for a in m}:
            continue
        out[name] = p
    return out


def _fold(index: Poly, compound: dict) -> Poly:
    """index with every multiple q * D of a compound coordinate's definition D written q * name (`wB * BS * by +
    wB * ty` as `wB * row`); an index with no such whole multiple stays as it is."""
    for _ in range(4):
        changed = False
        for name, d in compound.items():
            (m0, c0), *_ = sorted(d.items())
            for mi, ci in list(index.items()):
                rest = list(mi)
                if any(rest.count(a) < m0.count(a) for a in set(m0)) or ci % c0:
                    continue
                for a in m0:
                    rest.remove(a)
                q = {tuple(sorted(rest)): ci // c0}
                want = mul(q, d)
                if all(index.get(m, 0) == c for m, c in want.items()):
                    index = add(add(index, want, -1), mul(q, atom(name)))
                    changed = True
                    break
        if not changed:
            break
    return index


def _digit_batch(src: SourceFile, k: Kernel, env, coords: dict, guards: dict, row: Axis, col: Axis, batch: Axis) -> None:
    """Mark a batch made of digits of the flat index the row (and the column, unless a loop gives it) split
    (Digits): at any places, above or below the row's (llm.c's `h = idx % NH, t = (idx / NH) % T, b = idx / (NH*T)`
    with t the row and (b, h) the batch). Its count is the product of the batch digits' radices, the top digit's
    the index's bound over its place; left as it is otherwise."""
    if len(row.atoms) != 1 or len(col.atoms) != 1:
        return
    roots = _split_roots(src, k, coords)
    quot = _exact_quotients(src, k)  # (a local head size `hs = C / NH`: its places read as C, its text written out)
    col_digit = col.thread != "loop"
    for root, value in roots.items():
        places = {}
        for m, c in value.items():
            digit = [a for a in m if a in coords]
            if c != 1 or len(digit) != 1:
                break
            places[digit[0]] = tuple(a for a in m if a != digit[0])
        else:
            want = {row.atoms[0], *batch.atoms} | ({col.atoms[0]} if col_digit else set())
            if set(places) != want:
                continue
            order = sorted(places, key=lambda a: len(places[a]))  # from place 1 up: each place a product
            radix = {}
            for lo, hi in zip(order, order[1:]):
                rest = list(places[hi])
                for a in places[lo]:
                    if a not in rest:
                        break
                    rest.remove(a)
                else:
                    radix[lo] = tuple(rest)
                    continue
                radix = None
                break
            if radix is None:
                continue
            top = order[-1]
            if top in batch.atoms:  # the top digit's count: the index's bound over its place
                bound = guards.get(root)
                decl = next((d for d in walk(k.body) if d.type == "init_declarator"
                             and text(src, d.child_by_field_name("declarator")) == bound), None)
                total = env.poly(decl.child_by_field_name("value")) if decl is not None else None
                if total is None and bound is not None:  # the bound as written (`(size_t)batch * M * N`)
                    total = text_poly(src, bound)
                if not total or len(total) != 1:
                    continue
                (m, c), = total.items()
                rest = list(m)
                (top_place, _), = _whole({places[top]: 1}, quot).items()  # (`hs * NH` as C)
                for a in top_place:
                    if a not in rest:
                        break
                    rest.remove(a)
                else:
                    if c == 1:
                        radix[top] = tuple(rest)
                if top not in radix:
                    continue
            ptext = lambda m: " * ".join(f"({quot[a][0]} / {quot[a][1]})" if a in quot else a for a in m) or "1"
            mine = [a for a in order if a in batch.atoms]
            count, below, terms = [], [], []
            for a in mine:  # kp_b's digits in mixed radix, each put back at its place in the flat index
                q = f"kp_b / ({' * '.join(below)})" if below else "kp_b"
                d = f"({q})" if a == top else f"(({q}) % ({ptext(radix[a])}))"
                terms.append(f"{d} * ({ptext(places[a])})")
                below.append(f"({ptext(radix[a])})")
                count.extend(radix[a])
            batch.thread, batch.extent = "digits", ptext(tuple(count))
            batch.digits = Digits(root, " + ".join(terms), ptext(places[row.atoms[0]]),
                                  ptext(places[col.atoms[0]]) if col_digit else None,
                                  tuple((q, f"({a} / {b})") for q, (a, b) in quot.items()))
            return


def _split_roots(src: SourceFile, k: Kernel, coords: dict) -> dict:
    """root -> its digits times their places, where coordinates split one index in mixed radix
    (`c = idx % N, r = idx / N`; `t2 = idx % T, t = (idx / T) % T, b = idx / (T * T)`): the digits
    must chain from place 1, each place the one before times its radix, up to a last quotient."""
    digits: dict[str, list] = {}
    for name in coords:
        v = unparen(_coord_value(src, k, name))
        if v is None or v.type != "binary_expression":
            continue
        op = text(src, v.child_by_field_name("operator"))
        left, right = unparen(v.child_by_field_name("left")), v.child_by_field_name("right")
        radix = index_poly(src, right, {}) if op == "%" else None
        place = {(): 1}
        if op == "%" and left is not None and left.type == "binary_expression" \
                and text(src, left.child_by_field_name("operator")) == "/":
            place = index_poly(src, left.child_by_field_name("right"), {})
            left = unparen(left.child_by_field_name("left"))
        elif op == "/":
            place = index_poly(src, right, {})
        elif op != "%":
            continue
        root = text(src, left) if left is not None else None
        if root in coords and place is not None and (op == "/" or radix is not None):
            digits.setdefault(root, []).append((place, radix, name))
    out = {}
    quotients = _exact_quotients(src, k)
    for root, ds in digits.items():
        value, place, used = {}, {(): 1}, 0
        while True:
            d = next((x for x in ds if _whole(x[0], quotients) == _whole(place, quotients)), None)
            if d is None:
                break
            value, used = add(value, mul(atom(d[2]), place)), used + 1
            if d[1] is None:
                break
            place = mul(place, d[1])
        if used == len(ds) and used >= 2:
            out[root] = value
    return out


def _exact_quotients(src: SourceFile, k: Kernel) -> dict:
    """Locals declared as one name divided by another and never assigned again (`int hs = C / NH;`, a head's
    size): name -> (dividend, divisor). A digit's place `hs * NH` is then read as `C`, which assumes NH
    divides C, as the kernel's own decoding does; a spec size where it does not is caught by the evaluator's check
    of every candidate against the reference (the rewrite is then refused there, not shipped)."""
    out = {}
    assigned = {n for n, _ in writes_in(src, k.body)} if k.body is not None else set()
    for d in walk(k.body) if k.body is not None else ():
        if d.type != "init_declarator":
            continue
        name, v = d.child_by_field_name("declarator"), unparen(d.child_by_field_name("value"))
        if name is None or name.type != "identifier" or v is None or v.type != "binary_expression" or \
                text(src, v.child_by_field_name("operator")) != "/" or text(src, name) in assigned:
            continue
        a, b = (unparen(v.child_by_field_name(f)) for f in ("left", "right"))
        if a is not None and b is not None and a.type == b.type == "identifier":
            out[text(src, name)] = (text(src, a), text(src, b))
    return out


def _whole(p: Poly | None, quotients: dict) -> Poly | None:
    """p with every `q * b` of an exact quotient q = a / b read as `a` (_exact_quotients)."""
    if p is None or not quotients:
        return p
    out: dict = {}
    for m, c in p.items():
        m = list(m)
        for q, (a, b) in quotients.items():
            while q in m and b in m:
                m.remove(q)
                m.remove(b)
                m.append(a)
        key = tuple(sorted(m))
        out[key] = out.get(key, 0) + c
    return {m: c for m, c in out.items() if c}


def _subst(p: Poly, name: str, value: Poly) -> Poly:
    out: Poly = {}
    for m, c in p.items():
        term = {tuple(a for a in m if a != name): c}
        for _ in range(m.count(name)):
            term = mul(term, value)
        out = add(out, term)
    return out


def _one(src, k, env, plain, coords, loop_vars, by_node, accs, lp):
    info = analyze_loop(src, env, lp.node, accs)
    body = info.body
    if body is None or info.var is None:
        return None
    var = info.var
    privates = {}
    types = table_for(src)
    for d in walk(body):
        if d.type == "declaration":
            for dec in d.children_by_field_name("declarator"):
                if dec.type == "init_declarator" and dec.child_by_field_name("declarator").type == "identifier" and \
                        _keeps_values(src, k, d, dec.child_by_field_name("value"), by_node, types):
                    privates[text(src, dec.child_by_field_name("declarator"))] = dec.child_by_field_name("value")
    for name, _ in _scalar_writes(src, body):  # (`if (d < 0) d = -d;`: not its initial value any more)
        privates.pop(name, None)
    updates = []
    weights = []  # ((access, node), term) of a weight along k (`occ[i]` of C·diag(occ)·Cᵀ)
    written_in_loop = {n for n, _ in _scalar_writes(src, body)}
    for w in walk(body):
        u = _update(src, w) if w.type == "assignment_expression" else None
        if u is None:
            if w.type == "assignment_expression" and _products_along(src, w.child_by_field_name("right"), var, privates,
                                                                     by_node):
                left = text(src, w.child_by_field_name("left"))
                if uses(src, w.child_by_field_name("right"), left.split("[")[0]) or "=" != text(
                        src, w.child_by_field_name("operator")):
                    return Refusal(lp.line, f"line {w.start_point[0] + 1} updates `{left}` in a way that is not a sum "
                                            f"(a non-associative update such as acc = acc*x + y)")
            continue
        acc_node, added = u
        pairs = added if isinstance(added, list) else None
        terms = []
        for sign, t in ([(1, None)] if pairs else _terms(src, added)):
            fs = pairs if pairs else _private_factors(src, _factors(src, t), privates)
            ops, scale = [], []
            for f in fs:
                v = _value(src, f, privates, by_node=by_node)
                a = by_node.get(v.id) if v is not None else None
                if a is not None and a.index is not None and coefficient(a.index, var):
                    ops.append((a, f))
                else:
                    scale.append(f)
            if len(ops) == 3 and pairs is None:  # a weight along k: a read that moves with k alone
                here = set(coords) | (loop_vars - {var})
                alone = [(a, f) for a, f in ops if not _coord_atoms(a.index, here, set())]
                if len(alone) == 1 and _weight_text(src, k, alone[0][1], var) is not None:
                    weights.append((alone[0], t))
                    ops = [o for o in ops if o[1] is not alone[0][1]]
            terms.append((sign, ops, scale, t))
        if any(len(ops) == 2 for _, ops, _, _ in terms):
            for _, ops, scale, _ in terms:  # a factor of a product that changes along the loop is no scale
                moving = next((f for f in scale if _moves_with(src, f, var, privates) or any(
                    n.type == "identifier" and src.node_text(n) in written_in_loop for n in walk(f))), None)
                if moving is not None and len(ops) == 2:
                    return Refusal(lp.line, f"line {w.start_point[0] + 1} multiplies the products by "
                                            f"`{text(src, moving)}`, which changes with {var} (a weight along k)")
            for _, ops, _, _ in terms:
                for a, f in ops:
                    bad = _changing_cast(src, k, f, a.array)
                    if bad:
                        return Refusal(lp.line, f"line {w.start_point[0] + 1} converts {a.array}'s elements to `{bad}`, "
                                                "which changes their values (the tiles would load them unconverted)")
            updates.append((w, acc_node, terms))
    combine, centered, fixed = None, None, {}
    if not updates:
        got = _combine_update(src, body, var, privates, by_node)
        if got is None or isinstance(got, Refusal):
            return Refusal(lp.line, got.reason) if isinstance(got, Refusal) else None
        w, acc_node, (ra, fa), (rb, fb), combine, fixed = got
        updates.append((w, acc_node, [(1, [(ra, fa), (rb, fb)], [], None)]))
        centered = _centered(combine)
        for a, f in ((ra, fa), (rb, fb)) if centered else ():  # `(int)A[..] - za` of float A truncates: the tiles
            top = f  # would load the element unconverted
            while top.parent is not None and (top.parent.type in ("cast_expression", "parenthesized_expression") or (
                    top.parent.type == "argument_list" and top.parent.parent.type == "call_expression"
                    and _converts(text(src, top.parent.parent.child_by_field_name("function"))))):
                top = top.parent.parent if top.parent.type == "argument_list" else top.parent
            bad = _changing_cast(src, k, top, a.array)
            if bad:
                return Refusal(lp.line, f"line {w.start_point[0] + 1} converts {a.array}'s elements to `{bad}`, "
                                        "which changes their values (the tiles would load them unconverted)")
    line = lp.line
    sums, more_outs = (), []
    if len(updates) > 1:
        merged = more_outs = _same_place_sums(src, k, lp, updates, by_node)
        if merged is None:
            seen = [(w, ops[0][0].array, ops[1][0].array, text(src, acc_node)) for w, acc_node, terms in updates
                    for _, ops, _, _ in terms[:1] if len(ops) == 2]
            return Refusal(line, f"the loop on line {line} updates {len(updates)} sums of products; one is "
                                 "recognised", seen)
        sums, at = [], 0
        for w2, _, t2 in updates:
            sums.append((w2, at, at + len(t2)))
            at += len(t2)
        sums = tuple(sums)
        updates = [(updates[0][0], updates[0][1], [t for _, _, ts in updates for t in ts])]
    w, acc_node, terms = updates[0]
    if any(len(ops) != 2 for _, ops, _, _ in terms):
        return Refusal(line, f"line {w.start_point[0] + 1} adds a term that is not a product of two operands along {var}")
    if any(sign < 0 for sign, *_ in terms) and len(terms) == 1:
        return Refusal(line, f"line {w.start_point[0] + 1} subtracts a product (only sums are recognised)")
    # (several products, some subtracted, `ar * br - ai * bi`: each summed apart, the signs kept where the
    # kernel's own code adds them up)
    acc = text(src, acc_node)
    kind = "global" if acc_node.type == "subscript_expression" and acc_node.id in by_node else "local"
    if kind == "global" and by_node[acc_node.id].index is not None and coefficient(by_node[acc_node.id].index, var):
        return None  # each pass of the loop updates another element (a loop over outputs, not a sum along it)
    acc_name = text(src, _base(acc_node))
    # the loop's other scalars and memory
    merged_accs = {text(src, u[0]) for u in (_update(src, s2[0]) for s2 in sums[1:])}
    for name in merged_accs:  # each other sum read only in its own update, and a sum
        own = next(s2[0] for s2 in sums if text(src, _update(src, s2[0])[0]) == name)
        if any(not inside(u, own) for u in uses(src, body, name)) or \
                not any(r.var == name and r.op == "sum" for r in info.reductions):
            return Refusal(line, f"`{name}` is read inside the loop on line {line} besides its update, or not summed")
    others = {n: why for n, why in info.carried.items() if n != acc_name and n not in merged_accs}
    if others and not (set(others) == {acc} and isinstance(_update(src, w)[1], list)):
        return Refusal(line, f"the loop on line {line} is not only a sum of products: " + "; ".join(others.values()))
    fma_only = isinstance(_update(src, w)[1], list) and all(inside(u, w) for u in uses(src, body, acc))
    if kind == "local" and fma_only:
        others.pop(acc, None)
    elif kind == "local" and acc_node.type == "identifier" and any(not inside(u, w) for u in uses(src, body, acc)):
        return Refusal(line, f"`{acc}` is read inside the loop on line {line} besides its update (a loop-carried "
                             "dependence other than the sum)")
    elif kind == "local" and acc_node.type == "identifier" and not any(r.var == acc and r.op == "sum" for r in info.reductions):
        return Refusal(line, f"`{acc}` is not updated as a sum on line {w.start_point[0] + 1} (a non-associative "
                             "update such as acc = acc*x + y)")
    if info.escapes:
        return Refusal(line, f"the loop on line {line} has {', '.join(info.escapes)}")
    operands = {a.array for _, ops, _, _ in terms for a, _ in ops}
    for n in walk(body):  # writes through any spelling of an operand's pointer (casts included)
        if n.type in ("assignment_expression", "update_expression"):
            left = n.child_by_field_name("left") or n.child_by_field_name("argument")
            names = {env.pointers.get(src.node_text(c), (src.node_text(c), None))[0] for c in walk(left)
                     if c.type == "identifier"}
            hit = sorted(names & operands)
            if hit and left.type != "identifier":
                return Refusal(line, f"line {n.start_point[0] + 1} writes {hit[0]}, an operand of the product, "
                                     "inside the loop")
    writes = [a for a in info.accesses if a.is_write]
    for a in writes:
        if a.array in operands:
            return Refusal(line, f"line {a.line} writes {a.array}, an operand of the product, inside the loop")
        if kind == "local":
            return Refusal(line, f"line {a.line} writes {a.array} inside the loop")
        if a.node.id != acc_node.id and text(src, a.node) != acc:
            return Refusal(line, f"line {a.line} writes {a.array} inside the loop besides the sum")
    outer = {lp2.var for lp2 in k.loops if lp2.var and lp2.node.start_byte < lp.node.start_byte
             and lp.node.end_byte <= lp2.node.end_byte}
    for name, _ in [(n, w2) for n, w2 in _scalar_writes(src, body) if n in coords or n in outer]:
        return Refusal(line, f"`{name}` changes inside the loop")
    # the output
    store, out_acc, derived = None, None, False
    if kind == "global":
        out_acc = by_node[acc_node.id]
    else:
        store, out_acc, derived = _store(src, k, lp.node, acc_name, by_node)
        if out_acc is None:
            return Refusal(line, f"no store of `{acc_name}` to a kernel buffer after the loop on line {line}")
    if out_acc.index is None:
        return Refusal(line, f"the output {out_acc.array} has an index that cannot be followed")
    if out_acc.array in operands:
        return Refusal(line, f"the output {out_acc.array} is also an operand of the product (it aliases an operand)")
    # roles: A shares the row with the output, B the column
    cset = set(coords) | (loop_vars - {var})
    outer_vars = {lp2.var for lp2 in k.loops if lp2.var and lp2.node.start_byte < lp.node.start_byte
                  and lp.node.end_byte <= lp2.node.end_byte}
    oc = _coord_atoms(out_acc.index, cset, set())
    pairs = []
    row_atoms, col_atoms, batch_atoms, bcast = set(), set(), set(), set()
    # a batch one operand shares with the output: a loop's counter around the k loop, or blockIdx.z alone
    batch_loops = {lp2.var for lp2 in k.loops if lp2.var in outer_vars and lp2.var not in coords
                   and lp2.trip_count is None} | {a for a, ax in coords.items() if ax == "Bz"}
    for _, ops, _, _ in terms:
        (a, fa), (b, fb) = ops
        ca, cb = _coord_atoms(a.index, cset, set()), _coord_atoms(b.index, cset, set())
        ra, rb = (ca & oc) - cb, (cb & oc) - ca
        # a batch loop's counter that one operand shares with the output (`A[(b*I + i)*K + k]`, `C[(b*I + i)*N + j]`
        # under `for (b = 0; b < nb; b++)`): a batch over which the other operand is the same (broadcast), where the
        # row (or column) keeps another coordinate
        for side in (ra, rb):
            loose = {v for v in side & batch_loops if side - {v}}
            side -= loose
            bcast |= loose
        if (not ra or not rb):
            if (ca - cb) & oc or (cb - ca) & oc:
                pass
            what = "a matrix-vector product" if (ra or rb) else "a dot product (one output)"
            tri = _triangular_loop(src, k, lp, set(coords) | outer_vars)
            if tri:
                return Refusal(line, f"the loop on line {line} sums products along {var}, but {tri}: the output's "
                                     "rows and columns are not read apart (tiles cover whole rectangles)")
            return Refusal(line, f"the loop on line {line} is {what}, not a matrix product: its operands do not "
                                 f"share the output's row and column apart ({a.array}, {b.array})")
        # A is the operand whose coordinates are the output's slower dimension
        sa = _stride_of(out_acc.index, ra)
        sb = _stride_of(out_acc.index, rb)
        if _is_one(sa) and not _is_one(sb):
            (a, fa), (b, fb), ra, rb = (b, fb), (a, fa), rb, ra
        pairs.append(((a, fa), (b, fb)))
        if combine is not None and fa is not ops[0][1]:  # A and B swapped: so are the combine's elements
            combine = re.sub(r"\bkp_[xy]\b", lambda m: "kp_y" if m.group(0) == "kp_x" else "kp_x", combine)
            centered = (centered[1], centered[0]) if centered else None
        row_atoms |= ra
        col_atoms |= rb
        batch_atoms |= ca & cb & oc
    for side in (row_atoms, col_atoms):  # `b = bt / T, t = bt % T` indexing `(b * T + t) * C`: the row bt itself
        got = _merged_digits(src, k, coords, side, [x for pr in pairs for x, _ in pr] + [out_acc])
        if got is not None:
            (q, r, root), fixed = got
            side -= {q, r}
            side.add(root)
            pairs = [tuple((fixed.get(id(x), x), f) for x, f in pr) for pr in pairs]
            out_acc = fixed.get(id(out_acc), out_acc)
    if len(bcast) > 1 or (bcast and batch_atoms):
        return Refusal(line, f"the loops over {', '.join(sorted(bcast))} each move one operand and the output: "
                             "not one batch")
    batch_atoms |= bcast
    if row_atoms & col_atoms:
        return Refusal(line, "the products disagree on which coordinate is the row")
    stray = _coord_atoms(out_acc.index, cset, set()) - row_atoms - col_atoms - batch_atoms
    if stray:
        return Refusal(line, f"the output's index uses {', '.join(sorted(stray))}, which no operand uses")
    # the loop's range; a bound that uses the output's coordinates is causal
    k_start = text(src, info.start) if info.start is not None else None
    if not info.canonical or info.step != 1 or k_start is None or info.bound is None:
        return Refusal(line, f"the loop on line {line} is not `for ({var} = S; {var} < K; {var}++)`")
    bound = text(src, info.bound)
    K = f"({bound}) + 1" if info.cmp == "<=" else bound
    bpoly = env.poly(info.bound)
    if bpoly is not None and info.cmp == "<=":
        bpoly = add(bpoly, {(): 1})
    bound_atoms = _coord_atoms(bpoly or {}, cset | set(coords), set())
    causal = bool(bound_atoms & (row_atoms | col_atoms)) or any(
        c.type == "identifier" and src.node_text(c) in coords for c in walk(info.bound))
    mask = _mask(src, w, body)
    if mask is not None and _compares(src, mask, row_atoms | col_atoms, row_atoms | col_atoms | {var}):
        causal = True
    n, condition = lp.node.parent, None
    while n is not None and n != k.node:
        if n.type == "if_statement" and _compares(src, n.child_by_field_name("condition"), row_atoms, col_atoms):
            condition = text(src, n.child_by_field_name("condition"))
        n = n.parent
    ops0 = [_operand(src, k, env, a, fa, var, row_atoms | col_atoms | batch_atoms) for (a, fa), _ in pairs]
    ops1 = [_operand(src, k, env, b, fb, var, row_atoms | col_atoms | batch_atoms) for _, (b, fb) in pairs]
    out = _operand(src, k, env, out_acc, out_acc.node, None, row_atoms | col_atoms | batch_atoms)
    scales = {" * ".join(text(src, f) for f in scale) for _, _, scale, _ in terms}
    alpha = next(iter(scales)) if len(scales) == 1 and next(iter(scales)) else None
    init, beta, bias = None, None, None
    acc_type = _elem(src, k, out_acc.array)
    if kind == "local":
        decl = _declaration(src, k, acc_name, lp.node)
        if decl is not None:
            acc_type, init = decl
        salpha, beta, sbias = _epilogue(src, store, acc_name, out_acc, by_node) if not derived else (None, None, None)
        alpha = " * ".join(x for x in (alpha, salpha) if x) or None
        if init is not None and not _zero(init, _type_names(src, k)):
            bias = init
        bias = sbias or bias
    guards = _guards(src, k, lp.node)
    for v in bcast:  # a batch of whole matrices: each index steps by its matrix, `(b * I + i) * K`, `b * K * N + ..`
        for idx in [o.index for o in ops0 + ops1 + [out] if o.index is not None and coefficient(o.index, v)]:
            others = [a for a in _coord_atoms(idx, cset, set()) | ({var} if coefficient(idx, var) else set())
                      if a != v and a in row_atoms | col_atoms | {var}]
            slowest = max(others, key=lambda a: _sample(coefficient(idx, a)), default=None)
            ext = K if slowest == var else _count(src, k, coords, guards, slowest) if slowest is not None else None
            ep = text_poly(src, ext) if ext is not None else None
            if ep is None or coefficient(idx, v) != mul(coefficient(idx, slowest), ep):
                return Refusal(line, f"`{v}` moves an operand or the output by other than whole matrices (the "
                                     f"slowest of its other coordinates, {slowest}, bounded by {ext or 'nothing known'})")
    per_thread = _per_thread(src, k, w, row_atoms, col_atoms)
    row = _axis(src, plain, coords, guards, row_atoms, k)
    col = _axis(src, plain, coords, guards, col_atoms, k)
    batch = _axis(src, plain, coords, guards, batch_atoms, k, batch=True) if batch_atoms else None
    if centered:  # (x - R) * (y - C): R fixed along the row, C along the column, subtracted as each is loaded
        shifts = [_shift_value(src, k, fixed.get(name) or name, own, cset | set(coords))
                  for name, own in zip(centered, (row_atoms, col_atoms))]
        said = {n: text(src, fixed[n]) if n in fixed else n for n in centered}
        bad = next((f"`{said[n]}`" for n, v in zip(centered, shifts) if v is None), None)
        if bad:
            shown = re.sub(r"\bkp_fixed\d+\b", lambda m: said.get(m.group(0), m.group(0)), combine)
            shown = re.sub(r"\bkp_([xy])\b", r"\1", shown)  # (x: A's element, y: B's)
            return Refusal(line, f"line {w.start_point[0] + 1} adds `{shown}`: {bad} is not a value of the "
                                 "operand's own row (or column) alone, fixed in the kernel, so it cannot be "
                                 "subtracted as the tiles load")
        ops0[0].shift, ops1[0].shift = shifts
        combine = None
    if weights:  # C·diag(w)·Cᵀ: the weight multiplies A's elements as the tiles load them
        if len(pairs) != 1 or sums or combine is not None or centered:
            return Refusal(line, f"line {w.start_point[0] + 1} weights the products along {var} by "
                                 f"`{text(src, weights[0][0][1])}` in a sum of several products (one product is "
                                 "weighted as its tiles load)")
        ops0[0].scale = _weight_text(src, k, weights[0][0][1], var)
        ops0[0].scale_node = weights[0][0][1]
    if batch is not None and (batch.thread is None or batch.thread in (row.thread, col.thread)):
        _digit_batch(src, k, env, coords, guards, row, col, batch)
    assumes = sorted({tuple(sorted((o, a))) for o in {out_acc.array, *(more_outs or ())} for a in operands
                      if not (k.param(a) and k.param(a).is_restrict) and not (k.param(o) and k.param(o).is_restrict)})
    lines = sorted({line, w.start_point[0] + 1} | ({store.start_point[0] + 1} if store is not None else set()))
    return Contraction(
        kernel=k.name, loop=lp.node, k=var, k_start=k_start, K=K, causal=causal, bound=bpoly, condition=condition, row=row, col=col, batch=batch,
        terms=list(zip(ops0, ops1)), out=out, accumulate=kind, acc=acc, acc_type=acc_type, init=init, alpha=alpha,
        beta=beta, bias=bias, mask=text(src, mask) if mask is not None else None, per_thread=per_thread,
        update=w, sums=sums, store=store, coords={c: text(src, _coord_value(src, k, c)) for c in coords if _coord_value(src, k, c)},
        lines=lines, assumes=[list(p) for p in assumes], combine=combine, opaque_store=derived)


MATH = {"fabsf": "abs", "fabs": "abs", "abs": "abs", "sqrtf": "sqrt", "sqrt": "sqrt", "powf": "pow", "pow": "pow",
        "fmaxf": "max", "fmax": "max", "max": "max", "fminf": "min", "fmin": "min", "min": "min", "expf": "exp",
        "exp": "exp", "__expf": "exp", "logf": "log", "log": "log", "__dp4a": "dp4a", "__dp2a_lo": "dp2a",
        "__dp2a_hi": "dp2a"}


def _bytes_dot(a, b, c, width=4):
    """__dp4a's value in Python (signed bytes of two words, dotted, plus c): what a zero-filled tail adds."""
    def parts(v):
        v = int(v) & 0xFFFFFFFF
        return [((v >> (8 * i)) & 0xFF) - (256 if (v >> (8 * i)) & 0x80 else 0) for i in range(width)]
    return int(c) + sum(x * y for x, y in zip(parts(a), parts(b)))


def _zero_at_zero(combine: str, names: set) -> bool | None:
    """The combine of two zeros is zero (a tile's zero-filled tail then adds nothing): evaluated in Python with the
    math functions it may call; None where it cannot be evaluated (a parameter in it, another function)."""
    import math

    if names - set(MATH):
        return None
    py = re.sub(r"(\d+\.?\d*(?:[eE][-+]?\d+)?)[fF]\b", r"\1", combine)
    py = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", py)  # integer suffixes (`0u`)
    py = re.sub(r"\((?:const\s+)?(?:float|double|int)\)", "", py)
    env = {"abs": abs, "sqrt": math.sqrt, "pow": pow, "max": max, "min": min, "exp": math.exp, "log": math.log,
           "dp4a": _bytes_dot, "dp2a": _bytes_dot, "kp_x": 0.0, "kp_y": 0.0}
    for c, f in MATH.items():
        py = re.sub(rf"\b{c}\s*\(", f"{f}(", py)
    try:
        return eval(py, {"__builtins__": {}}, env) == 0  # noqa: S307 (C arithmetic over two floats and math functions)
    except Exception:
        return None


def _combine_update(src: SourceFile, body, var: str, privates: dict, by_node: dict):
    """The loop's one sum of a function of two reads along var that is not their product (`float d = x[i*D + k] -
    y[j*D + k]; acc += d * d;`, `acc += fabsf(a[..] - b[..])`): (update node, accumulator node, (access, node) of
    each read, the function as C text over kp_x and kp_y, the reads fixed along var by the names that stand for
    them there: `(kp_x - kp_fixed0) * (kp_y - kp_fixed1)` of a covariance's centered operands); a Refusal with the reason when it reads more, or
    something that changes in the loop; None when the loop has no such sum."""
    found = []
    for w in walk(body):
        u = _update(src, w) if w.type == "assignment_expression" else None
        if u is None or isinstance(u[1], list):
            continue
        reads: dict = {}
        names: set = set()
        problems: list = []  # what disqualifies it, said only where it combines two reads along var
        fixed: dict = {}  # kp_fixedN -> a read that does not move with var (a centered operand's `mean[j1]`)

        def render(n, depth=0):
            if n.id in by_node:
                a = by_node[n.id]
                if a.index is None or not coefficient(a.index, var):
                    problems.append(f"reads {src.node_text(n)}, which does not move with {var}")
                    fixed[f"kp_fixed{len(fixed)}"] = n
                    return f"kp_fixed{len(fixed) - 1}"
                key = (a.array, src.node_text(n).replace(" ", ""))
                reads.setdefault(key, (a, n))
                return f"@{list(reads).index(key)}@"
            if n.type == "identifier":
                name = src.node_text(n)
                if name in privates and privates[name] is not None and depth < 4:
                    return "(" + render(privates[name], depth + 1) + ")"
                if name == var:
                    problems.append(f"uses {var} itself")
                names.add(name)
                return name
            if n.type in ("subscript_expression", "field_expression", "pointer_expression"):
                problems.append(f"reads {src.node_text(n)}, which is not a kernel buffer read along {var}")
                return src.node_text(n)
            if n.child_count == 0:
                return src.node_text(n)
            out, pos = [], n.start_byte
            for ch in n.children:
                out += [src.data[pos:ch.start_byte].decode(), render(ch, depth)]
                pos = ch.end_byte
            return "".join(out) + src.data[pos:n.end_byte].decode()

        got = render(u[1])
        if len(reads) < 2:
            continue  # (not a function of two operands: another plan's loop, or an inner loop of a tile)
        at = w.start_point[0] + 1
        if len(reads) > 2:
            found.append(Refusal(at, f"line {at} combines {len(reads)} reads along {var} (two, one of each operand, "
                                     "are recognised)"))
            continue
        combine = got.replace("@0@", "kp_x").replace("@1@", "kp_y")
        if problems and not (_centered(combine) and len(problems) == len(fixed)):
            found.append(Refusal(at, f"line {at} adds a value that {problems[0]}"))
            continue
        written = {n for n, _ in _scalar_writes(src, body)}
        if names & written:
            found.append(Refusal(at, f"line {at} uses {sorted(names & written)[0]}, which changes in the loop"))
            continue
        (ra, na), (rb, nb) = reads.values()
        calls = {src.node_text(c.child_by_field_name("function")) for c in walk(u[1]) if c.type == "call_expression"}
        zero = _zero_at_zero(combine, (names & calls) | (names - set(privates)))
        if not zero and zero is None and _centered(combine):
            zero = True  # (each element centered as it is loaded: the zeros past the edges stay zeros)
        if not zero:
            found.append(Refusal(at, f"line {at} adds `{combine}` of the two operands, " + (
                "which is not zero where both are (tiles fill their edges with zeros)" if zero is False else
                "with names that are not math functions of them")))
            continue
        found.append((w, u[0], (ra, na), (rb, nb), combine, fixed))
    sums = [f for f in found if not isinstance(f, Refusal)]
    if len(sums) == 1:
        return sums[0]
    if len(sums) > 1:
        return Refusal(sums[0][0].start_point[0] + 1, f"the loop updates {len(sums)} sums; one is recognised")
    return found[0] if found else None


_CENTERED = re.compile(r"\(*\s*\(\s*kp_([xy])\s*-\s*((?!kp_[xy]\b)[A-Za-z_]\w*)\s*\)\s*\*\s*"
                       r"\(\s*kp_([xy])\s*-\s*((?!kp_[xy]\b)[A-Za-z_]\w*)\s*\)\s*\)*")


_CAST_TYPE = r"(?:(?:unsigned|signed|long|short)\s+)*(?:int|int32_t|int64_t|long|float|double)"
_ELEMENT_CAST = re.compile(rf"static_cast<\s*{_CAST_TYPE}\s*>\s*\(\s*kp_([xy])\s*\)|"
                           rf"\(\s*{_CAST_TYPE}\s*\)\s*(?:\(\s*kp_([xy])\s*\)|kp_([xy])\b)")


def _centered(combine: str | None) -> tuple[str, str] | None:
    """(R, C) of a combine `(kp_x - R) * (kp_y - C)` (either factor first): the product of two centered
    elements (a covariance's `(x - mean_i) * (y - mean_j)`)."""
    if combine:  # `(static_cast<int32_t>(kp_x) - a_zp)`: the element converted first (the tiles convert it too)
        combine = _ELEMENT_CAST.sub(lambda m: "kp_" + next(g for g in m.groups() if g), combine)
    m = _CENTERED.fullmatch(combine.strip()) if combine else None
    if m is None or {m.group(1), m.group(3)} != {"x", "y"} or combine.count("(") != combine.count(")"):
        return None
    return (m.group(2), m.group(4)) if m.group(1) == "x" else (m.group(4), m.group(2))


def _shift_value(src: SourceFile, k: Kernel, name, own: set, coordinates: set) -> str | None:
    """A centered operand's shift as C text: a parameter, a read fixed along k (its node: `mean[j1]`), or a
    local defined once from the operand's own coordinates and the parameters (`const float mu1 = mean[j1];`)
    whose value is then written out. None where anything it reads is assigned or stepped in the kernel (`za++`,
    `mean += 3`: the tiles read the shift before the kernel's own code would have run)."""
    v = name if not isinstance(name, str) else None
    if isinstance(name, str):
        p = k.param(name)
        v = _coord_value(src, k, name) if p is None else None
        if p is not None and p.is_pointer or p is None and v is None:
            return None
    changed = {n for n, _ in _scalar_writes(src, k.body)}
    if isinstance(name, str) and name in changed:
        return None
    if v is None:
        return name  # a scalar parameter never assigned
    params = {p.name for p in k.params}
    for n in walk(v):
        if n.type != "identifier":
            continue
        w = src.node_text(n)
        if w == "static_cast" and n.parent.type == "template_function":
            continue  # (`static_cast<int32_t>(*a_zero_point)`: a conversion)
        if w in changed or w in coordinates and w not in own or \
                w not in params | own | set(src.constants) | set(src.macros):
            return None
    if _mentions_builtin(src, v):
        return None
    return text(src, v)


def _weight_text(src: SourceFile, k: Kernel, f, var: str) -> str | None:
    """A weight along k (`occ[i]`, `(double)w[k]`) as C text over kp_k, where it reads only k, the parameters and
    the file's constants, from a buffer the kernel never writes; None otherwise."""
    params = {p.name for p in k.params}
    arrays = {text(src, x) for n in walk(k.body) if n.type in ("assignment_expression", "update_expression")
              for x in walk(n.child_by_field_name("left") or n.child_by_field_name("argument")) if x.type == "identifier"}
    arrays |= {text(src, x) for n in walk(k.body) if n.type == "call_expression"  # (an atomic, a helper's pointer)
               for x in walk(n.child_by_field_name("arguments")) if x.type == "identifier"}
    for n in walk(f):
        if n.type == "identifier":
            name = text(src, n)
            if (name in arrays and name != var) or name not in params | {var} | set(src.constants) | set(src.macros):
                return None
        elif n.type in ("call_expression", "assignment_expression", "update_expression", "field_expression"):
            return None
    return re.sub(rf"\b{re.escape(var)}\b", "kp_k", text(src, f))


def _triangular_loop(src: SourceFile, k: Kernel, lp, names: set) -> str | None:
    """`the loop over j2 on line 17 starts at j1` where a loop around the k loop starts at (or is bounded by) the
    thread's coordinate or another loop's variable: a triangle of the output (PolyBench's covariance, syrk)."""
    from .loops import _header

    for lp2 in k.loops:
        if not lp2.var or not (lp2.node.start_byte < lp.node.start_byte and lp.node.end_byte <= lp2.node.end_byte):
            continue
        h = _header(src, lp2.node)
        for what, n in (("starts at", h["start"]), ("is bounded by", h["bound"])):
            used = {src.node_text(x) for x in walk(n) if x.type == "identifier"} & (names - {lp2.var}) if n else set()
            if used:
                return f"the loop over {lp2.var} on line {lp2.line} {what} {sorted(used)[0]} (a triangle of the output)"
    return None


def _base(n):
    while n is not None and n.type in ("subscript_expression", "field_expression", "parenthesized_expression"):
        n = n.child_by_field_name("argument") or (n.named_children[0] if n.named_children else None)
    return n


def _scalar_writes(src, body):
    from .loops import writes_in
    return writes_in(src, body)


def _is_one(p) -> bool:
    return p == {(): 1}


def _stride_of(index: Poly, atoms_: set) -> Poly | None:
    """The smallest stride of the index along any of atoms_ (its coefficient)."""
    best = None
    for a in sorted(atoms_):
        c = coefficient(index, a)
        if c and (best is None or len(c) < len(best) or c == {(): 1}):
            best = c
    return best


def _operand(src: SourceFile, k: Kernel, env, a: Access, node, var, coord_atoms: set) -> Operand:
    strides = {c: poly_text(coefficient(a.index, c) or {}) for c in sorted(coord_atoms) if coefficient(a.index, c)}
    off = a.index
    for c in list(coord_atoms) + ([var] if var else []):
        off = without(off, c)
    ks = poly_text(coefficient(a.index, var) or {}) if var else "0"
    return Operand(a.array, _elem(src, k, a.array), a.index, poly_text(off), ks, strides, [node])


def _coord_value(src: SourceFile, k: Kernel, name: str):
    for d in walk(k.body):
        if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
            return d.child_by_field_name("value")
    return None


def _declaration(src: SourceFile, k: Kernel, name: str, loop):
    """(type, initial value text) of the accumulator's declaration before the loop."""
    for d in walk(k.body):
        if d.type != "declaration" or d.start_byte > loop.start_byte:
            continue
        for dec in d.children_by_field_name("declarator"):
            n = dec.child_by_field_name("declarator") if dec.type == "init_declarator" else dec
            while n is not None and n.type == "array_declarator":
                n = n.child_by_field_name("declarator")
            if n is not None and text(src, n) == name:
                t = text(src, d.child_by_field_name("type"))
                v = dec.child_by_field_name("value") if dec.type == "init_declarator" else None
                return t, (text(src, v) if v is not None else None)
    return None


def _moves_with(src: SourceFile, f, var: str, privates: dict, depth: int = 0) -> bool:
    """The factor f reads the loop's variable, itself or through a local of the loop body defined from it."""
    for n in walk(f):
        if n.type == "identifier":
            name = src.node_text(n)
            if name == var or name in privates and privates[name] is not None and depth < 4 and \
                    _moves_with(src, privates[name], var, privates, depth + 1):
                return True
    return False


def _same_place_sums(src: SourceFile, k: Kernel, lp, updates: list, by_node: dict):
    """The output arrays where every update is a local sum of products of two operands along the loop, every sum is
    declared with the same type and stored after the loop at the same output position (arrays may differ: `Cr[i]`,
    `Ci[i]`), none of them an operand; else None (several outputs of a thread at other positions, a small tile in
    named sums, are matmul.one_output's)."""
    index, types, outs = None, set(), []
    operands = {a.array for _, _, ts in updates for _, ops, _, _ in ts for a, _ in ops}
    for w2, acc2, terms2 in updates:
        if acc2.type != "identifier" or any(len(ops) != 2 for _, ops, _, _ in terms2):
            return None
        _, out2, _ = _store(src, k, lp.node, text(src, acc2), by_node)
        if out2 is None or out2.index is None or (index is not None and out2.index != index) or \
                out2.array in operands:
            return None
        decl = _declaration(src, k, text(src, acc2), lp.node)
        types.add(" ".join(decl[0].split()) if decl else None)
        index = out2.index
        outs.append(out2.array)
    return outs if len(types) == 1 and None not in types else None  # (one accumulator type: the tiles' one)


def _store(src: SourceFile, k: Kernel, loop, acc: str, by_node: dict):
    """(statement, Access, derived) of the first global write after the loop whose value uses acc, or a local
    computed from it after the loop (`float y = alpha * acc; int q = __float2int_rn(y); out[..] = (int8_t)q;`:
    derived True, the epilogue then only the kernel's own code)."""
    names, changed = {acc}, False
    for n in walk(k.body):
        if n.start_byte < loop.end_byte:
            continue
        if n.type in ("assignment_expression", "update_expression") and text(src, n.child_by_field_name(
                "left" if n.type == "assignment_expression" else "argument") or n) == acc:
            changed = True  # (`acc *= alpha;` after the loop: the store's value is no longer the sum)
        if n.type == "init_declarator" and n.child_by_field_name("value") is not None and \
                n.child_by_field_name("declarator").type == "identifier" and \
                any(uses(src, n.child_by_field_name("value"), x) for x in names):
            names.add(text(src, n.child_by_field_name("declarator")))
            continue
        if n.type != "assignment_expression":
            continue
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is not None and left.id in by_node and any(uses(src, right, x) for x in names):
            p, under_if = n.parent, False
            while p is not None and p.start_byte >= loop.end_byte:  # (a condition on the sum, `if (acc > 0)`; a
                # bounds guard on the coordinates is a plain store)
                cond = p.child_by_field_name("condition") if p.type in ("if_statement", "conditional_expression") \
                    else None
                under_if = under_if or (cond is not None and any(uses(src, cond, x) for x in names))
                p = p.parent
            return n, by_node[left.id], changed or under_if or not uses(src, right, acc) or len(names) > 1 and any(
                uses(src, right, x) for x in names - {acc})
        if left is not None and left.type == "identifier" and any(uses(src, right, x) for x in names):
            names.add(text(src, left))
    return None, None, False


def _epilogue(src: SourceFile, store, acc: str, out: Access, by_node: dict):
    """(alpha, beta, bias) of a store `out = alpha*acc + beta*out + bias`."""
    alpha = beta = None
    bias = []
    right = store.child_by_field_name("right")
    if text(src, store.child_by_field_name("operator")) != "=":
        return None, None, None
    for sign, t in _terms(src, right):
        fs = _factors(src, t)
        mine = [f for f in fs if text(src, unparen(f)) == acc]
        old = [f for f in fs if f.type == "subscript_expression" and f.id in by_node
               and by_node[f.id].array == out.array and by_node[f.id].index == out.index]
        rest = " * ".join(text(src, f) for f in fs if f not in mine and f not in old)
        if mine:
            alpha = rest or None
        elif old:
            beta = rest or "1"
        elif uses(src, t, acc):
            return None, None, None
        else:
            bias.append(("-" if sign < 0 else "") + text(src, t))
    return alpha, beta, " + ".join(bias) or None


def _compares(src: SourceFile, cond, one: set, other: set) -> bool:
    """cond compares a value of `one` coordinates with one of `other` (`t2 <= t`, `k <= i`)."""
    for c in walk(cond) if cond is not None else ():
        if c.type == "binary_expression" and text(src, c.child_by_field_name("operator")) in ("<", "<=", ">", ">="):
            ls = {src.node_text(x) for x in walk(c.child_by_field_name("left")) if x.type == "identifier"}
            rs = {src.node_text(x) for x in walk(c.child_by_field_name("right")) if x.type == "identifier"}
            if (ls & one and rs & other and not (ls & other and rs & one and ls == rs)) or (rs & one and ls & other):
                return ls != rs
    return False


_TO_ZERO = re.compile(r"^\s*(?:__float2half(?:_rn)?|__float2bfloat16(?:_rn)?|__int2half_rn|__half|half|__nv_bfloat16|"
                      r"nv_bfloat16|float|double|static_cast<[\w\s]+>)\s*\((.*)\)\s*$", re.S)


def _merged_digits(src: SourceFile, k: Kernel, coords: dict, side: set, accesses: list):
    """((q, r, root), {id(access): access with root for q and r}) where side is {q, r}, `q = root / R`, `r = root % R`
    and every index that reads them reads `(q * R + r) * S`; None otherwise."""
    import dataclasses

    if len(side) != 2:
        return None
    for q, r in (tuple(side), tuple(side)[::-1]):
        vq, vr = (unparen(_coord_value(src, k, a)) if a in coords else None for a in (q, r))
        if vq is None or vr is None or vq.type != "binary_expression" or vr.type != "binary_expression" or \
                text(src, vq.child_by_field_name("operator")) != "/" or \
                text(src, vr.child_by_field_name("operator")) != "%":
            continue
        root = text(src, unparen(vq.child_by_field_name("left")))
        radix = [" ".join(text(src, unparen(v.child_by_field_name("right"))).split()) for v in (vq, vr)]
        if root != text(src, unparen(vr.child_by_field_name("left"))) or root not in coords or radix[0] != radix[1]:
            continue
        rp = text_poly(src, radix[0])
        fixed = {}
        for a in accesses:
            if a.index is None or not (coefficient(a.index, q) or coefficient(a.index, r)):
                continue
            cq, cr = coefficient(a.index, q), coefficient(a.index, r)
            if cq is None or cr is None or not cr or rp is None or cq != mul(cr, rp):
                return None
            fixed[id(a)] = dataclasses.replace(a, index=add(without(without(a.index, q), r), mul(atom(root), cr)))
        return (q, r, root), fixed
    return None


def _sample(p: Poly) -> int:
    """A polynomial's value with every atom 13: which of two strides is the larger, for sizes of one order."""
    return sum(c * 13 ** len(m) for m, c in p.items())


def _type_names(src: SourceFile, k: Kernel) -> tuple:
    """The kernel's template type parameters and the file's type aliases (`T`, `index_t`, `real`)."""
    names = set()
    t = k.node.parent if k.node.parent is not None and k.node.parent.type == "template_declaration" else None
    ps = t.child_by_field_name("parameters") if t is not None else None
    for p in ps.named_children if ps is not None else ():
        names |= {src.node_text(n) for n in p.named_children if n.type == "type_identifier"}
    for n in walk(src.root):
        if n.type == "type_definition":
            names |= {src.node_text(d) for d in n.children_by_field_name("declarator") if d.type == "type_identifier"}
        elif n.type == "alias_declaration" and n.child_by_field_name("name") is not None:
            names.add(src.node_text(n.child_by_field_name("name")))
    return tuple(sorted(names))


def _zero(t: str, types: tuple = ()) -> bool:
    m = _TO_ZERO.match(t)
    if m:  # `__float2half(0.0f)`, `static_cast<float>(0)`
        return _zero(m.group(1))
    m = re.match(r"^\s*(\w+)\s*\((.*)\)\s*$", t, re.S)
    if m and m.group(1) in types:  # `T(0)` of a template's type, `real(0)` of an alias
        return _zero(m.group(2))
    t = t.replace("{", "").replace("}", "").replace(",", " ")
    if len(t.split()) > 1:
        return all(_zero(x) for x in t.split())
    return t.strip().rstrip("fFlL").replace(".", "").strip("0") == "" if t.strip() else True


def _mask(src: SourceFile, w, body):
    """The condition of an `if` (inside the loop) the update sits under, or of a `?:` around it."""
    n = w.parent
    while n is not None and n != body:
        if n.type == "if_statement":
            return n.child_by_field_name("condition")
        n = n.parent
    return None


def _uncast(src: SourceFile, n):
    """n without widening integer casts around it (`static_cast<size_t>(M)`, `(int)M`: four bytes or more, so a
    size's value stays): a guard's bound as its name. A narrowing one (`(unsigned char)M`) stays."""
    types = table_for(src)
    wide = lambda t: types.is_int(t) and (types.bytes(t) or 0) >= 4  # noqa: E731
    n = unparen(n)
    while n is not None:
        if n.type == "cast_expression" and wide(text(src, n.child_by_field_name("type"))):
            n = unparen(n.child_by_field_name("value"))
            continue
        fn = n.child_by_field_name("function") if n.type == "call_expression" else None
        args = n.child_by_field_name("arguments") if fn is not None else None
        m = re.fullmatch(r"static_cast\s*<(.*)>", text(src, fn)) if fn is not None else None
        if m and wide(m.group(1).strip()) and args is not None and len(args.named_children) == 1:
            n = unparen(args.named_children[0])
            continue
        return n
    return n


def _guards(src: SourceFile, k: Kernel, loop) -> dict[str, str]:
    """coordinate text -> its bound, from `if (c < E ...)` around the loop and `if (c >= E ...) return;` before it."""
    out: dict[str, str] = {}
    below: dict[str, str] = {}  # `j <= i` (a triangle of outputs): j -> i

    def conds(c, neg):
        c = unparen(c)
        if c is None:
            return
        if c.type == "binary_expression":
            op = text(src, c.child_by_field_name("operator"))
            if op == ("||" if neg else "&&"):
                conds(c.child_by_field_name("left"), neg)
                conds(c.child_by_field_name("right"), neg)
                return
            left, right = _uncast(src, c.child_by_field_name("left")), _uncast(src, c.child_by_field_name("right"))
            want = (">=", "<=") if neg else ("<", ">")
            if op == want[0]:
                out.setdefault(text(src, left), text(src, right))
            elif op == want[1]:
                out.setdefault(text(src, right), text(src, left))
            elif op == ((">", "<") if neg else ("<=", ">="))[0]:  # `j <= i`: j below another coordinate
                below.setdefault(text(src, left), text(src, right))
            elif op == ((">", "<") if neg else ("<=", ">="))[1]:
                below.setdefault(text(src, right), text(src, left))

    n = loop.parent
    while n is not None and n != k.node:
        if n.type == "if_statement" and inside(loop, n.child_by_field_name("consequence")):
            conds(n.child_by_field_name("condition"), False)
        n = n.parent
    for s in walk(k.body):
        if s.type == "if_statement" and s.end_byte <= loop.start_byte:
            cons = s.child_by_field_name("consequence")
            st = [c for c in (cons.named_children if cons.type == "compound_statement" else [cons])]
            if len(st) == 1 and st[0].type == "return_statement":
                conds(s.child_by_field_name("condition"), True)
    for lo, hi in below.items():  # j <= i < E: j < E too (the comparison itself stays the kernel's condition)
        if lo not in out and hi in out:
            out[lo] = out[hi]
    return out


def _count(src: SourceFile, k: Kernel, coords: dict, guards: dict, a: str) -> str | None:
    """How many values the coordinate a takes: its guard (`a < M`), the divisor of `idx % N`, or a guarded
    root's quotient (`idx / N` under `idx < T`); None unknown."""
    if a in guards:
        return guards[a]
    v = unparen(_coord_value(src, k, a)) if a in coords else None
    if v is not None and v.type == "binary_expression":  # i = idx / N, j = idx % N
        op = text(src, v.child_by_field_name("operator"))
        root, d = text(src, unparen(v.child_by_field_name("left"))), text(src, v.child_by_field_name("right"))
        if op == "%":
            return d
        if op == "/" and root in guards:
            return f"({guards[root]}) / ({d})"
    return None


def _block_digit(src: SourceFile, k: Kernel, coords: dict, v, depth: int = 0) -> bool:
    """v takes every value from 0 up as the blocks run: `blockIdx.y`, a quotient or remainder of one
    (`blockIdx.x / per_mat`, `(blockIdx.y / H) % W`), or such a local (`bh` for `bh = blockIdx.y`)."""
    v = unparen(v)
    while v is not None and v.type == "cast_expression":
        v = unparen(v.child_by_field_name("value"))
    if v is None or depth > 6:
        return False
    if v.type == "field_expression":
        return text(src, v.child_by_field_name("argument")) == "blockIdx"
    if v.type == "identifier":
        name = src.node_text(v)
        return coords.get(name, "").startswith("B") and _block_digit(src, k, coords, _coord_value(src, k, name),
                                                                      depth + 1)
    if v.type == "binary_expression" and text(src, v.child_by_field_name("operator")) in ("/", "%"):
        return _block_digit(src, k, coords, v.child_by_field_name("left"), depth + 1) and \
            not _mentions_builtin(src, v.child_by_field_name("right"))
    return False


def _axis(src: SourceFile, plain, coords: dict, guards: dict, atoms_: set, k: Kernel, batch: bool = False) -> Axis:
    names = tuple(sorted(atoms_))
    extent = next((e for e in (_count(src, k, coords, guards, a) for a in names) if e is not None), None)
    if batch and names and all(coords.get(a, "").startswith("B") for a in names) and \
            not (len({coords[a] for a in names}) == 1 and coords[names[0]] == "Bz"):
        # block positions other than blockIdx.z alone (`b = blockIdx.x / per_mat`, `h = blockIdx.y, b =
        # blockIdx.z`): the batch is the product of their counts, each taken back as a digit of one index; an atom
        # computed from the others (`b = bh / NH` beside `bh`) is computed as the kernel writes it
        derived = {a for a in names if any(c.type == "identifier" and src.node_text(c) in set(names) - {a}
                                           for c in walk(_coord_value(src, k, a)))}
        roots = [a for a in names if a not in derived]
        if all(_block_digit(src, k, coords, _coord_value(src, k, a)) for a in roots):
            parts = {a: _count(src, k, coords, guards, a) for a in roots}
            return Axis(names, parts_count(parts), "blocks", parts=parts)
        return Axis(names, None, None)  # (an offset or a multiple of a block index: not a digit from 0)
    thread = None
    if len(names) == 1 and names[0] in coords:
        axes = coords[names[0]]
        thread = axes if len(axes) == 1 else None
        if len(axes) == 2 and axes[0] == "B":  # blockIdx.z alone: the grid's z is its extent
            thread = "block " + axes[1]
            extent = extent or f"gridDim.{axes[1]}"
    elif len(names) > 1 and len({coords.get(a) for a in names}) == 1 and (coords.get(names[0]) or "").startswith("B") \
            and len(coords[names[0]]) == 2:  # digits of blockIdx.z (`bh = blockIdx.z; b = bh / H, h = bh % H;`)
        thread = "block " + coords[names[0]][1]
        extent = f"gridDim.{coords[names[0]][1]}"
    elif any(a.startswith("threadIdx.") for a in names):
        thread = next(a[-1] for a in names if a.startswith("threadIdx."))
    elif names and all(a not in coords and "." not in a for a in names):
        thread = "loop"
        lp = next((lp for lp in k.loops if lp.var == names[0]), None)
        if lp is not None and extent is None:
            c = unparen(lp.node.child_by_field_name("condition"))
            if c is not None and c.type == "binary_expression" and text(src, c.child_by_field_name("operator")) == "<":
                extent = text(src, c.child_by_field_name("right"))
    elif len(names) == 1 and names[0].startswith("blockIdx."):
        thread = None
        extent = extent or f"gridDim.{names[0][-1]}"
    return Axis(names, extent, thread)


def _per_thread(src: SourceFile, k: Kernel, update, row_atoms: set, col_atoms: set) -> tuple:
    """Outputs per thread: the trip counts of constant loops around the update over a row or column
    coordinate."""
    rows = cols = 1
    for lp in k.loops:
        if not inside(update, lp.node):
            continue
        if lp.var in row_atoms and lp.trip_count:
            rows *= lp.trip_count
        if lp.var in col_atoms and lp.trip_count:
            cols *= lp.trip_count
    return rows, cols


def recognise(src: SourceFile, kernel: str) -> Found:
    k = src.kernel(kernel)
    return contractions(src, k) if k is not None else Found([], [])


def describe(c: Contraction) -> str:
    """One line: the output, each product's operands with the dimension each is contiguous along, the
    range of k, the epilogue."""
    def lay(o: Operand) -> str:
        cont = o.contiguous
        along = "k" if cont == "k" else "the row" if cont in c.row.atoms else "the column" if cont in c.col.atoms \
            else "the batch" if c.batch is not None and cont in c.batch.atoms else None
        shape = f"{o.array} (contiguous along {along})" if along else f"{o.array} (strided)"
        return f"({shape} - {o.shift})" if o.shift else shape
    prods = "; ".join(" + ".join(f"{lay(a)}·{lay(b)}" for a, b in c.terms[i:j]) for _, i, j in c.sums) + \
        f" ({len(c.sums)} sums stored at one position)" if c.sums else \
        " + ".join(f"{lay(a)}·{lay(b)}" for a, b in c.terms) if c.combine is None else \
        f"the sum of {c.combine} over x = {lay(c.terms[0][0])}, y = {lay(c.terms[0][1])}".replace("kp_x", "x").replace("kp_y", "y")
    extra = "".join([f", scaled by {c.alpha}" if c.alpha else "", f", plus {c.beta} x the old output" if c.beta else "",
                     f", plus {c.bias}" if c.bias else "", ", batched" if c.batch else "", ", causal" if c.causal else "",
                     f", under {c.condition}" if c.condition else "", ", summed in memory" if c.accumulate == "global"
                     else ""])
    return f"{c.out.array} = {prods} over {c.k} < {c.K}{extra}"
