"""Launch configurations of restructured kernels: the spec's grid expressions and the file's
own `kernel<<<grid, block>>>` launches.

A restructured kernel covers the same rows (or elements, or columns) as before, with other
threads doing the work, so its grid derives from the old one: rows = old grid x old block.
"""
from __future__ import annotations

import ast

from kernelpro.profilers.source import SourceFile, walk

from .text import Refuse, in_terms_of

_CDIV = {"cdiv", "ceil_div", "div_up"}


def cover(grid_expr, old_block: int, per_block: int) -> str:
    """A grid expression covering the same units as `grid_expr` blocks of `old_block`, with
    `per_block` units per new block: `cdiv(N, 256)` -> `cdiv(N, 8)`, else `cdiv((G) * 256, 8)`."""
    g = str(grid_expr)
    try:
        tree = ast.parse(g, mode="eval").body
    except SyntaxError:
        raise Refuse(f"the grid expression {g!r} is not an expression") from None
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in _CDIV and len(tree.args) == 2 \
            and isinstance(tree.args[1], ast.Constant) and tree.args[1].value == old_block:
        inner = ast.unparse(tree.args[0])
        return inner if per_block == 1 else f"cdiv({inner}, {per_block})"
    if isinstance(tree, ast.Constant) and isinstance(tree.value, int):
        units = tree.value * old_block
        return str(-(-units // per_block))
    units = f"({g}) * {old_block}" if old_block != 1 else g
    return units if per_block == 1 else f"cdiv({units}, {per_block})"


def spec_units(grid_expr, old_block: int) -> str:
    """The units (rows, elements) the old launch covers, as an expression."""
    return cover(grid_expr, old_block, 1)


# ---------------------------------------------------------------- the file's own launches


def _dim3_names(src: SourceFile, fn) -> set[str]:
    out = set()
    for d in walk(fn):
        if d.type == "declaration" and "dim3" in src.node_text(d.child_by_field_name("type") or d):
            for dd in d.children_by_field_name("declarator"):
                n = dd
                while n is not None and n.type != "identifier":
                    n = n.child_by_field_name("declarator")
                if n is not None:
                    out.add(src.node_text(n))
    return out


def _scalar(src: SourceFile, n, dims: set[str]) -> bool:
    t = src.node_text(n)
    if "dim3" in t or "{" in t:
        return False
    return not any(c.type == "identifier" and src.node_text(c) in dims for c in walk(n))


def launch_sites(src: SourceFile, kernel: str):
    """(call node, config node, [grid, block, shared?, stream?] nodes, enclosing function)."""
    for n in walk(src.root):
        if n.type != "call_expression":
            continue
        cfg = next((c for c in n.children if c.type == "kernel_call_syntax"), None)
        fn = n.child_by_field_name("function")
        if cfg is None or fn is None:
            continue
        name = src.node_text(fn).split("<")[0].split("::")[-1].strip()
        if name != kernel:
            continue
        host = n.parent
        while host is not None and host.type != "function_definition":
            host = host.parent
        yield n, cfg, list(cfg.named_children), host


def _call_args(src: SourceFile, kernel: str, call) -> dict[str, str]:
    """The kernel's parameter names -> the launch's argument texts."""
    k = src.kernel(kernel)
    al = call.child_by_field_name("arguments")
    if k is None or al is None:
        return {}
    vals = [src.node_text(a) for a in al.named_children if a.type != "comment"]
    names = [p.name for p in (k.signature or k.params)]
    return {n: v for n, v in zip(names, vals) if n} if len(vals) == len(names) else {}


def rewrite_launches(src: SourceFile, kernel: str, make) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Substitutions for every launch of `kernel` in the file, and notes for those that cannot
    be rewritten. make(grid_text, block_text, args) -> (new grid text, new block text), args the
    kernel's parameter names -> the launch's arguments; a block text None: not rewritable here."""
    subs, notes = [], []
    for call, cfg, args, host in launch_sites(src, kernel):
        line = call.start_point[0] + 1
        if len(args) < 2:
            continue
        dims = _dim3_names(src, host) if host is not None else set()
        g, b = args[0], args[1]
        if not (_scalar(src, g, dims) and _scalar(src, b, dims)):
            new_g, new_b = make("G", "B", {})
            notes.append(f"line {line}: the launch of {kernel} uses dim3 values; launch it with grid {new_g} and "
                         f"block {new_b}, where G and B are its old grid and block sizes (and the kernel's parameters "
                         f"stand for its arguments)")
            continue
        new_g, new_b = make(src.node_text(g), src.node_text(b), _call_args(src, kernel, call))
        if new_b is None:
            notes.append(f"line {line}: the launch of {kernel} could not be rewritten (its arguments are not the "
                         f"kernel's parameters one by one); launch it with grid {new_g} and the block the spec gives")
            continue
        subs.append((g.start_byte, g.end_byte, new_g))
        subs.append((b.start_byte, b.end_byte, new_b))
    return subs, notes


def rows_host(per_block: int, block: int | None, team_len: str | None = None, per: int = 1,
              rows_from_grid: bool = False):
    """Host launch maker: rows = G * B (G where the old kernel ran one row per block), `per_block`
    rows per new block of `block` threads; with block None, the block team's threads follow the
    row: kp_team_threads(team_len, per), the kernel's parameters in team_len replaced by the
    launch's arguments."""
    def make(g, b, args=None):
        if block is None:
            length = in_terms_of(team_len, args) if args else team_len  # no call: the parameters' names
            threads = f"kp_team_threads((long long)({length}), {per})" if length is not None else None
        else:
            threads = str(block)
        rows = f"(long long)({g})" if rows_from_grid else f"(long long)({g}) * ({b})"
        if per_block == 1:
            return f"(unsigned)({rows})", threads
        return f"(unsigned)(({rows} + {per_block - 1}) / {per_block})", threads
    return make


def columns_host(y: int, z: int, x: int = 32, vec: int = 1):
    per = x * vec

    def make(g, b, args=None):
        return f"dim3((unsigned)(((long long)({g}) * ({b}) + {per - 1}) / {per}), {z})", f"dim3({x}, {y})"
    return make


# ---------------------------------------------------------------- the kernel's own attributes


def _kernel_node(src: SourceFile, kernel: str):
    k = src.kernel(kernel)
    return k.node if k is not None else None


def add_attribute(text: str, path: str, kernel: str, attr: str, over_bounds: bool) -> str | None:
    """text with `attr` right after the kernel's `__global__`; None where the kernel is not found
    (or, with over_bounds False, where it has `__launch_bounds__` of its own)."""
    src = SourceFile(text, path)
    node = _kernel_node(src, kernel)
    if node is None:
        return None
    if not over_bounds and any(c.type == "launch_bounds" for c in node.children):
        return None
    g = next((c for c in node.children if c.type == "__global__"), None)
    if g is None:
        return None
    return (src.data[:g.end_byte] + f" {attr}".encode() + src.data[g.end_byte:]).decode("utf-8", errors="replace")


def fit_launch_bounds(text: str, path: str, kernel: str, threads: int) -> tuple[str, list[str]]:
    """The kernel's `__launch_bounds__(max, ...)` raised to `threads` where its max is smaller (a
    launch above it fails): (text, what was changed). A max it cannot evaluate is said, not changed."""
    src = SourceFile(text, path)
    node = _kernel_node(src, kernel)
    lb = next((c for c in node.children if c.type == "launch_bounds"), None) if node is not None else None
    if lb is None or not lb.named_children:
        return text, []
    most = src.eval_int(lb.named_children[0])
    if most is None:
        return text, [f"the kernel's {src.node_text(lb)} must allow {threads} threads per block"]
    if most >= threads:
        return text, []
    new = f"__launch_bounds__({threads})"
    out = (src.data[:lb.start_byte] + new.encode() + src.data[lb.end_byte:]).decode("utf-8", errors="replace")
    return out, [f"the kernel's {src.node_text(lb)} became {new} for blocks of {threads} threads"]
