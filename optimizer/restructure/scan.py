"""A block scan (profilers/analysis/scans.py) with its shared-memory phase replaced by warp shuffles.

The prologue that fills the shared array and the epilogue that reads it stay as written; the phase
between them (Hillis-Steele's log2(n) double-buffered steps, Blelloch's up-sweep and down-sweep, two
barriers a step) becomes `kp_block_scan`: each thread takes Q consecutive values from the array into
registers and sums them, a warp scans the threads' sums with `__shfl_up_sync`, one shared-memory pass
scans the warps' sums, and each thread writes its values' prefixes back where the phase left them
(the other buffer, the padded positions). The block's total is stored where the phase stored it, and
the phase's counters the epilogue reads (`pout`) get their final values.

With `per` > 1 the block has `per` times fewer threads: the prologue runs for `per` old (virtual)
threads each, and so does the epilogue, after the prologue's statements that do not fill the array
(its locals: the index, the loaded values) run again for that old thread.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.blocksim import SharedRef
from kernelpro.profilers.analysis.scans import BlockScan, shared_and_pointers, statements
from kernelpro.profilers.source import Kernel, SourceFile, walk

from .text import Refuse, span_text

GUARD = "KERNELPRO_SCAN_HELPERS"
HELPER = r"""#ifndef KERNELPRO_SCAN_HELPERS
#define KERNELPRO_SCAN_HELPERS
// A block's scan of `count` values in shared memory (added by KernelPro's block-scan rewrite): value p
// at s[p + (p >> shift) + off] (shift 0: no padding), its inclusive or exclusive prefix sum written at
// that position + out_off. Q consecutive values per thread summed in registers, a warp-shuffle scan of
// the threads' sums, one shared-memory pass over the warps' sums; returns the block's total. The block
// is whole warps; every thread calls it.
template <class T, int Q>
__device__ __forceinline__ T kp_block_scan(T* s, int count, int shift, int off, int out_off, bool inclusive) {
  __shared__ T kp_warp_sums[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  T v[Q];
  T own = T(0);
  __syncthreads();  // the prologue's values in place
#pragma unroll
  for (int r = 0; r < Q; ++r) {
    const int p = threadIdx.x * Q + r;
    v[r] = p < count ? s[p + (shift ? p >> shift : 0) + off] : T(0);
    own += v[r];
  }
  T x = own;  // the warp's inclusive scan of its threads' sums
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  T before = __shfl_up_sync(0xffffffffu, x, 1);  // the threads before this one in its warp
  if (lane == 0) before = T(0);
  if (lane == 31) kp_warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    T w = lane < warps ? kp_warp_sums[lane] : T(0);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T y = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) w += y;
    }
    if (lane < warps) kp_warp_sums[lane] = w;
  }
  __syncthreads();
  if (warp > 0) before += kp_warp_sums[warp - 1];
  const T total = kp_warp_sums[warps - 1];
