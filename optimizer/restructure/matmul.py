"""Matrix products (analysis/contraction.py) rewritten the way the SGEMM ladder goes: first the
coalescing remap (threadIdx.x on the output's contiguous dimension), then shared-memory tiles
with a register tile per thread.

The tiled kernel keeps the signature. Each block computes a BM x BN tile of the output: BK-deep
slabs of every operand go through padded shared memory (loaded along the operand's contiguous
dimension, guarded for any M, N, K, converted to the accumulator type), each thread keeps TM x
TN sums in registers. Then every output of the thread's tile runs the kernel's own code as
written (a lambda: its guards, alpha/beta/bias epilogue and store), with its coordinates set
and the k loop replaced by its update with the tile's sum in place of the product.
"""
from __future__ import annotations

import re
import textwrap

from kernelpro.profilers.analysis.contraction import Contraction, contractions
from kernelpro.profilers.analysis.affine import poly_c
from kernelpro.profilers.analysis.loops import statements, text, unparen
from kernelpro.profilers.source import SourceFile, walk

from .launch import launch_sites, _call_args
from .text import NotThisShape, Refuse, in_terms_of, span_text

LOW = ("__nv_bfloat16", "nv_bfloat16", "__half", "half", "bfloat16")
SWAP_HELPER = ("#ifndef KERNELPRO_SWAP_XY\n#define KERNELPRO_SWAP_XY\n// the launch's x and y exchanged "
               "(KernelPro's coalescing remap)\nstatic __host__ __device__ inline dim3 kp_swap_xy(dim3 d) "
               "{ return dim3(d.y, d.x, d.z); }\n#endif\n")
XY = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


def product(src: SourceFile, kernel: str) -> Contraction:
    """The kernel's one matrix product; NotThisShape when it has none, Refuse with the reason."""
    k = src.kernel(kernel)
    if k is None:
        raise NotThisShape("no kernel")
    f = contractions(src, k)
    if not f.products:
        real = [r for r in f.refused if "not a matrix product" not in r.reason]  # dot products: other plans'
        if real:
            raise Refuse(real[0].reason)
        raise NotThisShape("no matrix product")
    if len(f.products) > 1:
        raise Refuse(f"{len(f.products)} matrix products in one kernel (one is rewritten at a time)")
    return f.products[0]


# ---------------------------------------------------------------- coalescing remap


def needs_remap(c: Contraction) -> bool:
    """The output's contiguous dimension comes from threadIdx.y while its other one comes from x."""
    cont = c.out.contiguous
    axis = c.col if cont in c.col.atoms else c.row if cont in c.row.atoms else None
    other = c.row if axis is c.col else c.col
    return axis is not None and axis.thread == "y" and other.thread == "x"


def swap_xy(src: SourceFile, kernel: str) -> str:
    """The file with x and y exchanged in the kernel's thread indices and in its own launches."""
    k = src.kernel(kernel)
    for n in walk(k.body):
        if n.type == "call_expression":
            name = text(src, n.child_by_field_name("function"))
            if "shfl" in name or "syncwarp" in name or "ballot" in name or "__activemask" in name:
                raise Refuse(f"line {n.start_point[0] + 1}: {name} depends on which threads form a warp")
    subs = []
    for n in walk(k.body):
        if n.type == "field_expression" and text(src, n.child_by_field_name("argument")) in XY:
            f = n.child_by_field_name("field")
            t = text(src, f)
            if t in ("x", "y"):
                subs.append((f.start_byte, f.end_byte, "y" if t == "x" else "x"))
    for call, cfg, args, host in launch_sites(src, kernel):
        if len(args) >= 2:
            for a in args[:2]:
                subs.append((a.start_byte, a.end_byte, f"kp_swap_xy({text(src, a)})"))
    new = span_text(src, 0, len(src.data), subs)
    at = _top_of(src, k)
    return new[:at] + SWAP_HELPER + new[at:] if "kp_swap_xy(" in new[at:] else new


def _top_of(src: SourceFile, k) -> int:
    """Where to insert a helper: before the kernel's definition (and its template header)."""
    n = k.node
    while n.parent is not None and n.parent.type in ("template_declaration", "linkage_specification"):
        n = n.parent
    return n.start_byte


# ---------------------------------------------------------------- shared-memory tiles


def _acc_type(t: str) -> str:
    """Sums in float for float, half and bf16 inputs; in double for double; a template parameter's
    sums in that type."""
    if "double" in t:
        return "double"
    known = ("float", "half", "bfloat16", "__half", "int", "long", "short", "char", "unsigned")
    return t if t.isidentifier() and not any(w in t for w in known) else "float"


def _names_ok(src: SourceFile, k, expr: str) -> bool:
    params = {p.name for p in k.params}
    return all(w in params or w in src.constants or w in src.macros or w in ("NULL", "nullptr", "size_t", "long",
                                                                            "int", "unsigned", "gridDim")
               or w in ("x", "y", "z") for w in re.findall(r"[A-Za-z_]\w*", expr))


