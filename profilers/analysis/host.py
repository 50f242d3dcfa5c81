"""What the host code says about a kernel's launch: its arguments, grid, block and dynamic shared
memory at a `<<<...>>>` launch, and the byte counts of the buffers it passes (`cudaMalloc`,
`cudaMemcpy`), as launch-spec expressions over the host's own names.

A name is followed to its definition before the launch (`int threads = (n + 3) / 4;`), through a
`dim3` (`grid.x`), through a wrapper's parameter to the one call of the wrapper, and through
`#define`s. A host name that stops there (a parameter nobody calls with a value, `atoi(argv[1])`,
`const int N = 1 << 20;`) becomes a size: `SizeName` with the value the code gives it, if any. A
constant the kernel itself also uses is fixed: it is written as its number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter as ts

from ..source import SourceFile, parse_source, walk
from .types import table_for, words

_CDIV = re.compile(r"(?i)^(i?div_?up|ceil_?div|cdiv|div_?round_?up|ceildiv|div_ceil|round_?up_?div|blocks?_?for)$")
_MINMAX = {"min": "min", "max": "max", "fmin": "min", "fmax": "max", "fminf": "min", "fmaxf": "max",
           "MIN": "min", "MAX": "max", "umin": "min", "umax": "max"}
_CEIL = ("ceil", "ceilf", "ceill")
_INTS = ("int", "unsigned", "unsigned int", "size_t", "long", "long long", "int64_t", "uint32_t", "int32_t",
         "uint64_t", "unsigned long", "unsigned long long", "uint")
_RESERVED = {"cdiv", "ceil_div", "min", "max", "and", "or", "not", "if", "else", "in", "is", "for", "while", "lambda"}
ALLOC = ("cudaMalloc", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocPitch")
COPY = ("cudaMemcpy", "cudaMemcpyAsync")


@dataclass
class SizeName:
    """A host name that is a size of the problem."""
    name: str
    value: int | None  # the value the code gives it (None: none found)
    why: str  # where it came from


@dataclass
class Value:
    """A host expression as a launch-spec expression (None where it could not be followed)."""
    text: str | None
    why: str
    is_float: bool = False


@dataclass
class HostLaunch:
    """One launch of the kernel in host code, as launch-spec expressions."""
    file: str
    line: int
    written: str  # `<<<grid, block>>>` as written
    function: str  # the host function it is in
    args: list[Value]  # one per argument as passed
    grid: list[Value] | None
    block: list[Value] | None
    shared: Value | None
    alloc_bytes: dict[int, Value] = field(default_factory=dict)  # argument index -> bytes of its buffer
    arg_types: dict[int, str] = field(default_factory=dict)  # argument index -> pointee type of the host pointer
    template_args: list[str] = field(default_factory=list)
    names: dict[str, SizeName] = field(default_factory=dict)
    # the template arguments came from the host function template around the launch (`k<T><<<...>>>` in
    # `launch<T>`): the file may instantiate the kernel more than once through it
    outer_template: bool = False


def _outer_template_args(f: SourceFile, fn) -> dict[str, str]:
    """For a host function template, its template parameters -> the arguments of its instantiation in the file
    (`template void launch<float>(...);` or a call `launch<float>(...)`), the first where there are several (the
    spec runs one; its comment says which: `# runs the instantiation k<float>`); {} where there is none."""
    t, owner = fn.parent, _fn_name(f, fn)
    while t is not None and t.type in ("field_declaration_list", "class_specifier", "struct_specifier"):
        if t.type in ("class_specifier", "struct_specifier") and t.child_by_field_name("name") is not None:
            owner = f.node_text(t.child_by_field_name("name"))  # a method of `template <class T> class S`: S<float>
        t = t.parent
    if t is None or t.type != "template_declaration":
        return {}
    names = []
    for p in t.child_by_field_name("parameters").named_children:
        nm = p.child_by_field_name("name") or p.child_by_field_name("declarator")
        if nm is None:
            nm = next((c for c in p.named_children if c.type in ("type_identifier", "identifier")), None)
        names.append(f.node_text(nm) if nm is not None else "")
    call = r"\s*\(" if owner == _fn_name(f, fn) else ""  # a function's instantiation or call; a class's use
    code = _code_only(f)
    found = []
    for m in re.finditer(rf"\b{re.escape(owner)}\s*<([^<>]*)>{call}".encode(), code):  # (bytes: node offsets)
        args = tuple(a.strip() for a in m.group(1).decode("utf-8", "replace").split(","))
        if not _inside_template_using(f, m.start(), args):  # (`launch<T>` in a template is no instantiation)
            found.append(args)
    if not found:
        return {}
    args = found[0]
    return {n: a for n, a in zip(names, args) if n and a}


def _code_only(f: SourceFile) -> bytes:
    """The file's bytes with its comments and string literals blanked (the same length)."""
    text = bytearray(f.data)
    for n in walk(f.root):
        if n.type in ("comment", "string_literal", "raw_string_literal"):
            text[n.start_byte:n.end_byte] = b" " * (n.end_byte - n.start_byte)
    return bytes(text)


