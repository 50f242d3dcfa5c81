"""CUDA source model over tree-sitter-cuda: kernels, parameters, loops, launch sites, includes.

Lines and columns are 1-based; columns count characters (code points) of the line.
"""
from __future__ import annotations


import contextlib
import contextvars
import copy
import re
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter as ts
import tree_sitter_cuda


def _define_value(body: str, constants: dict) -> int | None:
    """The integer a `#define`'s body evaluates to with C's integer arithmetic (`WIDTH / 2`, `(1 << 8) - 1`), its
    names earlier integer constants; None for anything else (a float, a call, an unknown name)."""
    import ast

    body = re.sub(r"/\*.*?\*/|//.*", " ", body.replace("\\\n", " ")).strip()
    if not body or not re.fullmatch(r"[\w\s()+\-*/%<>]+", body) or re.search(r"\d\.|\.\d|[eE][+-]?\d+[fF]?\b", body):
        return None
    if not (re.fullmatch(r"[\w]+", body) or (body.startswith("(") and closes_at_end(body))):
        return None  # `W / 2` unparenthesised: pasted, `2 * R` is not 2 * (W / 2) (the kernel's text is expanded)
    names = set(re.findall(r"[A-Za-z_]\w*", body))
    if any(n not in constants for n in names):
        return None
    try:
        tree = ast.parse(re.sub(r"(\d+)[uUlL]+\b", r"\1", body), mode="eval")
    except SyntaxError:
        return None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return constants[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, (ast.Div, ast.Mod)):
                if b == 0:
                    raise ZeroDivisionError
                q = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)  # C truncates toward zero
                return q if isinstance(n.op, ast.Div) else a - b * q
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.LShift: lambda: a << b, ast.RShift: lambda: a >> b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        raise ValueError
    try:
        return int(ev(tree))
    except (ValueError, ZeroDivisionError, KeyError, TypeError, OverflowError):
        return None


def closes_at_end(t: str) -> bool:
    """t's first '(' (its first character) closes at its end."""
    depth = 0
    for i, ch in enumerate(t):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(t) - 1
    return False


_CHOSEN: contextvars.ContextVar[dict] = contextvars.ContextVar("kernelpro_chosen_instantiation", default={})


@contextlib.contextmanager
def chosen_instantiation(kernel: str, args: tuple[str, ...]):
    """Within it, `SourceFile.instantiated` reads `kernel`'s template values from `args` (the spec's
    `template = [...]`) rather than from the file's launches, which may instantiate it several times."""
    token = _CHOSEN.set({**_CHOSEN.get(), kernel: tuple(args)} if args else _CHOSEN.get())
    try:
        yield
    finally:
        _CHOSEN.reset(token)


@lru_cache(maxsize=1)
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tree_sitter_cuda.language()))


@dataclass
class Param:
    name: str
    type_text: str  # as written, without the name
    base_type: str  # "float", "double", "int", "half", "float4", ...
    is_pointer: bool
    is_const: bool  # pointee is const
    is_restrict: bool
    line: int
    column: int
    end_column: int
    decl_start: int  # byte offsets of the whole parameter declaration
    decl_end: int


@dataclass
class Loop:
    line: int
    end_line: int
    column: int
    var: str | None
    trip_count: int | None  # known at compile time
    pragma_unroll: str | None  # the text after "#pragma unroll" when one precedes the loop
    node: ts.Node = field(repr=False)
    depth: int = 0  # nesting inside the kernel


