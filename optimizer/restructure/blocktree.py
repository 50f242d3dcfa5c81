"""A whole-block shared-memory tree (profilers/analysis/blocktree.py) replaced by shuffles.

Each thread's value (what its prologue stored into S[tid]) comes from a helper that runs the prologue
for a *virtual* thread; a thread of the new kernel combines the values of `per` virtual threads
(threadIdx.x + j * blockDim.x: neighbouring threads still read neighbouring elements), the block combines
its threads with warp shuffles and one shared-memory exchange of the warps' results
(`kp_block_allreduce`), and the epilogue runs as written with the block's result for S[0]. The
interleaved tree's modulo, its divergent warps and its log2(block) barriers go; with `per` > 1 the block
has `per` times fewer threads doing the same chunk.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.blocktree import BlockReduction
from kernelpro.profilers.analysis.loops import declared_names
from kernelpro.profilers.source import Kernel, SourceFile, walk

from .prelude import with_prelude
from .rows import combine, identity
from .text import Refuse, span_text
from .virtual import insert_before, param_list, template_parts

OP = {"+": "sum", "max": "max", "min": "min"}


def _prologue_subs(src: SourceFile, br: BlockReduction, stmts) -> list:
    subs = []
    for s in stmts:
        for n in walk(s):
            t = src.node_text(n)
            if n.type == "field_expression" and t == "threadIdx.x":
                subs.append((n.start_byte, n.end_byte, "kp_vx"))
            elif n.type == "field_expression" and t == "blockDim.x":
                subs.append((n.start_byte, n.end_byte, "kp_bdx"))
            elif n.type == "field_expression" and t == "blockIdx.x":
                subs.append((n.start_byte, n.end_byte, "kp_vb"))
            elif n.type == "subscript_expression" and src.node_text(n.child_by_field_name("argument")) == br.array:
                subs.append((n.start_byte, n.end_byte, "kp_s"))
    return subs


def _names(src: SourceFile, n) -> set[str]:
    return {src.node_text(x) for x in walk(n) if x.type == "identifier"}


def _needed(src: SourceFile, br: BlockReduction) -> list[str]:
    """The prologue's declarations the epilogue uses (the tid alias, a block index), with those they use;
    only ones that read no memory."""
    decls = [(s, declared_names(src, s)) for s in br.prologue
             if s.type == "declaration" and "[" not in src.node_text(s) and "__shared__" not in src.node_text(s)]
    want, keep = _names(src, br.epilogue), set()
    for s, names in reversed(decls):
        if names & want:
            keep.add(s.start_byte)
            want |= _names(src, s)
    return [src.node_text(s) for s, _ in decls if s.start_byte in keep]


def merged_atomic(src: SourceFile, k: Kernel, br: BlockReduction) -> bool:
    """The epilogue is one atomic of the tree's op at an address written in the kernel's parameters only (no
    block or thread index, no local): the blocks' results may be combined in any grouping, so a block may
    do several old blocks' chunks."""
    want = {"+": "atomicAdd", "max": "atomicMax", "min": "atomicMin"}[br.op]
    body = br.epilogue.child_by_field_name("consequence")
    stmts = list(body.named_children) if body.type == "compound_statement" else [body]
    if len(stmts) != 1 or stmts[0].type != "expression_statement" or not stmts[0].named_children:
        return False
    call = stmts[0].named_children[0]
    if call.type != "call_expression" or src.node_text(call.child_by_field_name("function")) != want:
        return False
    addr = call.child_by_field_name("arguments").named_children[0]
    params = {p.name for p in k.params}
    return all(src.node_text(n) in params for n in walk(addr) if n.type == "identifier")


