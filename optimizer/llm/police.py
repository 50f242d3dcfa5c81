"""The one check on code a model wrote, before anything compiles it or puts it into the user's file.

Everything from the model goes through `check_source`: the sources it passes to tools
(compile_and_resources, static_advice, sass_search, measure_on_gpu, any tool taking "source")
and its final answer. The model is not trusted: its code may try to read files into compiler
messages (which go back to its provider), or to run code on the host when the user builds
the applied candidate into a program. The check works on what the preprocessor sees
(lexer.py: line splices, comments, digraphs, header names as GCC reads them), not on the text
as written, and says what it refused and on which line, so the model can fix it.

Preprocessor (every directive line, also in `#if 0` groups):
- `#include` only of allow-listed toolkit headers (by name, no `..`) or of files inside the
  project folder (symlinks followed); `#include_next`, `#import`, `#embed`, computed includes
  and `__has_include`/`__has_include_next`/`__has_embed` (anywhere) refused;
- every include must resolve inside the project folder or the CUDA toolkit's include
  directories, as nvcc searches them (the project's own headers are followed, and so are the
  includes they make); a project header's computed `#include` of a macro the model defines is
  refused;
- `#pragma` and `_Pragma("...")` only for harmless pragmas (unroll, nounroll, once, pack,
  diagnostics, message...); `_Pragma` of anything but a string literal refused;
- `#line N` without a file name only, no GNU line markers (`# 12 "file"`): the compiler's
  messages would quote another file;
- no `#` outside a directive except as the stringize operator of a function-like macro (a
  macro that puts a `#` at the start of a line makes nvcc read a line marker, e.g.
  `H(#) 1 "/etc/passwd"`), no `%`/`:` alone as macro arguments (pasted into `%:`), no pieces of
  the refused names pasted together with `##`; unknown directives refused.

C++ (tree-sitter-cuda over the preprocessor's view):
- every function definition `__global__`, `__device__` or `__host__ __device__` (or constexpr);
  host CUDA runtime and driver calls, `<<<>>>` launches, and host system functions (`system`,
  `popen`, `exec*`, `dlopen`, ... also named without a call, as a function pointer) refused;
- no namespace-scope code: a namespace-scope (or static member, or default member) initialiser
  must be a constant expression: literals, named constants, arithmetic on them, braced lists of
  those, `sizeof`, casts, `static_cast`, addresses of variables; no calls (also through function
  pointers or lambdas); `constexpr`/`constinit` variables are the compiler's to check; a host
  variable of a class type (its constructor would run when the program starts) refused;
- no `__attribute__((constructor))`, destructor, section, alias, ifunc, init_priority (also as
  `[[gnu::...]]`); inline `asm` only inside `__device__`/`__global__` functions (a
  `__host__ __device__` function's asm is host code too; an asm label renames a host symbol);
  no `extern "C"` `__host__ __device__` function (it would replace a C library function);
- a macro the model defines and uses outside functions must not expand to calls.

Code copied unchanged from the file being optimized (`reference`: its host functions, top-level
declarations and directive lines) is the user's, not the model's, and is not held to these rules,
except that every include must still resolve inside the allowed roots.
"""
from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter
import tree_sitter_cuda

from kernelpro.profilers.source import walk

from .lexer import Lexed, LexError, Token, lex

ALLOWED_INCLUDES = (
    "cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "mma.h", "cuda_pipeline.h",
    "cuda_awbarrier.h", "device_launch_parameters.h", "cooperative_groups.h",
    "cooperative_groups/*", "cuda/pipeline", "cuda/barrier", "cuda/atomic", "cuda/annotated_ptr",
    "cuda/std/*", "cub/*", "cute/*", "cutlass/*", "stdint.h", "cstdint", "stddef.h", "cstddef",
    "math.h", "cmath", "float.h", "cfloat", "limits.h", "climits", "assert.h", "cassert",
    "type_traits", "limits", "utility",
)

# pragmas that neither load nor run anything; the first word (or the first two for GCC/clang)
ALLOWED_PRAGMAS = {
    "unroll", "nounroll", "once", "pack", "message", "push_macro", "pop_macro", "region", "endregion",
    "nv_diag_suppress", "nv_diag_warning", "nv_diag_error", "nv_diag_default", "nv_diag_once", "nv_diagnostic",
    "diag_suppress", "diag_warning", "diag_error", "diag_default", "diag_once", "nv_abi",
    "GCC diagnostic", "GCC unroll", "GCC ivdep", "GCC push_options", "GCC pop_options", "GCC optimize",
    "clang diagnostic", "clang loop", "clang unroll", "STDC",
}
_DIRECTIVES = {"define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif",
               "error", "warning", "pragma", "line", "include"}
_BANNED_IDS = {"__has_include", "__has_include_next", "__has_embed", "__pragma", "__has_include__",
               "__has_include_next__"}
_PASTE_TARGETS = ("__has_include", "__has_include_next", "__has_embed", "_Pragma", "__pragma")
_BAD_ATTRS = {"constructor", "destructor", "init_priority", "section", "alias", "ifunc", "weakref", "allocate",
              "code_seg", "init_seg"}
