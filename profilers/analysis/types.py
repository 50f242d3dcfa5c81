"""Element types as the compiler sees them: typedefs, `using` aliases and type macros resolved.

`TypeTable.of(source)` collects `typedef T name;`, `using name = T;` and `#define name T`
from the file and the project headers it includes with quotes (followed recursively), keeping
the branch of `#if defined(X)` / `#ifdef X` / `#else` that the file's own `#define`s select.
`scalar(type_text)` then names the scalar behind any spelling: `const floatX`, `uint`,
`unsigned long long`, `size_t`, `auto` (unknown), `x128` (a packed type: unknown).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..source import SourceFile, parse_source, walk

_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "static", "register",
               "constexpr", "__shared__", "__device__", "__constant__", "extern", "struct", "signed"}


@dataclass(frozen=True)
class Scalar:
    """A resolved scalar type: kind is 'float' (any floating type) or 'int'."""
    name: str  # canonical: float, double, half, bfloat16, int8..int64, uint8..uint64, bool
    kind: str
    bytes: int

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    def keeps(self, other: "Scalar") -> bool:
        """A value of `other` converted to this type keeps its value: not a floating one made an integer, not a
        narrower type of the same kind (int8 to int32 and half to float keep it; float to int, int32 to int16 do not)."""
        return not ((other.is_float and not self.is_float) or (other.is_float == self.is_float and self.bytes < other.bytes))


_CANON = {
    "float": ("float", "float", 4), "double": ("double", "float", 8),
    "half": ("half", "float", 2), "__half": ("half", "float", 2),
    "__nv_bfloat16": ("bfloat16", "float", 2), "nv_bfloat16": ("bfloat16", "float", 2),
    "bool": ("bool", "int", 1), "char": ("int8", "int", 1), "int8_t": ("int8", "int", 1),
    "unsigned char": ("uint8", "int", 1), "uint8_t": ("uint8", "int", 1), "uchar": ("uint8", "int", 1),
    "short": ("int16", "int", 2), "int16_t": ("int16", "int", 2), "short int": ("int16", "int", 2),
    "unsigned short": ("uint16", "int", 2), "uint16_t": ("uint16", "int", 2), "ushort": ("uint16", "int", 2),
    "int": ("int32", "int", 4), "int32_t": ("int32", "int", 4),
    "unsigned": ("uint32", "int", 4), "unsigned int": ("uint32", "int", 4), "uint32_t": ("uint32", "int", 4),
    "uint": ("uint32", "int", 4),
    "long": ("int64", "int", 8), "long int": ("int64", "int", 8), "long long": ("int64", "int", 8),
    "long long int": ("int64", "int", 8), "int64_t": ("int64", "int", 8), "ptrdiff_t": ("int64", "int", 8),
    "unsigned long": ("uint64", "int", 8), "unsigned long long": ("uint64", "int", 8),
    "unsigned long long int": ("uint64", "int", 8), "uint64_t": ("uint64", "int", 8),
    "size_t": ("uint64", "int", 8), "ulong": ("uint64", "int", 8),
}
SCALARS = {k: Scalar(*v) for k, v in _CANON.items()}
# vector types: element type and count
VECTORS = {f"{b}{n}": (b if b not in ("uchar", "ushort", "uint", "ulong") else b, n)
           for b in ("float", "double", "int", "uint", "char", "uchar", "short", "ushort", "long", "ulong")
           for n in (2, 3, 4)}
VECTORS.update({"half2": ("half", 2), "__half2": ("half", 2), "__nv_bfloat162": ("__nv_bfloat16", 2),
                "nv_bfloat162": ("__nv_bfloat16", 2)})


def words(type_text: str) -> str:
    """A type's spelling without qualifiers, pointers or references: 'const floatX *' -> 'floatX'."""
    t = re.sub(r"[*&]", " ", type_text)
    return " ".join(w for w in t.split() if w not in _QUALIFIERS)