def _inside_template_using(f: SourceFile, at: int, args: tuple) -> bool:
    """The text at byte `at` lies in a template declaration one of whose parameters the arguments name."""
    n = f.root.descendant_for_byte_range(at, at)
    while n is not None:
        if n.type == "template_declaration":
            params = n.child_by_field_name("parameters")
            for p in params.named_children if params is not None else ():
                nm = p.child_by_field_name("name") or p.child_by_field_name("declarator") or next(
                    (c for c in p.named_children if c.type in ("type_identifier", "identifier")), None)
                if nm is not None and any(re.search(rf"\b{re.escape(f.node_text(nm))}\b", a) for a in args):
                    return True
        n = n.parent
    return False


def _fn_of(n) -> ts.Node | None:
    while n is not None and n.type != "function_definition":
        n = n.parent
    return n


def _fn_name(src: SourceFile, fn) -> str:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    name = d.child_by_field_name("declarator") if d is not None else None
    return src.node_text(name).split("::")[-1] if name is not None else ""


def _fn_params(src: SourceFile, fn) -> list[tuple[str, ts.Node]]:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    plist = d.child_by_field_name("parameters") if d is not None else None
    out = []
    for p in plist.named_children if plist is not None else []:
        dd = p.child_by_field_name("declarator")
        while dd is not None and dd.type != "identifier":
            dd = dd.child_by_field_name("declarator")
        if dd is not None:
            out.append((src.node_text(dd), p))
    return out


def _num(text: str) -> int | float | None:
    t = text.strip().rstrip("uUlL")
    try:
        return int(t, 0)
    except ValueError:
        pass
    t = text.strip().rstrip("fFlL")
    try:
        return float(t)
    except ValueError:
        return None


def _unparen(n):
    while n is not None and n.type == "parenthesized_expression" and n.named_children:
        n = n.named_children[0]
    return n


def _mini(text: str, like: SourceFile) -> tuple[SourceFile, ts.Node] | None:
    """(its own parse, the expression node) of `text` (macro bodies, dim3 parts)."""
    sub = SourceFile(f"void kp_f() {{ long long kp_x = {text}; }}", like.path)
    sub.constants, sub.macros = like.constants, like.macros
    d = next((x for x in walk(sub.root) if x.type == "init_declarator"), None)
    v = d.child_by_field_name("value") if d is not None else None
    return (sub, v) if v is not None else None