_ASM = {"asm", "__asm__", "__asm"}
_DEVICE_QUALS = {"__global__", "__device__"}
_DEVICE_VARS = {"__device__", "__constant__", "__shared__", "__managed__"}
_ALLOC_FUNCS = {"malloc", "free", "calloc", "realloc"}
_SAFE_CALLS = {"sizeof", "alignof", "__alignof__", "_Alignof", "alignas", "static_cast", "decltype", "noexcept",
               "__launch_bounds__", "__align__", "__attribute__", "__cluster_dims__", "__maxnreg__", "defined",
               "__builtin_offsetof", "offsetof"}
_CONST_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_]*|k[A-Z0-9]\w*)$")

_HOST_CALLS = [
    (re.compile(r"\bcuda(Malloc|Memcpy|Memset|Free|Launch|Stream|Event|Graph|Host|SetDevice|"
                r"DeviceSynchronize|DeviceReset|DeviceSet|FuncSet|Import|Ipc)\w*\s*\("),
     "host CUDA runtime call"),
    (re.compile(r"\bcu(Launch|Mem|Module|Ctx|Init|Stream|Event|Graph|Device)\w*\s*\("), "CUDA driver API call"),
    (re.compile(r"<<<"), "kernel launch <<<...>>>"),
    # named at all, not only called: a function pointer to system() is as bad as a call
    (re.compile(r"\b(fopen|freopen|fdopen|fwrite|fread|system|popen|fork|vfork|dlopen|dlmopen|dlsym|dlvsym|"
                r"execl|execlp|execle|execv|execvp|execvpe|execve|execveat|fexecve|posix_spawnp?|syscall|"
                r"pthread_create|getenv|secure_getenv|setenv|putenv|unlink|unlinkat|rmdir|chmod|chown|"
                r"kill|symlink|mkfifo|socket|opendir)\b"),
     "host system call"),
    (re.compile(r"\bstd\s*::\s*(thread|jthread|async|system|ofstream|ifstream|fstream|filesystem)\b"),
     "host library use"),
]

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
_UNKNOWN_ATTRS = re.compile(r"__cluster_dims__\s*\([^()]*\)|__maxnreg__\s*\([^()]*\)|__grid_constant__")
_CONTAINERS = {"translation_unit", "declaration_list", "linkage_specification", "namespace_definition",
               "template_declaration", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
               "preproc_elifdef", "export_declaration"}


class BadAnswer(Exception):
    """The answer cannot be used; `reason` says why in one line, for the model and the log."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _declarator_name(fn) -> str:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is None:
        return "?"
    name = decl.child_by_field_name("declarator")
    return name.text.decode(errors="replace") if name is not None else "?"


def _quals(fn) -> set[str]:
    return {c.type for c in fn.children} | {
        c.text.decode() for c in fn.children if c.type in ("storage_class_specifier", "type_qualifier")
    }


def _norm(s: str) -> str:
    """White space within lines collapsed, blank lines dropped; line breaks kept: they decide what
    is a directive, so text moved out of a string onto a line of its own is not "the same"."""
    return "\n".join(" ".join(ln.split()) for ln in s.split("\n") if ln.strip())


@functools.lru_cache(maxsize=1)
def toolkit_include_dirs() -> tuple[str, ...]:
    """The CUDA toolkit's include directories (through nvcc), () when no toolkit is found."""
    try:
        from kernelpro.profilers.toolchain import discover, include_dirs

        return tuple(include_dirs(discover().path("nvcc")))
    except Exception:  # no nvcc: nothing resolves in a toolkit, the allow-list still holds
        return ()


@dataclass
class _Macro:
    name: str
    params: list[str] | None  # None: object-like
    body: list[Token]
    line: int


@dataclass
class _Source:
    """One lexed and parsed text: the model's, or the file it starts from."""

    lx: Lexed
    tree: object
    b2c: list[int] | None  # byte offset -> character offset (None: ASCII, the same)
    fn_spans: list[tuple[int, int, set[str], object]] = field(default_factory=list)  # (a, b, quals, node), chars

    @classmethod
    def of(cls, text: str) -> "_Source":
        lx = lex(text)
        masked = _UNKNOWN_ATTRS.sub(lambda m: " " * len(m.group(0)), lx.code)
        data = masked.encode()
        b2c = None
        if len(data) != len(masked):
            b2c = []
            for i, ch in enumerate(masked):
                b2c.extend([i] * len(ch.encode()))
            b2c.append(len(masked))
        src = cls(lx, _PARSER.parse(data), b2c)
        for n in walk(src.tree.root_node):
            if n.type == "function_definition":
                a, b = src.span(n)
                src.fn_spans.append((a, b, _quals(n), n))
        return src

    def span(self, n) -> tuple[int, int]:
        if self.b2c is None:
            return n.start_byte, n.end_byte
        return self.b2c[n.start_byte], self.b2c[n.end_byte]

    def line(self, n) -> int:
        return self.lx.line_at(self.span(n)[0])

    def text(self, n) -> str:
        a, b = self.span(n)
        return self.lx.clean[a:b]

    def body_spans(self) -> list[tuple[int, int]]:
        out = []
        for a, b, q, n in self.fn_spans:
            body = n.child_by_field_name("body")
            if body is not None:
                out.append(self.span(body))
        return out