def check_tiles(src: SourceFile, kernel: str, c: Contraction) -> dict:
    """Why the tiled rewrite does not apply (Refuse), else the names it needs."""
    k = src.kernel(kernel)
    if c.per_thread != (1, 1):
        raise Refuse(f"each thread already computes {c.per_thread[0]} x {c.per_thread[1]} outputs")
    if c.mask:
        raise Refuse(f"the update is masked in the k loop (`{c.mask}`)")
    causal = None
    if c.causal:  # k < bound(row): the row's operand is zero past its bound, loaded so
        causal = _causal_axis(src, k, c)
    if c.batch is not None and c.batch.thread not in ("block z", "loop", "digits"):
        raise Refuse("the batch index is neither blockIdx.z, a loop around the product, nor the higher digits of "
                     "the index the row and column split")
    if c.batch is not None and c.batch.thread == "loop":
        bl = batch_loop(src, k, c)
        if bl is None:
            raise Refuse(f"the batch loop over `{c.batch.atoms[0]}` is not `for (b = 0; b < B; b++)` around the k "
                         "loop alone")
        if k.param(c.batch.extent or "") is None and not _names_ok(src, k, c.batch.extent or "?"):
            raise Refuse(f"the batch count `{c.batch.extent}` is not written in the kernel's parameters")
    for what, axis in (("row", c.row), ("column", c.col)):
        if len(axis.atoms) != 1 or axis.atoms[0] not in c.coords:
            raise Refuse(f"the output's {what} is not one named index of the thread's position "
                         f"(`int row = blockIdx.y * blockDim.y + threadIdx.y;`)")
        if axis.extent is None:
            raise Refuse(f"no bound on the output's {what} (a guard such as `if (row < M && col < N)`)")
    for e in (c.M, c.N, c.k_start) + (() if causal or _k_poly_ok(src, k, c) else (c.K,)):
        if not _names_ok(src, k, e):
            raise Refuse(f"the size `{e}` is not written in the kernel's parameters")
    if "__shared__" in src.node_text(k.body):
        raise Refuse("the kernel already uses shared memory")
    if sum(1 for lp in k.loops) != 1 + (c.batch is not None and c.batch.thread == "loop"):
        raise Refuse("the kernel has loops besides the k loop")
    body = c.loop.child_by_field_name("body")
    upd = c.update.parent
    for s in statements(body):
        if s != upd and s.type != "declaration":
            raise Refuse(f"line {s.start_point[0] + 1} does more in the k loop than the sum's update")
    operands = {o.array for t in c.terms for o in t}
    for n in walk(k.body):
        if n.type in ("assignment_expression", "update_expression"):
            left = unparen(n.child_by_field_name("left") or n.child_by_field_name("argument"))
            if left is not None and left.type == "identifier" and src.node_text(left) in operands:
                raise Refuse(f"line {n.start_point[0] + 1} moves the pointer {src.node_text(left)}")
    coords = {c.row.atoms[0]: "kp_i", c.col.atoms[0]: "kp_j", c.k: "kp_k"}
    if c.batch is not None and c.batch.thread != "digits":
        coords[c.batch.atoms[0]] = "kp_b"
    allowed = set(coords) | {"blockIdx.z"} | (set(c.batch.atoms) if c.batch is not None else set())
    for a, b in c.terms:
        for o in (a, b):
            for m in o.index:
                inner = [x for x in m if x in coords]
                if len(inner) > 1:
                    raise Refuse(f"{o.array}'s index multiplies two coordinates")
                for x in m:
                    if x not in coords and (x.split(".")[0] in XY - {"blockDim", "gridDim"} and x not in allowed):
                        raise Refuse(f"{o.array}'s index uses {x}")
                    if x not in allowed and not x.startswith("(") and "." not in x and not _names_ok(src, k, x):
                        raise Refuse(f"{o.array}'s index uses {x}, which is not a parameter")
    # builtins outside the coordinates' declarations
    decls = {name: _decl_of(src, k, name) for name in c.coords}
    for n in walk(k.body):
        if n.type == "field_expression" and text(src, n.child_by_field_name("argument")) in ("threadIdx", "blockIdx") \
                and text(src, n) not in ("blockIdx.z",) and not any(
                d is not None and d.start_byte <= n.start_byte < d.end_byte for d in decls.values()):
            raise Refuse(f"line {n.start_point[0] + 1} uses {text(src, n)} besides the output's row and column")
    return coords, causal