class Host:
    """Host expressions of a set of files (the kernel's file and the .cu files including it) as spec text."""

    def __init__(self, files: list[SourceFile], device_names: set[str]):
        self.files = files
        self.device_names = device_names  # identifiers the kernel uses itself: their #defines are fixed
        self.names: dict[str, SizeName] = {}
        self.fixed: dict[str, int] = {}  # host names whose value is used as a number (the block's)
        self._busy: set = set()
        self.defines: dict[str, tuple[SourceFile, ts.Node]] = {}
        for f in files:
            for n in walk(f.root):
                if n.type == "preproc_def" and n.child_by_field_name("value") is not None:
                    self.defines.setdefault(f.node_text(n.child_by_field_name("name")), (f, n))

    # --- the entry points -----------------------------------------------------------------------
    def launches(self, kernel: str) -> list[HostLaunch]:
        out = []
        for f in self.files:
            for n in walk(f.root):
                if n.type != "call_expression":
                    continue
                cfg = next((c for c in n.children if c.type == "kernel_call_syntax"), None)
                fn = n.child_by_field_name("function")
                if cfg is None or fn is None or f.node_text(fn).split("<")[0].split("::")[-1].strip() != kernel:
                    continue
                out.append(self._launch(f, n, cfg, fn))
        return out

    def _launch(self, f: SourceFile, n, cfg, fn) -> HostLaunch:
        self.names, self.fixed = {}, {}
        parts = [c for c in cfg.named_children if c.type != "comment"]
        call_args = n.child_by_field_name("arguments")
        args = [c for c in call_args.named_children if c.type != "comment"] if call_args is not None else []
        func = _fn_of(n)
        block = self.dims(f, parts[1]) if len(parts) > 1 else None
        # a constant the block uses (`#define BLOCK 256`, `int threads = 256;`) is fixed, not a size
        fixed = {k: v.value for k, v in self.names.items() if v.value is not None}
        if fixed:
            self.fixed.update(fixed)
            self.names = {}
            block = self.dims(f, parts[1])
        grid = self.dims(f, parts[0]) if parts else None
        shared = self.value(f, parts[2]) if len(parts) > 2 else None
        vals = [self.value(f, a) for a in args]
        alloc, types = {}, {}
        for i, a in enumerate(args):
            b = self.alloc_bytes(f, a)
            if b is not None:
                alloc[i] = b
            t = self.pointee(f, a)
            if t:
                types[i] = t
        targs = fn.child_by_field_name("arguments") if fn.type == "template_function" else None
        tlist = [" ".join(f.node_text(x).split()) for x in targs.named_children] if targs is not None else []
        outer = _outer_template_args(f, func) if func is not None else {}
        if outer:  # `k<T><<<...>>>` in `template <typename T> void launch(...)`: T as that function is instantiated
            tlist = [outer.get(t, t) for t in tlist]
            types = {i: outer.get(t, t) for i, t in types.items()}
        # `constexpr int TILE = 16; k<T, TILE><<<...>>>`: the launching function's own constant, by its value
        tlist = [str(v) if t in f._scoped and (v := f._scoped_constant(t, n, None)) is not None else t for t in tlist]
        return HostLaunch(f.path, n.start_point[0] + 1, f.node_text(cfg), _fn_name(f, func) if func else "",
                          vals, grid, block, shared, alloc, types, tlist, dict(self.names), outer_template=bool(outer))

    # --- values ---------------------------------------------------------------------------------
    def value(self, f: SourceFile, n) -> Value:
        try:
            text, isf = self._expr(f, n)
        except _Stop as e:
            return Value(None, str(e))
        real, node = (n.home, n.at) if isinstance(n, _Borrowed) else (f, n)
        return Value(text, f"`{' '.join(real.node_text(node).split())}` at {Path(real.path).name}:{node.start_point[0] + 1}",
                     isf)

    def dims(self, f: SourceFile, n) -> list[Value] | None:
        """A launch's grid or block: `dim3(a, b)`, a dim3 variable, or one expression."""
        n = _unparen(n)
        parts = self._dim3_parts(f, n)
        if parts is None:
            return [self.value(f, n)]
        return [self.value(f, p) for p in parts]

    def _dim3_parts(self, f: SourceFile, n) -> list | None:
        if n.type == "call_expression" and f.node_text(n.child_by_field_name("function")).strip() == "dim3":
            return [c for c in n.child_by_field_name("arguments").named_children if c.type != "comment"]
        if n.type == "identifier":
            d = self._dim3_decl(f, n)
            if d is not None:
                return d
        return None

    def _dim3_decl(self, f: SourceFile, use) -> list | None:
        name = f.node_text(use)
        fn = _fn_of(use)
        if fn is None:
            return None
        found = None
        for d in walk(fn):
            if d.start_byte >= use.start_byte:
                break
            if d.type != "declaration" or "dim3" not in f.node_text(d.child_by_field_name("type") or d):
                continue
            if not (d.parent is not None and d.parent.start_byte <= use.start_byte < d.parent.end_byte):
                continue
            for dd in d.children_by_field_name("declarator"):
                nm = dd.child_by_field_name("declarator") if dd.type != "identifier" else dd
                if nm is not None and f.node_text(nm) == name:
                    found = dd
        if found is None:
            return None
        if found.type == "identifier":
            return []
        if found.type == "function_declarator":  # `dim3 block(BM, BN)`: names parse as parameters
            plist = found.child_by_field_name("parameters")
            out = []
            for p in plist.named_children if plist is not None else []:
                m = _mini(f.node_text(p), f)
                if m is None:
                    return None
                out.append(_Borrowed(m[0], m[1], f, p))
            return out
        v = found.child_by_field_name("value")
        if v is None:
            return None
        v = _unparen(v)
        if v.type in ("argument_list", "initializer_list"):
            return [c for c in v.named_children if c.type != "comment"]
        if v.type == "call_expression" and f.node_text(v.child_by_field_name("function")).strip() == "dim3":
            return [c for c in v.child_by_field_name("arguments").named_children if c.type != "comment"]
        return [v]

    def _expr(self, f: SourceFile, n) -> tuple[str, bool]:
        if isinstance(n, _Borrowed):
            return self._expr_at(n.src, n.node, n.at, n.home)
        return self._expr_at(f, n, n)

    def _expr_at(self, f: SourceFile, n, at, scope: SourceFile | None = None) -> tuple[str, bool]:
        """(spec text, is float) of a host expression node of `f`; `at` is the place in `scope` (default f)
        whose names it uses (None: only the file's #defines and constants)."""
        scope = scope or f
        t = n.type
        if t == "number_literal":
            v = _num(f.node_text(n))
            if v is None:
                raise _Stop(f"the number {f.node_text(n)!r}")
            return (repr(v) if isinstance(v, float) else str(v)), isinstance(v, float)
        if t in ("true", "false"):
            return ("1" if t == "true" else "0"), False
        if t == "parenthesized_expression":
            a, isf = self._expr_at(f, n.named_children[0], at, scope)
            return f"({a})", isf
        if t == "cast_expression":
            ty = words(f.node_text(n.child_by_field_name("type")))
            a, isf = self._expr_at(f, n.child_by_field_name("value"), at, scope)
            inner = _unparen(n.child_by_field_name("value"))
            if isf and ty in _INTS and inner is not None and inner.type == "binary_expression" \
                    and f.node_text(inner.child_by_field_name("operator")) == "/":  # `(size_t)(M / (float)256)`:
                x, _ = self._expr_at(f, inner.child_by_field_name("left"), at, scope)  # truncated, so M // 256
                y, _ = self._expr_at(f, inner.child_by_field_name("right"), at, scope)
                return f"(({x}) // ({y}))", False
            return a, (isf or ty in ("float", "double")) and ty not in _INTS
        if t == "unary_expression":
            op = f.node_text(n.child_by_field_name("operator"))
            a, isf = self._expr_at(f, n.child_by_field_name("argument"), at, scope)
            if op not in ("-", "+"):
                raise _Stop(f"the operator {op}")
            return f"{op}({a})", isf
        if t == "binary_expression":
            return self._binary(f, n, at, scope)
        if t == "sizeof_expression":
            return str(self._sizeof(f, n, scope if at is not None else None)), False
        if t == "identifier":
            return self._name(f, n, at, scope)
        if t == "field_expression":
            return self._field(f, n, at, scope)
        if t == "call_expression":
            return self._call(f, n, at, scope)
        if t == "conditional_expression":
            raise _Stop(f"`{' '.join(f.node_text(n).split())}` chooses at run time")
        raise _Stop(f"`{' '.join(f.node_text(n).split())}`")

    def _binary(self, f, n, at, scope) -> tuple[str, bool]:
        op = f.node_text(n.child_by_field_name("operator"))
        a, fa = self._expr_at(f, n.child_by_field_name("left"), at, scope)
        b, fb = self._expr_at(f, n.child_by_field_name("right"), at, scope)
        isf = fa or fb
        if op in ("+", "-", "*"):
            return f"({a}) {op} ({b})", isf
        if op == "/":
            return f"({a}) {'/' if isf else '//'} ({b})", isf
        if op == "%" and not isf:
            return f"({a}) % ({b})", False
        if op in ("<<", ">>") and not isf:
            return (f"({a}) * 2 ** ({b})" if op == "<<" else f"({a}) // 2 ** ({b})"), False
        raise _Stop(f"the operator {op} in `{' '.join(f.node_text(n).split())}`")

    def _call(self, f, n, at, scope) -> tuple[str, bool]:
        fn = n.child_by_field_name("function")
        name = f.node_text(fn).strip()
        base = name.rsplit("::", 1)[-1]
        args = [c for c in n.child_by_field_name("arguments").named_children if c.type != "comment"]
        if (base.startswith("static_cast") or base in _INTS) and len(args) == 1:
            a, _ = self._expr_at(f, args[0], at, scope)
            return a, False
        if base in _CEIL and len(args) == 1:
            inner = _unparen(args[0])
            while inner is not None and inner.type == "cast_expression":
                inner = _unparen(inner.child_by_field_name("value"))
            if inner is not None and inner.type == "binary_expression" and f.node_text(inner.child_by_field_name("operator")) == "/":
                x, _ = self._expr_at(f, inner.child_by_field_name("left"), at, scope)
                y, _ = self._expr_at(f, inner.child_by_field_name("right"), at, scope)
                return f"cdiv({x}, {y})", False
            a, _ = self._expr_at(f, args[0], at, scope)
            return a, False
        if base in _MINMAX and len(args) == 2:
            x, fx = self._expr_at(f, args[0], at, scope)
            y, fy = self._expr_at(f, args[1], at, scope)
            return f"{_MINMAX[base]}({x}, {y})", fx or fy
        if _CDIV.match(base) and len(args) == 2:
            x, _ = self._expr_at(f, args[0], at, scope)
            y, _ = self._expr_at(f, args[1], at, scope)
            return f"cdiv({x}, {y})", False
        if name in f.macros:
            params, body = f.macros[name]
            if len(params) == len(args) and "#" not in body:
                table = {p: f"({f.node_text(a)})" for p, a in zip(params, args)}
                text = re.sub(r"[A-Za-z_]\w*", lambda m: table.get(m.group(0), m.group(0)), body)
                m = _mini(text, f)
                if m is not None:
                    return self._expr_at(m[0], m[1], at, scope if at is not None else None)
        raise _Stop(f"the call `{' '.join(f.node_text(n).split())}`")

    def _sizeof(self, f: SourceFile, n, scope) -> int:
        ty = n.child_by_field_name("type")
        text = f.node_text(ty) if ty is not None else None
        if text is None and scope is f:
            v = _unparen(n.child_by_field_name("value"))
            if v is not None and v.type == "pointer_expression" and f.node_text(v).startswith("*"):
                text = self._declared(f, v.child_by_field_name("argument"), pointee=True)
            elif v is not None and v.type == "subscript_expression":
                text = self._declared(f, v.child_by_field_name("argument"), pointee=True)
            elif v is not None:
                text = self._declared(f, v, pointee=False)
        size = table_for(f).bytes(text) if text else None
        if size is None:
            raise _Stop(f"`{f.node_text(n)}`")
        return size

    def _declared(self, f: SourceFile, ident, pointee: bool) -> str | None:
        """The declared type of a name (its pointee with pointee=True) in its function."""
        if ident is None or ident.type != "identifier":
            return None
        d = self._definition(f, ident, decl_only=True)
        if d is None or d[0].type != "declaration":
            fn = _fn_of(ident)
            for pname, pnode in _fn_params(f, fn) if fn is not None else []:
                if pname == f.node_text(ident):
                    t = pnode.child_by_field_name("type")
                    if t is not None and (not pointee or "*" in f.node_text(pnode)):
                        return f.node_text(t)
            return None
        decl, dec = d
        t = decl.child_by_field_name("type")
        if t is None:
            return None
        head = f.node_text(dec).split("=")[0] if dec is not None else self._declarator_text(f, decl, ident)
        if pointee and "*" not in head:
            return None
        return f.node_text(t)

    def _declarator_text(self, f: SourceFile, decl, ident) -> str:
        for dec in decl.children_by_field_name("declarator"):
            if f.node_text(ident) in f.node_text(dec):
                return f.node_text(dec)
        return ""

    def pointee(self, f: SourceFile, a) -> str | None:
        """The element type of a host pointer passed at a launch (for a template's T)."""
        n = self._strip(f, a)
        return self._declared(f, n, pointee=True) if n is not None else None

    def _field(self, f, n, at, scope) -> tuple[str, bool]:
        arg, fld = n.child_by_field_name("argument"), n.child_by_field_name("field")
        if arg is not None and arg.type == "identifier" and fld is not None and f.node_text(fld) in ("x", "y", "z") \
                and scope is f:
            parts = self._dim3_decl(f, arg)
            if parts is not None:
                i = "xyz".index(f.node_text(fld))
                if i >= len(parts):
                    return "1", False
                return self._expr(f, parts[i]) if isinstance(parts[i], _Borrowed) else \
                    self._expr_at(f, parts[i], parts[i])
        raise _Stop(f"`{f.node_text(n)}`")

    # --- names ----------------------------------------------------------------------------------
    def _name(self, f: SourceFile, n, at, scope) -> tuple[str, bool]:
        name = f.node_text(n)
        key = (scope.path, name, at.start_byte if at is not None else -1)
        if key in self._busy:
            raise _Stop(f"{name} is defined in terms of itself")
        self._busy.add(key)
        try:
            return self._resolve(name, at, scope)
        finally:
            self._busy.discard(key)

    def _resolve(self, name: str, at, f: SourceFile) -> tuple[str, bool]:
        """A name used at `at` in `f` (at None: a #define's body, no locals)."""
        line = lambda x: f"{Path(f.path).name}:{x.start_point[0] + 1}"  # noqa: E731
        d = self._definition(f, at, name=name) if at is not None else None
        if d is not None:
            decl, dec = d
            if decl.type == "for_statement":  # a loop over sizes: its first value
                v = self._constant(f, dec)
                if v is not None and v <= 0:  # a counter from 0 (an index into a batch): any value of its range
                    return self._size(name, None, f"the loop at {line(decl)} (from {v}: a size is positive)"), False
                return self._size(name, v, f"the loop at {line(decl)} (its first value)"), False
            if dec is None:
                raise _Stop(f"{name} has no value before {line(at)}")
            value = dec.child_by_field_name("value") if dec.type == "init_declarator" else \
                dec.child_by_field_name("right")
            if value is None:
                raise _Stop(f"{name} has no value before {line(at)}")
            ty = decl.child_by_field_name("type") if decl.type == "declaration" else None
            isf = ty is not None and words(f.node_text(ty)) in ("float", "double")
            v = self._constant(f, value)
            if v is not None and not isf:  # `int N = 1 << 20;`: a size the host sets
                return self._size(name, v, f"`{' '.join(f.node_text(dec).split())}` at {line(dec)}"), False
            try:
                text, f2 = self._expr_at(f, value, value)
                return f"({text})", f2 or isf
            except _Stop:
                default = self._default(f, value)
                return self._size(name, default, f"`{' '.join(f.node_text(dec).split())}` at {line(dec)}"
                                  + ("" if default is None else " (its default)")), False
        fn = _fn_of(at) if at is not None else None
        if fn is not None:
            params = [p for p, _ in _fn_params(f, fn)]
            if name in params:
                return self._param(f, fn, params.index(name), name)
        g = self._global(name)
        if g is not None:  # `int N = 1 << 20;` at file scope
            gf, dec = g
            value = dec.child_by_field_name("value")
            v = self._constant(gf, value)
            if v is not None:
                if name in self.device_names:
                    return str(v), False
                return self._size(name, v, f"`{' '.join(gf.node_text(dec).split())}` at "
                                           f"{Path(gf.path).name}:{dec.start_point[0] + 1}"), False
            return self._expr_at(gf, value, value)
        if name in self.defines:
            df, dn = self.defines[name]
            m = _mini(df.node_text(dn.child_by_field_name("value")).strip(), df)
            v = self._constant(m[0], m[1]) if m is not None else None
            if v is not None:
                if name in self.device_names:
                    return str(v), False
                return self._size(name, v, f"#define {name} at {Path(df.path).name}:{dn.start_point[0] + 1}"), False
            if m is not None:
                return self._expr_at(m[0], m[1], None)
        if name in f.constants:
            return (str(f.constants[name]) if name in self.device_names
                    else self._size(name, f.constants[name], f"the constant {name}")), False
        return self._size(name, None, f"{name}, a name with no value here"), False

    def _global(self, name: str):
        """(file, init_declarator) of a file-scope variable with a value."""
        for g in self.files:
            for d in g.root.named_children:
                if d.type != "declaration":
                    continue
                for dec in d.children_by_field_name("declarator"):
                    nm = dec.child_by_field_name("declarator") if dec.type == "init_declarator" else None
                    if nm is not None and nm.type == "identifier" and g.node_text(nm) == name \
                            and dec.child_by_field_name("value") is not None:
                        return g, dec
        return None

    def _param(self, f: SourceFile, fn, index: int, name: str) -> tuple[str, bool]:
        """A host function's parameter: its argument at the function's one call (if there is one)."""
        fname = _fn_name(f, fn)
        calls = []
        for g in self.files:
            for c in walk(g.root):
                if c.type == "call_expression" and not any(x.type == "kernel_call_syntax" for x in c.children):
                    fnode = c.child_by_field_name("function")
                    if fnode is not None and g.node_text(fnode).split("<")[0].split("::")[-1].strip() == fname:
                        args = [a for a in c.child_by_field_name("arguments").named_children if a.type != "comment"]
                        if index < len(args):
                            calls.append((g, args[index]))
        if len(calls) == 1:
            g, a = calls[0]
            try:
                return self._expr_at(g, a, a)
            except _Stop:
                pass
        return self._size(name, None, f"a parameter of {fname}()"), False

    def _size(self, name: str, value, why: str) -> str:
        if name in self.fixed and self.fixed[name] is not None and value is not None:
            return str(self.fixed[name])
        spec = name if name not in _RESERVED else name + "_"
        old = self.names.get(spec)
        if old is None or (old.value is None and value is not None):
            self.names[spec] = SizeName(spec, int(value) if isinstance(value, (int, float)) and value == int(value)
                                        else None, why)
        return spec

    def _constant(self, f: SourceFile, n) -> int | None:
        """The value of a constant expression (literals, #defines, sizeof), else None."""
        if n is None:
            return None
        saved = self.names
        self.names = {}
        try:
            text, isf = self._expr_at(f, n, n)
            names = self.names
        except _Stop:
            return None
        finally:
            self.names = saved
        if names:
            return None
        try:
            v = eval(compile(text, "<host>", "eval"), {"__builtins__": {}},  # numbers and operators only
                     {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max})
        except Exception:  # noqa: BLE001
            return None
        return int(v) if isinstance(v, (int, float)) and v == int(v) and not isf else None

    def _default(self, f: SourceFile, value) -> int | None:
        """The constant branch of `argc > 1 ? atoi(argv[1]) : 1024` (a command line's default)."""
        for c in walk(value):
            if c.type == "conditional_expression":
                for side in ("alternative", "consequence"):
                    v = self._constant(f, c.child_by_field_name(side))
                    if v is not None:
                        return v
        return None

    def _definition(self, f: SourceFile, use, name: str | None = None, decl_only: bool = False):
        """(declaration, declarator) or (assignment, assignment) that gives `name` its value at `use`: the
        last one before it in a block around it; (for_statement, start value) for a loop counter there."""
        name = name or f.node_text(use)
        fn = _fn_of(use)
        if fn is None:
            return None
        best = None
        for d in walk(fn):
            if d.start_byte >= use.start_byte:
                break
            scope = d.parent
            if d.type == "declaration":
                if scope is not None and scope.type == "for_statement":
                    if not (scope.start_byte <= use.start_byte < scope.end_byte):
                        continue
                    for dec in d.children_by_field_name("declarator"):
                        nm = dec.child_by_field_name("declarator") if dec.type == "init_declarator" else dec
                        if nm is not None and f.node_text(nm) == name:
                            best = (scope, dec.child_by_field_name("value"))
                    continue
                if scope is None or not (scope.start_byte <= use.start_byte < scope.end_byte):
                    continue
                for dec in d.children_by_field_name("declarator"):
                    nm = dec
                    while nm is not None and nm.type not in ("identifier",):
                        nm = nm.child_by_field_name("declarator")
                    if nm is not None and f.node_text(nm) == name:
                        best = (d, dec if dec.type == "init_declarator" else None)
            elif d.type == "assignment_expression" and not decl_only:
                left = d.child_by_field_name("left")
                if left is None or f.node_text(left) != name or f.node_text(d.child_by_field_name("operator")) != "=":
                    continue
                blk = d.parent.parent if d.parent is not None else None
                if blk is not None and blk.start_byte <= use.start_byte < blk.end_byte:
                    best = (d, d)
        return best

    # --- buffers --------------------------------------------------------------------------------
    def _strip(self, f: SourceFile, a) -> ts.Node | None:
        """The host pointer an argument names: `d_x`, `(float*)d_x`, `d_x.data()`, `thrust::raw_pointer_cast(...)`."""
        n = _unparen(a)
        while n is not None:
            if n.type == "cast_expression":
                n = _unparen(n.child_by_field_name("value"))
            elif n.type == "call_expression":
                args = n.child_by_field_name("arguments")
                fn = f.node_text(n.child_by_field_name("function"))
                if fn.endswith(("raw_pointer_cast", "data_ptr")) and args is not None and len(args.named_children) == 1:
                    n = _unparen(args.named_children[0])
                elif fn.endswith((".data", ".get")):
                    n = n.child_by_field_name("function").child_by_field_name("argument")
                else:
                    return None
            elif n.type == "identifier":
                return n
            else:
                return None
        return None

    def alloc_bytes(self, f: SourceFile, a, depth: int = 0) -> Value | None:
        """The byte count of the buffer an argument names: `cudaMalloc(&d_x, bytes)` or a `cudaMemcpy` of it."""
        n = self._strip(f, a)
        if n is None:
            return None
        name = f.node_text(n)
        fn = _fn_of(n)
        if fn is None:
            return None
        found = None
        for c in walk(fn):
            if c.type != "call_expression":
                continue
            callee = f.node_text(c.child_by_field_name("function")).strip().rsplit("::", 1)[-1]
            args = [x for x in c.child_by_field_name("arguments").named_children if x.type != "comment"]
            if callee in ALLOC and len(args) >= 2:
                target = _unparen(args[0])
                while target is not None and target.type == "cast_expression":
                    target = _unparen(target.child_by_field_name("value"))
                if target is not None and target.type == "pointer_expression" and \
                        f.node_text(target.child_by_field_name("argument")).strip() == name:
                    found = (c, args[1] if callee != "cudaMallocPitch" else None, callee)
                    break
            elif callee in COPY and len(args) >= 3 and found is None:
                kinds = f.node_text(args[3]) if len(args) > 3 else ""
                pos = 0 if "HostToDevice" in kinds or "DeviceToDevice" in kinds else 1 if "DeviceToHost" in kinds else None
                for i in ((pos,) if pos is not None else (0, 1)):
                    s = self._strip(f, args[i])
                    if s is not None and f.node_text(s) == name:
                        found = (c, args[2], callee)
        if found is None:  # thrust::device_vector<float> d(n): n elements
            d = self._definition(f, n, decl_only=True)
            if d is not None and d[0].type == "declaration" and "device_vector" in f.node_text(
                    d[0].child_by_field_name("type") or d[0]):
                dec = next((x for x in d[0].children_by_field_name("declarator") if name in f.node_text(x)), None)
                args = dec.child_by_field_name("arguments") or dec.child_by_field_name("value") if dec is not None \
                    else None
                targ = re.search(r"device_vector\s*<\s*([^>,]+)", f.node_text(d[0]))
                item = table_for(f).bytes(targ.group(1).strip()) if targ else None
                if args is not None and args.named_children and item:
                    v = self.value(f, args.named_children[0])
                    if v.text is not None:
                        return Value(f"({v.text}) * {item}", f"the device_vector at {Path(f.path).name}:"
                                                               f"{d[0].start_point[0] + 1}")
        if found is None:
            params = [p for p, _ in _fn_params(f, fn)]
            if name in params and depth < 2:  # a wrapper's pointer parameter: the caller's buffer
                fname, index = _fn_name(f, fn), params.index(name)
                for g in self.files:
                    for c in walk(g.root):
                        fnode = c.child_by_field_name("function") if c.type == "call_expression" else None
                        if fnode is not None and g.node_text(fnode).split("<")[0].split("::")[-1].strip() == fname \
                                and not any(x.type == "kernel_call_syntax" for x in c.children):
                            args = [x for x in c.child_by_field_name("arguments").named_children if x.type != "comment"]
                            if index < len(args):
                                return self.alloc_bytes(g, args[index], depth + 1)
            return None
        call, size, callee = found
        if size is None:
            return None
        v = self.value(f, size)
        if v.text is None:
            return None
        return Value(v.text, f"{callee} at {Path(f.path).name}:{call.start_point[0] + 1}")