def _top_items(root):
    """Namespace-scope items (through namespaces, extern "C", templates and #if groups)."""
    stack = list(reversed(root.children))
    while stack:
        n = stack.pop()
        if n.type in _CONTAINERS:
            body = n.child_by_field_name("body") if n.type in ("namespace_definition", "linkage_specification") else None
            kids = body.children if body is not None and n.type == "namespace_definition" else n.children
            stack.extend(reversed(kids))
            continue
        yield n


def _copied(model: _Source, ref: _Source | None) -> tuple[list[tuple[int, int]], set[int]]:
    """Spans (characters) of the model's top-level functions and declarations copied unchanged
    from the reference, and the indexes of its directive lines that the reference has too."""
    if ref is None:
        return [], set()
    ref_all = _norm(ref.lx.clean)
    ref_decls = {_norm(ref.text(n)) for n in _top_items(ref.tree.root_node) if n.type != "function_definition"}
    spans = []
    for n in _top_items(model.tree.root_node):
        t = _norm(model.text(n))
        if not t:
            continue
        if (n.type == "function_definition" and t in ref_all) or (n.type != "function_definition" and t in ref_decls):
            spans.append(model.span(n))
    ref_dirs = {_dir_key(d) for d in ref.lx.directives()}
    same = {i for i, d in enumerate(model.lx.lines) if d[0].text == "#" and _dir_key(d) in ref_dirs}
    # a computed include is the file's only while the model defines none of its macros
    defined = {d[2].text for i, d in enumerate(model.lx.lines) if i not in same and len(d) > 2
               and d[0].text == "#" and d[1].text in ("define", "undef")}
    same = {i for i in same if not (_computed_include(model.lx.lines[i])
                                    and any(t.text in defined for t in model.lx.lines[i][2:]))}
    return spans, same


def _dir_key(line: list[Token]) -> tuple[str, ...]:
    return tuple(t.text for t in line)


def _computed_include(line: list[Token]) -> bool:
    return len(line) > 1 and line[1].text in ("include", "include_next", "import", "embed") and (
        len(line) < 3 or line[2].kind != "header")


def _inside(a: int, spans) -> bool:
    return any(x <= a < y for x, y in spans)


def check_source(
    source: str,
    project_dir: str | Path | None = None,
    reference: str | None = None,
    include_paths: tuple[str, ...] | list[str] = (),
    toolkit_dirs: tuple[str, ...] | None = None,
) -> None:
    """Raise BadAnswer if the model's source may read files, run host code or leave the device.

    project_dir: the kernel file's folder (the project's headers); reference: the file the
    model started from (what it copies unchanged is the user's); include_paths: the other -I
    folders the compile will use; toolkit_dirs: the toolkit's include folders (found through
    nvcc when None)."""
    try:
        model = _Source.of(source)
        ref = _Source.of(reference) if reference else None
    except LexError as e:
        raise BadAnswer(e.reason) from None
    copied, same_dirs = _copied(model, ref)
    if toolkit_dirs is None:
        toolkit_dirs = toolkit_include_dirs()
    macros = _check_directives(model, copied, same_dirs, project_dir)
    _check_tokens(model, copied, same_dirs, macros)
    _check_host_calls(model, copied)
    _check_functions(model, copied)
    _check_namespace_scope(model, copied, macros, ref)
    _check_include_roots(model, project_dir, tuple(include_paths), tuple(toolkit_dirs), macros)


# -- directives ------------------------------------------------------------------------------

def _check_directives(src: _Source, copied, same_dirs: set[int], project_dir) -> dict[str, _Macro]:
    macros: dict[str, _Macro] = {}
    for i, line in enumerate(src.lx.lines):
        first = line[0]
        if first.text != "#":
            if first.kind == "id" and first.text in ("import", "module", "export") and len(line) > 1 and (
                    line[1].kind in ("str", "header") or line[1].text in ("<", ":", "import", "module")):
                raise BadAnswer(f"'{first.text}' at line {first.line}: C++ modules and header units are not allowed")
            continue
        if i in same_dirs:
            continue
        where = first.line
        if len(line) == 1:
            continue  # the null directive
        name_tok = line[1]
        if name_tok.kind == "num":
            if len(line) > 2:
                raise BadAnswer(f"line marker '# {name_tok.text} ...' at line {where} is not allowed "
                                "(it would make the compiler quote another file)")
            continue
        if name_tok.kind != "id":
            raise BadAnswer(f"malformed directive '#{name_tok.text}' at line {where}")
        name, rest = name_tok.text, line[2:]
        if name in ("include_next", "import", "embed"):
            raise BadAnswer(f"#{name} at line {where} is not allowed")
        if name == "include":
            _check_include(rest, where, project_dir)
        elif name == "pragma":
            _check_pragma([t.text for t in rest], where)
        elif name == "line":
            if len(rest) != 1 or rest[0].kind != "num" or not rest[0].text.isdigit():
                raise BadAnswer(f"#line at line {where}: only '#line <number>' is allowed "
                                "(a file name would make the compiler quote another file)")
        elif name == "define":
            m = _parse_define(rest, where)
            if m is not None:
                macros[m.name] = m
        elif name not in _DIRECTIVES:
            raise BadAnswer(f"#{name} at line {where} is not allowed")
    return macros


