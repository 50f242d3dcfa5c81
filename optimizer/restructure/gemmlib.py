"""A plain matrix product handed to the library's GEMM block (kernelpro/gemm_sm90.cuh: CUTLASS 3,
TMA and wgmma on sm_90a) behind the kernel's own signature.

The kernel stays in the file as written; beside it goes an `extern "C"` host launcher declared
with the kernel's parameters, which runs `kernelpro::gemm_sm90` with the product's sizes,
layouts, leading dimensions, batch strides, alpha and beta, all read from the contraction
(profilers/analysis/contraction.py). The spec's launch of the kernel becomes a host step
(`host = "kp_gemm_<kernel>"`, docs/launch-specs.md) and the file's own `kernel<<<...>>>(...)`
launches become calls of the launcher. Where the tensor cores refuse a problem (a leading
dimension or offset that is not a multiple of 16 bytes), the block runs its own one-output-per-
thread kernel: every size gets an answer.

What qualifies: one product of bf16 or fp16 operands (16-bit tensor-core inputs, fp32 sums), a
bf16, fp16 or fp32 output written once as `alpha * sum + beta * old` (a conversion around it
allowed), no mask, causal bound, bias or second output, sizes and strides written in the
kernel's parameters. Anything else is a Refuse with the reason.
"""
from __future__ import annotations

import re

from kernelpro.profilers.analysis.contraction import Contraction, _factors, _terms
from kernelpro.profilers.analysis.loops import text, unparen, uses
from kernelpro.profilers.source import SourceFile, walk

from .hostcall import with_launcher
from .text import Refuse

HEADER = "kernelpro/gemm_sm90.cuh"
ELEMENTS = {"__nv_bfloat16": "cutlass::bfloat16_t", "nv_bfloat16": "cutlass::bfloat16_t",
            "__half": "cutlass::half_t", "half": "cutlass::half_t"}
OUTPUTS = {**ELEMENTS, "float": "float"}
CONVERSIONS = {"__float2bfloat16", "__float2bfloat16_rn", "__float2half", "__float2half_rn", "__nv_bfloat16",
               "nv_bfloat16", "__half", "half", "float", "static_cast"}
# the tile (CTA) shape and the thread-block cluster. First both, the launcher choosing by the problem
# (gemm_sm90_by_size: one candidate that serves every size, one compile), then each alone: the block's
# default (large problems) and a tile for problems with fewer 128 x 256 tiles than SMs
BY_SIZE = "by-size"
TILES = [{"tile": BY_SIZE, "cluster": 0}, {"tile": "128x256x64", "cluster": 2}, {"tile": "128x128x64", "cluster": 1}]
TF32_TILES = [{"tile": BY_SIZE, "cluster": 0}, {"tile": "128x256x32", "cluster": 2},  # 4-byte operands: half
              {"tile": "128x128x32", "cluster": 1}]  # the k depth for the same shared memory per stage


def launcher_name(kernel: str) -> str:
    return f"kp_gemm_{kernel}"


def _type(elem: str) -> str:
    return " ".join(w for w in elem.replace("*", " ").split() if w not in ("const", "volatile", "__restrict__"))


def _params_only(src: SourceFile, k, expr: str | None, what: str) -> str:
    from .matmul import in_params

    got = in_params(src, k, expr) if expr is not None else None
    if got is None or re.search(r"\b(gridDim|blockDim|threadIdx|blockIdx)\b", got):
        raise Refuse(f"the library GEMM: {what} ({expr or 'unknown'}) is not written in the kernel's parameters")
    return got