def _causal_axis(src: SourceFile, k, c: Contraction) -> str:
    """"row" or "col": the one coordinate the k loop's bound grows with (`t2 <= t`)."""
    from kernelpro.profilers.analysis.affine import coefficient, depends

    if c.bound is None:
        raise Refuse("the k loop's bound depends on the output in a way that is not followed")
    for what, axis in (("row", c.row), ("col", c.col)):
        a = axis.atoms[0] if len(axis.atoms) == 1 else None
        if a is None or not depends(c.bound, a):
            continue
        coef = coefficient(c.bound, a)
        rest = {m: v for m, v in c.bound.items() if a not in m}
        other = (c.row if what == "col" else c.col).atoms
        if coef is None or list(coef) != [()] or coef[()] <= 0 or any(depends(c.bound, o) for o in other) \
                or not all(_names_ok(src, k, x) for m in rest for x in m):
            raise Refuse(f"the k loop's bound `{c.K}` is not a growing function of the output's {what}")
        return what
    raise Refuse(f"the k loop's bound `{c.K}` depends on the output in a way that is not followed")


def _k_poly_ok(src, k, c: Contraction) -> bool:
    """The k loop's end followed to the kernel's parameters (through int locals): every atom of its
    polynomial a parameter, a constant, or an opaque value of those (`(C / NH)`)."""
    if c.bound is None:
        return False
    names = set(c.coords) | {c.k}
    for m in c.bound:
        for a in m:
            words = set(re.findall(r"[A-Za-z_]\w*", a))
            if words & names or "threadIdx" in a or "blockIdx" in a or "[" in a:
                return False
            if src is not None and not _names_ok(src, k, a):
                return False
    return True


def batch_loop(src: SourceFile, k, c: Contraction):
    """The loop over the batch around the k loop: `for (int b = 0; b < B; b++)`; None otherwise."""
    from kernelpro.profilers.analysis.loops import _header

    for lp in k.loops:
        if lp.var == c.batch.atoms[0] and lp.node.start_byte < c.loop.start_byte and c.loop.end_byte <= lp.node.end_byte:
            h = _header(src, lp.node)
            if lp.node.type == "for_statement" and h["step"] == 1 and h["cmp"] == "<" and h["start"] is not None \
                    and text(src, h["start"]) == "0" and h["declared"]:
                return lp.node
    return None


def _decl_of(src: SourceFile, k, name: str):
    for d in walk(k.body):
        if d.type == "init_declarator" and text(src, d.child_by_field_name("declarator")) == name:
            return d
    return None


