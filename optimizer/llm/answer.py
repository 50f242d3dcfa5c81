"""Parse and police a model's answer: one CUDA kernel and, optionally, its launch part.

Only device code and the declared launch part are ever used: the kernel is compiled to a
cubin (device code only) and launched by KernelPro's own runner from the launch spec, so
nothing the model writes runs on the host. The checks below still reject host code with a
clear reason, so the model learns what is wanted and harnesses never reach the compiler:

- a fenced code block (```cuda, ```cu, ```cpp, ```c++, ```c or untagged) must hold a
  `__global__` kernel with the required name (renaming is rejected); the last block that
  defines it wins;
- the code goes through police.check_source (the one check on everything the model writes, tool
  inputs included): device functions only, no host APIs or host system functions, no
  namespace-scope code, includes only of allow-listed toolkit headers or project files that
  resolve inside the project and the toolkit, harmless pragmas only, no directive a macro could
  build; all read on the preprocessor's view of the text (line splices, comments, digraphs);
- inline `asm` is allowed in `__device__`/`__global__` functions: in a cubin build it can only be
  device PTX;
- the answer's size is bounded;
- a ```json block may declare the launch part: keys "block", "grid", "shared_bytes" and
  "flags"; values are ints, lists of 1-3 ints, or strings of integer arithmetic over size
  names; flags come from a small allow-list of nvcc options.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from kernelpro.profilers.source import walk

from .lexer import LexError, lex
from .police import (  # noqa: F401  (re-exported: the answer's API)
    _PARSER, ALLOWED_INCLUDES, BadAnswer, _declarator_name, _quals, check_source, toolkit_include_dirs,
)

MAX_ANSWER_CHARS = 200_000

ALLOWED_FLAGS = re.compile(
    r"^(-?-use_fast_math|-O[0-3]|-Xptxas=-O[0-3]|-lineinfo|-?-extra-device-vectorization|"
    r"-?-restrict|-std=c\+\+(17|20)|-?-maxrregcount=\d{1,3}|-ftz=(true|false)|"
    r"-prec-div=(true|false)|-prec-sqrt=(true|false)|-fmad=(true|false)|"
    r"-Xptxas=-dlcm=(ca|cg)|-D[A-Za-z_]\w*(=[\w.+-]*)?)$"
)

LAUNCH_KEYS = {"block", "grid", "shared_bytes", "flags"}
EXPR_FUNCS = {"min", "max", "ceil", "floor", "ceil_div", "cdiv", "div_up"}

_CODE_LANGS = {"", "cuda", "cu", "cpp", "c++", "cxx", "c", "cuh"}
_FENCE = re.compile(r"^```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*```", re.S | re.M)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S
)


@dataclass
class Answer:
    source: str
    launch: dict | None  # "block", "grid", "shared_bytes" (no flags)
    notes: str  # the prose outside the code blocks, shortened
    flags: tuple[str, ...] | None = None  # None: the answer declared no flags


def extract_answer(
    text: str,
    kernel_name: str,
    project_dir: str | Path | None = None,
    max_chars: int = MAX_ANSWER_CHARS,
    reference_source: str | None = None,
) -> Answer:
    """Return the kernel (and launch part) in `text`, or raise BadAnswer.

    With `reference_source`, the kernel's parameter types must match the reference kernel's
    (qualifiers `const`, `__restrict__`, `volatile` and names may change): the runner binds
    arguments from the launch spec."""
    if text is None or not text.strip():
        raise BadAnswer("empty answer")
    if len(text) > max_chars:
        raise BadAnswer(f"answer too long: {len(text)} characters (limit {max_chars})")
    text = _THINK.sub("", text)
    blocks = [(m.group(1).lower(), m.group(2), m.span()) for m in _FENCE.finditer(text)]
    code = [b for b in blocks if b[0] in _CODE_LANGS and "__global__" in b[1]]
    if not code:
        raise BadAnswer("no code block: put the whole kernel in one ```cuda fenced block")
    chosen = None
    found: list[str] = []
    for lang, body, span in reversed(code):
        names = global_kernels(body)
        found += [n for n in names if n not in found]
        if kernel_name in names:
            chosen = body
            break
    if chosen is None:
        # code the parser cannot follow hides the kernel: the check says what is wrong with it first
        check_source(code[-1][1], project_dir, reference=reference_source)
        others = ", ".join(found) or "none"
        raise BadAnswer(
            f"kernel '{kernel_name}' not found (the answer defines __global__: {others}); keep the kernel's name"
        )
    source = chosen.rstrip() + "\n"
    if reference_source is not None:  # launchers copied back from the file are the file's, not the model's
        from .splice import drop_copied_host_code

        source = drop_copied_host_code(source, reference_source)
    check_source(source, project_dir, reference=reference_source)
    if reference_source is not None:
        _check_params(source, reference_source, kernel_name)
    launch, flags = None, None
    js = [b for b in blocks if b[0] in ("json", "jsonc")]
    if js:
        launch, flags = parse_launch(js[-1][1])
    notes = text
    for _, _, span in sorted(blocks, key=lambda b: -b[2][0]):
        notes = notes[: span[0]] + notes[span[1]:]
    notes = " ".join(notes.split())[:2000]
    return Answer(source=source, launch=launch, notes=notes, flags=flags)


def _strip_comments_and_strings(src: str) -> str:
    def repl(m: re.Match) -> str:
        s = m.group(0)
        if s.startswith(("//", "/*")):
            return re.sub(r"[^\n]", " ", s)
        return s[0] + " " * (len(s) - 2) + s[-1]

    return _COMMENT_OR_STRING.sub(repl, src)


def _functions(src: str):
    tree = _PARSER.parse(src.encode())
    return tree, [n for n in walk(tree.root_node) if n.type == "function_definition"]


def global_kernels(src: str) -> list[str]:
    """Names of the `__global__` functions defined in src (as the compiler sees it: line splices
    and comments read as the preprocessor reads them)."""
    try:
        src = lex(src).code
    except LexError:
        pass  # the check refuses it with the reason
    _, fns = _functions(src)
    return [_declarator_name(f) for f in fns if "__global__" in _quals(f)]


def _param_types(src: str, kernel_name: str) -> list[str] | None:
    _, fns = _functions(_strip_comments_and_strings(src))
    for fn in fns:
        if "__global__" not in _quals(fn) or _declarator_name(fn) != kernel_name:
            continue
        decl = fn.child_by_field_name("declarator")
        while decl is not None and decl.type != "function_declarator":
            decl = decl.child_by_field_name("declarator")
        params = decl.child_by_field_name("parameters") if decl is not None else None
        if params is None:
            return None
        out = []
        for p in params.named_children:
            if p.type != "parameter_declaration":
                continue
            name_node = p.child_by_field_name("declarator")
            while name_node is not None and name_node.child_by_field_name("declarator") is not None:
                name_node = name_node.child_by_field_name("declarator")
            text = p.text.decode()
            if name_node is not None and name_node.type == "identifier":
                cut = name_node.start_byte - p.start_byte
                text = text[:cut] + text[cut + len(name_node.text):]
            text = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b", " ", text)
            out.append(re.sub(r"\s+", "", text))
        return out
    return None


def _check_params(source: str, reference: str, kernel_name: str) -> None:
    want = _param_types(reference, kernel_name)
    got = _param_types(source, kernel_name)
    if want is None or got is None or want == got:
        return
    raise BadAnswer(
        f"kernel '{kernel_name}' parameters changed: ({', '.join(got)}) instead of ({', '.join(want)}); "
        "keep the parameter list (const/__restrict__ may be added)"
    )


def parse_launch(text: str) -> tuple[dict | None, tuple[str, ...] | None]:
    """Validate a ```json launch block: (launch dict without flags or None, flags or None)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadAnswer(f"launch json is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise BadAnswer("launch json must be an object with keys block, grid, shared_bytes, flags")
    extra = sorted(set(data) - LAUNCH_KEYS)
    if extra:
        raise BadAnswer(f"launch json has unknown keys {extra}; allowed: {sorted(LAUNCH_KEYS)}")
    launch: dict = {}
    for key in ("block", "grid"):
        if key in data:
            v = data[key]
            items = v if isinstance(v, list) else [v]
            if not 1 <= len(items) <= 3:
                raise BadAnswer(f"launch '{key}' must have 1 to 3 dimensions")
            for it in items:
                _check_value(key, it)
            launch[key] = v
    if "shared_bytes" in data:
        _check_value("shared_bytes", data["shared_bytes"])
        launch["shared_bytes"] = data["shared_bytes"]
    flags: tuple[str, ...] | None = None
    if "flags" in data:
        f = data["flags"]
        if not isinstance(f, list) or not all(isinstance(x, str) for x in f):
            raise BadAnswer("launch 'flags' must be a list of strings")
        for x in f:
            if not ALLOWED_FLAGS.match(x.strip()):
                raise BadAnswer(f"compile flag '{x}' is not allowed")
        flags = tuple(x.strip() for x in f)
    return (launch or None), flags


def _check_value(key: str, v) -> None:
    if isinstance(v, bool):
        raise BadAnswer(f"launch '{key}' must be an integer or an expression string, not {v!r}")
    if isinstance(v, int):
        if v < 0:
            raise BadAnswer(f"launch '{key}' must not be negative")
        return
    if not isinstance(v, str):
        raise BadAnswer(f"launch '{key}' must be an integer or an expression string, not {v!r}")
    check_expression(v, key)


_EXPR_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant, ast.Call,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd,
)


def check_expression(expr: str, key: str = "value") -> None:
    """Integer arithmetic over size names and min/max/ceil/ceil_div; nothing else."""
    if len(expr) > 200:
        raise BadAnswer(f"launch '{key}' expression is too long")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise BadAnswer(f"launch '{key}' expression {expr!r} is not valid arithmetic") from None
    for n in ast.walk(tree):
        if not isinstance(n, _EXPR_NODES):
            raise BadAnswer(f"launch '{key}' expression {expr!r} uses {type(n).__name__}; only arithmetic is allowed")
        if isinstance(n, ast.Constant) and (isinstance(n.value, bool) or not isinstance(n.value, int)):
            raise BadAnswer(f"launch '{key}' expression {expr!r} has a non-integer constant")
        if isinstance(n, ast.Call) and (
            not isinstance(n.func, ast.Name) or n.func.id not in EXPR_FUNCS or n.keywords
        ):
            raise BadAnswer(f"launch '{key}' expression {expr!r} calls something other than {sorted(EXPR_FUNCS)}")
        if isinstance(n, ast.Name) and n.id.startswith("_"):
            raise BadAnswer(f"launch '{key}' expression {expr!r} uses a private name")