def rewrite(src: SourceFile, k: Kernel, br: BlockReduction, per: int, blocks: str | None = None,
            chunks: int = 1) -> str:
    """per: values per thread; blocks: the old grid's block count as C over the kernel's parameters, given
    where the epilogue is a merged atomic (merged_atomic): a grid-stride loop over the old blocks, `chunks` of
    them per step with every value read before any is combined (more loads in flight per thread)."""
    op = OP[br.op]
    elem = " ".join(w for w in br.elem.split() if w not in ("const", "volatile", "__shared__", "extern"))
    ident = identity(op, elem, src)
    fn = {"max": "fmaxf" if elem == "float" else None, "min": "fminf" if elem == "float" else None}.get(br.op)
    comb = combine(op, fn)
    subs = _prologue_subs(src, br, br.prologue)
    pro = "\n  ".join(span_text(src, st.start_byte, st.end_byte, [x for x in subs if st.start_byte <= x[0] < st.end_byte])
                       for st in br.prologue if "__shared__" not in src.node_text(st))
    tmpl, targs, _ = template_parts(src, k)
    helper = (f"{tmpl}static __device__ __forceinline__ {elem} kp_value_{k.name}({param_list(src, k)}, unsigned kp_vx, "
              f"unsigned kp_bdx, unsigned long long kp_vb) {{\n  // the prologue of {k.name} for one (virtual) thread: the value it stores "
              f"into {br.array}[tid]\n  {elem} kp_s = {elem}();\n  {pro}\n  return kp_s;\n}}\n\n")
    args = ", ".join(p.name for p in k.signature)
    call = f"kp_value_{k.name}{targs}({args}, threadIdx.x + {{j}}u * blockDim.x, blockDim.x * {per}u, {{vb}})"
    keep = _needed(src, br)
    epi_subs = [(n.start_byte, n.end_byte, "kp_total") for n in walk(br.epilogue)
                if (n.type == "subscript_expression" and src.node_text(n.child_by_field_name("argument")) == br.array)
                or (br.result is not None and n.type == "identifier" and src.node_text(n) == br.result)]
    epi = span_text(src, br.epilogue.start_byte, br.epilogue.end_byte, epi_subs)
    f = "kp_f"
    lines = ["{", f"  // {br.form or 'the'} tree over {br.array} replaced: each thread combines {per} value(s), then warp "
             "shuffles and one exchange of the warps' results"]
    lines += [f"  {d}" for d in keep]
    if blocks:
        lines += [f"  const auto {f} = {comb};", f"  {elem} kp_v = ({elem})({ident});",
                  f"  const unsigned long long kp_blocks = {blocks};  // the old grid: one chunk per old block",
                  f"  for (unsigned long long kp_c = blockIdx.x; kp_c < kp_blocks; kp_c += {chunks}ull * gridDim.x) {{"]
        for u in range(chunks):  # every chunk's values read first, then combined
            vb = "kp_c" if not u else f"kp_c + {u}ull * gridDim.x"
            lines += [f"    const {elem} kp_t{u}_{j} = " + (f"{vb} < kp_blocks ? " if u else "")
                      + call.format(j=j, vb=vb) + (f" : ({elem})({ident})" if u else "") + ";" for j in range(per)]
        lines += [f"    kp_v = {f}(kp_v, kp_t{u}_{j});" for u in range(chunks) for j in range(per)]
        lines += ["  }"]
    else:
        lines += [f"  const auto {f} = {comb};", f"  {elem} kp_v = {call.format(j=0, vb='blockIdx.x')};"]
        lines += [f"  kp_v = {f}(kp_v, {call.format(j=j, vb='blockIdx.x')});" for j in range(1, per)]
    lines += [f"  const {elem} kp_total = kp_block_allreduce(kp_v, {f}, ({elem})({ident}));", f"  {epi}", "}"]
    at = insert_before(src, k)
    new = span_text(src, 0, len(src.data), [(at, at, helper), (k.body.start_byte, k.body.end_byte, "\n".join(lines))])
    if "kp_total" not in epi:
        raise Refuse("the epilogue does not use the block's result")
    return with_prelude(new)
