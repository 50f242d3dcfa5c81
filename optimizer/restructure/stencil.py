"""Stencils through a shared-memory tile with a halo, whatever their index spelling.

The block's threads first stage every element some thread of the block reads at the neighbours
(profilers/analysis/stencils.py) in a shared-memory tile of the block's shape plus the halo: slot p holds
what old thread q = p - d reads at offset d, for the first offset d whose thread q is in the block and
passes its guards (virtual.py runs the old body for q to learn that and the address; nothing is read that
the kernel as written would not read). Each thread stages its own slot first (one call of the old body for
its own position where the stencil reads its centre, the same path for the whole warp), then the threads
share the halo ring only: a warp that mixed interior and halo slots ran every try of the chain (on an H100
the 16 x 16 tile of a 5-point stencil, staged slot by slot, was 2.8x slower than the kernel as written). After one barrier each thread computes its own point from the
tile: every staged load comes from shared memory, each input element from global memory once per block
instead of once per neighbour.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.stencils import Stencil
from kernelpro.profilers.source import Kernel, SourceFile

from . import virtual
from .march import halo_slot
from .text import Refuse, span_text


def body(src: SourceFile, k: Kernel, st: Stencil, tx: int, ty: int, rows: int = 1, inside: str = "true") -> str:
    """tx x ty: the block; rows: the rows of the tile each thread stages and computes (a tile ty * rows tall,
    the old threads of a virtual block that tall: more loads in flight before the barrier); inside: C condition
    that old thread (kp_qx, kp_qy) of this block existed in the old launch (a tile of another shape runs past the
    old grid's edge: a kernel without guards must not read or write there)."""
    t = virtual.elem_type(k, st.array)
    out_t = virtual.elem_type(k, st.store.array)
    left, right, below, above = st.halo
    vy = ty * rows  # the tile's height in old threads
    ex, ey = tx + left + right, vy + below + above
    n = len(st.points)
    outs = len(st.more) + 1  # outputs of the point (srad's four derivatives): the helper hands back one at a time
    which0 = "0" if st.more else None  # (every call notes every output's loads)
    # slot (px, py) relative to the block's first thread: which old thread reads it, offset (0, 0) first
    order = sorted(range(n), key=lambda i: (abs(st.points[i][1]) + abs(st.points[i][2]), i))
    seen, tries = set(), []
    for i in order:
        _, dx, dy = st.points[i]
        if (dx, dy) in seen:
            continue
        seen.add((dx, dy))
        qx, qy = f"kp_px - ({dx})", f"kp_py - ({dy})"
        old = virtual.when_old(inside, qx, qy, virtual.call(src, k, qx, qy, 'false', which=which0))
        tries.append(f"if ({qx} >= 0 && {qx} < {tx} && {qy} >= 0 && {qy} < {vy} && {old} && kp_addr[{i}]) "
                     f"kp_halo[kp_s] = *kp_addr[{i}];")
    staged = "\n      else ".join(tries)
    halo = ex * ey - tx * vy
    ring = "" if not halo else f"""
  for (int kp_h = threadIdx.x + {tx} * threadIdx.y; kp_h < {halo}; kp_h += {tx * ty}) {{
    int kp_px, kp_py;
    {halo_slot(tx, vy, left, right, below, above)}
    const int kp_s = (kp_py + {below}) * {ex} + kp_px + {left};
    {staged}
  }}"""
    row = "threadIdx.y" if rows == 1 else f"(threadIdx.y + kp_r * {ty})"
    loop = "" if rows == 1 else f"#pragma unroll\n  for (int kp_r = 0; kp_r < {rows}; ++kp_r) "
    one = virtual.when_old(inside, "threadIdx.x", row,
                           virtual.call(src, k, "threadIdx.x", row, "true", which="kp_w" if st.more else None))
    store_line = (f"for (int kp_w = 0; kp_w < {outs}; ++kp_w)\n    if ({one}) *kp_dst = kp_out;" if st.more
                  else f"if ({one}) *kp_dst = kp_out;")
    reads = "\n    ".join(f"kp_val[{i}] = kp_tile[{row} + {below + dy}][threadIdx.x + {left + dx}];"
                          for i, (_, dx, dy) in enumerate(st.points))
    return f"""{{
  // the stencil's neighbours staged once per block: a {tx} x {vy} tile with a halo of {left}/{right} elements
  // and {below}/{above} rows, each element read from global memory once{f'; each thread {rows} rows of it' if rows > 1 else ''}
  __shared__ {t} kp_halo[{ey * ex}];
  {t} (*kp_tile)[{ex}] = reinterpret_cast<{t} (*)[{ex}]>(kp_halo);
  {t} kp_val[{n}];
  const {t}* kp_addr[{n}];
  {out_t}* kp_dst;
  {out_t} kp_out;
  {loop}{{
    const int kp_px = threadIdx.x, kp_py = {row}, kp_s = (kp_py + {below}) * {ex} + kp_px + {left};
    {staged}
  }}{ring}
  __syncthreads();
  {loop}{{
    {reads}
    {store_line}
  }}
}}"""


def march_body(src: SourceFile, k: Kernel, st: Stencil, tx: int, ty: int, strip: int, unroll: int,
               inside: str = "true") -> str:
    """A register march: each thread of a tx x ty block computes `strip` consecutive old threads down y (the
    virtual block tx x ty * strip), one call of the old body a point (virtual.roles_helper's march mode), in
    which neighbour (dx, dy) takes the value of the point before's (dx, dy + 1) where that read the same
    address and loads it otherwise (a 3x3 filter: the row below's three, not nine); the row loop unrolled
    `unroll` times. inside: C condition that old thread (kp_qx, kp_qy) of this block existed in the old launch."""
    row = "kp_y0 + kp_r"
    call = virtual.when_old(inside, "threadIdx.x", row, virtual.march_call(src, k, "threadIdx.x", row))
    return virtual.march_loop(
        virtual.elem_type(k, st.array), virtual.elem_type(k, st.store.array), len(st.points),
        f"a register march: each thread {strip} consecutive rows of the old threads at its x; a neighbour that the\n"
        f"  // row before read at the same address is taken from its registers",
        f"const int kp_y0 = threadIdx.y * {strip};\n#pragma unroll {unroll}\n  for (int kp_r = 0; kp_r < {strip}; ++kp_r)",
        call)


def restage(src: SourceFile, k: Kernel, st: Stencil, block: tuple[int, int], rows: int = 1,
            march: tuple[int, int] | None = None, inside: str = "true") -> str:
    """The tile (march None) or the register march (march = (strip, unroll): rows a thread, the row loop's
    unrolling); inside: the old-thread condition (`body`)."""
    if len({virtual.elem_type(k, a.array) for a in [st.store] + st.more}) > 1:
        raise Refuse("the point's outputs have different element types")
    staged = virtual.Staged(loads=[a.node for a, _, _ in st.points], store=st.store.node, extra=[a.node for a in st.extra],
                            others=[a.node for a in st.others], more=[a.node for a in st.more])
    tall = march[0] if march else rows
    helper = virtual.roles_helper(src, k, staged, virtual.elem_type(k, st.array), virtual.elem_type(k, st.store.array),
                                  block_dims=(block[0], block[1] * tall) if tall > 1 else None,
                                  march=virtual.reuse_preds([p[1:] for p in st.points], 1) if march else None)
    at = virtual.insert_before(src, k)
    new_body = march_body(src, k, st, *block, *march, inside=inside) if march else body(src, k, st, *block, rows,
                                                                                    inside=inside)
    return span_text(src, 0, len(src.data), [(at, at, helper), (k.body.start_byte, k.body.end_byte, new_body)])