def _check_include(rest: list[Token], line: int, project_dir) -> None:
    if not rest or rest[0].kind != "header":
        arg = " ".join(t.text for t in rest)
        raise BadAnswer(f"#include {arg} at line {line}: only <header> or \"header\" forms are allowed")
    if len(rest) > 1:
        raise BadAnswer(f"#include {rest[0].text} at line {line}: nothing may follow the header name")
    arg = rest[0].text
    angle = arg.startswith("<")
    name = arg[1:-1].strip()
    if not name or re.search(r"[\\'\"\x00-\x1f]|//|/\*", name):
        raise BadAnswer(f"#include {arg} at line {line}: the header name has characters that are not allowed")
    if ".." not in Path(name).parts and any(fnmatch.fnmatchcase(name, p) for p in ALLOWED_INCLUDES):
        return
    if angle:
        raise BadAnswer(f"#include <{name}> at line {line} is not an allowed device header")
    _check_project_header(name, line, project_dir)


def _check_project_header(name: str, line: int, project_dir) -> None:
    if project_dir is None:
        raise BadAnswer(f'#include "{name}" at line {line}: no project directory to resolve it in')
    if Path(name).is_absolute() or name.startswith("~"):
        raise BadAnswer(f'#include "{name}" at line {line}: absolute paths are not allowed')
    try:
        root = Path(project_dir).resolve()
        target = (root / name).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise BadAnswer(f'#include "{name}" at line {line} cannot be resolved') from None
    if not target.is_relative_to(root):
        raise BadAnswer(f'#include "{name}" at line {line} resolves outside the project')
    if not target.is_file():
        raise BadAnswer(f'#include "{name}" at line {line}: no such file in the project')


def _pragma_allowed(words: list[str]) -> bool:
    if not words:
        return True
    if words[0] in ALLOWED_PRAGMAS:
        return True
    return len(words) > 1 and f"{words[0]} {words[1]}" in ALLOWED_PRAGMAS


def _check_pragma(words: list[str], line: int, how: str = "#pragma") -> None:
    if not _pragma_allowed(words):
        what = " ".join(words[:2])
        raise BadAnswer(f"{how} {what} at line {line} is not allowed: only unroll, nounroll, once, pack, message "
                        "and diagnostic pragmas are")


def _parse_define(rest: list[Token], line: int) -> _Macro | None:
    if not rest or rest[0].kind != "id":
        return None
    name = rest[0].text
    params = None
    body = rest[1:]
    if body and body[0].text == "(" and body[0].start == rest[0].end:  # function-like: no space before (
        close = next((k for k, t in enumerate(body) if t.text == ")"), None)
        if close is None:
            raise BadAnswer(f"#define {name} at line {line}: unbalanced parameter list")
        params = [t.text for t in body[1:close] if t.kind == "id" or t.text == "..."]
        body = body[close + 1:]
    return _Macro(name, params, body, line)


# -- tokens ----------------------------------------------------------------------------------

