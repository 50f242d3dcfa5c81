"""Matrix-multiply loops computed on the FMA pipes of a kernel with no tensor-core instruction.

Source side: a loop over k whose body accumulates a product of two array elements that both
index with k, A's index with a row-like variable B's lacks and B's with a column-like one A's
lacks (so a dot product or a matrix-vector product does not match). SASS side: FFMA/HFMA2/
DFMA on the accumulation's lines and no HMMA/HGMMA/IMMA/... anywhere in the kernel.
"""
from __future__ import annotations

import re

from ..advice import Evidence, Location, Severity
from ..analysis.contraction import contractions
from ..hunt.links import block_link
from ..source import Kernel, Loop, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at

TENSOR_OPS = ("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "DMMA", "BMMA", "BGMMA", "OMMA", "QMMA",
              "UTCHMMA", "UTCQMMA", "UTCIMMA", "UTCOMMA", "UTCMMA")
FMA_OPS = ("FFMA", "HFMA2", "DFMA", "FMUL", "HMUL2", "DMUL")
FMA_CALLS = ("fmaf", "fma", "__fmaf_rn", "__fmul_rn", "__hfma", "__hfma2", "__fma_rn")
UNIFORM = ("blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z")
CASTS = ("__half2float", "__bfloat162float", "float", "double", "static_cast", "__low2float", "__high2float")


def _array_ref(src: SourceFile, n):
    """(array name, index nodes) of `A[i]`, `A[i][k]`, through casts and conversion calls."""
    while True:
        if n.type == "parenthesized_expression" and n.named_children:
            n = n.named_children[0]
        elif n.type == "cast_expression":
            n = n.child_by_field_name("value")
        elif n.type == "call_expression" and src.node_text(n.child_by_field_name("function")).split("<")[0] in CASTS:
            args = n.child_by_field_name("arguments")
            if args is None or len(args.named_children) != 1:
                return None
            n = args.named_children[0]
        else:
            break
    idx = []
    while n is not None and n.type == "subscript_expression":
        ind = n.child_by_field_name("indices")
        if ind is not None:
            idx[:0] = list(ind.named_children)
        n = n.child_by_field_name("argument")
    if n is None or not idx:
        return None
    return src.node_text(n), idx


def _names(src: SourceFile, nodes_) -> set[str]:
    out = set()
    for root in nodes_:
        for x in walk(root):
            if x.type == "field_expression":
                out.add(src.node_text(x).replace(" ", ""))
            elif x.type == "identifier" and (x.parent is None or x.parent.type != "field_expression"):
                out.add(src.node_text(x))
    return out


def _products(src: SourceFile, stmt):
    """(accumulator text, left operand, right operand, node) of each `acc += a * b`-like update."""
    for n in walk(stmt):
        if n.type == "assignment_expression":
            op = src.node_text(n.child_by_field_name("operator"))
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            acc = src.node_text(left).replace(" ", "")
            if op == "+=" and right is not None and right.type == "binary_expression" and \
                    src.node_text(right.child_by_field_name("operator")) == "*":
                yield acc, right.child_by_field_name("left"), right.child_by_field_name("right"), n
            elif op == "=" and right is not None and right.type == "call_expression" and \
                    src.node_text(right.child_by_field_name("function")) in FMA_CALLS:
                args = right.child_by_field_name("arguments").named_children
                if len(args) == 3 and src.node_text(args[2]).replace(" ", "") == acc:
                    yield acc, args[0], args[1], n
            elif op == "=" and right is not None and right.type == "binary_expression" and \
                    src.node_text(right.child_by_field_name("operator")) == "+":
                l, r = right.child_by_field_name("left"), right.child_by_field_name("right")
                for a, b in ((l, r), (r, l)):
                    if src.node_text(a).replace(" ", "") == acc and b.type == "binary_expression" and \
                            src.node_text(b.child_by_field_name("operator")) == "*":
                        yield acc, b.child_by_field_name("left"), b.child_by_field_name("right"), n


