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

from kernelpro.profilers.analysis.copies import Copy, RowLoop
from kernelpro.profilers.source import Kernel, SourceFile, walk

from . import virtual
from .launch import launch_sites
from .text import span_text

PAD = 1


def _order(along: str, tx: int, ty: int) -> str:
    """Virtual coordinates of slot kp_v, neighbouring slots neighbours along `along`."""
    if along == "x":
        return f"const unsigned kp_vx = kp_v % {tx}u, kp_vy = kp_v / {tx}u;"
    return f"const unsigned kp_vy = kp_v % {ty}u, kp_vx = kp_v / {ty}u;"


def body(src: SourceFile, k: Kernel, c: Copy, tx: int, ty: int, threads: int) -> str:
    """threads: the block's size; each thread loads its share of the tile into registers first (every load in
    flight before the first is parked: one at a time, the 32 x 32 tile of a transpose ran at 76% of the copy
    ceiling on an H100), then parks them, then stores its share."""
    load_t, store_t = virtual.elem_type(k, c.load.array), virtual.elem_type(k, c.store.array)
    per = -(-tx * ty // threads)
    return f"""{{
  // the copy restaged through shared memory: a tile of {tx} x {ty} of the old threads, loaded in the order
  // that makes the loads contiguous and stored in the order that makes the stores contiguous
  __shared__ {load_t} kp_tile[{ty}][{tx} + {PAD}];
  const unsigned kp_t = threadIdx.x + blockDim.x * threadIdx.y;
  {load_t} kp_val[1];
  const {load_t}* kp_addr[1];
  {store_t}* kp_dst;
  {store_t} kp_out;
  {load_t} kp_in[{per}];
  bool kp_ok[{per}];
#pragma unroll
  for (unsigned kp_u = 0; kp_u < {per}u; ++kp_u) {{
    const unsigned kp_v = kp_t + kp_u * {threads}u;
    {_order(c.load_along, tx, ty)}
    kp_ok[kp_u] = kp_v < {tx * ty}u && {virtual.call(src, k, "kp_vx", "kp_vy", "false")};
    kp_in[kp_u] = kp_ok[kp_u] ? *kp_addr[0] : {load_t}();
  }}
#pragma unroll
  for (unsigned kp_u = 0; kp_u < {per}u; ++kp_u) {{
    const unsigned kp_v = kp_t + kp_u * {threads}u;
    {_order(c.load_along, tx, ty)}
    if (kp_ok[kp_u]) kp_tile[kp_vy][kp_vx] = kp_in[kp_u];
  }}
  __syncthreads();
#pragma unroll
  for (unsigned kp_u = 0; kp_u < {per}u; ++kp_u) {{
    const unsigned kp_v = kp_t + kp_u * {threads}u;
    if (kp_v >= {tx * ty}u) break;
    {_order(c.store_along, tx, ty)}
    kp_val[0] = kp_tile[kp_vy][kp_vx];
    if ({virtual.call(src, k, "kp_vx", "kp_vy", "true")}) *kp_dst = kp_out;
  }}
}}"""


def restage(src: SourceFile, k: Kernel, c: Copy, block: tuple[int, int], tile: int | None,
            threads: int | None = None) -> tuple[str, tuple, list]:
    """(new text, new block, notes): the kernel restaged; tile None keeps the launch's block as the tile.
    threads: the launch's threads per block where they are not the tile's (a loop over rows folded)."""
    if tile is None:
        tx, ty = block
        new_block = block
    else:
        tx = ty = tile
        new_block = (tile, max(1, 256 // tile))
    start = virtual.insert_before(src, k)
    staged = virtual.Staged(loads=[c.load.node], store=c.store.node, others=[])
    helper = virtual.roles_helper(src, k, staged, virtual.elem_type(k, c.load.array),
                                  virtual.elem_type(k, c.store.array), (tx, ty) if tile else None)
    subs = [(start, start, helper),
            (k.body.start_byte, k.body.end_byte, body(src, k, c, tx, ty, threads or new_block[0] * new_block[1]))]
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


def fold_rows(src: SourceFile, k: Kernel, rl: RowLoop, rows: int) -> str:
    """The file with the loop over extra rows folded into the threads: thread (x, y) of a block rl.tile rows
    tall does what old thread (x, y % rows) did at iteration j = y - y % rows (the loop's body, once)."""
    subs = []
    for n in walk(k.body):
        t = src.node_text(n)
        if n.type == "field_expression" and t == "threadIdx.y":
            subs.append((n.start_byte, n.end_byte, f"(threadIdx.y % {rows}u)"))
        elif n.type == "field_expression" and t == "blockDim.y":
            subs.append((n.start_byte, n.end_byte, f"{rows}u"))
    body = span_text(src, rl.body.start_byte, rl.body.end_byte, subs)
    folded = f"{{ const {rl.var_type} {rl.var} = threadIdx.y - (threadIdx.y % {rows}u); {body} }}"
    outer = [s for s in subs if not (rl.node.start_byte <= s[0] < rl.node.end_byte)]
    return span_text(src, 0, len(src.data), outer + [(rl.node.start_byte, rl.node.end_byte, folded)])