def _check_tokens(src: _Source, copied, same_dirs: set[int], macros: dict[str, _Macro]) -> None:
    lines = src.lx.lines
    skip: set[int] = set()  # ids of the tokens of directive lines the reference has too
    for li, line in enumerate(lines):
        if li in same_dirs:
            skip.update(id(t) for t in line)
            continue
        is_define = line[0].text == "#" and len(line) > 1 and line[1].text == "define"
        macro = _parse_define(line[2:], line[0].line) if is_define and len(line) > 2 else None
        body_from = len(line) - len(macro.body) if macro is not None else len(line)
        for k, t in enumerate(line):
            where = t.line
            nxt = line[k + 1] if k + 1 < len(line) else None
            prev = line[k - 1] if k > 0 else None
            if t.text == "#" and k > 0:
                if not is_define or k < body_from:
                    raise BadAnswer(f"'#' at line {where} outside a directive: a macro must not put a '#' "
                                    "at the start of a line (nvcc would read it as a line marker)")
                if macro.params is None or nxt is None or nxt.text not in macro.params + ["__VA_ARGS__", "__VA_OPT__"]:
                    raise BadAnswer(f"'#' at line {where} in #define {macro.name}: only the stringize operator "
                                    "of a function-like macro (#param) is allowed")
            elif t.text == "##" and not is_define:
                raise BadAnswer(f"'##' at line {where} outside a #define")
            elif t.text == "%" and ((nxt is None and is_define) or (nxt is not None and nxt.text in (",", ")"))):
                raise BadAnswer(f"'%' at line {where} passed alone to a macro: it could be pasted into '%:' ('#')")
            elif t.text == ":" and ((prev is not None and prev.text in ("(", ",")) or (is_define and k == body_from)):
                raise BadAnswer(f"':' at line {where} passed alone to a macro: it could be pasted into '%:' ('#')")
    toks = src.lx.tokens
    pasting = any(t.text == "##" for t in toks)
    names = {id(ln[1]) for ln in lines if ln[0].text == "#" and len(ln) > 1}  # `include` of #include is no piece
    for k, t in enumerate(toks):
        if t.kind != "id" or id(t) in skip or _inside(t.start, copied):
            continue
        w, where = t.text, t.line
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if w in _BANNED_IDS or w.startswith(("__has_include", "__has_embed")):
            raise BadAnswer(f"{w} at line {where} is not allowed (it probes files outside the code)")
        if w == "_Pragma":
            _check_pragma_operator(toks, k, where)
        if pasting and len(w) >= 2 and id(t) not in names and any(w != b and (b.startswith(w) or b.endswith(w)) for b in _PASTE_TARGETS):
            raise BadAnswer(f"'{w}' at line {where} with '##' pasting in the code: pieces of "
                            f"{', '.join(_PASTE_TARGETS)} are not allowed")
        if w in ("__attribute__", "__attribute", "__declspec") and nxt is not None and nxt.text == "(":
            _check_attribute(toks, k + 1, where, macros)
    for k, t in enumerate(toks[:-1]):  # [[gnu::constructor]]
        if t.text == "[" and toks[k + 1].text == "[" and id(t) not in skip and not _inside(t.start, copied):
            _check_attribute(toks, k, t.line, macros)


def _check_pragma_operator(toks: list[Token], k: int, where: int) -> None:
    if not (k + 3 < len(toks) and toks[k + 1].text == "(" and toks[k + 2].kind == "str"
            and toks[k + 2].text[:1] in ('"', "L") and toks[k + 3].text == ")"):
        raise BadAnswer(f"_Pragma at line {where}: only _Pragma(\"...\") with a string literal is allowed")
    s = toks[k + 2].text
    s = s[s.index('"') + 1:-1].replace('\\"', '"').replace("\\\\", "\\")
    try:
        inner = lex(s)
    except LexError as e:
        raise BadAnswer(f"_Pragma at line {where}: {e.reason}") from None
    _check_pragma([t.text for t in (inner.lines[0] if inner.lines else [])], where, "_Pragma")


def _check_attribute(toks: list[Token], k: int, where: int, macros: dict[str, _Macro]) -> None:
    """The attribute list opening at toks[k] (`(` of __attribute__ or the first `[` of `[[`)."""
    opener = toks[k].text
    closer = ")" if opener == "(" else "]"
    depth = 0
    for t in toks[k:]:
        if t.text == opener:
            depth += 1
        elif t.text == closer:
            depth -= 1
            if depth == 0:
                return
        elif t.kind == "id":
            words = [t.text] + _macro_words(t.text, macros, set())
            for w in words:
                if w.strip("_") in _BAD_ATTRS:
                    raise BadAnswer(f"attribute '{w}' at line {where} is not allowed (it runs or places host code)")


def _macro_words(name: str, macros: dict[str, _Macro], seen: set[str]) -> list[str]:
    """The identifiers a macro the model defines expands to (through its other macros)."""
    if name not in macros or name in seen:
        return []
    seen.add(name)
    out = []
    for t in macros[name].body:
        if t.kind == "id":
            out.append(t.text)
            out += _macro_words(t.text, macros, seen)
    return out


# -- C++ -------------------------------------------------------------------------------------

def _check_host_calls(src: _Source, copied) -> None:
    code = src.lx.code
    for pattern, what in _HOST_CALLS:
        for m in pattern.finditer(code):
            if _inside(m.start(), copied):
                continue
            line = src.lx.line_at(m.start())
            raise BadAnswer(f"{what} '{m.group(0).rstrip('( ').strip()}' at line {line}: only device code is allowed")