@dataclass
class Kernel:
    name: str
    line: int  # line of the name
    column: int
    end_column: int
    start_line: int  # first line of the definition (qualifiers)
    end_line: int
    params: list[Param]
    launch_bounds: tuple[int, ...] | None
    is_template: bool
    node: ts.Node = field(repr=False)
    body: ts.Node | None = field(repr=False, default=None)
    loops: list[Loop] = field(default_factory=list)
    signature: list[Param] = field(default_factory=list)  # every parameter in order, unnamed ones with name ""
    template_params: list[tuple[str, str]] = field(default_factory=list)  # ("type" | "value", name)
    file: str = ""  # the file that defines it
    launch_bounds_nodes: list[ts.Node] = field(default_factory=list, repr=False)  # `__launch_bounds__(...)` arguments

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def contains_line(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line


@dataclass
class LaunchSite:
    kernel: str
    line: int
    column: int
    grid: str
    block: str
    shared: str | None
    stream: str | None
    block_threads: int | None  # evaluated when the block expression is a constant
    args: list[str] = field(default_factory=list)  # the kernel's arguments as written
    file: str | None = None  # the file it is in
    template_args: list[str] = field(default_factory=list)  # `k<float, BLOCK><<<...>>>`: ["float", "BLOCK"]
    block_node: ts.Node | None = field(default=None, repr=False, compare=False)
    source: "SourceFile | None" = field(default=None, repr=False, compare=False)

    def threads_with(self, env: dict[str, int]) -> int | None:
        """The block's threads with some names bound (a template parameter of the launching code)."""
        if self.source is None or self.block_node is None:
            return self.block_threads
        return self.source.eval_threads(self.block_node, env)


@dataclass
class Include:
    line: int
    header: str
    quoted: bool


_INT_WORDS = {"int", "unsigned", "signed", "long", "short", "size_t", "ptrdiff_t", "int32_t", "int64_t", "uint32_t",
              "uint64_t", "__forceinline__", "inline", "static", "__inline__"}


class SourceFile:
    def __init__(self, text: str, path: str = "<memory>"):
        self.path = path
        self.text = text
        self.data = text.encode("utf-8", errors="replace")
        self.lines = text.split("\n")
        self.tree = _parser().parse(_masked(self.data))
        self.root = self.tree.root_node
        self.constants: dict[str, int] = {}  # #define, namespace-scope const, and (last wins) block-scope const
        self._scoped: set[str] = set()  # names of const integers declared inside a block: looked up by scope
        self.macros: dict[str, tuple[tuple[str, ...], str]] = {}  # function-like: name -> (params, body)
        # `__device__ int at(int x, int y, int nx) { return y * nx + x; }`: name -> (params, the returned expression)
        self.index_functions: dict[str, tuple[tuple[str, ...], str]] = {}
        self.includes: list[Include] = []
        self.kernels: list[Kernel] = []
        self.device_functions: list[str] = []
        self.host_functions: list[str] = []  # extern "C" host functions (launchers a spec's host step calls)
        self.launch_sites: list[LaunchSite] = []
        self._by_name: dict[str, Kernel] = {}
        self.memo: dict = {}  # file-wide values the rules compute once (shared by every view)
        self._scan()

    # --- positions -------------------------------------------------------
    def node_text(self, n: ts.Node) -> str:
        return self.data[n.start_byte : n.end_byte].decode("utf-8", errors="replace")

    def col(self, point: tuple[int, int]) -> int:
        """1-based character column of a tree-sitter (row, byte column) point."""
        row, bcol = point
        line = self.lines[row].encode("utf-8", errors="replace") if row < len(self.lines) else b""
        return len(line[:bcol].decode("utf-8", errors="replace")) + 1

    def pos(self, n: ts.Node) -> tuple[int, int, int, int]:
        """(line, column, end_line, end_column) of a node, 1-based, end exclusive."""
        return n.start_point[0] + 1, self.col(n.start_point), n.end_point[0] + 1, self.col(n.end_point)

    def kernel_at(self, line: int) -> Kernel | None:
        return next((k for k in self.kernels if k.contains_line(line)), None)

    def kernel(self, name: str) -> Kernel | None:
        if len(self._by_name) != len(self.kernels):
            self._by_name = {}
            for k in reversed(self.kernels):
                self._by_name[k.name] = k
        return self._by_name.get(name)

    def view(self, kernels: list[Kernel]) -> "SourceFile":
        """The same file with only `kernels` in scope (the rules iterate `kernels`)."""
        v = copy.copy(self)
        v.kernels = list(kernels)
        v._by_name = {}
        return v

    @property
    def has_errors(self) -> bool:
        return self.root.has_error

    # --- scanning --------------------------------------------------------
    def _shadowed_by_parameter(self, name: str, n) -> bool:
        p = n.parent
        while p is not None and p.type != "function_definition":
            p = p.parent
        if p is None:
            return False
        d = p.child_by_field_name("declarator")
        while d is not None and d.type != "function_declarator":
            d = d.child_by_field_name("declarator")
        params = d.child_by_field_name("parameters") if d is not None else None
        for q in params.named_children if params is not None else []:
            x = q.child_by_field_name("declarator")
            while x is not None and x.type in ("pointer_declarator", "reference_declarator", "array_declarator"):
                x = x.child_by_field_name("declarator") if x.type != "reference_declarator" else x.named_children[-1]
            if x is not None and x.type == "identifier" and self.node_text(x) == name:
                return True
        return False

    def _in_host_function(self, n) -> bool:
        """n is inside a function that is neither `__global__` nor `__device__` (host code: `main`, a launcher)."""
        p = n.parent
        while p is not None and p.type != "function_definition":
            p = p.parent
        if p is None:
            return False
        head = self.data[p.start_byte:p.child_by_field_name("body").start_byte if p.child_by_field_name("body")
                         is not None else p.end_byte]
        return b"__global__" not in head and b"__device__" not in head

    def _scan(self) -> None:
        for n in _walk(self.root):
            t = n.type
            if t == "preproc_include":
                p = n.child_by_field_name("path")
                if p is not None:
                    raw = self.node_text(p)
                    self.includes.append(Include(n.start_point[0] + 1, raw.strip('"<>'), raw.startswith('"')))
            elif t == "preproc_def":
                name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                if name is not None and value is not None:
                    v = _int_literal(self.node_text(value).strip())
                    if v is None:  # `#define RADIUS WIDTH / 2`: an expression of literals and earlier constants
                        v = _define_value(self.node_text(value), self.constants)
                    if v is not None:
                        self.constants[self.node_text(name)] = v
            elif t == "preproc_function_def":
                name, params, value = (n.child_by_field_name(f) for f in ("name", "parameters", "value"))
                if name is not None and params is not None and value is not None:
                    names = tuple(self.node_text(c) for c in params.named_children if c.type == "identifier")
                    if len(names) == len(params.named_children):  # no variadic macros
                        self.macros[self.node_text(name)] = (names, self.node_text(value).strip())
            elif t == "declaration" and _is_const_decl(self, n):
                for d in n.children_by_field_name("declarator"):
                    if d.type == "init_declarator":
                        nm, val = d.child_by_field_name("declarator"), d.child_by_field_name("value")
                        if nm is not None and val is not None and nm.type == "identifier":
                            v = self.eval_int(val)
                            if v is not None and not self._in_host_function(n):  # (`const int F = 300;` in main:
                                self.constants[self.node_text(nm)] = v  # not the kernel's parameter F)
                            if n.parent.type == "compound_statement":
                                self._scoped.add(self.node_text(nm))
        for n in _walk(self.root):
            if n.type == "function_definition":
                self._function(n)
            elif n.type == "call_expression":
                self._launch(n)

    def _function(self, n: ts.Node) -> None:
        quals = {c.type for c in n.children}
        decl = function_declarator(n)
        if decl is None:
            return
        name_node = decl.child_by_field_name("declarator")
        if name_node is None:
            return
        name = self.node_text(name_node).split("::")[-1]
        if "__global__" not in quals:
            if "__device__" in quals:
                self.device_functions.append(name)
                self._index_function(n, decl, name)
            elif _extern_c(self, n):
                self.host_functions.append(name)
            return
        lb, lb_nodes = None, []
        for c in n.children:
            if c.type == "launch_bounds":
                lb_nodes = list(c.named_children)
                vals = [self.eval_int(x) for x in c.named_children]
                lb = tuple(v for v in vals if v is not None) or None
        params, signature = [], []
        plist = decl.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else []:
            if p.type in ("parameter_declaration", "optional_parameter_declaration"):  # (`float alpha = 1.0f`)
                prm = self._param(p)
                if prm:
                    params.append(prm)
                elif self.node_text(p).strip() != "void":
                    prm = self._unnamed_param(p)
                signature.append(prm)
        line, col, _, ecol = self.pos(name_node)
        parent = n.parent
        k = Kernel(
            name=name, line=line, column=col, end_column=ecol,
            start_line=n.start_point[0] + 1, end_line=n.end_point[0] + 1,
            params=params, launch_bounds=lb,
            is_template=parent is not None and parent.type == "template_declaration",
            node=n, body=n.child_by_field_name("body"), signature=[x for x in signature if x is not None],
            template_params=self._template_params(parent), file=self.path, launch_bounds_nodes=lb_nodes,
        )
        if k.body is not None:
            k.loops = self._loops(k.body)
        self.kernels.append(k)

    def _index_function(self, n: ts.Node, decl: ts.Node, name: str) -> None:
        """A `__device__` function of integer parameters that returns one integer expression: an index helper."""
        t, body = n.child_by_field_name("type"), n.child_by_field_name("body")
        if t is None or body is None or n.parent is None or n.parent.type == "template_declaration" \
                or not _INT_WORDS.issuperset(self.node_text(t).replace("const", " ").split()):
            return
        stmts = [c for c in body.named_children if c.type != "comment"]
        if len(stmts) != 1 or stmts[0].type != "return_statement" or not stmts[0].named_children:
            return
        names = []
        plist = decl.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else []:
            pd, pt = p.child_by_field_name("declarator"), p.child_by_field_name("type")
            if p.type != "parameter_declaration" or pd is None or pd.type != "identifier" or pt is None \
                    or not _INT_WORDS.issuperset(self.node_text(pt).replace("const", " ").split()):
                return
            names.append(self.node_text(pd))
        self.index_functions[name] = (tuple(names), self.node_text(stmts[0].named_children[0]).strip())

    def _template_params(self, decl: ts.Node | None) -> list[tuple[str, str]]:
        plist = decl.child_by_field_name("parameters") if decl is not None and decl.type == "template_declaration" else None
        out = []
        for c in plist.named_children if plist is not None else []:
            if "type_parameter" in c.type:
                name = next((x for x in c.named_children if x.type == "type_identifier"), None)
                kind = "type"
            else:
                name = c.child_by_field_name("declarator")
                kind = "value"
            if name is not None:
                out.append((kind, self.node_text(name)))
        return out

    def _param(self, p: ts.Node) -> Param | None:
        d = p.child_by_field_name("declarator")
        if d is None:
            return None
        ptr = False
        restrict = False
        ident = d
        while ident is not None and ident.type not in ("identifier",):
            if ident.type in ("pointer_declarator", "array_declarator", "reference_declarator"):
                ptr = ptr or ident.type != "reference_declarator"
                restrict = restrict or any(
                    c.type == "type_qualifier" and "restrict" in self.node_text(c) for c in ident.children
                )
            nxt = ident.child_by_field_name("declarator")
            if nxt is None:
                nxt = next((c for c in ident.named_children if c.type.endswith("declarator") or c.type == "identifier"), None)
            ident = nxt
        if ident is None:
            return None
        before = [c for c in p.children if c.end_byte <= d.start_byte]
        const = any(c.type == "type_qualifier" and self.node_text(c) == "const" for c in before)
        restrict = restrict or any("restrict" in self.node_text(c) for c in before if c.type == "type_qualifier")
        tnode = p.child_by_field_name("type")
        base = self.node_text(tnode) if tnode is not None else ""
        line, col, _, ecol = self.pos(ident)
        full = self.node_text(p)
        name = self.node_text(ident)
        type_text = full[: full.rfind(name)].strip() if name in full else full
        return Param(name, type_text, base, ptr, const, restrict, line, col, ecol, p.start_byte, p.end_byte)

    def _unnamed_param(self, p: ts.Node) -> Param:
        """A parameter without a name (`int`, `const float*`): kept in Kernel.signature only."""
        full = " ".join(self.node_text(p).split())
        tnode = p.child_by_field_name("type")
        ptr = "*" in full or "[" in full
        head = full.split("*")[0]
        line, col, _, ecol = self.pos(p)
        return Param("", full, self.node_text(tnode) if tnode is not None else full, ptr,
                     ptr and re.search(r"\bconst\b", head) is not None, "restrict" in full, line, col, ecol,
                     p.start_byte, p.end_byte)

    def _loops(self, body: ts.Node) -> list[Loop]:
        out: list[Loop] = []

        def visit(n: ts.Node, depth: int) -> None:
            for c in n.named_children:
                if c.type in ("for_statement", "while_statement", "do_statement"):
                    out.append(self._loop(c, depth))
                    visit(c, depth + 1)
                elif c.type not in ("lambda_expression",):
                    visit(c, depth)

        visit(body, 0)
        return out

    def _loop(self, n: ts.Node, depth: int) -> Loop:
        var, trip = None, None
        if n.type == "for_statement":
            var, trip = _trip_count(self, n)
        pragma = None
        prev = n.prev_named_sibling
        if prev is not None and prev.type == "preproc_call" and prev.end_point[0] >= n.start_point[0] - 1:
            txt = self.node_text(prev)
            m = re.match(r"#\s*pragma\s+unroll\b\s*(.*)", txt.strip())
            if m:
                pragma = m.group(1).strip()
        line, col, end_line, _ = self.pos(n)
        return Loop(line, end_line, col, var, trip, pragma, n, depth)

    def _launch(self, n: ts.Node) -> None:
        cfg = next((c for c in n.children if c.type == "kernel_call_syntax"), None)
        fn = n.child_by_field_name("function")
        if cfg is None or fn is None:
            return
        args = [c for c in cfg.named_children]
        if len(args) < 2:
            return
        name = self.node_text(fn).split("<")[0].split("::")[-1].strip()
        targs = fn.child_by_field_name("arguments") if fn.type == "template_function" else None
        line, col, _, _ = self.pos(n)
        call_args = n.child_by_field_name("arguments")
        self.launch_sites.append(LaunchSite(
            kernel=name, line=line, column=col,
            grid=self.node_text(args[0]), block=self.node_text(args[1]),
            shared=self.node_text(args[2]) if len(args) > 2 else None,
            stream=self.node_text(args[3]) if len(args) > 3 else None,
            block_threads=self.eval_threads(args[1]),
            args=[self.node_text(a) for a in call_args.named_children] if call_args is not None else [],
            file=self.path,
            template_args=[" ".join(self.node_text(a).split()) for a in targs.named_children] if targs is not None else [],
            block_node=args[1], source=self,
        ))

    # --- constant evaluation ---------------------------------------------
    def explicit_instantiations(self, kernel: str) -> list[list[str]]:
        """The template arguments of each `template __global__ void k<256>(...);` of the kernel in the file."""
        return [[a.strip() for a in m.group(1).split(",")] for m in re.finditer(
            rf"template\s+(?:__global__\s+)?void\s+{re.escape(kernel)}\s*<([^>]*)>", self.text)]

    def instantiated(self, k: "Kernel") -> dict[str, int]:
        """A template kernel's value parameters that every launch in the file and every explicit instantiation
        give the same integer (`MatrixMulCUDA<32><<<grid, threads>>>`, `template __global__ void k<256>(...)`);
        within `chosen_instantiation(...)` (a spec's `template = [...]`), the values of the one chosen."""
        chosen = _CHOSEN.get().get(k.name)
        insts = [(list(chosen), None)] if chosen else [(s.template_args, s.block_node) for s in self.launch_sites
                                                       if s.kernel == k.name]
        insts += [] if chosen else [(a, None) for a in self.explicit_instantiations(k.name)]

        def value(v: str, at) -> int | None:  # a literal, the file's constant, or the launching function's own
            if v.isdigit():
                return int(v)
            if v in self._scoped and at is not None:  # `const int block_size = 16; k<block_size><<<...>>>`
                got = self._scoped_constant(v, at, None)
                if got is not None:
                    return got
            return self.constants.get(v)

        out = {}
        for i, (kind, name) in enumerate(k.template_params):
            vals = {value(a[i], at) if i < len(a) else None for a, at in insts}
            if kind != "value" or len(vals) != 1 or None in vals:
                continue
            v = next(iter(vals))
            if v:
                out[name] = v
        return out

    def eval_int(self, n: ts.Node | None, env: dict[str, int] | None = None) -> int | None:
        if n is None:
            return None
        t = n.type
        if t == "number_literal":
            return _int_literal(self.node_text(n))
        if t in ("identifier", "type_descriptor", "type_identifier") and (t == "identifier" or _IDENT.match(self.node_text(n))):
            name = self.node_text(n).strip()
            if env and name in env:
                return env[name]
            if name in self._scoped:
                v = self._scoped_constant(name, n, env)
                if v is not None:
                    return v
            if name in self.constants and self._shadowed_by_parameter(name, n):
                return None  # `int N` of the function, not the file's `const int N = 1024;`
            return self.constants.get(name)
        if t == "parenthesized_expression":
            return self.eval_int(n.named_children[0] if n.named_children else None, env)
        if t == "field_expression" and env:  # `blockIdx.x` given a value
            return env.get(self.node_text(n).replace(" ", ""))
        if t == "cast_expression":  # `(unsigned)x`: the value (integers only reach here)
            return self.eval_int(n.child_by_field_name("value"), env)
        if t == "parameter_declaration" and n.child_by_field_name("declarator") is None:
            return self.eval_int(n.child_by_field_name("type"), env)
        if t == "unary_expression":
            v = self.eval_int(n.child_by_field_name("argument"), env)
            op = self.node_text(n.child_by_field_name("operator")) if n.child_by_field_name("operator") else ""
            return None if v is None else (-v if op == "-" else v if op == "+" else None)
        if t == "binary_expression":
            a = self.eval_int(n.child_by_field_name("left"), env)
            b = self.eval_int(n.child_by_field_name("right"), env)
            op = self.node_text(n.child_by_field_name("operator"))
            if a is None or b is None:
                return None
            try:
                return {"+": a + b, "-": a - b, "*": a * b, "/": int(a / b) if b else None,
                        "%": a % b if b else None, "<<": a << b, ">>": a >> b}.get(op)
            except (ValueError, OverflowError):
                return None
        return None

    def _scoped_constant(self, name: str, use: ts.Node, env: dict[str, int] | None) -> int | None:
        """The const integer `name` declared in a block around `use`, before it: the nearest one
        (`if (big) { const int BM = 128; ... } else { const int BM = 64; ... }`)."""
        p, child = use.parent, use
        while p is not None:
            if p.type == "compound_statement":
                for d in reversed(p.named_children):
                    if d.start_byte >= child.start_byte or d.type != "declaration" or not _is_const_decl(self, d):
                        continue
                    for x in d.children_by_field_name("declarator"):
                        nm = x.child_by_field_name("declarator") if x.type == "init_declarator" else None
                        if nm is not None and nm.type == "identifier" and self.node_text(nm) == name:
                            return self.eval_int(x.child_by_field_name("value"), env)
            elif p.type in ("function_definition", "translation_unit"):
                return None
            p, child = p.parent, p
        return None

    def eval_threads(self, n: ts.Node, env: dict[str, int] | None = None) -> int | None:
        """Threads per block of a launch's block argument: N, CONST, dim3(x, y, z)."""
        v = self.eval_int(n, env)
        if v is not None:
            return v
        if n.type in ("call_expression",) and self.node_text(n.child_by_field_name("function")) == "dim3":
            args = n.child_by_field_name("arguments")
            vals = [self.eval_int(a, env) for a in args.named_children] if args is not None else []
            if vals and all(v is not None for v in vals):
                prod = 1
                for v in vals:
                    prod *= v
                return prod
        if n.type == "identifier":
            return self._dim3_variable(self.node_text(n), n, env)
        return None

    def _dim3_variable(self, name: str, use: ts.Node, env: dict[str, int] | None = None) -> int | None:
        """`dim3 block(16, 16);` declared before a launch in the same function."""
        fn = use.parent
        while fn is not None and fn.type != "function_definition":
            fn = fn.parent
        if fn is None:
            return None
        found = None  # the last such declaration in a block around the use (not one of another branch)
        for d in _walk(fn):
            if d.type == "declaration" and d.start_byte < use.start_byte and "dim3" in self.node_text(d.child_by_field_name("type") or d) \
                    and d.parent is not None and d.parent.start_byte <= use.start_byte < d.parent.end_byte:
                for dd in d.children_by_field_name("declarator"):
                    nm = dd.child_by_field_name("declarator") if dd.type != "identifier" else dd
                    if nm is not None and self.node_text(nm) == name:
                        found = dd
        if found is None:
            return None
        # `dim3 block(BM);` with BM a name parses as a function declaration: its "parameters" are the sizes
        args = found.child_by_field_name("arguments") or found.child_by_field_name("value") \
            or (found.child_by_field_name("parameters") if found.type == "function_declarator" else None)
        if args is None:
            return None
        vals = [self.eval_int(a, env) for a in args.named_children]
        if not vals or any(v is None for v in vals):
            return None
        prod = 1
        for v in vals:
            prod *= v
        return prod


# CUDA attributes the grammar does not know; blanked (same length) for the parse only, so
# every byte offset and column stays that of the real text
_UNKNOWN_ATTRS = re.compile(rb"__cluster_dims__\s*\([^()]*\)|__maxnreg__\s*\([^()]*\)|__grid_constant__")


# a `#pragma unroll` between a loop header without a brace and its body: the grammar takes the directive
# for the body (and the loop it names for the next statement), so it is blanked for the parse too
_PRAGMA_BODY = re.compile(rb"(?m)^([ \t]*(?:for|while|if)[ \t]*\(.*\)[ \t]*\r?\n)([ \t]*#[ \t]*pragma\b[^\n]*)")


def _masked(data: bytes) -> bytes:
    if b"pragma" in data:
        data = _PRAGMA_BODY.sub(lambda m: m.group(1) + b" " * len(m.group(2)), data)
    if b"__cluster_dims__" not in data and b"__maxnreg__" not in data and b"__grid_constant__" not in data:
        return data
    return _UNKNOWN_ATTRS.sub(lambda m: b" " * len(m.group(0)), data)


def parse_source(text: str, path: str = "<memory>") -> SourceFile:
    """The parsed file, shared with earlier calls for the same text and path (the passes and plans parse the
    same text many times; a SourceFile is not changed after its scan, and what is memoised on it depends on
    the text alone)."""
    return _parsed(text, path)


@lru_cache(maxsize=256)
def _parsed(text: str, path: str) -> SourceFile:
    return SourceFile(text, path)


def walk(n: ts.Node):
    """Every node below n, depth first, in source order."""
    return _walk(n)


def _walk(n: ts.Node):
    stack = [n]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def _extern_c(src: "SourceFile", fn: ts.Node) -> bool:
    """fn is declared `extern "C"` (on its own or inside an `extern "C" { ... }` block)."""
    p = fn.parent
    while p is not None and p.type in ("declaration_list", "linkage_specification"):
        if p.type == "linkage_specification" and '"C"' in src.node_text(p.child_by_field_name("value") or p):
            return True
        p = p.parent
    return False


def function_declarator(fn: ts.Node) -> ts.Node | None:
    """The function_declarator of a function definition (through pointers and references)."""
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    return d


def _is_const_decl(src: SourceFile, n: ts.Node) -> bool:
    if n.parent is None or n.parent.type not in ("translation_unit", "compound_statement"):
        return False
    return any(c.type in ("type_qualifier",) and src.node_text(c) in ("const", "constexpr") for c in n.children)


_IDENT = re.compile(r"^\s*[A-Za-z_]\w*\s*$")
_INT_RE = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")


def _int_literal(s: str) -> int | None:
    s = s.strip()
    if s.startswith("-"):  # tree-sitter reads `-1` as one literal in some places
        v = _int_literal(s[1:])
        return None if v is None else -v
    m = _INT_RE.match(s)
    return int(m.group(1), 0) if m else None


def _trip_count(src: SourceFile, n: ts.Node) -> tuple[str | None, int | None]:
    """for (int i = A; i < B; i += S) with A, B, S compile-time constants."""
    init = n.child_by_field_name("initializer")
    cond = n.child_by_field_name("condition")
    upd = n.child_by_field_name("update")
    var, start = None, None
    if init is not None and init.type == "declaration":
        d = next((c for c in init.children_by_field_name("declarator") if c.type == "init_declarator"), None)
        if d is not None:
            var = src.node_text(d.child_by_field_name("declarator"))
            start = src.eval_int(d.child_by_field_name("value"))
    elif init is not None and init.type == "assignment_expression":
        var = src.node_text(init.child_by_field_name("left"))
        start = src.eval_int(init.child_by_field_name("right"))
    if var is None or cond is None or cond.type != "binary_expression":
        return var, None
    if src.node_text(cond.child_by_field_name("left")) != var:
        return var, None
    op = src.node_text(cond.child_by_field_name("operator"))
    end = src.eval_int(cond.child_by_field_name("right"))
    step = None
    if upd is not None:
        ut = src.node_text(upd).replace(" ", "")
        if ut in (f"++{var}", f"{var}++"):
            step = 1
        elif ut in (f"--{var}", f"{var}--"):
            step = -1
        elif upd.type == "assignment_expression" and src.node_text(upd.child_by_field_name("left")) == var:
            o = src.node_text(upd.child_by_field_name("operator"))
            s = src.eval_int(upd.child_by_field_name("right"))
            if s is not None and o in ("+=", "-="):
                step = s if o == "+=" else -s
    if start is None or end is None or not step:
        return var, None
    if op in ("<", "<=") and step > 0:
        span = end - start + (1 if op == "<=" else 0)
        return var, max(0, -(-span // step))
    if op in (">", ">=") and step < 0:
        span = start - end + (1 if op == ">=" else 0)
        return var, max(0, -(-span // -step))
    return var, None


def span_text(src: "SourceFile", start: int, end: int, subs: list[tuple[int, int, str]] = ()) -> str:
    """Bytes [start, end) of the source as text, with (start, end, text) substitutions inside."""
    out, pos = [], start
    for a, b, t in sorted(subs):
        if a < pos or b > end:
            continue
        out.append(src.data[pos:a].decode("utf-8", errors="replace"))
        out.append(t)
        pos = b
    out.append(src.data[pos:end].decode("utf-8", errors="replace"))
    return "".join(out)
