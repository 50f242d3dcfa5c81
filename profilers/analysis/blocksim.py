"""One block of a kernel run on the CPU, thread by thread between barriers, to recognise what its
shared-memory phases compute (scans.py).

Every thread is a generator over the kernel's statements that stops at each `__syncthreads()`; the
block steps all of them to the next barrier. Integers are exact; a value loaded from global memory is a
`Data` (a distinct random integer), and what is computed from it stays one, so an index or a branch that
depends on loaded data is seen (`Unsupported` with the reason). Shared memory remembers who wrote and
read each element since the last barrier: a read of an element another thread wrote in the same step,
or a write of one another thread read, is a race (`Race`). Anything the interpreter does not know
(device calls, pointers, local arrays) raises `Unsupported`, so no conclusion comes from code it did
not run.
"""
from __future__ import annotations

import math
import random
import re

from ..source import Kernel, SourceFile, walk

UNSET = None
_INT_CASTS = ("int", "unsigned", "unsignedint", "long", "unsignedlong", "longlong", "unsignedlonglong", "size_t",
              "int32_t", "uint32_t", "int64_t", "uint64_t", "ptrdiff_t")  # (spaces removed)
SYNCS = ("__syncthreads", "cg::sync", "block.sync", "__syncwarp")


def is_sync_call(src: SourceFile, e) -> bool:
    """A block barrier: `__syncthreads()`, `cg::sync(g)`, `g.sync()` (a group handle's), `__syncwarp()`."""
    if e is None or e.type != "call_expression":
        return False
    fn = "".join(src.node_text(e.child_by_field_name("function")).split())
    return fn in SYNCS or fn in ("cooperative_groups::sync", "this_thread_block().sync") or (
        fn.endswith(".sync") and not e.child_by_field_name("arguments").named_children)


def is_group_handle(src: SourceFile, decl) -> bool:
    """`cg::thread_block cta = cg::this_thread_block();` and the like: a handle used only to synchronise."""
    t = decl.child_by_field_name("type")
    return t is not None and "".join(src.node_text(t).split()).endswith(("thread_block", "thread_group"))


def declared(src: SourceFile, decl) -> list[str]:
    """The names a declaration declares (through pointers, arrays and initialisers)."""
    out = []
    for d in decl.children_by_field_name("declarator"):
        while d is not None and d.type != "identifier":
            d = d.child_by_field_name("declarator")
        if d is not None:
            out.append(src.node_text(d))
    return out


class Unsupported(Exception):
    pass


class Race(Exception):
    pass


def plain_type(t: str) -> str:
    """A type without qualifiers and storage words (`const float` and `__shared__ float` are `float`)."""
    return " ".join(w for w in t.split() if w not in ("const", "volatile", "__shared__", "static", "extern"))


class SharedRef:
    """A local pointer's value: the start of a shared array (`float *src = ping;`, swapped with `dst` each step of a
    double-buffered scan); subscripts through it reach that array."""
    __slots__ = ("name", "elem")

    def __init__(self, name, elem):
        self.name, self.elem = name, elem

    def __eq__(self, o):
        return isinstance(o, SharedRef) and o.name == self.name

    def __hash__(self):
        return hash(("ref", self.name))

    def __repr__(self):
        return self.name