def _check_functions(src: _Source, copied) -> None:
    device_bodies = []
    for a, b, q, fn in src.fn_spans:
        if q & _DEVICE_QUALS:
            device_bodies.append((a, b))
    for a, b, q, fn in src.fn_spans:
        if _inside(a, copied) or q & _DEVICE_QUALS or "constexpr" in q or any(x <= a and b <= y for x, y in device_bodies):
            continue
        raise BadAnswer(
            f"host function '{_declarator_name(fn)}' at line {src.line(fn)}: only __global__/__device__ functions "
            "are allowed (KernelPro launches the kernel itself)"
        )
    for n in walk(src.tree.root_node):
        if n.type == "call_expression":
            f = n.child_by_field_name("function")
            a = src.span(n)[0]
            if f is not None and src.text(f) in _ALLOC_FUNCS and not _inside(a, device_bodies) and not _inside(a, copied):
                raise BadAnswer(f"{src.text(f)}() outside device code at line {src.line(n)}")
        elif n.type == "linkage_specification":
            for c in walk(n):
                if c.type == "function_definition" and "__host__" in _quals(c) and not _inside(src.span(c)[0], copied):
                    raise BadAnswer(f"extern \"C\" __host__ __device__ function '{_declarator_name(c)}' at line "
                                    f"{src.line(c)}: it could replace a C library function in the program")
    # inline asm: device-only functions; elsewhere it is host code (or an asm label renaming a host symbol)
    for t in src.lx.tokens:
        if t.kind != "id" or t.text not in _ASM or _inside(t.start, copied):
            continue
        enclosing = [(b - a, q) for a, b, q, _ in src.fn_spans if a <= t.start < b]
        q = min(enclosing, key=lambda e: e[0])[1] if enclosing else set()
        if not (q & _DEVICE_QUALS) or "__host__" in q:
            raise BadAnswer(f"asm at line {t.line}: inline asm is allowed only inside __device__ or __global__ "
                            "functions (elsewhere it is host code)")


def _check_namespace_scope(src: _Source, copied, macros: dict[str, _Macro], ref: _Source | None) -> None:
    known = _known_names(src) | (_known_names(ref) if ref is not None else set())
    device_fns = {_declarator_name(n) for a, b, q, n in src.fn_spans if q & _DEVICE_QUALS}
    if ref is not None:
        device_fns |= {_declarator_name(n) for a, b, q, n in ref.fn_spans if q & _DEVICE_QUALS}
    ctx = _ConstCtx(src, known, device_fns, macros)
    bodies = src.body_spans()
    for item in _top_items(src.tree.root_node):
        a, _ = src.span(item)
        if _inside(a, copied):
            continue
        if item.type == "ERROR":
            raise BadAnswer(f"line {src.line(item)}: this code could not be parsed; write plain CUDA C++ "
                            "(declarations outside functions are checked)")
        if item.type == "declaration":
            _check_declaration(item, ctx)
        for c in _walk_outside_bodies(item):  # struct bodies: static and default member initialisers
            if c.type == "field_declaration":
                _check_field(c, ctx)
    # macros the model defines that are used outside functions (the user's code copied unchanged too)
    directive_lines = {id(t) for ln in src.lx.lines if ln[0].text == "#" for t in ln}
    for t in src.lx.tokens:
        if t.kind == "id" and t.text in macros and id(t) not in directive_lines and not _inside(t.start, bodies):
            why = ctx.macro_problem(t.text, set())
            if why:
                raise BadAnswer(f"macro '{t.text}' used outside functions at line {t.line} {why}: code outside "
                                "functions must be constant declarations")
    if ref is None:
        return
    # ... and in the file's host code, which the candidate keeps: a macro the model defines changes it
    ref_dirs = {id(t) for ln in ref.lx.lines if ln[0].text == "#" for t in ln}
    device_bodies = [ref.span(n.child_by_field_name("body")) for a, b, q, n in ref.fn_spans
                     if q & _DEVICE_QUALS and "__host__" not in q and n.child_by_field_name("body") is not None]
    for t in ref.lx.tokens:
        if t.kind == "id" and t.text in macros and id(t) not in ref_dirs and not _inside(t.start, device_bodies):
            why = ctx.macro_problem(t.text, set())
            if why:
                raise BadAnswer(f"macro '{t.text}' (#define at line {macros[t.text].line}) {why}, and the file's host "
                                f"code uses '{t.text}' (line {t.line} of the file): a macro must not change host code")


def _walk_outside_bodies(n):
    stack = [n]
    while stack:
        c = stack.pop()
        yield c
        if c.type in ("compound_statement", "lambda_expression"):
            continue
        stack.extend(reversed(c.children))


def _known_names(src: _Source) -> set[str]:
    out = set()
    for n in walk(src.tree.root_node):
        if n.type == "init_declarator" or n.type in ("declaration", "field_declaration", "parameter_declaration",
                                                     "optional_parameter_declaration"):
            d = n.child_by_field_name("declarator")
            while d is not None and d.type not in ("identifier", "field_identifier", "qualified_identifier"):
                d = d.child_by_field_name("declarator")
            if d is not None:
                if d.type == "qualified_identifier":
                    d = d.child_by_field_name("name")
                if d is not None:
                    out.add(src.text(d))
        elif n.type == "enumerator":
            nm = n.child_by_field_name("name")
            if nm is not None:
                out.add(src.text(nm))
    return out


