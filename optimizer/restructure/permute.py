"""Transposes and permutes through shared memory, whatever their index spelling.

A copy kernel (profilers/analysis/copies.py) whose load is contiguous along one thread dimension and whose
store along the other is rewritten without touching its index code: that code moves into a helper
`kp_roles_<kernel>(params, vx, vy, ...)` that runs the old body for a *virtual* thread (vx, vy) and,
instead of storing, hands back the addresses it would read and write (false where its guards stop it).
The new kernel runs a tile of virtual threads twice: first in the order that makes the loads contiguous,
each parking its element in its own slot of a padded shared-memory tile, then, after one barrier, in the
order that makes the stores contiguous, each taking its slot's element and storing it. Each virtual thread
reads and writes exactly what the old thread did, so the result is the same for any index; only who does
what changes.

Where the index code uses blockDim.x and blockDim.y the tile is 32 x 32 virtual threads run by blocks of
32 x 8 (the grid shrinks to match); where it uses literal tile sizes the tile is the launch's own block.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.copies import Copy
from kernelpro.profilers.source import Kernel, SourceFile, walk

from .launch import launch_sites
from .text import Refuse, span_text

PAD = 1


def _elem(k: Kernel, array: str) -> str:
    p = k.param(array)
    t = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|\*", " ", p.type_text)
    return " ".join(t.split())


def _template(k: Kernel, src: SourceFile) -> tuple[str, str]:
    """The kernel's `template <...>` line and the helper's template arguments (`<T, N>`)."""
    if not k.is_template:
        return "", ""
    node = k.node.parent
    while node is not None and node.type != "template_declaration":
        node = node.parent
    if node is None:
        raise Refuse("a template kernel whose template declaration was not found")
    params = node.child_by_field_name("parameters")
    return f"template {src.node_text(params)}\n", "<" + ", ".join(n for _, n in k.template_params) + ">"


def _param_list(src: SourceFile, k: Kernel) -> str:
    for n in walk(k.node):
        if n.type == "parameter_list":
            return src.node_text(n)[1:-1].strip()
    raise Refuse("the kernel's parameter list was not found")


def helper(src: SourceFile, k: Kernel, c: Copy, tile: tuple[int, int] | None) -> str:
    """The old body as a function of a virtual thread; tile (TX, TY) replaces blockDim.x/y."""
    if any(not p.name for p in k.signature):
        raise Refuse("an unnamed kernel parameter")
    load_t, store_t = _elem(k, c.load.array), _elem(k, c.store.array)
    subs = []
    for n in walk(k.body):
        t = src.node_text(n)
        if n.type == "field_expression" and t in ("threadIdx.x", "threadIdx.y"):
            subs.append((n.start_byte, n.end_byte, "kp_v" + t[-1]))
        elif tile and n.type == "field_expression" and t in ("blockDim.x", "blockDim.y"):
            subs.append((n.start_byte, n.end_byte, f"{tile[0] if t.endswith('x') else tile[1]}u"))
        elif n.type == "return_statement" and not n.named_children:
            subs.append((n.start_byte, n.end_byte, "return false;"))
    ln = c.load.node
    if ln.type == "call_expression":  # __ldg(p) and the like: p is the address
        src_addr = span_text(src, ln.child_by_field_name("arguments").named_children[0].start_byte,
                             ln.child_by_field_name("arguments").named_children[0].end_byte, subs)
    else:
        src_addr = f"&({span_text(src, ln.start_byte, ln.end_byte, subs)})"
    assign = c.store.node.parent
    value = assign.child_by_field_name("right")
    value_text = span_text(src, value.start_byte, value.end_byte, subs + [(ln.start_byte, ln.end_byte, "kp_in")])
    dst_addr = f"&({span_text(src, c.store.node.start_byte, c.store.node.end_byte, subs)})"
    stmt = assign.parent
    inner = [s for s in subs if not (stmt.start_byte <= s[0] < stmt.end_byte)]
    inner.append((stmt.start_byte, stmt.end_byte,
                  f"{{ kp_src = {src_addr}; kp_dst = {dst_addr}; if (kp_phase) kp_out = {value_text}; return true; }}"))
    body = span_text(src, k.body.start_byte, k.body.end_byte, inner)
    body = body[:body.rstrip().rfind("}")].rstrip() + "\n  return false;\n}"
    tmpl, _ = _template(k, src)
    return (f"{tmpl}static __device__ __forceinline__ bool kp_roles_{k.name}({_param_list(src, k)}, unsigned kp_vx, "
            f"unsigned kp_vy, bool kp_phase, {load_t} kp_in, const {load_t}*& kp_src, {store_t}*& kp_dst, "
            f"{store_t}& kp_out)\n{body}\n\n")


def _order(along: str, tx: int, ty: int) -> str:
    """Virtual coordinates of slot kp_v, neighbouring slots neighbours along `along`."""
    if along == "x":
        return f"const unsigned kp_vx = kp_v % {tx}u, kp_vy = kp_v / {tx}u;"
    return f"const unsigned kp_vy = kp_v % {ty}u, kp_vx = kp_v / {ty}u;"


def body(src: SourceFile, k: Kernel, c: Copy, tx: int, ty: int) -> str:
    load_t, store_t = _elem(k, c.load.array), _elem(k, c.store.array)
    _, targs = _template(k, src)
    args = ", ".join(p.name for p in k.signature)
    call = f"kp_roles_{k.name}{targs}({args}, kp_vx, kp_vy"
    return f"""{{
  // the copy restaged through shared memory: a tile of {tx} x {ty} of the old threads, loaded in the order
  // that makes the loads contiguous and stored in the order that makes the stores contiguous
  __shared__ {load_t} kp_tile[{ty}][{tx} + {PAD}];
  const unsigned kp_t = threadIdx.x + blockDim.x * threadIdx.y, kp_n = blockDim.x * blockDim.y;
  const {load_t}* kp_src;
  {store_t}* kp_dst;
  {store_t} kp_out;
  for (unsigned kp_v = kp_t; kp_v < {tx * ty}u; kp_v += kp_n) {{
    {_order(c.load_along, tx, ty)}
    if ({call}, false, {load_t}(), kp_src, kp_dst, kp_out)) kp_tile[kp_vy][kp_vx] = *kp_src;
  }}
  __syncthreads();
  for (unsigned kp_v = kp_t; kp_v < {tx * ty}u; kp_v += kp_n) {{
    {_order(c.store_along, tx, ty)}
    if ({call}, true, kp_tile[kp_vy][kp_vx], kp_src, kp_dst, kp_out)) *kp_dst = kp_out;
  }}
}}"""


def restage(src: SourceFile, k: Kernel, c: Copy, block: tuple[int, int], tile: int | None) -> tuple[str, tuple, list]:
    """(new text, new block, notes): the kernel restaged; tile None keeps the launch's block as the tile."""
    if tile is None:
        tx, ty = block
        new_block = block
    else:
        tx = ty = tile
        new_block = (tile, max(1, 256 // tile))
    start = k.node.start_byte
    tmpl_node = k.node.parent if k.is_template and k.node.parent is not None \
        and k.node.parent.type == "template_declaration" else None
    if tmpl_node is not None:
        start = tmpl_node.start_byte
    subs = [(start, start, helper(src, k, c, (tx, ty) if tile else None)),
            (k.body.start_byte, k.body.end_byte, body(src, k, c, tx, ty))]
    notes = []
    if tile is not None:
        for call, cfg, args, host in launch_sites(src, k.name):
            if len(args) < 2:
                continue
            g, b = src.node_text(args[0]), src.node_text(args[1])
            subs.append((args[0].start_byte, args[0].end_byte,
                         f"dim3((dim3({g}).x * dim3({b}).x + {tx - 1}) / {tx}, "
                         f"(dim3({g}).y * dim3({b}).y + {ty - 1}) / {ty}, dim3({g}).z)"))
            subs.append((args[1].start_byte, args[1].end_byte, f"dim3({new_block[0]}, {new_block[1]})"))
    return span_text(src, 0, len(src.data), subs), new_block, notes