class Data:
    """A value computed from global memory."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __eq__(self, o):
        return isinstance(o, Data) and o.v == self.v

    def __hash__(self):
        return hash(("d", self.v))

    def __repr__(self):
        return f"D{self.v}"


def val(x):
    return x.v if isinstance(x, Data) else x


def _cdiv(a, b):
    if b == 0:
        raise Unsupported("a division by zero")
    if isinstance(a, float) or isinstance(b, float):
        return a / b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a, b):
    if b == 0:
        raise Unsupported("a remainder by zero")
    return a - _cdiv(a, b) * b


BIN = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _cdiv, "%": _cmod,
       "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
       "^": lambda a, b: a ^ b, "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b),
       "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b),
       "!=": lambda a, b: int(a != b)}
UNARY = {"fabsf": abs, "fabs": abs, "abs": abs, "sqrtf": math.sqrt, "sqrt": math.sqrt, "expf": math.exp,
         "exp": math.exp, "__expf": math.exp}
_TYPES = ("float", "double", "int", "unsigned", "long", "size_t")
CALLS = {"min": min, "max": max, "fminf": min, "fmaxf": max, "fmin": min, "fmax": max, "::min": min, "::max": max}


class _Return(Exception):
    pass


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Block:
    """Runs kernel k for one block: `run(marks)` steps every thread; `marks` are top-level statement
    indices before which every thread stops (a snapshot of shared memory and locals is taken there)."""

    def __init__(self, src: SourceFile, k: Kernel, block: int, scalars: dict, grid: int = 1, bid: int = 0,
                 seed: int = 7, max_steps: int | None = None, aliases: frozenset = frozenset()):
        self.src, self.k, self.block = src, k, block
        self.aliases = set(aliases)  # pointers to dynamic shared memory (`T *s = SharedMemory<T>();`): 1-D arrays
        self.max_steps, self.steps = max_steps, 0  # loop iterations over all threads: past it, Unsupported
        self.orig = src
        self.scalars = dict(scalars)
        self.grid, self.bid = grid, bid
        self.rng = random.Random(seed)
        self.pointers = {p.name for p in k.params if p.is_pointer}
        self.shared = {}  # name -> (dims, {flat index: value})
        self.elem = {}  # shared name -> element type
        self.loads = {}  # (array, index) -> Data
        self.stores = []  # (array, index, value, thread, stage)
        self.gmem = {}  # (array, index) -> value written
        self.owner = {}  # (shared, index) -> (thread, epoch) of the last write
        self.readers = {}  # (shared, index) -> (epoch, {threads})
        self.epoch = 0
        self.stage = 0
        self.data_ops = set()  # (stage, operator) applied to loaded data
        self.shared_reads = set()  # (stage, array, flat index)
        self.defines = {}
        for n in walk(src.root):
            if n.type == "preproc_def" and n.child_by_field_name("value") is not None:
                self.defines[src.node_text(n.child_by_field_name("name"))] = src.node_text(
                    n.child_by_field_name("value")).strip()
        self._probes = {}
        # the kernel's template type parameters -> the type they stand for here (float where unknown)
        t = k.node.parent if k.node.parent is not None and k.node.parent.type == "template_declaration" else None
        ps = t.child_by_field_name("parameters") if t is not None else None
        self.type_params = {src.node_text(n): "float" for p in (ps.named_children if ps is not None else ())
                            if p.type == "type_parameter_declaration" for n in p.named_children
                            if n.type == "type_identifier"}
        self._declare_shared()
        for a in self.aliases:
            self.shared[a] = ([None], {})
            self.elem.setdefault(a, "float")

    # ---------------------------------------------------------------- shared arrays
    def _declare_shared(self):
        for d in walk(self.k.body):
            if d.type != "declaration" or "__shared__" not in self.src.node_text(d):
                continue
            t = self.src.node_text(d.child_by_field_name("type")) if d.child_by_field_name("type") else "int"
            for x in d.children_by_field_name("declarator"):
                dims, node = [], x
                while node is not None and node.type != "identifier":
                    if node.type == "array_declarator":
                        size = node.child_by_field_name("size")
                        dims.insert(0, self.eval_const(size) if size is not None else None)
                    node = node.child_by_field_name("declarator")
                if node is not None:
                    self.shared[self.src.node_text(node)] = (dims, {})
                    self.elem[self.src.node_text(node)] = t

    def eval_const(self, n):
        v = self._expr(n, [{}], -1)
        if isinstance(v, Data) or not isinstance(v, int):
            raise Unsupported(f"the size `{self.src.node_text(n)}` is not a constant integer")
        return v

    def flat(self, name, idx):
        dims, _ = self.shared[name]
        if len(idx) != max(1, len(dims)):
            raise Unsupported(f"{name} indexed with {len(idx)} subscripts")
        f = 0
        for i, (x, d) in enumerate(zip(idx, dims or [None])):
            if i and d is None:
                raise Unsupported(f"{name}'s inner size is unknown")
            f = f * (d if i else 1) + x if i else x
        return f

    # ---------------------------------------------------------------- running
    def run(self, marks=(), stop=None):
        """Returns [(mark index, [per-thread top-level locals], shared snapshot)] at each mark, then
        at the end (or at the mark `stop`, where every thread stops). A barrier some threads skip raises
        Unsupported."""
        threads = [self._thread(t, marks) for t in range(self.block)]
        snaps = []
        while True:
            events = []
            for g in threads:
                try:
                    events.append(next(g))
                except StopIteration:
                    events.append(("done", None))
            kinds = {e[0] for e in events}
            if len(kinds) != 1 or len({e[1] if e[0] == "mark" else 0 for e in events}) != 1:
                raise Unsupported("a barrier or phase that not every thread of the block reaches")
            kind = events[0][0]
            if kind == "done":
                snaps.append(("end", [e for e in self._locals], self._snapshot()))
                return snaps
            if kind == "sync":
                self.epoch += 1
            else:
                snaps.append((events[0][1], [dict(s) for s in self._locals], self._snapshot()))
                if stop is not None and events[0][1] == stop:
                    return snaps
                self.stage += 1

    def _snapshot(self):
        return {name: dict(cells) for name, (_, cells) in self.shared.items()}

    def _thread(self, t, marks):
        if not hasattr(self, "_locals"):
            self._locals = [None] * self.block
        top = {}
        self._locals[t] = top
        scopes = [top]
        stmts = [c for c in self.k.body.named_children if c.type != "comment"]
        try:
            for i, s in enumerate(stmts):
                if i in marks:
                    yield ("mark", i)
                yield from self._stmt(s, scopes, t)
        except _Return:
            pass
        except (_Break, _Continue):
            raise Unsupported("a `break` or `continue` outside any loop") from None
        if len(stmts) in marks:
            yield ("mark", len(stmts))

    def _stmt(self, s, scopes, t):
        ty = s.type
        if ty == "compound_statement":
            scopes.append({})
            try:
                for c in s.named_children:
                    yield from self._stmt(c, scopes, t)
            finally:
                scopes.pop()
        elif ty == "expression_statement":
            e = s.named_children[0] if s.named_children else None
            if e is None:
                return
            if e.type == "call_expression" and is_sync_call(self.src, e):
                yield ("sync", None)
                return
            self._expr(e, scopes, t)
        elif ty == "declaration":
            if "__shared__" in self.src.node_text(s) or set(declared(self.src, s)) & self.aliases:
                return
            if is_group_handle(self.src, s):  # cg::thread_block b = cg::this_thread_block(): only synced on
                return
            for d in s.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    name = d.child_by_field_name("declarator")
                    value = self._expr(d.child_by_field_name("value"), scopes, t)
                    if name.type == "pointer_declarator" and isinstance(value, SharedRef) and \
                            name.child_by_field_name("declarator").type == "identifier":
                        name = name.child_by_field_name("declarator")  # a pointer into a shared array
                    if name.type != "identifier":
                        raise Unsupported(f"line {s.start_point[0] + 1}: a local array or pointer")
                    if isinstance(value, SharedRef) != (d.child_by_field_name("declarator").type == "pointer_declarator"):
                        raise Unsupported(f"line {s.start_point[0] + 1}: a pointer kept in a number, or one that "
                                          "points elsewhere than at a shared array's start")
                    if isinstance(value, SharedRef) and plain_type(self.src.node_text(s.child_by_field_name("type"))) \
                            != plain_type(value.elem):
                        raise Unsupported(f"line {s.start_point[0] + 1}: a pointer of another type than the shared "
                                          f"array's `{value.elem}`")
                    scopes[-1][self.src.node_text(name)] = value
                elif d.type == "identifier":
                    scopes[-1][self.src.node_text(d)] = UNSET
                else:
                    raise Unsupported(f"line {s.start_point[0] + 1}: a local array or pointer")
        elif ty == "if_statement":
            c = self._cond(s.child_by_field_name("condition"), scopes, t)
            alt = s.child_by_field_name("alternative")
            if c:
                yield from self._stmt(s.child_by_field_name("consequence"), scopes, t)
            elif alt is not None:
                yield from self._stmt(alt.named_children[-1] if alt.type == "else_clause" else alt, scopes, t)
        elif ty in ("for_statement", "while_statement", "do_statement"):
            yield from self._loop(s, scopes, t)
        elif ty == "return_statement":
            raise _Return()
        elif ty == "break_statement":
            raise _Break()
        elif ty == "continue_statement":
            raise _Continue()
        elif ty in ("comment", "preproc_call", "attributed_statement") or ty.startswith("preproc"):
            if ty == "attributed_statement":
                for c in s.named_children:
                    if c.type != "attribute_declaration":
                        yield from self._stmt(c, scopes, t)
            return
        else:
            raise Unsupported(f"line {s.start_point[0] + 1}: a {ty.replace('_', ' ')}")

    def _loop(self, s, scopes, t):
        scopes.append({})
        try:
            init = s.child_by_field_name("initializer")
            if init is not None:
                if init.type == "declaration":
                    yield from self._stmt(init, scopes, t)
                else:
                    self._expr(init, scopes, t)
            cond, upd, body = (s.child_by_field_name(f) for f in ("condition", "update", "body"))
            first = s.type == "do_statement"
            for _ in range(100000):
                if not first and cond is not None and not self._cond(cond, scopes, t):
                    return
                first = False
                self.steps += 1
                if self.max_steps is not None and self.steps > self.max_steps:
                    raise Unsupported(f"line {s.start_point[0] + 1}: more than {self.max_steps} loop iterations")
                try:
                    yield from self._stmt(body, scopes, t)
                except _Break:
                    return
                except _Continue:
                    pass
                if upd is not None:
                    self._expr(upd, scopes, t)
                if s.type == "do_statement" and not self._cond(cond, scopes, t):
                    return
            raise Unsupported(f"line {s.start_point[0] + 1}: a loop that did not end")
        finally:
            scopes.pop()

    def _pure(self, n) -> bool:
        """n has no side effects: no assignment, no increment, no call but min/max and conversions."""
        src = self.src
        for x in walk(n):
            if x.type in ("assignment_expression", "update_expression"):
                return False
            fn = "".join(src.node_text(x.child_by_field_name("function")).split()) if x.type == "call_expression" else ""
            if x.type == "call_expression" and fn not in CALLS and fn not in UNARY and fn not in _TYPES and \
                    fn not in self.type_params and not fn.startswith("static_cast<"):
                return False
        return True

    def _loose(self, n, scopes, t):
        """A pure condition's value, data where it reads loaded data (`gid < n && in[gid] > th`), evaluated as C
        does (short-circuit) on the values the run holds."""
        n = n.named_children[0] if n.type == "parenthesized_expression" and n.named_children else n
        if n.type == "binary_expression" and self.src.node_text(n.child_by_field_name("operator")) in ("&&", "||"):
            op = self.src.node_text(n.child_by_field_name("operator"))
            a = self._loose(n.child_by_field_name("left"), scopes, t)
            if (op == "&&") != bool(val(a)):
                return Data(int(bool(val(a)))) if isinstance(a, Data) else int(bool(a))
            b = self._loose(n.child_by_field_name("right"), scopes, t)
            out = int(bool(val(b)))
            return Data(out) if isinstance(a, Data) or isinstance(b, Data) else out
        v = self._expr(n, scopes, t)
        return Data(int(bool(v.v))) if isinstance(v, Data) else int(bool(v))

    def _cond(self, n, scopes, t):
        v = self._expr(n, scopes, t)
        if isinstance(v, Data):
            raise Unsupported(f"line {n.start_point[0] + 1}: a branch on loaded data")
        return bool(v)

    # ---------------------------------------------------------------- expressions
    def _lookup(self, name, scopes, n, t=-1):
        for sc in reversed(scopes):
            if name in sc:
                v = sc[name]
                if v is UNSET:
                    raise Unsupported(f"line {n.start_point[0] + 1}: `{name}` read before it is set")
                return v
        if name in self.scalars:
            return self.scalars[name]
        if name == "warpSize":
            return 32
        if name in ("true", "false"):
            return int(name == "true")
        if name in self.orig.constants:
            return self.orig.constants[name]
        if name in self.defines:
            return self._probe(self.defines[name], {}, n)
        if name in self.shared and not self.shared[name][0]:
            return self._read(name, [0], t, n)
        if name in self.shared and name not in self.aliases:  # an array's name as a value: its start
            return SharedRef(name, self.elem.get(name, "float"))
        raise Unsupported(f"line {n.start_point[0] + 1}: `{name}` has no known value")

    def _probe(self, text, bind, n):
        """A macro body evaluated as an expression, its parameters bound to values."""
        key = text
        if key not in self._probes:
            p = SourceFile(f"int kp_x = {text};")
            d = next((x for x in walk(p.root) if x.type == "init_declarator"), None)
            if d is None or p.has_errors:
                raise Unsupported(f"line {n.start_point[0] + 1}: the macro `{text}` is not an expression")
            self._probes[key] = (p, d.child_by_field_name("value"))
        p, e = self._probes[key]
        saved = self.src
        self.src = p
        try:
            return self._expr(e, [dict(bind)], -1)
        finally:
            self.src = saved

    def _builtin(self, text):
        d = {"threadIdx": None, "blockIdx": self.bid, "blockDim": self.block, "gridDim": self.grid}
        base, _, f = text.partition(".")
        if base not in d:
            return None
        if f != "x":
            return 0 if base in ("threadIdx", "blockIdx") else 1
        return "threadIdx" if base == "threadIdx" else d[base]

    @staticmethod
    def _cast(ctype: str, v):
        """A value cast to an integer type becomes an integer (a float truncated), to float or double a float (so
        that a division after it is not an integer one); other casts keep it."""
        x = val(v)
        if ctype in _INT_CASTS and isinstance(x, float):
            return Data(int(x)) if isinstance(v, Data) else int(x)
        if ctype in ("float", "double") and isinstance(x, int) and not isinstance(x, bool):
            return Data(float(x)) if isinstance(v, Data) else float(x)
        return v

    def _expr(self, n, scopes, t):
        ty = n.type
        src = self.src
        if ty == "number_literal":
            s = src.node_text(n).lower().rstrip("ulf") if not src.node_text(n).lower().startswith("0x") \
                else src.node_text(n).lower().rstrip("ul")
            try:
                return int(s, 0)
            except ValueError:
                f = float(s)
                return int(f) if f.is_integer() else f
        if ty in ("true", "false"):
            return int(ty == "true")
        if ty == "identifier":
            return self._lookup(src.node_text(n), scopes, n, t)
        if ty in ("parenthesized_expression", "condition_clause"):
            return self._expr(n.named_children[-1], scopes, t)
        if ty == "field_expression":
            text = "".join(src.node_text(n).split())
            b = self._builtin(text)
            if b is None:
                raise Unsupported(f"line {n.start_point[0] + 1}: `{text}`")
            if b == "threadIdx":
                if t < 0:
                    raise Unsupported("a thread index in a constant")
                return t
            return b
        if ty == "cast_expression":
            v = self._expr(n.child_by_field_name("value"), scopes, t)
            ctype = "".join(src.node_text(n.child_by_field_name("type")).split())
            if isinstance(v, SharedRef) and ctype != "".join(plain_type(v.elem).split()) + "*":
                raise Unsupported(f"line {n.start_point[0] + 1}: a shared array read through a pointer to another "
                                  f"type (`{ctype}`)")
            return self._cast(ctype, v)
        if ty == "unary_expression":
            v = self._expr(n.child_by_field_name("argument"), scopes, t)
            op = src.node_text(n.child_by_field_name("operator"))
            f = {"-": lambda a: -a, "+": lambda a: a, "!": lambda a: int(not a), "~": lambda a: ~a}.get(op)
            if f is None:
                raise Unsupported(f"line {n.start_point[0] + 1}: unary `{op}`")
            if isinstance(v, Data):
                self.data_ops.add((self.stage, f"unary {op}"))
                return Data(f(v.v))
            return f(v)
        if ty == "binary_expression":
            op = src.node_text(n.child_by_field_name("operator"))
            if op in ("&&", "||"):
                a = self._cond(n.child_by_field_name("left"), scopes, t)
                if (op == "&&") != a:
                    return int(a)
                return int(self._cond(n.child_by_field_name("right"), scopes, t))
            a = self._expr(n.child_by_field_name("left"), scopes, t)
            b = self._expr(n.child_by_field_name("right"), scopes, t)
            return self._bin(op, a, b, n)
        if ty == "conditional_expression":
            cond = n.child_by_field_name("condition")
            c = self._loose(cond, scopes, t) if self._pure(n) else self._cond(cond, scopes, t)
            v = self._expr(n.child_by_field_name("consequence" if val(c) else "alternative"), scopes, t)
            if isinstance(c, Data):  # a select on loaded data (`flag = in[i] > th ? 1 : 0`): the value is data too
                self.data_ops.add((self.stage, "select"))
                return v if isinstance(v, Data) else Data(v)
            return v
        if ty == "subscript_expression":
            name, idx = self._place(n, scopes, t)
            return self._read(name, idx, t, n)
        if ty == "assignment_expression":
            left = n.child_by_field_name("left")
            op = src.node_text(n.child_by_field_name("operator"))
            rhs = self._expr(n.child_by_field_name("right"), scopes, t)
            if op != "=":
                rhs = self._bin(op[:-1], self._expr(left, scopes, t), rhs, n)
            self._write(left, rhs, scopes, t)
            return rhs
        if ty == "update_expression":
            arg = n.child_by_field_name("argument")
            old = self._expr(arg, scopes, t)
            new = self._bin("+" if "++" in src.node_text(n) else "-", old, 1, n)
            self._write(arg, new, scopes, t)
            return new if src.node_text(n).startswith(("++", "--")) else old
        if ty == "call_expression":
            fn = "".join(src.node_text(n.child_by_field_name("function")).split())
            args = [self._expr(a, scopes, t) for a in n.child_by_field_name("arguments").named_children]
            cast = re.fullmatch(r"static_cast<(.+)>", fn)
            if cast and len(args) == 1 and not isinstance(args[0], SharedRef):  # `static_cast<unsigned>(n)`
                return self._cast(cast.group(1), args[0])
            if fn in CALLS and len(args) == 2:
                if any(isinstance(a, Data) for a in args):
                    self.data_ops.add((self.stage, "max" if "max" in fn else "min"))
                    return Data(CALLS[fn](val(args[0]), val(args[1])))
                return CALLS[fn](*args)
            if fn in UNARY and len(args) == 1 and not isinstance(args[0], SharedRef):  # `fabsf(x)` of a load
                if isinstance(args[0], Data):
                    self.data_ops.add((self.stage, fn))
                    return Data(UNARY[fn](val(args[0])))
                return UNARY[fn](args[0])
            if len(args) == 1 and not isinstance(args[0], SharedRef) and (
                    fn in _TYPES or fn in self.type_params):  # `float(x)`, `T(0)`: a functional cast
                return self._cast(self.type_params.get(fn, fn), args[0])
            if fn in self.orig.macros:
                params, body = self.orig.macros[fn]
                if len(params) != len(args):
                    raise Unsupported(f"line {n.start_point[0] + 1}: `{fn}` called with {len(args)} arguments")
                return self._probe(body, dict(zip(params, args)), n)
            raise Unsupported(f"line {n.start_point[0] + 1}: a call to `{fn}`")
        if ty == "comma_expression":
            self._expr(n.child_by_field_name("left"), scopes, t)
            return self._expr(n.child_by_field_name("right"), scopes, t)
        raise Unsupported(f"line {n.start_point[0] + 1}: a {ty.replace('_', ' ')}")

    def _bin(self, op, a, b, n):
        f = BIN.get(op)
        if f is None:
            raise Unsupported(f"line {n.start_point[0] + 1}: `{op}`")
        if isinstance(a, Data) or isinstance(b, Data):
            if isinstance(a, Data) and isinstance(b, Data):
                self.data_ops.add((self.stage, op))
            elif not (op in ("+", "-") and 0 in (a, b)):
                self.data_ops.add((self.stage, f"{op} a constant"))
            return Data(f(val(a), val(b)))
        return f(a, b)

    # ---------------------------------------------------------------- memory
    def _place(self, n, scopes, t):
        """(array name, [indices]) of a subscript (2-D shared arrays as two)."""
        idx = []
        while n.type == "subscript_expression":
            i = n.child_by_field_name("index") or next(
                (c for c in n.named_children if c != n.child_by_field_name("argument")), None)
            if i is not None and i.type == "subscript_argument_list":
                i = i.named_children[0]
            v = self._expr(i, scopes, t)
            if isinstance(v, Data):
                raise Unsupported(f"line {n.start_point[0] + 1}: an index computed from loaded data")
            if not isinstance(v, int):
                raise Unsupported(f"line {n.start_point[0] + 1}: an index that is not an integer")
            idx.insert(0, v)
            n = n.child_by_field_name("argument")
            while n.type == "parenthesized_expression":
                n = n.named_children[-1]
        if n.type != "identifier":
            raise Unsupported(f"line {n.start_point[0] + 1}: an access through `{self.src.node_text(n)}`")
        name = self.src.node_text(n)
        ref = next((sc[name] for sc in reversed(scopes) if name in sc), None)
        if isinstance(ref, SharedRef):  # through a local pointer: the array it holds now
            if len(idx) != 1 or self.shared[ref.name][0] and len(self.shared[ref.name][0]) != 1:
                raise Unsupported(f"line {n.start_point[0] + 1}: a pointer into a 2-D shared array")
            return ref.name, idx
        return name, idx

    def _read(self, name, idx, t, n):
        if name in self.shared:
            f = self.flat(name, idx)
            key = (name, f)
            own = self.owner.get(key)
            if own is not None and own[1] == self.epoch and own[0] != t:
                raise Race(f"line {n.start_point[0] + 1}: thread {t} reads {name}[{f}], which thread {own[0]} "
                           "wrote in the same step (no barrier between)")
            ep, who = self.readers.get(key, (-1, set()))
            if ep != self.epoch:
                ep, who = self.epoch, set()
                self.readers[key] = (ep, who)
            who.add(t)
            self.shared_reads.add((self.stage, name, f))
            v = self.shared[name][1].get(f, UNSET)
            if v is UNSET:
                raise Unsupported(f"line {n.start_point[0] + 1}: {name}[{f}] read before it is set")
            return v
        if name in self.pointers:
            if len(idx) != 1:
                raise Unsupported(f"line {n.start_point[0] + 1}: {name} indexed twice")
            key = (name, idx[0])
            if key in self.gmem:
                return self.gmem[key]
            if key not in self.loads:
                self.loads[key] = Data(self.rng.randrange(1, 1 << 20))
            return self.loads[key]
        raise Unsupported(f"line {n.start_point[0] + 1}: `{name}` is not an array the block simulation knows")

    def _write(self, left, v, scopes, t):
        if left.type == "identifier":
            name = self.src.node_text(left)
            for sc in reversed(scopes):
                if name in sc:
                    sc[name] = v
                    return
            if name in self.shared and not self.shared[name][0]:
                return self._store_shared(name, 0, v, t, left)
            raise Unsupported(f"line {left.start_point[0] + 1}: an assignment to `{name}`")
        if left.type == "parenthesized_expression":
            return self._write(left.named_children[-1], v, scopes, t)
        if left.type != "subscript_expression":
            raise Unsupported(f"line {left.start_point[0] + 1}: an assignment through `{self.src.node_text(left)}`")
        name, idx = self._place(left, scopes, t)
        if name in self.shared:
            self._store_shared(name, self.flat(name, idx), v, t, left)
        elif name in self.pointers:
            self.gmem[(name, idx[0])] = v
            self.stores.append((name, idx[0], v, t, self.stage, left))
        else:
            raise Unsupported(f"line {left.start_point[0] + 1}: a store to `{name}`")

    def _store_shared(self, name, f, v, t, left):
        key = (name, f)
        ep, who = self.readers.get(key, (-1, set()))
        if ep == self.epoch and who - {t}:
            raise Race(f"line {left.start_point[0] + 1}: thread {t} writes {name}[{f}], which thread "
                       f"{min(who - {t})} read in the same step (no barrier between)")
        own = self.owner.get(key)
        if own is not None and own[1] == self.epoch and own[0] != t:
            raise Race(f"line {left.start_point[0] + 1}: threads {own[0]} and {t} both write {name}[{f}] "
                       "in the same step")
        self.owner[key] = (t, self.epoch)
        self.shared[name][1][f] = v