def _epilogue(src: SourceFile, c: Contraction) -> tuple[str, str]:
    """(alpha, beta) of the store as C text; Refuse where the output is anything but alpha * sum + beta * old."""
    alpha = c.alpha or "1.0f"
    if c.accumulate == "global":  # `out[..] += alpha * a * b` in the loop: the old value stays (beta 1), unless
        beta = "1.0f"             # the kernel sets it before the loop (`out[..] = 0`, `out[..] *= beta`)
        for n in walk(src.kernel(c.kernel).body):
            if n.type != "assignment_expression" or n.start_byte >= c.loop.start_byte:
                continue
            left = unparen(n.child_by_field_name("left"))
            if left is None or text(src, left) != c.acc:
                continue
            op, right = text(src, n.child_by_field_name("operator")), text(src, n.child_by_field_name("right"))
            if op == "=" and right.rstrip("fFlL").replace(".", "").strip("0") == "":
                beta = "0.0f"
            elif op == "*=":
                beta = f"({right})"
            else:
                raise Refuse(f"the library GEMM: the output is set to `{right}` before the sum")
        return alpha, beta
    st = c.store
    op = text(src, st.child_by_field_name("operator")) if st is not None else None
    if op not in ("=", "+="):
        raise Refuse(f"the library GEMM: the sum is not stored with `=` or `+=`{f' (`{op}`)' if op else ''}")
    right = unparen(st.child_by_field_name("right"))
    while right is not None and right.type in ("call_expression", "cast_expression"):  # __float2bfloat16(acc), (bf16)acc
        if right.type == "cast_expression":
            right = unparen(right.child_by_field_name("value"))
            continue
        fn = text(src, right.child_by_field_name("function")).split("<")[0].strip()
        args = right.child_by_field_name("arguments")
        if fn not in CONVERSIONS or args is None or len(args.named_children) != 1:
            break
        right = unparen(args.named_children[0])
    beta = None
    for sign, t in _terms(src, right):
        fs = _factors(src, t)
        mine = [f for f in fs if text(src, unparen(f)) == c.acc]
        old = [f for f in fs if text(src, unparen(f)) == text(src, st.child_by_field_name("left"))]
        rest = " * ".join(f"({text(src, f)})" for f in fs if f not in mine and f not in old)
        if mine and not old and sign > 0 and not any(uses(src, f, c.acc) for f in fs if f not in mine):
            continue  # the alpha term: c.alpha has its factors
        if old and not mine and not any(uses(src, f, c.acc) for f in fs if f not in old):
            beta = (f"-{rest or '1.0f'}" if sign < 0 else rest or "1.0f")
            continue
        raise Refuse(f"the library GEMM: the store `{text(src, st)}` is not alpha * sum + beta * old output")
    if op == "+=":  # out += alpha * sum: the old value once more
        beta = "1.0f" if beta is None else f"1.0f + {beta}"
    return alpha, beta or "0.0f"


def _only_writes(src: SourceFile, c: Contraction) -> None:
    """The kernel writes the output and nothing else of global memory, and calls no atomics."""
    k = src.kernel(c.kernel)
    arrays = {p.name for p in k.params if p.is_pointer}
    for n in walk(k.body):
        if n.type == "call_expression":
            fn = text(src, n.child_by_field_name("function"))
            if fn.startswith("atomic") or fn in ("printf", "__trap", "assert"):
                raise Refuse(f"the library GEMM: the kernel calls {fn}")
        if n.type in ("assignment_expression", "update_expression"):
            t = unparen(n.child_by_field_name("left") or n.child_by_field_name("argument"))
            while t is not None and t.type in ("subscript_expression", "pointer_expression", "field_expression"):
                t = unparen(t.child_by_field_name("argument") or (t.named_children[0] if t.named_children else None))
            name = text(src, t) if t is not None else ""
            if name in arrays and name != c.out.array:
                raise Refuse(f"the library GEMM: the kernel also writes {name}")


def _layout(op, outer: str, k_stride: str, what: str) -> tuple[str, bool]:
    """(leading dimension, outer-contiguous) of an operand over (outer, k)."""
    s_outer = op.strides.get(outer)
    if s_outer is None or k_stride in (None, "0"):
        raise Refuse(f"the library GEMM: {what} is not indexed by the output's coordinate and k")
    if k_stride == "1":
        return s_outer, False
    if s_outer == "1":
        return k_stride, True
    raise Refuse(f"the library GEMM: {what} has no contiguous dimension ({op.array}: strides {s_outer} and "
                 f"{k_stride})")


