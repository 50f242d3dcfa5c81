"""2.5-D blocking of a 3-D stencil: each block a 2-D tile of (x, y) threads marching along z through a chunk
of planes (profilers/analysis/planes.py).

The kernel is first read one plane per virtual block (`plane_form`: a loop over planes becomes its body for
the plane blockIdx.z), and virtual.py runs that body for any (thread, plane). At each step of the march a
thread keeps the loads at its own (x, y) in a register window over the planes the stencil reaches
(prev / cur / next for a 7-point one), each register reused from the step before where the old thread read
the same address there, so each column element is read from global memory about once per chunk; the planes
whose x or y neighbours are read sit in a ring of shared-memory tiles with their halo, one new plane staged
per step (its interior from the window, the halo from the first old thread that reads it). Nothing is read
that the kernel as written would not read.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.planes import PlaneLoop, Stencil3
from kernelpro.profilers.source import Kernel, SourceFile, walk

from . import virtual
from .text import span_text


def plane_form(src: SourceFile, k: Kernel, pl: PlaneLoop) -> str:
    """The file with the loop over planes replaced by its body for the plane blockIdx.z (a `continue` ends
    the plane, a plane outside the loop's range returns)."""
    body = pl.node.child_by_field_name("body")
    subs = [(c.start_byte, c.end_byte, "return;") for c in walk(body) if c.type == "continue_statement"]
    inner = span_text(src, body.start_byte, body.end_byte, subs)
    if body.type == "compound_statement":
        inner = inner.strip()[1:-1]
    head = (f"{pl.var_type} {pl.var} = blockIdx.z; if ({pl.var} < ({src.node_text(pl.start)}) || "
            f"!({src.node_text(pl.cond)})) return;")
    return span_text(src, 0, len(src.data), [(pl.node.start_byte, pl.node.end_byte, f"{{ {head} {inner} }}")])


def halo_slot(tx: int, ty: int, lx: int, rx: int, by: int, ay: int) -> str:
    """kp_px, kp_py of halo slot kp_h (the rows below, the rows above, then the columns left and right)."""
    ex = tx + lx + rx
    lines = [f"if (kp_h < {by * ex}) {{ kp_px = kp_h % {ex} - {lx}; kp_py = kp_h / {ex} - {by}; }}",
             f"else if (kp_h < {(by + ay) * ex}) {{ kp_px = (kp_h - {by * ex}) % {ex} - {lx}; "
             f"kp_py = {ty} + (kp_h - {by * ex}) / {ex}; }}"]
    if lx + rx:
        lines.append(f"else {{ const int kp_c = (kp_h - {(by + ay) * ex}) % {lx + rx}; "
                     f"kp_px = kp_c < {lx} ? kp_c - {lx} : {tx} + kp_c - {lx}; "
                     f"kp_py = (kp_h - {(by + ay) * ex}) / {lx + rx}; }}")
    return "\n        ".join(lines)


def body(src: SourceFile, k: Kernel, st: Stencil3, tile: tuple[int, int], chunk: int, zs: str, ze: str,
         inside: str) -> str:
    """The marching body. zs, ze: the planes the old threads cover (C over the parameters); inside: C
    condition that old thread (kp_qx, kp_qy) of this block existed in the old launch."""
    tx, ty = tile
    t = virtual.elem_type(k, st.array)
    out_t = virtual.elem_type(k, st.store.array)
    n = len(st.points)
    lx, rx = st.span(0)
    by, ay = st.span(1)
    zlo, zhi = st.span(2)
    nw = zlo + zhi + 1  # register window: planes z - zlo .. z + zhi
    flat = st.flat
    tl, th = (min(flat), max(flat)) if flat else (0, -1)
    nt = th - tl + 1  # shared tiles: planes z + tl .. z + th
    ex, ey = tx + lx + rx, ty + by + ay
    col = {dz: i for i, (_, dx, dy, dz) in reversed(list(enumerate(st.points))) if dx == 0 and dy == 0}

    def old(qx, qy, v):
        return virtual.when_old(inside, qx, qy, virtual.call(src, k, qx, qy, "false", v))

    window = []
    for j in range(nw):
        dz = j - zlo
        if dz not in col:
            window.append(f"kp_wa[{j}] = nullptr;")
            continue
        reuse = f"kp_wa[{j + 1}] == kp_a ? kp_w[{j + 1}] : *kp_a" if j + 1 < nw else "*kp_a"
        window.append(f"{{ const {t}* kp_a = kp_ok ? kp_addr[{col[dz]}] : nullptr; if (kp_a) kp_w[{j}] = {reuse}; "
                      f"kp_wa[{j}] = kp_a; }}")
    order = sorted(range(n), key=lambda i: (sum(map(abs, st.points[i][1:])), i))
    seen, tries = set(), []
    for i in order:
        d = st.points[i][1:]
        if d in seen:
            continue
        seen.add(d)
        dx, dy, dz = d
        qx, qy, v = f"kp_px - ({dx})", f"kp_py - ({dy})", f"(int)(kp_p - ({dz}))"
        tries.append(f"if ({qx} >= 0 && {qx} < {tx} && {qy} >= 0 && {qy} < {ty} && kp_p - ({dz}) >= kp_zs && "
                     f"kp_p - ({dz}) < kp_ze && {old(qx, qy, v)} && kp_addr[{i}]) kp_t[kp_py + {by}][kp_px + {lx}] = "
                     f"*kp_addr[{i}];")
    chain = "\n        else ".join(tries)
    reads = []
    for i, (_, dx, dy, dz) in enumerate(st.points):
        if dx == 0 and dy == 0:
            reads.append(f"kp_val[{i}] = kp_w[{dz + zlo}];")
        else:
            reads.append(f"kp_val[{i}] = kp_ring[(kp_z + ({dz}) - kp_z0 - ({tl})) % {nt}][threadIdx.y + {by + dy}]"
                         f"[threadIdx.x + {lx + dx}];")
    own = "threadIdx.x", "threadIdx.y"
    stage = ""
    if nt:
        jh = th + zlo
        from_reg = f"if (kp_ok && kp_wa[{jh}]) kp_t[threadIdx.y + {by}][threadIdx.x + {lx}] = kp_w[{jh}];\n      else " \
            if th in col else ""
        halo = ex * ey - tx * ty
        loop = "" if not halo else f"""
      for (int kp_h = threadIdx.x + {tx} * threadIdx.y; kp_h < {halo}; kp_h += {tx * ty}) {{
        int kp_px, kp_py;
        {halo_slot(tx, ty, lx, rx, by, ay)}
        {chain}
      }}"""
        stage = f"""
    __syncthreads();  // the tile this step overwrites was last read in the step before
    {{
      const long long kp_p = kp_z + ({th});  // the plane staged now
      {t} (*kp_t)[{ex}] = kp_ring[(kp_p - kp_z0 - ({tl})) % {nt}];
      {{
        const int kp_px = threadIdx.x, kp_py = threadIdx.y;
        {from_reg}{{
        {chain}
        }}
      }}{loop}
    }}
    __syncthreads();"""
    ring = f"__shared__ {t} kp_ring[{nt}][{ey}][{ex}];" if nt else ""
    first = f"kp_z0 - {nt - 1}" if nt > 1 else "kp_z0"
    return f"""{{
  // 2.5-D blocking: a {tx} x {ty} tile of (x, y) marching along z through {chunk} planes; the loads at the
  // thread's own (x, y) in a register window of {nw} planes, {'the planes with x or y neighbours in a ring of '
  f'{nt} shared tiles with a halo of {lx}/{rx} elements and {by}/{ay} rows' if nt else 'no shared tiles'}
  {ring}
  {t} kp_val[{n}];
  const {t}* kp_addr[{n}];
  {out_t}* kp_dst;
  {out_t} kp_out;
  {t} kp_w[{nw}];
  const {t}* kp_wa[{nw}];
  for (int kp_j = 0; kp_j < {nw}; ++kp_j) {{ kp_w[kp_j] = {t}(); kp_wa[kp_j] = nullptr; }}
  const long long kp_zs = (long long)({zs}), kp_ze = (long long)({ze});
  const long long kp_z0 = kp_zs + (long long)blockIdx.z * {chunk};
  const long long kp_z1 = kp_z0 + {chunk} < kp_ze ? kp_z0 + {chunk} : kp_ze;
  for (long long kp_z = {first}; kp_z < kp_z1; ++kp_z) {{
    const bool kp_ok = kp_z >= kp_zs && kp_z < kp_ze && {old(*own, '(int)kp_z')};
    {chr(10).join('    ' + w for w in window).strip()}{stage}
    if (kp_z >= kp_z0 && kp_ok) {{
      {chr(10).join('      ' + r for r in reads).strip()}
      if ({virtual.call(src, k, *own, 'true', '(int)kp_z')}) *kp_dst = kp_out;
    }}
  }}
}}"""


def window_body(src: SourceFile, k: Kernel, st: Stencil3, chunk: int, zs: str, ze: str, inside: str) -> str:
    """The march with no shared tiles: each thread runs its own (x, y) through the chunk's planes, one call of the
    old body a point (virtual.roles_helper's march mode), neighbour (dx, dy, dz) taken from the plane before's
    (dx, dy, dz + 1) where that read the same address, the others loaded (a 7-point stencil: the four in the
    plane and the one ahead; the x and y neighbours are the neighbouring threads' own loads, from L1)."""
    own = virtual.when_old(inside, "threadIdx.x", "threadIdx.y", "true")
    return virtual.march_loop(
        virtual.elem_type(k, st.array), virtual.elem_type(k, st.store.array), len(st.points),
        f"a register window along z: each thread its own (x, y) through {chunk} planes; a neighbour that the plane\n"
        f"  // before read at the same address is taken from its registers",
        f"const long long kp_zs = (long long)({zs}), kp_ze = (long long)({ze});\n"
        f"  const long long kp_z0 = kp_zs + (long long)blockIdx.z * {chunk};\n"
        f"  const long long kp_z1 = kp_z0 + {chunk} < kp_ze ? kp_z0 + {chunk} : kp_ze;\n"
        f"  for (long long kp_z = kp_z0; kp_z < kp_z1; ++kp_z)",
        virtual.march_call(src, k, "threadIdx.x", "threadIdx.y", "(int)kp_z"), pre=f"if (!({own})) return;")


def restage(src: SourceFile, k: Kernel, st: Stencil3, tile, chunk: int, zs: str, ze: str, inside: str,
            window: bool = False) -> str:
    """The 2.5-D march (window: registers alone, no shared tiles)."""
    staged = virtual.Staged(loads=[p[0].node for p in st.points], store=st.store.node, extra=[a.node for a in st.extra],
                            others=[a.node for a in st.others])
    helper = virtual.roles_helper(src, k, staged, virtual.elem_type(k, st.array),
                                  virtual.elem_type(k, st.store.array), plane=True,
                                  march=virtual.reuse_preds([p[1:] for p in st.points], 2) if window else None)
    at = virtual.insert_before(src, k)
    new = window_body(src, k, st, chunk, zs, ze, inside) if window else body(src, k, st, tile, chunk, zs, ze, inside)
    return span_text(src, 0, len(src.data), [(at, at, helper), (k.body.start_byte, k.body.end_byte, new)])
