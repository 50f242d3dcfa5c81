"""A histogram (profilers/analysis/histogram.py) through private bins in shared memory.

The block zeroes `copies` private copies of the first `cap` bins (one per block, or one per warp), runs the
kernel's body as a lambda (its `return`s leave the body, so every thread reaches the barriers) with each
`atomicAdd(&bins[b], v)` made a shared-memory atomic on its copy, and then adds each non-zero bin, summed over
the copies, to global memory with one atomicAdd. A bin outside [0, cap) (a value the count did not foresee)
still goes straight to global memory, so the result is the kernel's for any input. With `blocks` (the old
grid's dimensions as C over the kernel's parameters) a smaller grid loops over the old blocks, each block
flushing its bins once for many old blocks' elements.
"""
from __future__ import annotations

from kernelpro.profilers.analysis.histogram import Histogram
from kernelpro.profilers.source import Kernel, SourceFile, walk

from .text import span_text


def rewrite(src: SourceFile, k: Kernel, h: Histogram, cap: int, copies: int = 1,
            blocks: tuple[str, ...] | None = None) -> str:
    t = h.elem
    subs = []
    for call, idx in zip(h.calls, h.indices):
        v = call.child_by_field_name("arguments").named_children[1]
        subs.append((call.start_byte, call.end_byte, f"kp_put({src.node_text(idx)}, {src.node_text(v)})"))
    if blocks:  # the old block and grid indices, virtual
        names = {"blockIdx.x": "kp_bx", "blockIdx.y": "kp_by", "gridDim.x": "kp_gx", "gridDim.y": "kp_gy"}
        subs += [(n.start_byte, n.end_byte, names[src.node_text(n)]) for n in walk(k.body)
                 if n.type == "field_expression" and src.node_text(n) in names]
    body = span_text(src, k.body.start_byte + 1, k.body.end_byte - 1, subs)
    where = "per warp" if copies > 1 else "per block"
    lines = ["{", f"  // private bins {where} in shared memory: shared atomics, then one atomicAdd per non-zero bin",
             f"  __shared__ {t} kp_bins[{copies * cap}];",
             "  const unsigned kp_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);",
             "  const unsigned kp_nt = blockDim.x * blockDim.y * blockDim.z;",
             f"  {t}* const kp_mine = kp_bins + " + (f"(kp_t / 32u) % {copies}u * {cap}u;" if copies > 1 else "0;"),
             f"  for (unsigned kp_b = kp_t; kp_b < {copies * cap}u; kp_b += kp_nt) kp_bins[kp_b] = ({t})0;",
             "  __syncthreads();",
             f"  auto kp_put = [&](long long kp_i, {t} kp_v) {{",
             f"    if (kp_i >= 0 && kp_i < {cap}) atomicAdd(&kp_mine[kp_i], kp_v);",
             f"    else atomicAdd(&{h.bins}[kp_i], kp_v);  // a bin past the private copy: global memory as before",
             "  };"]
    if blocks:
        gx, gy = blocks[0], (blocks[1] if len(blocks) > 1 else "1")
        lines += [f"  const unsigned kp_gx = (unsigned)({gx}), kp_gy = (unsigned)({gy});",
                  "  // a wave of blocks, each doing many old blocks' elements",
                  "  for (unsigned long long kp_vb = blockIdx.x; kp_vb < (unsigned long long)kp_gx * kp_gy; "
                  "kp_vb += gridDim.x) {",
                  "    const unsigned kp_bx = (unsigned)(kp_vb % kp_gx), kp_by = (unsigned)(kp_vb / kp_gx);",
                  f"    [&]() {{{body}}}();", "  }"]
    else:
        lines += [f"  [&]() {{{body}}}();"]
    lines += ["  __syncthreads();",
              f"  for (unsigned kp_b = kp_t; kp_b < {cap}u; kp_b += kp_nt) {{",
              f"    {t} kp_v = kp_bins[kp_b];"]
    if copies > 1:
        lines += [f"    for (unsigned kp_c = 1; kp_c < {copies}u; ++kp_c) kp_v += kp_bins[kp_c * {cap}u + kp_b];"]
    lines += [f"    if (kp_v != ({t})0) atomicAdd(&{h.bins}[kp_b], kp_v);", "  }", "}"]
    return span_text(src, 0, len(src.data), [(k.body.start_byte, k.body.end_byte, "\n".join(lines))])