def plan(src: SourceFile, c: Contraction, types: bool = True, tf32: bool = False) -> dict:
    """What the launcher passes (C text over the kernel's parameters); Refuse with the reason. `tf32`: fp32
    operands too (the block multiplies them in TF32: only where the spec's tolerance admits it). `types=False`
    maps a product of any element type (what the tests check the mapping on)."""
    k = src.kernel(c.kernel)
    if k is None or k.is_template:
        raise Refuse("the library GEMM: a template kernel (the launcher needs one instantiation)")
    if len(c.terms) != 1:
        raise Refuse("the library GEMM: a sum of several products")
    if not c.plain:
        raise Refuse("the library GEMM: the sum adds another function of the two operands than their product")
    if c.causal or c.condition or c.mask:
        raise Refuse("the library GEMM: a causal bound or a mask on the sum")
    if c.bias:
        raise Refuse(f"the library GEMM: a bias ({c.bias}) added to the sum")
    if c.opaque_store:
        raise Refuse("the library GEMM: the output is computed from the sum by the kernel's own code after the loop "
                     "(not alpha * sum + beta * C)")
    if c.k_start not in ("0", None):
        raise Refuse(f"the library GEMM: k starts at {c.k_start}")
    a, b = c.terms[0]
    ea, eb, ed = _type(a.elem), _type(b.elem), _type(c.out.elem)
    ok = {**ELEMENTS, **({"float": "float"} if tf32 else {})}
    if types and (ea not in ok or eb not in ok or ok[ea] != ok[eb]):
        raise Refuse(f"the library GEMM: operands of {ea} and {eb} (it takes bf16 or fp16 operands, both the same"
                     + (", or fp32 ones where the tolerance admits TF32)" if not tf32 else ")"))
    if types and ed not in OUTPUTS:
        raise Refuse(f"the library GEMM: an output of {ed}")
    if "double" in c.acc_type:
        raise Refuse("the library GEMM: sums in double (the tensor cores sum in fp32)")
    if len(c.row.atoms) != 1 or len(c.col.atoms) != 1:
        raise Refuse("the library GEMM: the row or column is not one coordinate")
    row, col = c.row.atoms[0], c.col.atoms[0]
    if row in a.strides and col in b.strides:
        pass
    elif col in a.strides and row in b.strides:
        a, b = b, a
    else:
        raise Refuse("the library GEMM: the operands are not indexed by (row, k) and (k, column)")
    _only_writes(src, c)
    alpha, beta = _epilogue(src, c)
    m = _params_only(src, k, c.M, "the row count")
    n = _params_only(src, k, c.N, "the column count")
    kk = _params_only(src, k, c.K, "the length of the sum")
    lda, a_rows = _layout(a, row, a.k_stride, "the first operand")  # a_rows: m contiguous (ColumnMajor A)
    ldb, b_cols = _layout(b, col, b.k_stride, "the second operand")  # b_cols: n contiguous (RowMajor B)
    s_row, s_col = c.out.strides.get(row), c.out.strides.get(col)
    if s_row is None or s_col is None:
        raise Refuse("the library GEMM: the output is not indexed by the row and the column")
    if s_col == "1":
        transposed, ldd = False, s_row
    elif s_row == "1":  # a column-major output: D^T = B^T A^T, row-major
        transposed, ldd = True, s_col
    else:
        raise Refuse(f"the library GEMM: the output has no contiguous dimension (strides {s_row} and {s_col})")
    batch, strides = "1", {"a": "0", "b": "0", "d": "0"}
    if c.batch is not None:
        if len(c.batch.atoms) != 1 or c.batch.digits is not None:
            raise Refuse("the library GEMM: the batch is not one coordinate")
        z = c.batch.atoms[0]
        batch = _params_only(src, k, c.batch.extent, "the batch count")
        strides = {"a": a.strides.get(z, "0"), "b": b.strides.get(z, "0"), "d": c.out.strides.get(z)}
        if strides["d"] in (None, "0"):
            raise Refuse("the library GEMM: the batch does not move the output")
    vals = {"m": m, "n": n, "k": kk, "l": batch, "lda": lda, "ldb": ldb, "ldd": ldd, "alpha": alpha, "beta": beta,
            "sa": strides["a"], "sb": strides["b"], "sd": strides["d"]}
    for key, v in list(vals.items()):
        vals[key] = _params_only(src, k, v, {"lda": "a leading dimension", "ldb": "a leading dimension",
                                             "ldd": "the output's leading dimension"}.get(key, key)) \
            if key not in ("alpha", "beta") else _params_only(src, k, v, key)
    la = "ColumnMajor" if a_rows else "RowMajor"
    lb = "RowMajor" if b_cols else "ColumnMajor"
    ta, tb, td = ok.get(ea, ea), ok.get(eb, eb), OUTPUTS.get(ed, ed)
    out = {"A": (a.array, a.offset, ta, la), "B": (b.array, b.offset, tb, lb), "D": (c.out.array, c.out.offset, td),
           **vals}
    if transposed:  # D^T (n x m, row-major) = B^T (n x k) A^T (k x m): B^T's layout flips, and A^T's
        flip = {"RowMajor": "ColumnMajor", "ColumnMajor": "RowMajor"}
        out.update(A=(b.array, b.offset, tb, flip[lb]), B=(a.array, a.offset, ta, flip[la]),
                   m=n, n=m, lda=ldb, ldb=lda, sa=strides["b"], sb=strides["a"])
    for key in ("A", "B", "D"):
        _params_only(src, k, out[key][1], f"{out[key][0]}'s offset")
    out["transposed"] = transposed
    return out