def matmul_updates(src: SourceFile, k: Kernel, loop: Loop, products: bool = False):
    """Accumulations in `loop` that multiply A[..k..] by B[..k..] as in a matrix multiply: the
    shared analysis's contractions (analysis/contraction.py: any spelling over kernel buffers),
    then products of arrays the kernel holds itself (shared-memory or register tiles)."""
    if not loop.var:
        return []
    f = contractions(src, k)
    found = [(c.update, a.array, b.array, c.acc) for c in f.products if c.loop == loop.node
             and not (products and c.combine) for a, b in c.terms[:1]]  # products: not a distance's (x - y)^2
    found += [u for r in f.refused if r.line == loop.line for u in r.updates]  # several named sums: each a product
    if found or any(r.line == loop.line for r in f.refused) or any(c.loop == loop.node for c in f.products) or any(
            loop.node.start_byte < c.loop.start_byte and c.loop.end_byte <= loop.node.end_byte for c in f.products):
        return found  # recognised (or refused) here, or the product is a loop inside this one
    return _local_updates(src, k, loop)


def _local_updates(src: SourceFile, k: Kernel, loop: Loop):
    """The syntactic match, for operands held in shared memory or registers (not kernel buffers)."""
    body = loop.node.child_by_field_name("body")
    if body is None:
        return []
    fixed = {p.name for p in k.params if not p.is_pointer} | set(src.constants) | set(UNIFORM) | {loop.var}
    out = []
    for acc, x, y, node in _products(src, body):
        ra, rb = _array_ref(src, x), _array_ref(src, y)
        if ra is None or rb is None:
            continue
        na, nb = _names(src, ra[1]), _names(src, rb[1])
        if loop.var not in na or loop.var not in nb:
            continue
        only_a, only_b = (na - nb) - fixed, (nb - na) - fixed
        if only_a and only_b:
            out.append((node, ra[0], rb[0], acc))
    return out


def _dtype(k: Kernel, name: str) -> str:
    p = k.param(name.split(".")[-1].lstrip("*&"))
    return p.base_type.replace("const", "").strip() if p is not None else "float"


@tool(
    "tensor_cores",
    """Matrix-multiply loops (acc += A[i][k] * B[k][j], C[i][j] += ..., fmaf(A[..k..],
    B[..k..], acc)) that run on FFMA/HFMA2 while the kernel contains no tensor-core
    instruction (HMMA, HGMMA, IMMA, DMMA). Reports the FMA count in the loop and the element
    type, and says how to move the product to tensor cores (WMMA fragments, CUTLASS/CuTe
    wgmma on sm_90a, cuBLAS) or, for strict fp32, how to tile it with register blocking.
    Use it on GEMM, convolution-as-GEMM, attention and any batched matrix product.""",
    needs=("artifact", "sass"),
    rules=("matmul-without-tensor-cores",),
)
def tensor_cores(ctx: Context):
    src = ctx.source
    out = []
    for k in src.kernels:
        builds = ctx.builds(k)
        if not builds:
            continue
        if any(i.base in TENSOR_OPS for b in builds for i in b.sass):
            continue
        by_line = ctx.sass_by_line(k)
        for loop in k.loops:
            ups = matmul_updates(src, k, loop, products=True)
            if not ups:
                continue
            lines = sorted({ln for node, *_ in ups for ln in range(node.start_point[0] + 1, node.end_point[0] + 2)})
            fmas = [i for ln in lines for i in by_line.get(ln, []) if i.base in FMA_OPS and not _is_mov_idiom(i)]
            if not fmas:
                continue
            node, a, b, acc = ups[0]
            out.append(_advice(ctx, k, loop, node, a, b, acc, fmas))
    return out


def _is_mov_idiom(ins) -> bool:  # HFMA2.MMA R4, -RZ, RZ, 0, 0 is a register move
    return ins.opcode == "HFMA2.MMA" and "-RZ, RZ" in ins.operands


