"""Symbols and their documentation comments from C++/CUDA headers, with tree-sitter-cuda.

For every function, class, struct, union, enum, namespace-scope alias or typedef and
function-like macro: its qualified name, kind, line range, signature (the declaration up to
its body), the documentation comment just above it (Doxygen `///`, `//!`, `/** */` or a
plain `//` block), and the identifiers its body uses. A file whose first comment after the
licence describes it (`\\file`, `@file`, `\\brief`, an example's introduction) gives one more
symbol of kind "file". Function bodies are never walked, which keeps a 50 MB corpus to
seconds.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter as ts
import tree_sitter_cuda


@dataclass
class Symbol:
    name: str  # qualified: cub::BlockReduce::Sum
    kind: str  # function, kernel, class, struct, union, enum, alias, macro, file
    start: int  # first line, 1-based (template header and leading qualifiers included)
    end: int  # last line
    signature: str  # the declaration up to its body, whitespace collapsed
    doc: str  # the documentation comment, markup removed
    idents: str  # identifiers of the body, space separated, each once


@lru_cache(maxsize=1)
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tree_sitter_cuda.language()))


# Nodes never entered: bodies and expressions hold no declarations worth finding.
_SKIP = {"compound_statement", "parameter_list", "template_parameter_list", "argument_list",
         "template_argument_list", "string_literal", "raw_string_literal", "comment", "initializer_list",
         "enumerator_list", "condition_clause", "preproc_arg", "requires_clause", "base_class_clause",
         "field_initializer_list", "lambda_expression", "call_expression", "binary_expression"}
_RECORDS = {"class_specifier": "class", "struct_specifier": "struct", "union_specifier": "union"}
_MAX_SIG = 300
_MAX_DOC = 3000
_MAX_IDENTS = 300

# Namespaces opened by macros in CCCL (CUB, libcu++) and cooperative groups.
_NS_MACROS = [
    (re.compile(r"^\s*CUB_NAMESPACE_(BEGIN|END)\b"), "cub"),
    (re.compile(r"^\s*_CG_(BEGIN|END)_NAMESPACE\b"), "cooperative_groups"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_STD(?:_NOVERSION)?\b"), "cuda::std"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_RANGES(?:_ABI)?\b"), "cuda::std::ranges"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_VIEWS\b"), "cuda::std::ranges::views"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_CUDA_DEVICE_EXPERIMENTAL\b"), "cuda::device::experimental"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_CUDA_DEVICE\b"), "cuda::device"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_CUDA_PTX\b"), "cuda::ptx"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_CUDA_MR\b"), "cuda::mr"),
    (re.compile(r"^\s*_LIBCUDACXX_(BEGIN|END)_NAMESPACE_CUDA\b"), "cuda"),
]
_NS_OPEN = re.compile(r"^\s*(?:inline\s+)?namespace\s+([A-Za-z_][\w:]*)\s*\{\s*(?://.*)?$")
_NS_CLOSE = re.compile(r"^\s*\}\s*;?\s*//\s*(?:end\s+)?(?:of\s+)?namespace\b")
_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*)")
_LICENCE = re.compile(r"copyright|spdx-license|redistribution and use|all rights reserved", re.I)
# A line of qualifier macros or attributes between a comment and its declaration.
_QUALIFIER = r"(?:\[\[[^\]]*\]\]|__\w+__|[A-Z_][A-Z0-9_]*(?:\([^()]*\))?)"
_QUALIFIERS = re.compile(rf"^\s*{_QUALIFIER}(?:\s+{_QUALIFIER})*\s*$")
_MARKUP = re.compile(r"(?:[\\@](?:brief|file|param(?:\[[a-z,]+\])?|tparam|return[s]?|rst|endrst|code|endcode|note|"
                     r"par|see|details|snippet|[{}]|name|ingroup|defgroup|addtogroup|p|c|b|a|e|ref)\b)|"
                     r"\.\. code-block::\s*\w*\+*|:(?:cpp:)?(?:func|class|struct|enum|enumerator|member|type|ref|sub):|"
                     r"[`*+=#]{2,}|[<>]sub[<>]")
# what _MARKUP leaves: HTML tags (<sub>, </b>), any Doxygen command or alias (CUB's @rowmajor, @smemreuse)
_MORE_MARKUP = re.compile(r"</?[A-Za-z][A-Za-z0-9]*\s*/?>|(?<![\w.])[\\@][A-Za-z]\w*\b")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = frozenset("""if else for while do return const constexpr static inline template typename class struct
    using namespace auto void int unsigned signed long short char bool float double true false nullptr sizeof
    decltype noexcept volatile public private protected this operator virtual override final explicit friend
    typedef enum union switch case default break continue goto new delete mutable register extern alignas""".split())


def extract(text: bytes) -> list[Symbol]:
    """Every symbol of one file (see the module doc), in source order."""
    lines = text.decode("utf-8", "replace").split("\n")
    ns_lines = _macro_namespaces(lines)
    text = blank_macros(text)
    tree = _parser().parse(text)
    out: list[Symbol] = []
    head = _file_doc(lines)
    if head:
        out.append(Symbol("", "file", 1, len(lines), "", head, ""))
    _visit(tree.root_node, text, lines, ns_lines, [], None, out)
    return out


# An ALL_CAPS_MACRO (with arguments or not) in front of a declaration: CUTE_HOST_DEVICE,
# _CCCL_DEVICE, CUB_RUNTIME_FUNCTION, _CCCL_REQUIRES(...). tree-sitter cannot expand macros and
# mistakes them for types, which hides the declaration that follows.
_QUALIFIER_MACRO = re.compile(rb"\b_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b(?:\((?:[^()]|\([^()]*\))*\))?(?=\s+[A-Za-z_~])")
_NS_MACRO_LINE = re.compile(rb"^[ \t]*(?:CUB_NAMESPACE_(?:BEGIN|END)|_CG_(?:BEGIN|END)_NAMESPACE|"
                            rb"_LIBCUDACXX_(?:BEGIN|END)_NAMESPACE_\w+)\b.*$", re.M)


def blank_macros(text: bytes) -> bytes:
    """The text with qualifier macros and namespace macros replaced by spaces (same length,
    newlines kept, so lines and byte offsets do not move). Preprocessor lines are left alone."""
    def spaces(m: re.Match) -> bytes:
        start = text.rfind(b"\n", 0, m.start()) + 1
        if text[start:m.start()].lstrip().startswith(b"#") or text[:start].rstrip(b"\n").endswith(b"\\"):
            return m.group()
        return re.sub(rb"[^\n]", b" ", m.group())

    text = _QUALIFIER_MACRO.sub(spaces, text)
    return _NS_MACRO_LINE.sub(spaces, text)


def _visit(node, text: bytes, lines, ns_lines, scope: list[str], record: str | None, out: list[Symbol]) -> None:
    for child in node.children:
        t = child.type
        if t in _SKIP or not child.is_named:
            continue
        if t == "namespace_definition":
            name = child.child_by_field_name("name")
            body = child.child_by_field_name("body")
            if body is not None:
                inner = scope + [("ns", _text(text, name))] if name is not None else scope
                _visit(body, text, lines, ns_lines, inner, None, out)
            continue
        if t == "template_declaration":
            inner = _declared(child)
            if inner is not None:
                _symbol(inner, child, text, lines, ns_lines, scope, record, out)
                continue
        elif _declared_here(child):
            _symbol(child, child, text, lines, ns_lines, scope, record, out)
            continue
        if t in ("preproc_function_def",):
            name = _text(text, child.child_by_field_name("name"))
            _add(out, name, "macro", child, child, text, lines, "")
            continue
        _visit(child, text, lines, ns_lines, scope, record, out)


def _declared(template_node):
    """The declaration a template_declaration wraps, when it is one we index."""
    for c in template_node.named_children:
        if _declared_here(c):
            return c
        if c.type == "template_declaration":
            return _declared(c)
    return None


def _declared_here(n) -> bool:
    t = n.type
    if t == "function_definition":
        return True
    if t in _RECORDS or t == "enum_specifier":
        return n.child_by_field_name("body") is not None
    if t in ("field_declaration", "declaration") and n.named_child_count:
        for c in n.named_children:
            if (c.type in _RECORDS or c.type == "enum_specifier") and c.child_by_field_name("body") is not None:
                return True
    return t in ("alias_declaration", "type_definition")


def _symbol(decl, outer, text: bytes, lines, ns_lines, scope, record, out) -> None:
    t = decl.type
    if t in ("field_declaration", "declaration"):  # `struct X {...};` parsed as a declaration
        decl = next(c for c in decl.named_children if c.type in _RECORDS or c.type == "enum_specifier")
        t = decl.type
    qual = _qualify(ns_lines, decl.start_point[0] + 1, scope)
    if t == "function_definition":
        name = _function_name(decl, text)
        if not name or name.startswith(("operator", "~")) or (record and name.split("<")[0] == record):
            return
        kind = "kernel" if b"__global__" in text[outer.start_byte:decl.child_by_field_name("declarator").start_byte] \
            else "function"
        body = decl.child_by_field_name("body")
        _add(out, _join(qual, name), kind, decl, outer, text, lines, _idents(text, body))
        return
    if t in _RECORDS or t == "enum_specifier":
        name_node = decl.child_by_field_name("name")
        if name_node is None:
            return
        name = " ".join(_text(text, name_node).split())
        body = decl.child_by_field_name("body")
        kind = _RECORDS.get(t, "enum")
        _add(out, _join(qual, name), kind, decl, outer, text, lines, _idents(text, body))
        if t != "enum_specifier" and body is not None:
            _visit(body, text, lines, ns_lines, scope + [("record", name)], name.split("<")[0], out)
        return
    if record is not None:  # member aliases and typedefs: too many, too little said
        return
    if t == "alias_declaration":
        name = _text(text, decl.child_by_field_name("name"))
        _add(out, _join(qual, name), "alias", decl, outer, text, lines, _idents(text, decl))
    elif t == "type_definition":
        d = decl.child_by_field_name("declarator")
        if d is not None and d.type == "type_identifier":
            _add(out, _join(qual, _text(text, d)), "alias", decl, outer, text, lines, _idents(text, decl))


def _add(out, name: str, kind: str, decl, outer, text: bytes, lines, idents: str) -> None:
    if not name:
        return
    start, end = outer.start_point[0] + 1, decl.end_point[0] + 1
    body = decl.child_by_field_name("body")
    sig_end = body.start_byte if body is not None and kind != "macro" else decl.end_byte
    sig = " ".join(text[outer.start_byte:sig_end].decode("utf-8", "replace").split())
    if kind == "macro":
        sig = sig.split("\n")[0]
    doc = _doc_above(lines, start - 1)
    out.append(Symbol(name, kind, start, end, sig[:_MAX_SIG], doc, idents))


def _function_name(fn, text: bytes) -> str:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator", "attributed_declarator"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
    if d is None or d.type != "function_declarator":
        return ""
    n = d.child_by_field_name("declarator")
    if n is None:
        return ""
    if n.type == "template_function":
        n = n.child_by_field_name("name") or n
    name = re.sub(r"//[^\n]*|/\*.*?\*/", " ", _text(text, n), flags=re.S)
    return name.split()[-1] if name.split() else ""


def _idents(text: bytes, node) -> str:
    if node is None:
        return ""
    seen: dict[str, None] = {}
    for m in _IDENT.finditer(text[node.start_byte:node.end_byte].decode("utf-8", "replace")):
        w = m.group()
        if w not in _KEYWORDS and len(w) > 1:
            seen.setdefault(w, None)
            if len(seen) >= _MAX_IDENTS:
                break
    return " ".join(seen)


def _text(text: bytes, node) -> str:
    return text[node.start_byte:node.end_byte].decode("utf-8", "replace") if node is not None else ""


def _join(qual: str, name: str) -> str:
    return f"{qual}::{name}" if qual and not name.startswith("::") else name.lstrip(":")


def _qualify(ns_lines, line: int, scope: list[tuple[str, str]]) -> str:
    """Namespaces and enclosing classes of a symbol on `line`: the namespaces macros opened,
    then the tree's namespaces, or the text's where the tree has none."""
    lines_at, names = ns_lines
    i = bisect.bisect_right(lines_at, line) - 1
    macro_ns, text_ns = names[i] if i >= 0 else ("", "")
    tree_ns = "::".join(n for k, n in scope if k == "ns")
    return "::".join(p for p in [macro_ns, tree_ns or text_ns, *(n for k, n in scope if k == "record")] if p)


def _macro_namespaces(lines: list[str]):
    """(sorted line numbers, namespace in force after each), read from the text: namespace
    macros (CUB_NAMESPACE_BEGIN, ...), and `namespace x {` lines when every one of them in the
    file is closed by a `} // namespace x` comment (CUTLASS's style; without the comments the
    closing brace cannot be told from the others). Used where tree-sitter lost the namespace
    (preprocessor branches that split braces) or never saw it (macros)."""
    opens = sum(1 for s in lines if "namespace" in s and _NS_OPEN.match(s))
    closes = sum(1 for s in lines if "namespace" in s and _NS_CLOSE.match(s))
    plain = opens > 0 and opens == closes
    at, names, macro, text = [], [], [], []
    for i, s in enumerate(lines, 1):
        if "namespace" not in s and "NAMESPACE" not in s:
            continue
        if plain and _NS_OPEN.match(s):
            text.append(_NS_OPEN.match(s).group(1))
        elif plain and _NS_CLOSE.match(s):
            if text:
                text.pop()
        else:
            for rx, ns in _NS_MACROS:
                m = rx.match(s)
                if m:
                    if m.group(1) == "BEGIN":
                        macro.append(ns)
                    elif macro:
                        macro.pop()
                    break
            else:
                continue
        at.append(i)
        names.append(("::".join(macro), "::".join(text)))
    return at, names


def _doc_above(lines: list[str], idx: int) -> str:
    """The comment block right above line index idx (0-based), past qualifier-macro lines."""
    i = idx - 1
    while i >= 0 and lines[i].strip() and not _COMMENT_LINE.match(lines[i]) and _QUALIFIERS.match(lines[i]):
        i -= 1
    block, in_c = [], False
    while i >= 0:
        s = lines[i].strip()
        if s.endswith("*/"):
            in_c = True
        if not (in_c or s.startswith("//")):
            break
        block.append(s)
        if in_c and s.startswith("/*"):
            in_c = False
        i -= 1
    return clean_comment(reversed(block)) if block else ""


# Where a comment's description ends and its example code begins (CUB's rst, Doxygen).
_EXAMPLE = re.compile(r"(?:^|\s)(?:\.\. code-block::|[@\\]code\b|[@\\]par Snippet|Snippet\s*\+{3,}|"
                      r"A Simple Example\s*\+{3,})")


def clean_comment(block) -> str:
    text = " ".join(re.sub(r"^\s*(?:/\*+!?|\*+/|\*|//+!?<?)|\*+/\s*$", " ", ln) for ln in block)
    if _LICENCE.search(text):
        return ""
    m = _EXAMPLE.search(text)
    if m and m.start() > 40:  # keep the description, drop the example code after it
        text = text[:m.start()]
    text = _MARKUP.sub(" ", text)
    text = _MORE_MARKUP.sub(" ", text).replace("\\ ", " ")  # HTML tags, command aliases, RST's escaped space
    words = text.split()
    words = [w for i, w in enumerate(words) if w != "-" or (i + 1 < len(words) and words[i + 1] != "-")]
    text = " ".join(words[:-1] if words and words[-1] == "-" else words)  # bullets left empty by the above
    return re.sub(r" ([.,;:])(?=\s|$)", r"\1", text)[:_MAX_DOC]


def _file_doc(lines: list[str]) -> str:
    """The first comment block after the licence, when it comes before any code."""
    i, n = 0, min(len(lines), 400)
    while i < n:
        s = lines[i].strip()
        if not s or s.startswith("#pragma") or s.startswith("#ifndef") or s.startswith("#define"):
            i += 1
            continue
        if not _COMMENT_LINE.match(s):
            return ""
        block = []
        in_block = s.startswith("/*")
        while i < n:
            s = lines[i].strip()
            if in_block:
                block.append(s)
                if s.endswith("*/"):
                    i += 1
                    break
            elif s.startswith("//"):
                block.append(s)
            else:
                break
            i += 1
        doc = clean_comment(block)
        if doc:
            return doc
    return ""