def tiles_text(tile: str, cluster: int) -> str:
    """The tile setting in words (a candidate's description, the launcher's comment)."""
    if tile == BY_SIZE:
        return "tiles chosen by the problem (128 x 256 in clusters of 2 where they fill the SMs, else 128 x 128)"
    return f"{tile} tiles in clusters of {cluster}"


def rewrite(src: SourceFile, kernel: str, p: dict, tile: str, cluster: int, tiles: list = TILES) -> str:
    """The file (as written: `src`) with the block's launcher (hostcall.with_launcher). `tile` BY_SIZE: the
    launcher picks the tile by the problem (gemm_sm90_by_size, at the k depth of the space's `tiles`)."""
    cpp = lambda v: f"({v})"  # noqa: E731

    def ptr(key):
        arr, off, *_ = p[key]
        return arr if off in ("0", None) else f"{arr} + {cpp(off)}"
    la, lb = p["A"][3], p["B"][3]
    if tile == BY_SIZE:
        shapes = next(t["tile"] for t in tiles if t["tile"] != BY_SIZE).split("x")[2]  # (the fixed tiles' k depth)
        fn = "gemm_sm90_by_size"
    else:
        bm, bn, bk = tile.split("x")
        shapes = f"cute::Shape<cute::_{bm}, cute::_{bn}, cute::_{bk}>, cute::Shape<cute::_{cluster}, cute::_1, cute::_1>"
        fn = "gemm_sm90"
    body = (f"  return (int)kernelpro::{fn}<{p['A'][2]}, kernelpro::{la}, {p['B'][2]}, kernelpro::{lb}, "
            f"{p['D'][2]},\n"
            f"                                   {shapes}>(\n"
            f"      (int){cpp(p['m'])}, (int){cpp(p['n'])}, (int){cpp(p['k'])}, (int){cpp(p['l'])},\n"
            f"      {ptr('A')}, (int64_t){cpp(p['lda'])}, (int64_t){cpp(p['sa'])},\n"
            f"      {ptr('B')}, (int64_t){cpp(p['ldb'])}, (int64_t){cpp(p['sb'])},\n"
            f"      {ptr('D')}, (int64_t){cpp(p['ldd'])}, (int64_t){cpp(p['sd'])},\n"
            f"      (float){cpp(p['alpha'])}, (float){cpp(p['beta'])});")
    comment = (f"KernelPro: {kernel}'s product on the library's tensor-core GEMM (CUTLASS 3: TMA, wgmma on sm_90a),\n"
               f"launched from the host with the kernel's arguments ({tiles_text(tile, cluster)}); where the\n"
               f"tensor cores refuse the sizes, the block's plain kernel computes the same sums.")
    return with_launcher(src, kernel, HEADER, launcher_name(kernel), comment, body, "the library's tensor-core GEMM")