class _Borrowed:
    """An expression parsed on its own (a `dim3 b(BM, BN)` part: src, node) and the place it stands for
    (`at` in `home`)."""

    def __init__(self, src: SourceFile, node, home: SourceFile, at):
        self.src, self.node, self.home, self.at = src, node, home, at
        self.type = node.type


class _Stop(Exception):
    """A host expression that cannot be followed; the message says which part."""


def includers(header: Path, limit: int = 200) -> list[Path]:
    """The .cu files beside a header (its folder and the one above) that include it."""
    header = header.resolve()
    out = []
    seen = 0
    for folder in (header.parent, header.parent.parent):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for p in entries:
            if p.suffix not in (".cu", ".cpp", ".cc", ".cxx") or not p.is_file():
                continue
            seen += 1
            if seen > limit:
                return out
            try:
                text = p.read_text(errors="replace")[:1_000_000]
            except OSError:
                continue
            for m in re.finditer(r'#\s*include\s*"([^"]+)"', text):
                try:
                    if (p.parent / m.group(1)).resolve() == header:
                        out.append(p)
                        break
                except OSError:
                    continue
    return out


def device_names(src: SourceFile, body) -> set[str]:
    """Every identifier a kernel's body uses (its `#define`s are fixed, not sizes)."""
    return {src.node_text(n) for n in walk(body) if n.type == "identifier"} if body is not None else set()


def host_files(path: str, text: str | None = None) -> list[SourceFile]:
    """The kernel's file and, for a header, the .cu files that include it."""
    p = Path(path)
    src = parse_source(text if text is not None else p.read_text(errors="replace"), str(p))
    out = [src]
    if p.suffix not in (".cu",):
        for inc in includers(p):
            try:
                out.append(parse_source(inc.read_text(errors="replace"), str(inc)))
            except OSError:
                continue
    return out