class _ConstCtx:
    def __init__(self, src: _Source, known: set[str], device_fns: set[str], macros: dict[str, _Macro]):
        self.src, self.known, self.device_fns, self.macros = src, known, device_fns, macros
        self._macro_ok: dict[str, str | None] = {}

    def macro_problem(self, name: str, seen: set[str]) -> str | None:
        """Why a macro the model defines is not safe outside functions (None: it is)."""
        if name in self._macro_ok:
            return self._macro_ok[name]
        if name in seen:
            return None
        seen = seen | {name}
        m = self.macros[name]
        why = None
        body = m.body
        for k, t in enumerate(body):
            nxt = body[k + 1] if k + 1 < len(body) else None
            if t.kind == "id" and t.text in _ASM:
                why = "expands to asm"
            elif t.kind == "id" and nxt is not None and nxt.text == "(" and t.text not in _SAFE_CALLS:
                if t.text in self.macros and self.macros[t.text].params is not None:
                    why = self.macro_problem(t.text, seen)
                else:
                    why = f"expands to a call of '{t.text}'"
            elif t.kind == "id" and t.text in self.macros:
                why = self.macro_problem(t.text, seen)
            elif t.text == "]" and nxt is not None and nxt.text in ("(", "{"):
                why = "expands to a lambda"
            if why:
                break
        self._macro_ok[name] = why
        return why

    def problem(self, n, device: bool) -> str | None:
        """Why the initialiser expression n is not a constant expression (None: it is)."""
        t = n.type
        src = self.src
        if t in ("number_literal", "char_literal", "string_literal", "concatenated_string", "raw_string_literal",
                 "true", "false", "null", "nullptr", "sizeof_expression", "alignof_expression",
                 "offsetof_expression", "field_designator", "subscript_designator", "type_descriptor",
                 "comment"):
            return None
        if t in ("identifier", "qualified_identifier", "template_function", "field_identifier"):
            name = src.text(n)
            if t == "qualified_identifier":
                last = n.child_by_field_name("name")
                name = src.text(last) if last is not None else name
            if t == "template_function":
                nm = n.child_by_field_name("name")
                name = src.text(nm) if nm is not None else name
            name = name.split("::")[-1].strip()
            if name in self.macros:
                return self.macro_problem(name, set())
            if name in self.known or _CONST_NAME.match(name) or (device and name in self.device_fns):
                return None
            return f"uses '{name}', which is not a constant declared in the code"
        if t == "call_expression":
            f = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            fname = src.text(f).strip() if f is not None else "?"
            if f is not None and f.type == "template_function":
                nm = f.child_by_field_name("name")
                if nm is not None and src.text(nm) == "static_cast":
                    return self.problem(args, device) if args is not None else None
            if f is not None and f.type == "identifier" and fname in self.macros and \
                    self.macros[fname].params is not None:
                return self.macro_problem(fname, set()) or (self.problem(args, device) if args is not None else None)
            if f is not None and f.type in ("primitive_type", "sized_type_specifier"):  # float(3)
                return self.problem(args, device) if args is not None else None
            if f is not None and f.type == "lambda_expression":
                return "calls a lambda"
            return f"calls '{_short(fname)}'"
        if t == "cast_expression":
            v = n.child_by_field_name("value")
            return self.problem(v, device) if v is not None else None
        if t == "pointer_expression":
            op = n.child_by_field_name("operator")
            arg = n.child_by_field_name("argument")
            if op is not None and src.text(op) == "&" and arg is not None:
                base = arg
                while base.type in ("subscript_expression", "field_expression", "parenthesized_expression"):
                    base = base.child_by_field_name("argument") or (base.named_children[0] if base.named_children else base)
                    if base is arg:
                        break
                name = src.text(base).split("::")[-1].strip()
                if base.type in ("identifier", "qualified_identifier") and (
                        name in self.known or (device and name in self.device_fns)):
                    return None
                return f"takes the address of '{_short(src.text(arg))}'"
            return f"dereferences '{_short(src.text(arg) if arg is not None else '?')}'"
        if t in ("binary_expression", "unary_expression", "parenthesized_expression", "conditional_expression",
                 "comma_expression", "initializer_list", "initializer_pair", "argument_list",
                 "subscript_expression", "field_expression", "compound_literal_expression", "subscript_argument_list"):
            for c in n.named_children:
                if c.type == "type_descriptor":
                    continue
                why = self.problem(c, device)
                if why:
                    return why
            return None
        if t == "lambda_expression":
            return "holds a lambda"
        return f"is a {t.replace('_', ' ')}"


