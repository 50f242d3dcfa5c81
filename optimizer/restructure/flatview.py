"""A flat thread index seen as rows: the kernel on a 2-D grid, every digit of the index written in terms of
the column and the row (profilers/analysis/digits.py).

`int idx = blockIdx.x * blockDim.x + threadIdx.x; int r = idx / W, c = idx % W;` becomes
`kp_col = blockIdx.x * blockDim.x + threadIdx.x`, `kp_row = blockIdx.y * blockDim.y + threadIdx.y`,
`idx = kp_row * W + kp_col`, `r = kp_row`, `c = kp_col`: the same element for each thread, the threads now
two-dimensional, so the plans that work on 2-D thread indices (stencil-tile, transpose-tile, coalesce-xy)
read the neighbours above and below as threads of the block. A thread past the row (kp_col >= W) or past
the old launch's last thread does nothing.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.digits import FlatIndex
from kernelpro.profilers.source import Kernel, SourceFile

from .text import span_text


def view(src: SourceFile, k: Kernel, fi: FlatIndex, old_threads: str) -> str:
    """The file with the kernel's flat index viewed as rows; old_threads: the old launch's thread count as C."""
    t, w = fi.type, fi.row_c
    subs = [(fi.decl.child_by_field_name("value").start_byte, fi.decl.child_by_field_name("value").end_byte,
             f"kp_row * ({w}) + kp_col")]
    for n, d in fi.uses:
        subs.append((n.start_byte, n.end_byte, fi.view(d, "kp_col", "kp_row")))
    for n, name, d in fi.updates:
        subs.append((n.start_byte, n.end_byte, f"{name} = {fi.view(d, 'kp_col', 'kp_row')}"))
    at = k.body.start_byte + 1
    head = (f"\n  // the flat index {fi.name} as rows of {w}: column kp_col, row kp_row (a 2-D grid)\n"
            f"  const {t} kp_col = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  const {t} kp_row = blockIdx.y * blockDim.y + threadIdx.y;\n"
            f"  if (kp_col >= ({t})({w}) || (unsigned long long)kp_row * ({w}) + kp_col >= {old_threads}) return;")
    subs.append((at, at, head))
    return span_text(src, 0, len(src.data), subs)


def canonical(src: SourceFile, fi: FlatIndex) -> str:
    """The file with every digit of the flat index read from the index itself (`rest / d` with
    `rest = idx % (N * d)` as `((idx / (d)) % (N))`), so that analyses that follow quotients of the index
    alone (a gather's packs) see them."""
    subs = [(n.start_byte, n.end_byte, fi.canonical(d)) for n, d in fi.uses]
    subs += [(n.start_byte, n.end_byte, f"{name} = {fi.canonical(d)}") for n, name, d in fi.updates]
    return span_text(src, 0, len(src.data), subs)


def z_on_grid(src: SourceFile, k: Kernel) -> str | None:
    """The file with `blockIdx.z * blockDim.z + threadIdx.z` written `blockIdx.z`, for a launch whose blocks are
    one plane thick (the same z for each thread); None where threadIdx.z or blockDim.z is used otherwise."""
    from kernelpro.profilers.analysis.affine import index_poly
    from kernelpro.profilers.source import walk

    want = {("blockDim.z", "blockIdx.z"): 1, ("threadIdx.z",): 1}
    subs = []
    for n in walk(k.body):
        if n.type == "binary_expression" and not any(a <= n.start_byte < b for a, b, _ in subs) and \
                index_poly(src, n, {}) == want:
            subs.append((n.start_byte, n.end_byte, "blockIdx.z"))
    inside = lambda m: any(a <= m.start_byte < b for a, b, _ in subs)
    if not subs or any(m.type == "field_expression" and src.node_text(m) in ("threadIdx.z", "blockDim.z")
                       and not inside(m) for m in walk(k.body)):
        return None
    return span_text(src, 0, len(src.data), subs)