def _advice(ctx, k, loop, node, a, b, acc, fmas):
    dt = _dtype(k, a)
    line = node.start_point[0] + 1
    counts: dict[str, int] = {}
    for i in fmas:
        counts[i.base] = counts.get(i.base, 0) + 1
    ops = ", ".join(f"{n} {op}" for op, n in sorted(counts.items()))
    low = dt in ("half", "__half", "__nv_bfloat16", "nv_bfloat16", "half2")
    cc = int(re.sub(r"\D", "", ctx.arch) or 90)  # sm_90a -> 90
    hopper = 90 <= cc < 100
    if low:
        remedy = ("use tensor cores: nvcuda::wmma 16x16x16 fragments (<mma.h>, fp32 accumulator) for a first step, "
                  + ("or better cuBLAS (cublasGemmEx) or CUTLASS/CuTe with wgmma on sm_90a (e.g. "
                     "SM90_64x64x16_F32BF16BF16_SS) fed by TMA and shared-memory tiles" if hopper else
                     f"or better cuBLAS (cublasGemmEx) or CUTLASS/CuTe built for {ctx.arch}")
                  + ("" if cc >= 80 or "bfloat" not in dt else "; bf16 tensor cores need sm_80 or newer (fp16 works here)"))
        if hopper and "bfloat" in dt:
            remedy += "; kernelpro::gemm_bf16_sm90 is such a GEMM (TMA, wgmma, CUTLASS 3), ready to call"
        note = ("H200 dense fp16/bf16 tensor cores ~990 TFLOP/s vs ~67 TFLOP/s fp32 FMA" if hopper else
                "fp16/bf16 tensor cores outrun the fp32 FMA pipe (A100 ~16x; GeForce parts with fp32 accumulation ~2x)")
    elif dt == "double" and cc not in (80,) and not hopper and cc < 100:
        remedy = (f"{ctx.arch} has no fp64 tensor cores (DMMA is on sm_80, sm_90 and sm_100): use cuBLAS DGEMM, or tile "
                  "A and B through shared memory with each thread computing a 4x4 or 8x8 register micro-tile")
        note = "register and shared-memory tiling cuts the loads per FMA"
    elif dt == "double":
        remedy = ("use cuBLAS DGEMM (DMMA tensor cores on sm_90) or CUTLASS with SM90 DMMA; otherwise tile A and B "
                  "through shared memory with each thread computing a 4x4 or 8x8 register micro-tile")
        note = ("H200 fp64 tensor cores ~67 TFLOP/s vs ~34 TFLOP/s fp64 FMA" if hopper else
                "A100 fp64 tensor cores ~2x the fp64 FMA rate")
    elif cc < 80:
        remedy = (f"{ctx.arch} has no TF32 or bf16 tensor cores: if fp16 inputs with fp32 accumulation are acceptable, "
                  "use wmma half fragments or cuBLAS (cublasGemmEx); for strict fp32, tile A and B through shared "
                  "memory and give each thread a 4x4 or 8x8 register micro-tile so each loaded value feeds several FFMAs")
        note = "fp16 tensor cores outrun the fp32 FMA pipe (T4 ~8x with fp32 accumulation)"
    else:
        remedy = ("if TF32 precision (10-bit mantissa) is acceptable, use wmma with precision::tf32 fragments, "
                  "cuBLAS (CUBLAS_COMPUTE_32F_FAST_TF32) or CUTLASS; or convert the inputs to bf16/fp16 with fp32 "
                  "accumulation; for strict fp32, tile A and B through shared memory and give each thread a 4x4 or "
                  "8x8 register micro-tile so each loaded value feeds several FFMAs")
        note = ("H200 dense tf32 tensor cores ~495 TFLOP/s, bf16 ~990 TFLOP/s, vs ~67 TFLOP/s fp32 FMA" if hopper else
                "tf32 tensor cores: A100 ~8x the fp32 FMA rate, GeForce parts ~1x; bf16 doubles that")
    return advice_at(
        ctx, "matmul-without-tensor-cores", Severity.WARNING if low else Severity.INFO, k, node,
        f"the loop on line {loop.line} is a matrix multiply ({acc} += {a}[..{loop.var}..] * {b}[..{loop.var}..], "
        f"{dt} inputs) computed on the FMA pipe ({ops} on line {line}) and {k.name} has no tensor-core "
        f"instruction (HMMA/HGMMA)",
        remedy,
        [Evidence("FMA instructions in the loop", len(fmas), f"instructions ({ops})", "sass"),
         Evidence("tensor-core instructions", 0, "HMMA/HGMMA/IMMA/DMMA", "sass"),
         Evidence("input type", dt, "", "source"),
         Evidence("reduction index", loop.var, f"loop on line {loop.line}", "source")],
        gain_note=note,
        related=[Location(ctx.path, loop.line, loop.column, message="the k loop")],
        links=block_link("kernelpro::gemm_bf16_sm90") if low and hopper and "bfloat" in dt else [],
    )