def _short(s: str, limit: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _specifiers(n, src: _Source) -> set[str]:
    return {src.text(c).strip() for c in n.children
            if c.type in ("storage_class_specifier", "type_qualifier", "__device__", "__constant__",
                          "__shared__", "__managed__", "__host__", "__global__", "attribute_specifier")} | {
        c.type for c in n.children}


def _check_declaration(n, ctx: _ConstCtx) -> None:
    src = ctx.src
    spec = _specifiers(n, src)
    if "constexpr" in spec or "constinit" in spec or "typedef" in spec:
        return
    device = bool(spec & _DEVICE_VARS)
    type_node = n.child_by_field_name("type")
    for d in n.children_by_field_name("declarator"):
        value = None
        inner = d
        if d.type == "init_declarator":
            value = d.child_by_field_name("value")
            inner = d.child_by_field_name("declarator")
        if inner is not None and inner.type == "function_declarator" and (
                inner.child_by_field_name("declarator") is None
                or inner.child_by_field_name("declarator").type != "parenthesized_declarator"):
            continue  # a function's declaration
        name = _decl_name(inner, src)
        if value is not None:
            why = ctx.problem(value, device)
            if why:
                raise BadAnswer(f"the initialiser of '{name}' at line {src.line(d)} {why}: outside functions only "
                                "constant initialisers are allowed (literals, named constants and arithmetic on "
                                "them; use constexpr, or compute it inside the kernel)")
        if not device and "extern" not in spec and type_node is not None and _class_type(type_node) \
                and not _is_pointer(inner):
            raise BadAnswer(f"namespace-scope object '{name}' of type '{_short(src.text(type_node))}' at line "
                            f"{src.line(d)}: its constructor would run on the host when the program starts; "
                            "only constants of built-in types (or constexpr) are allowed outside functions")


def _check_field(n, ctx: _ConstCtx) -> None:
    src = ctx.src
    spec = _specifiers(n, src)
    if "constexpr" in spec or "constinit" in spec:
        return
    for v in n.children_by_field_name("default_value"):
        why = ctx.problem(v, False)
        if why:
            d = n.child_by_field_name("declarator")
            name = src.text(d) if d is not None else "?"
            raise BadAnswer(f"the initialiser of member '{name}' at line {src.line(n)} {why}: member initialisers "
                            "must be constant (literals, named constants and arithmetic on them)")


def _decl_name(d, src: _Source) -> str:
    while d is not None and d.type not in ("identifier", "qualified_identifier", "field_identifier"):
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in d.named_children if c.type.endswith("declarator") or c.type == "identifier"), None)
        d = nxt
    return src.text(d) if d is not None else "?"


def _class_type(t) -> bool:
    return t.type in ("type_identifier", "qualified_identifier", "template_type", "struct_specifier",
                      "class_specifier", "union_specifier", "dependent_type", "decltype")


def _is_pointer(d) -> bool:
    while d is not None:
        if d.type in ("pointer_declarator", "reference_declarator"):
            return True
        if d.type in ("identifier", "qualified_identifier", "field_identifier"):
            return False
        d = d.child_by_field_name("declarator")
    return False


# -- where the includes lead -----------------------------------------------------------------

def _check_include_roots(src: _Source, project_dir, include_paths: tuple[str, ...], toolkit: tuple[str, ...],
                         macros: dict[str, _Macro]) -> None:
    """Every include, the model's and those of the project headers it reaches, must resolve
    inside the project folder or the toolkit's include folders, searched as nvcc searches."""
    root = Path(project_dir).resolve() if project_dir is not None else None
    tk = [Path(d) for d in toolkit]
    tk_res = [d.resolve() for d in tk]
    extra = [Path(p) for p in include_paths]
    allowed = ([root] if root is not None else []) + tk_res

    def under_roots(p: Path) -> bool:
        return any(p.is_relative_to(r) for r in allowed)

    seen: set[Path] = set()
    todo: list[tuple[Lexed, Path | None, str]] = [(src.lx, root, "")]
    while todo:
        lx, here, what = todo.pop()
        for line in lx.directives():
            if len(line) < 2 or line[1].text not in ("include", "include_next", "import", "embed"):
                continue
            where = f"line {line[0].line}" + (f" of {what}" if what else "")
            if len(line) < 3 or line[2].kind != "header":
                if what and len(line) > 2 and line[2].text in macros:
                    raise BadAnswer(f"{what} includes the macro '{line[2].text}' ({where}), which the code defines: "
                                    "an include must name its file")
                continue
            arg = line[2].text
            name, angle = arg[1:-1].strip(), arg.startswith("<")
            dirs: list[tuple[Path, bool]] = []  # (folder, in the toolkit)
            if not angle and here is not None:
                dirs.append((here, False))
            if root is not None:
                dirs.append((root, False))
            dirs += [(p, False) for p in extra] + [(p, True) for p in tk]
            for d, in_tk in dirs:
                cand = d / name
                try:
                    if not cand.is_file():
                        continue
                except OSError:
                    continue
                if in_tk and not Path(name).is_absolute() and ".." not in Path(name).parts:
                    break  # the toolkit's own header
                try:
                    target = cand.resolve()
                except (OSError, RuntimeError):  # a symlink loop
                    raise BadAnswer(f"#include {arg} at {where} cannot be resolved") from None
                if not under_roots(target):
                    raise BadAnswer(f"#include {arg} at {where} resolves outside the project folder and the CUDA "
                                    "toolkit")
                if root is not None and target.is_relative_to(root) and target not in seen and len(seen) < 200:
                    seen.add(target)
                    try:
                        hl = lex(target.read_text(errors="replace"))
                    except (OSError, LexError) as e:
                        raise BadAnswer(f"project header {target.relative_to(root)} (included at {where}) cannot "
                                        f"be checked: {getattr(e, 'reason', e)}") from None
                    todo.append((hl, target.parent, f"project header {target.relative_to(root)}"))
                break
            else:
                if Path(name).is_absolute() or ".." in Path(name).parts:
                    raise BadAnswer(f"#include {arg} at {where}: not found in the project folder or the CUDA toolkit")