@dataclass
class TypeTable:
    aliases: dict[str, str] = field(default_factory=dict)  # name -> type text (one level)

    @classmethod
    def of(cls, src: SourceFile, defines: dict[str, str] | None = None, max_files: int = 16) -> TypeTable:
        table = cls()
        macros = dict(defines or {})
        seen: set[str] = set()
        table._collect(src, macros, seen, max_files)
        return table

    def _collect(self, src: SourceFile, macros: dict, seen: set, max_files: int) -> None:
        here = os.path.dirname(os.path.abspath(src.path)) if src.path and not src.path.startswith("<") else None
        self._visit(src, src.root, macros, seen, max_files, here)

    def _visit(self, src, node, macros, seen, max_files, here) -> None:
        for n in node.children:
            t = n.type
            if t in ("preproc_ifdef", "preproc_if", "preproc_elif", "preproc_elifdef"):
                self._branch(src, n, macros, seen, max_files, here)
            elif t == "preproc_def":
                name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                if name is not None:
                    v = src.node_text(value).strip() if value is not None else ""
                    macros[src.node_text(name)] = v
                    if v and _looks_like_type(v):
                        self.aliases[src.node_text(name)] = v
            elif t == "type_definition":
                tnode = n.child_by_field_name("type")
                for d in n.children_by_field_name("declarator"):
                    if d.type == "type_identifier" and tnode is not None:
                        self.aliases[src.node_text(d)] = src.node_text(tnode)
            elif t == "alias_declaration":
                name = n.child_by_field_name("name")
                tnode = n.child_by_field_name("type")
                if name is not None and tnode is not None:
                    self.aliases[src.node_text(name)] = src.node_text(tnode)
            elif t == "preproc_include":
                p = n.child_by_field_name("path")
                if p is not None and here and src.node_text(p).startswith('"'):
                    path = os.path.normpath(os.path.join(here, src.node_text(p).strip('"')))
                    if path not in seen and len(seen) < max_files and os.path.isfile(path):
                        seen.add(path)
                        try:
                            with open(path, encoding="utf-8", errors="replace") as f:
                                inc = parse_source(f.read(), path)
                        except OSError:
                            continue
                        self._visit(inc, inc.root, macros, seen, max_files, os.path.dirname(path))
            elif t in ("translation_unit", "linkage_specification", "declaration_list", "namespace_definition"):
                self._visit(src, n, macros, seen, max_files, here)

    def _branch(self, src, n, macros, seen, max_files, here) -> None:
        """Visit the branch of a conditional block that the known macros select."""
        t = n.type
        cond = None
        if t in ("preproc_ifdef", "preproc_elifdef"):
            name = n.child_by_field_name("name")
            neg = src.node_text(n).lstrip().startswith(("#ifndef", "#elifndef"))
            if name is not None:
                cond = (src.node_text(name) in macros) != neg
        else:
            c = n.child_by_field_name("condition")
            cond = _eval_condition(src.node_text(c), macros) if c is not None else None
        alt = n.child_by_field_name("alternative")
        body = [c for c in n.children if c is not alt and c.type not in ("#ifdef", "#ifndef", "#if", "#elif")]
        if cond is None:  # unknown condition: collect from every branch, first one wins
            holder = _Holder(body)
            before = dict(self.aliases)
            self._visit(src, holder, macros, seen, max_files, here)
            if alt is not None:
                self._branch_alt(src, alt, macros, seen, max_files, here)
            for k, v in before.items():
                self.aliases.setdefault(k, v)
            return
        if cond:
            self._visit(src, _Holder(body), macros, seen, max_files, here)
        elif alt is not None:
            self._branch_alt(src, alt, macros, seen, max_files, here)

    def _branch_alt(self, src, alt, macros, seen, max_files, here) -> None:
        if alt.type == "preproc_else":
            self._visit(src, alt, macros, seen, max_files, here)
        else:
            self._branch(src, alt, macros, seen, max_files, here)

    # ------------------------------------------------------------ queries
    def resolve(self, type_text: str) -> str:
        """The type text with aliases followed (at most 16 steps): 'const floatX' -> '__nv_bfloat16'."""
        t = words(type_text)
        for _ in range(16):
            if t in self.aliases:
                t = words(self.aliases[t])
            else:
                break
        return t

    def scalar(self, type_text: str) -> Scalar | None:
        return SCALARS.get(self.resolve(type_text))

    def vector(self, type_text: str) -> tuple[Scalar, int] | None:
        v = VECTORS.get(self.resolve(type_text))
        if v is None:
            return None
        s = SCALARS.get(v[0])
        return (s, v[1]) if s is not None else None

    def is_int(self, type_text: str) -> bool:
        s = self.scalar(type_text)
        return s is not None and s.kind == "int"

    def bytes(self, type_text: str) -> int | None:
        s = self.scalar(type_text)
        if s is not None:
            return s.bytes
        v = self.vector(type_text)
        return v[0].bytes * v[1] if v else None


class _Holder:
    """A fake node whose children are the given nodes (to visit part of a conditional block)."""

    def __init__(self, children):
        self.children = children


def _looks_like_type(v: str) -> bool:
    w = words(v)
    return w in SCALARS or w in VECTORS or bool(re.fullmatch(r"[A-Za-z_]\w*(\s*<[\w\s,]*>)?", v.strip())) and w not in ("",)


def _eval_condition(text: str, macros: dict) -> bool | None:
    """`defined(X)`, `!defined(X)`, `X`, `X == N`, `&&`, `||` over known macros; None if unsure."""
    expr = text.strip()
    expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                  lambda m: "1" if (m.group(1) or m.group(2)) in macros else "0", expr)
    expr = expr.replace("&&", " and ").replace("||", " or ").replace("!", " not ").replace("not =", "!=")

    def ident(m):
        name = m.group(0)
        if name in ("and", "or", "not"):
            return name
        v = macros.get(name)
        if v is None:
            return "0"
        return v if re.fullmatch(r"\d+", v.strip() or "1") else "1"
    expr = re.sub(r"[A-Za-z_]\w*", ident, expr)
    if not re.fullmatch(r"[\d\s()<>=!+\-*andortn]*", expr):
        return None
    try:
        return bool(eval(expr, {"__builtins__": {}}, {}))  # digits, comparisons and and/or/not only
    except Exception:
        return None


def table_for(src: SourceFile) -> TypeTable:
    """The TypeTable of a parsed file, built once per SourceFile."""
    t = getattr(src, "_kp_types", None)
    if t is None:
        t = TypeTable.of(src)
        src._kp_types = t
    return t


def declared_in(src: SourceFile, node) -> dict[str, str]:
    """name -> declared type text of every declaration below node (parameters included)."""
    out = {}
    for d in walk(node):
        if d.type not in ("declaration", "parameter_declaration"):
            continue
        tnode = d.child_by_field_name("type")
        if tnode is None:
            continue
        ttext = src.node_text(tnode)
        decls = d.children_by_field_name("declarator")
        for dec in decls:
            ptr, n = "", dec
            while n is not None and n.type != "identifier":
                if n.type in ("pointer_declarator", "array_declarator"):
                    ptr += "*"
                n = n.child_by_field_name("declarator")
            if n is not None:
                out[src.node_text(n)] = ttext + ptr
    return out