#pragma unroll
  for (int r = 0; r < Q; ++r) {
    const int p = threadIdx.x * Q + r;
    if (p < count) {
      const int q = p + (shift ? p >> shift : 0) + off + out_off;
      if (inclusive) before += v[r];
      s[q] = before;
      if (!inclusive) before += v[r];
    }
  }
  __syncthreads();  // the array complete before anyone reads it, and kp_warp_sums free again
  return total;
}
#endif
"""


def _with_helper(src: SourceFile, k: Kernel, text_subs: list) -> str:
    from .virtual import insert_before
    if GUARD in src.text:
        return span_text(src, 0, len(src.data), text_subs)
    at = insert_before(src, k)
    return span_text(src, 0, len(src.data), text_subs + [(at, at, HELPER + "\n")])


def _call(bs: BlockScan, threads: int) -> str:
    q = -(-bs.elements // threads)
    return (f"kp_block_scan<{bs.elem}, {q}>(({bs.elem}*)({bs.array}), {bs.elements}, {bs.shift}, {bs.offset}, "
            f"{bs.out_offset}, {'true' if bs.inclusive else 'false'})")


def _total_store(src: SourceFile, bs: BlockScan, who: str) -> str:
    if bs.total is None:
        return ""
    return f"if ({who} == {bs.total_thread}) {src.node_text(bs.total)} = kp_total;"


def _finals(bs: BlockScan, declare: bool) -> list[str]:
    out = []
    for name, (value, in_phase) in bs.finals.items():
        t = f"{value.elem}*" if isinstance(value, SharedRef) else "int"  # (a pointer left at one of the buffers)
        out.append(f"{t} {name} = {value};" if in_phase and declare else f"{name} = {value};")
    return out


def describe(bs: BlockScan) -> str:
    return (f"the {bs.form} {'inclusive' if bs.inclusive else 'exclusive'} scan of {bs.elements} values in "
            f"`{bs.array}`")


def rewrite(src: SourceFile, k: Kernel, bs: BlockScan) -> str:
    """One value per old thread: the block as it was, the phase replaced."""
    stmts = statements(k)
    i0, i1 = bs.phase
    lines = [f"// {describe(bs)} replaced by warp shuffles (kp_block_scan)",
             f"const {bs.elem} kp_total = {_call(bs, bs.block)};"]
    if bs.total is not None:
        lines.append(_total_store(src, bs, "threadIdx.x"))
    lines += _finals(bs, True)
    indent = " " * stmts[i0].start_point[1]
    new = f"\n{indent}".join(lines)
    return _with_helper(src, k, [(stmts[i0].start_byte, stmts[i1].end_byte, new)])


def _writes_shared(src: SourceFile, s, shared: set) -> bool:
    for n in walk(s):
        if n.type in ("assignment_expression", "update_expression"):
            left = n.child_by_field_name("left") or n.child_by_field_name("argument")
            while left is not None and left.type in ("subscript_expression", "parenthesized_expression"):
                left = left.child_by_field_name("argument") or (left.named_children[-1] if left.named_children else None)
            if left is not None and src.node_text(left) in shared:
                return True
    return False


def _writes_global(src: SourceFile, s, k: Kernel) -> bool:
    ptrs = {p.name for p in k.params if p.is_pointer}
    return _writes_shared(src, s, ptrs)


def _virtual(src: SourceFile, s, block: int) -> str:
    subs = []
    for n in walk(s):
        t = "".join(src.node_text(n).split())
        if n.type == "field_expression" and t == "threadIdx.x":
            subs.append((n.start_byte, n.end_byte, "kp_vx"))
        elif n.type == "field_expression" and t == "blockDim.x":
            subs.append((n.start_byte, n.end_byte, f"{block}u"))
        elif n.type in ("return_statement", "goto_statement"):
            raise Refuse("the kernel returns early, so its old threads cannot share a new one")
    return span_text(src, s.start_byte, s.end_byte, subs)


def rewrite_per(src: SourceFile, k: Kernel, bs: BlockScan, per: int) -> str:
    """`per` old threads per new thread (a block of bs.block // per)."""
    stmts = statements(k)
    i0, i1 = bs.phase
    pro, epi = stmts[:i0], stmts[i1 + 1:]
    shared = shared_and_pointers(src, k)  # (a fill through a pointer to the array is a fill too)
    decls = [src.node_text(s) for s in pro if s.type == "declaration" and "__shared__" in src.node_text(s)]
    fill = [s for s in pro if not (s.type == "declaration" and "__shared__" in src.node_text(s))]
    again = []
    for s in fill:
        if _writes_global(src, s, k):
            raise Refuse(f"line {s.start_point[0] + 1}: the prologue stores to global memory")
        if _writes_shared(src, s, shared):
            if s.type == "declaration":
                raise Refuse(f"line {s.start_point[0] + 1}: a declaration that also fills the shared array")
            continue
        again.append(s)
    threads = bs.block // per
    loop = f"for (unsigned kp_j = 0; kp_j < {per}u; ++kp_j) {{"
    vx = f"const unsigned kp_vx = threadIdx.x + kp_j * {threads}u;  // the old thread"
    body = ["{", f"  // {describe(bs)}: {per} old threads per thread, then warp shuffles (kp_block_scan)"]
    body += [f"  {d}" for d in decls]
    body += [f"  {loop}", f"    {vx}"] + [f"    {_virtual(src, s, bs.block)}" for s in fill] + ["  }"]
    body += [f"  const {bs.elem} kp_total = {_call(bs, threads)};"]
    body += [f"  {loop}", f"    {vx}"] + [f"    {_virtual(src, s, bs.block)}" for s in again]
    body += [f"    {x}" for x in _finals(bs, True)]
    if bs.total is not None:
        body.append(f"    {_total_store(src, bs, 'kp_vx')}")
    body += [f"    {_virtual(src, s, bs.block)}" for s in epi] + ["  }", "}"]
    return _with_helper(src, k, [(k.body.start_byte, k.body.end_byte, "\n".join(body))])