def tile_body(src: SourceFile, kernel: str, c: Contraction, coords: dict, bm: int, bn: int, bk: int, tm: int, tn: int,
              pad: int, vec: int = 1, causal: str | None = None) -> str:
    """The kernel with its body replaced by the tiled product (the body as written runs per output)."""
    k = src.kernel(kernel)
    threads = (bm // tm) * (bn // tn)
    acc = _acc_type(c.acc_type if c.accumulate == "local" else c.out.elem)
    rename = {a: v for a, v in coords.items()}
    ind = "    "
    L = [f"{{  // kernelpro: {bm} x {bn} output tiles per block, {bk}-deep slabs of the operands in shared memory "
         f"(+{pad} padding), {tm} x {tn} sums per thread",
        ]
    L += _head(c, bm, bn, causal, ind)
    L += [f"{ind}const int kp_tid = threadIdx.x, kp_tn = kp_tid % {bn // tn}, kp_tm = kp_tid / {bn // tn};",
          f"{ind}const long long kp_i0 = (long long)blockIdx.y * {bm}, kp_j0 = (long long)blockIdx.x * {bn};"]
    for t, (a, b) in enumerate(c.terms):
        L += [f"{ind}__shared__ {acc} kp_As{t}[{bk}][{bm + pad}];",
              f"{ind}__shared__ {acc} kp_Bs{t}[{bk}][{bn + pad}];",
              f"{ind}{acc} kp_acc{t}[{tm}][{tn}];",
              f"{ind}for (int m = 0; m < {tm}; ++m)",
              f"{ind}  for (int n = 0; n < {tn}; ++n) kp_acc{t}[m][n] = ({acc})0;"]
    L.append(f"{ind}for (long long kp_kt = kp_k0; kp_kt < kp_K; kp_kt += {bk}) {{")
    i2, i3 = ind * 2, ind * 3
    L += _loads(c, bm, bn, bk, threads, acc, rename, causal, vec, lambda a, x, y: f"{a}[{x}][{y}]", ind)
    L += [f"{i2}__syncthreads();", f"{i2}#pragma unroll", f"{i2}for (int kp_kk = 0; kp_kk < {bk}; ++kp_kk) {{"]
    for t in range(len(c.terms)):
        L += [f"{i3}{acc} kp_a{t}[{tm}], kp_b{t}[{tn}];",
              f"{i3}#pragma unroll", f"{i3}for (int m = 0; m < {tm}; ++m) kp_a{t}[m] = kp_As{t}[kp_kk][kp_tm + m * {bm // tm}];",
              f"{i3}#pragma unroll", f"{i3}for (int n = 0; n < {tn}; ++n) kp_b{t}[n] = kp_Bs{t}[kp_kk][kp_tn + n * {bn // tn}];",
              f"{i3}#pragma unroll", f"{i3}for (int m = 0; m < {tm}; ++m)", f"{i3}  #pragma unroll",
              f"{i3}  for (int n = 0; n < {tn}; ++n) kp_acc{t}[m][n] += kp_a{t}[m] * kp_b{t}[n];"]
    L += [f"{i2}}}", f"{i2}__syncthreads();", f"{ind}}}"]
    # every output of the thread's tile runs the kernel's code as written
    L += [f"{ind}for (int kp_m = 0; kp_m < {tm}; ++kp_m)", f"{ind}  for (int kp_n = 0; kp_n < {tn}; ++kp_n) {{",
          f"{i2}const long long kp_i = kp_i0 + kp_tm + kp_m * {bm // tm}, kp_j = kp_j0 + kp_tn + kp_n * {bn // tn};",
          f"{i2}if (kp_i >= kp_M || kp_j >= kp_N) continue;",
          f"{i2}[&]() {{  // the kernel as written, for output (kp_i, kp_j), its k loop's sum given",
          f"{i3}" + _replay(src, k, c, ind * 3), f"{i2}}}();", f"{ind}  }}", "}"]
    return span_text(src, 0, k.body.start_byte) + "\n".join(L) + span_text(src, k.body.end_byte, len(src.data))


def _head(c: Contraction, bm: int, bn: int, causal: str | None, ind: str) -> list[str]:
    """The sizes, the k range (to the bound of the block's last row where it is causal), the batch."""
    L = [f"{ind}const long long kp_M = (long long)({c.M}), kp_N = (long long)({c.N});"]
    if causal is None:
        kt = poly_c(c.bound) if _k_poly_ok(None, None, c) else f"(long long)({c.K})"  # a local such as hs = C / NH
        L.append(f"{ind}const long long kp_K = {kt}, kp_k0 = (long long)({c.k_start});")
    else:  # k runs to the bound of the block's last row (or column); each row's operand is zero past its own
        atom_ = (c.row if causal == "row" else c.col).atoms[0]
        last = "kp_M" if causal == "row" else "kp_N"
        first = f"(long long)blockIdx.{'y' if causal == 'row' else 'x'} * {bm if causal == 'row' else bn}"
        size = bm if causal == "row" else bn
        L.append(f"{ind}const long long kp_last = {first} + {size - 1} < {last} ? {first} + {size - 1} : {last} - 1;")
        L.append(f"{ind}const long long kp_K = {poly_c(c.bound, {atom_: 'kp_last'})}, kp_k0 = (long long)({c.k_start});")
    if c.batch is not None and c.batch.thread == "digits":  # the grid's z is the flat index's high part
        d = c.batch.digits
        L.append(f"{ind}const long long kp_b = (long long)blockIdx.z;")
        for a in c.batch.atoms:  # each batch digit as the kernel splits it, from kp_b at the batch's place
            value = re.sub(rf"\b{re.escape(d.root)}\b", f"(kp_b * ({d.place}))", c.coords[a])
            L.append(f"{ind}const long long {a} = {value};")
    elif c.batch is not None:  # blockIdx.z as the kernel names it, or the grid's z for a batch loop
        bval = c.coords.get(c.batch.atoms[0], "blockIdx.z")
        L.append(f"{ind}const long long kp_b = (long long)({bval});")
    return L


def _loads(c: Contraction, bm: int, bn: int, bk: int, threads: int, acc: str, rename: dict, causal: str | None,
           vec: int, at, ind: str) -> list[str]:
    """Each operand's BK-deep slab into shared memory, along its contiguous dimension, guarded (and
    zero past a causal bound); at(array, k, r) names a slab element."""
    L = []
    i2, i3 = ind * 2, ind * 3
    for t, (a, b) in enumerate(c.terms):
        for o, sh, rows, coord, lim, base in ((a, f"kp_As{t}", bm, "kp_i", "kp_M", "kp_i0"),
                                               (b, f"kp_Bs{t}", bn, "kp_j", "kp_N", "kp_j0")):
            along_k = o.k_stride == "1"  # consecutive threads take consecutive k: coalesced
            atom_ = c.row.atoms[0] if sh.startswith("kp_As") else c.col.atoms[0]
            packs = vec > 1 and o.elem == "float" and acc == "float" and bk % vec == 0 and (
                along_k or o.strides.get(atom_) == "1")
            idx = poly_c(o.index, rename)
            mine = causal == ("row" if sh.startswith("kp_As") else "col")
            kend = poly_c(c.bound, {(c.row if causal == "row" else c.col).atoms[0]: coord}) if mine else "kp_K"
            load = f"({coord} < {lim} && kp_k < {kend}) ? ({acc})({o.array}[{idx}]) : ({acc})0"
            if mine:
                packs = False
            if not packs:
                L.append(f"{i2}for (int kp_e = kp_tid; kp_e < {rows * bk}; kp_e += {threads}) {{  // {o.array}: "
                         f"{'along k' if along_k else 'along its rows'}")
                L.append(f"{i3}const int kp_kk = kp_e % {bk}, kp_r = kp_e / {bk};" if along_k else
                         f"{i3}const int kp_r = kp_e % {rows}, kp_kk = kp_e / {rows};")
                L += [f"{i3}const long long {coord} = {base} + kp_r, kp_k = kp_kt + kp_kk;",
                      f"{i3}{at(sh, 'kp_kk', 'kp_r')} = {load};", f"{i2}}}"]
                continue
            # 16-byte loads: {vec} consecutive elements where they are in bounds and aligned, else one by one
            i4 = i3 + "  "
            last = f"kp_k + {vec - 1} < kp_K && {coord} < {lim}" if along_k else f"{coord} + {vec - 1} < {lim} && kp_k < kp_K"
            step = "kp_kk + kp_v" if along_k else "kp_kk"
            row_v = "kp_r" if along_k else "kp_r + kp_v"
            L.append(f"{i2}for (int kp_e = kp_tid; kp_e < {rows * bk // vec}; kp_e += {threads}) {{  // {o.array}: "
                     f"{'along k' if along_k else 'along its rows'}, {vec * 4}-byte loads")
            L.append(f"{i3}const int kp_kk = (kp_e % {bk // vec}) * {vec}, kp_r = kp_e / {bk // vec};" if along_k else
                     f"{i3}const int kp_r = (kp_e % {rows // vec}) * {vec}, kp_kk = kp_e / {rows // vec};")
            L += [f"{i3}const long long {coord}_r = {base} + kp_r, kp_k_r = kp_kt + kp_kk;",
                  f"{i3}{{",
                  f"{i4}const long long {coord} = {coord}_r, kp_k = kp_k_r;",
                  f"{i4}const float* kp_p = {o.array} + ({idx});",
                  f"{i4}if ({last} && ((unsigned long long)(const void*)kp_p & 15) == 0) {{",
                  f"{i4}  const float4 kp_q = *reinterpret_cast<const float4*>(kp_p);",
                  f"{i4}  const float kp_w[4] = {{kp_q.x, kp_q.y, kp_q.z, kp_q.w}};",
                  f"{i4}  for (int kp_v = 0; kp_v < 4; ++kp_v) {at(sh, step, row_v)} = kp_w[kp_v];",
                  f"{i4}  continue;",
                  f"{i4}}}",
                  f"{i3}}}",
                  f"{i3}for (int kp_v = 0; kp_v < {vec}; ++kp_v) {{",
                  f"{i4}const long long {coord} = {coord}_r{'' if along_k else ' + kp_v'}, kp_k = kp_k_r{' + kp_v' if along_k else ''};",
                  f"{i4}{at(sh, step, row_v)} = {load};",
                  f"{i3}}}",
                  f"{i2}}}"]
    return L


def _replay(src: SourceFile, k, c: Contraction, ind: str, sums: list[str] | None = None) -> str:
    subs = []
    for name, value in ((c.row.atoms[0], "kp_i"), (c.col.atoms[0], "kp_j")):
        d = _decl_of(src, k, name)
        v = d.child_by_field_name("value")
        subs.append((v.start_byte, v.end_byte, f"({value})"))
    # a root split into the row and column (`r = idx / N, c = idx % N`): idx = r * N + c
    for name, value in c.coords.items():
        d = _decl_of(src, k, name)
        if name in (c.row.atoms[0], c.col.atoms[0]) or (c.batch is not None and name == c.batch.atoms[0]):
            continue
        if d is None or (c.batch is not None and c.batch.thread == "digits" and name in c.batch.atoms):
            continue  # a batch digit: computed as written from the flat index rebuilt below
        if c.batch is not None and c.batch.thread == "digits" and name == c.batch.digits.root:
            g = c.batch.digits
            subs.append((d.child_by_field_name("value").start_byte, d.child_by_field_name("value").end_byte,
                         f"kp_b * ({g.place}) + kp_i * ({g.row_place}) + kp_j * ({g.col_place})"))
            continue
        split = _split_value(src, k, name, c)
        if split is None and _only_in_coordinates(src, k, name, c):
            continue  # `int tx = threadIdx.x;` read only by the row's and column's definitions: unused now
        if split is None:
            raise Refuse(f"`{name}` is a thread index besides the output's row and column")
        v = d.child_by_field_name("value")
        subs.append((v.start_byte, v.end_byte, split))
    # the k loop: its update, the tile's sum in place of each product
    upd = c.update
    inner = []
    for t, (a, b) in enumerate(c.terms):
        inner.append((a.nodes[0].start_byte, a.nodes[0].end_byte, sums[t] if sums else f"kp_acc{t}[kp_m][kp_n]"))
        inner.append((b.nodes[0].start_byte, b.nodes[0].end_byte, "1"))
    stmt = upd.parent
    line = span_text(src, stmt.start_byte, stmt.end_byte, inner)
    subs.append((c.loop.start_byte, c.loop.end_byte, line))
    if c.batch is not None and c.batch.thread == "loop":  # the batch loop runs this block's batch only
        bl = batch_loop(src, k, c)
        body = bl.child_by_field_name("body")
        t = text(src, bl.child_by_field_name("initializer").child_by_field_name("type"))
        subs.append((bl.start_byte, body.start_byte, f"{{ const {t} {c.batch.atoms[0]} = ({t})(kp_b); "))
        subs.append((body.end_byte, body.end_byte, " }"))
    body = textwrap.dedent(span_text(src, k.body.start_byte + 1, k.body.end_byte - 1, subs).strip("\n"))
    return textwrap.indent(body, ind).strip()


def _only_in_coordinates(src: SourceFile, k, name: str, c: Contraction) -> bool:
    """name is read only inside the declarations of the output's row and column (replaced in the replay)."""
    decls = [d for d in (_decl_of(src, k, a) for a in (c.row.atoms[0], c.col.atoms[0])) if d is not None]
    own = _decl_of(src, k, name)
    return all(any(d.start_byte <= n.start_byte < d.end_byte for d in decls + [own])
               for n in walk(k.body) if n.type == "identifier" and src.node_text(n) == name)


def _split_value(src: SourceFile, k, root: str, c: Contraction) -> str | None:
    """`root` as the row and column give it back: rq * D + rr where the row is root / D and the
    column root % D (or the other way round)."""
    got = {}
    for name in (c.row.atoms[0], c.col.atoms[0]):
        d = _decl_of(src, k, name)
        v = unparen(d.child_by_field_name("value")) if d is not None else None
        if v is None or v.type != "binary_expression" or text(src, unparen(v.child_by_field_name("left"))) != root:
            return None
        got[text(src, v.child_by_field_name("operator"))] = (name, text(src, v.child_by_field_name("right")))
    if set(got) != {"/", "%"} or got["/"][1] != got["%"][1]:
        return None
    q = "kp_i" if got["/"][0] == c.row.atoms[0] else "kp_j"
    r = "kp_j" if q == "kp_i" else "kp_i"
    return f"({q} * ({got['/'][1]}) + {r})"


def grid_text(c: Contraction, table: dict, bm: int, bn: int, z: str | None) -> tuple[str, str] | None:
    """(N tiles, M tiles) in the names of `table` (spec values or a launch's arguments)."""
    n, m = in_terms_of(c.N, table), in_terms_of(c.M, table)
    if n is None or m is None:
        return None
    return f"(((long long)({n}) + {bn - 1}) / {bn})", f"(((long long)({m}) + {bm - 1}) / {bm})"


def host_launches(src: SourceFile, kernel: str, c: Contraction, text_: str, bm: int, bn: int,
                  threads: int) -> tuple[str, list[str]]:
    """The file's own launches of the kernel with the tiled grid and block."""
    s2 = SourceFile(text_, src.path)
    subs, notes = [], []
    for call, cfg, args, host in launch_sites(s2, kernel):
        if len(args) < 2:
            continue
        table = _call_args(s2, kernel, call)
        g = grid_text(c, table, bm, bn, None)
        if g is None:
            notes.append(f"line {call.start_point[0] + 1}: launch {kernel} with grid (cdiv({c.N}, {bn}), cdiv({c.M}, "
                         f"{bm}), the batch) and {threads} threads (its arguments could not be matched)")
            continue
        old = s2.node_text(args[0])
        zs = f"dim3({old}).z"
        if c.batch is not None and c.batch.thread in ("loop", "digits"):
            z = in_terms_of(c.batch.extent, table)
            if z is None:
                notes.append(f"line {call.start_point[0] + 1}: launch {kernel} with the batch count {c.batch.extent} "
                             "as the grid's z")
                continue
            zs = f"(unsigned)({z})"
        subs.append((args[0].start_byte, args[0].end_byte,
                     f"dim3((unsigned){g[0]}, (unsigned){g[1]}, {zs})"))
        subs.append((args[1].start_byte, args[1].end_byte, str(threads)))
    return (span_text(s2, 0, len(s2.data), subs) if subs else text_), notes


def packed(c: Contraction) -> bool:
    """Some operand can be read 16 bytes at a time (float elements, a contiguous dimension)."""
    return any(o.elem == "float" and (o.k_stride == "1" or "1" in o.strides.values()) for t in c.terms for o in t)


def describe(c: Contraction) -> str:
    from kernelpro.profilers.analysis.contraction import describe as d
    return d(c)


# ---------------------------------------------------------------- the knob space


SHAPES = [(128, 128, 8, 8, 8), (64, 64, 8, 4, 4), (128, 64, 8, 8, 4), (64, 128, 8, 4, 8), (64, 64, 16, 4, 4),
          (128, 128, 16, 8, 8), (32, 32, 16, 2, 2), (64, 32, 16, 4, 2), (32, 64, 16, 2, 4), (16, 16, 16, 1, 1)]


def tile_space(terms: int, acc_bytes: int, m: float | None, n: float | None, batch: float | None,
               arch: str = "sm_90", sms: int = 132, packs: bool = True) -> list[dict]:
    """Tile settings the occupancy calculator admits (shared memory and an estimate of the registers
    per block), ordered by a small model: loads saved per multiply-add (BM*BN/(BM+BN)) times the
    share of the last wave that does work, for the largest size of the spec."""
    from kernelpro.profilers.occupancy import occupancy

    out = []
    for bm, bn, bk, tm, tn in SHAPES:
        threads = (bm // tm) * (bn // tn)
        for pad in (4, 1, 0):
            smem = terms * bk * (bm + bn + 2 * pad) * acc_bytes
            regs = min(255, terms * tm * tn * (acc_bytes // 4) + tm + tn + 40)
            if smem > 48 * 1024 or not 32 <= threads <= 1024:
                continue
            try:
                occ = occupancy(arch, threads, regs, smem)
            except Exception:
                continue
            per_sm = occ.blocks_per_sm
            if not per_sm:
                continue
            tiles = (-(-(m or 4096) // bm)) * (-(-(n or 4096) // bn)) * (batch or 1)
            slots = sms * per_sm
            waves = -(-tiles // slots)
            score = min(bm * bn / (bm + bn), 64) * (tiles / (waves * slots)) * (1.0 if pad == 4 else 0.97 if pad == 1 else 0.9)
            for vec in ((4, 1) if packs else (1,)):
                out.append(({"bm": bm, "bn": bn, "bk": bk, "tm": tm, "tn": tn, "pad": pad, "vec": vec},
                            score * (1.0 if vec == 4 or not packs else 0.95)))
    out.sort(key=lambda x: -x[1])
    return [k for k, _ in out]


# ---------------------------------------------------------------- tensor cores (WMMA)

WMMA_TYPES = {"__nv_bfloat16": "__float2bfloat16", "nv_bfloat16": "__float2bfloat16", "__half": "__float2half",
              "half": "__float2half"}


def check_wmma(c: Contraction) -> str:
    """The 16-bit element type both operands share (WMMA takes it with fp32 sums); Refuse otherwise."""
    if len(c.terms) != 1:
        raise Refuse("a sum of several products (tensor cores take one)")
    a, b = c.terms[0]
    if a.elem != b.elem or a.elem not in WMMA_TYPES:
        raise Refuse(f"the operands are {a.elem} and {b.elem}: WMMA here takes bf16 or fp16 operands "
                     "(fp32 through TF32 only where the tolerance admits it: not done yet)")
    return a.elem


TF32_U = 2.0 ** -11  # TF32's unit roundoff (10-bit mantissa, rounded to nearest)


def tf32_admits(c: Contraction, tolerance, kmax):
    """(True, what to say) where the spec's tolerance admits TF32's error for sums of kmax products of
    unit-scale values: a product's relative error up to 2u, summed as a random walk (3 sigma), against
    atol (outputs near zero) and rtol; else the reason (a str)."""
    a, b = c.terms[0] if len(c.terms) == 1 else (None, None)
    if a is None or a.elem != "float" or b.elem != "float":
        return "only for one product of float operands"
    if tolerance is None or kmax is None:
        return "no spec tolerance (or K) to check TF32's error against"
    rtol, atol = tolerance
    err = 3 * 2 * TF32_U * (kmax ** 0.5)
    if atol < err or rtol < 4 * TF32_U:
        return (f"the spec's tolerance (rtol {rtol:g}, atol {atol:g}) does not admit TF32's error at K = {kmax:g} "
                f"(about {err:.2g} absolute, {4 * TF32_U:.1g} relative)")
    return True, (f"TF32 admitted by the spec's tolerance (rtol {rtol:g}, atol {atol:g}) at K = {kmax:g}: "
                  f"expected error about {err:.2g}")


def wmma_body(src: SourceFile, kernel: str, c: Contraction, coords: dict, bm: int, bn: int, bk: int,
              causal: str | None = None, tf32: bool = False) -> str:
    """The kernel with its body replaced by a tensor-core product: BM x BN tiles per block, each warp
    32 x 32 outputs as 2 x 2 WMMA 16x16x16 fragments (16-bit operands, fp32 sums), the operands'
    slabs staged in padded shared memory, the sums put back through shared memory, then every output
    runs the kernel's code as written."""
    k = src.kernel(kernel)
    t = "float" if tf32 else check_wmma(c)
    zero = "0.0f" if tf32 else f"{WMMA_TYPES[t]}(0.0f)"
    kf, ft, pad = (8, "nvcuda::wmma::precision::tf32", 4) if tf32 else (16, t, 8)
    warps_n = bn // 32
    threads = (bm // 32) * warps_n * 32
    ind, i2, i3 = "    ", "        ", "            "
    L = [f"{{  // kernelpro: tensor cores: {bm} x {bn} tiles per block, 32 x 32 per warp as WMMA 16x16x16 "
         f"fragments ({t} operands, fp32 sums), {bk}-deep slabs in shared memory"]
    L += _head(c, bm, bn, causal, ind)
    L += [f"{ind}const int kp_tid = threadIdx.x, kp_wm = (kp_tid / 32) / {warps_n}, kp_wn = (kp_tid / 32) % {warps_n};",
          f"{ind}const long long kp_i0 = (long long)blockIdx.y * {bm}, kp_j0 = (long long)blockIdx.x * {bn};",
          f"{ind}alignas(32) __shared__ {t} kp_As0[{bm}][{bk + pad}];  // (row, k), padded",
          f"{ind}alignas(32) __shared__ {t} kp_Bs0[{bk}][{bn + pad}];  // (k, column)",
          f"{ind}alignas(32) __shared__ float kp_Cs[{bm}][{bn + 4}];",
          f"{ind}nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, {kf}, float> kp_f[2][2];",
          f"{ind}for (int m = 0; m < 2; ++m)",
          f"{ind}  for (int n = 0; n < 2; ++n) nvcuda::wmma::fill_fragment(kp_f[m][n], 0.0f);",
          f"{ind}for (long long kp_kt = kp_k0; kp_kt < kp_K; kp_kt += {bk}) {{"]
    loads = _loads(c, bm, bn, bk, threads, t, dict(coords), causal, 1,
                   lambda a, x, y: f"{a}[{y}][{x}]" if a.startswith("kp_As") else f"{a}[{x}][{y}]", ind)
    L += [ln.replace(f"({t})0", zero).replace(f"({t})(", f"({t})(") for ln in loads]
    L += [f"{i2}__syncthreads();",
          f"{i2}for (int kp_kk = 0; kp_kk < {bk}; kp_kk += {kf}) {{",
          f"{i3}nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, {kf}, {ft}, nvcuda::wmma::row_major> kp_a[2];",
          f"{i3}nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, {kf}, {ft}, nvcuda::wmma::row_major> kp_b[2];",
          f"{i3}for (int m = 0; m < 2; ++m) nvcuda::wmma::load_matrix_sync(kp_a[m], &kp_As0[kp_wm * 32 + m * 16][kp_kk], {bk + pad});",
          f"{i3}for (int n = 0; n < 2; ++n) nvcuda::wmma::load_matrix_sync(kp_b[n], &kp_Bs0[kp_kk][kp_wn * 32 + n * 16], {bn + pad});"]
    if tf32:  # the fp32 values rounded to TF32, as the instruction takes them
        L += [f"{i3}for (int m = 0; m < 2; ++m)",
              f"{i3}  for (int e = 0; e < kp_a[m].num_elements; ++e) kp_a[m].x[e] = nvcuda::wmma::__float_to_tf32(kp_a[m].x[e]);",
              f"{i3}for (int n = 0; n < 2; ++n)",
              f"{i3}  for (int e = 0; e < kp_b[n].num_elements; ++e) kp_b[n].x[e] = nvcuda::wmma::__float_to_tf32(kp_b[n].x[e]);"]
    L += [
          f"{i3}for (int m = 0; m < 2; ++m)",
          f"{i3}  for (int n = 0; n < 2; ++n) nvcuda::wmma::mma_sync(kp_f[m][n], kp_a[m], kp_b[n], kp_f[m][n]);",
          f"{i2}}}", f"{i2}__syncthreads();", f"{ind}}}",
          f"{ind}for (int m = 0; m < 2; ++m)",
          f"{ind}  for (int n = 0; n < 2; ++n)",
          f"{ind}    nvcuda::wmma::store_matrix_sync(&kp_Cs[kp_wm * 32 + m * 16][kp_wn * 32 + n * 16], kp_f[m][n], "
          f"{bn + 4}, nvcuda::wmma::mem_row_major);",
          f"{ind}__syncthreads();",
          f"{ind}for (int kp_e = kp_tid; kp_e < {bm * bn}; kp_e += {threads}) {{",
          f"{i2}const long long kp_i = kp_i0 + kp_e / {bn}, kp_j = kp_j0 + kp_e % {bn};",
          f"{i2}if (kp_i >= kp_M || kp_j >= kp_N) continue;",
          f"{i2}[&]() {{  // the kernel as written, for output (kp_i, kp_j), its k loop's sum given",
          f"{i3}" + _replay(src, k, c, i3, [f"kp_Cs[kp_e / {bn}][kp_e % {bn}]"]), f"{i2}}}();", f"{ind}}}", "}"]
    text_ = span_text(src, 0, k.body.start_byte) + "\n".join(L) + span_text(src, k.body.end_byte, len(src.data))
    return text_ if "#include <mma.h>" in text_ else "#include <mma.h>\n" + text_
