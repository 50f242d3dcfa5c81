"""Atomics aimed by every thread of a block at one address (profilers/analysis/atomics.py), combined in
the block first: each call adds its value to the thread's own contribution instead, the kernel's body runs
as a lambda (so its `return`s leave the body, not the kernel, and every thread reaches the combine), the
block combines the contributions with warp shuffles (`kp_block_allreduce`), and one thread sends one
atomic with the block's value. One atomic per block instead of one per thread; the sum's order changes
within rounding (max and min are exact). Where the address differs between a block's rows but not between a
warp's lanes (`atomicAdd(&s[i], ...)` with i from threadIdx.y and blockDim.x a multiple of 32), each warp
combines with shuffles and one lane sends the warp's atomic (`rewrite_warp`)."""
from __future__ import annotations

from kernelpro.profilers.analysis.atomics import UniformAtomics
from kernelpro.profilers.source import Kernel, SourceFile

from .prelude import with_prelude
from .rows import combine, identity
from .text import Refuse, span_text


def rewrite(src: SourceFile, k: Kernel, ua: UniformAtomics) -> str:
    """Each address (a sum, a sum of squares) gets its own contribution, combine and atomic."""
    groups = ua.addresses or {ua.address: (ua.calls, ua.value_type)}
    subs, decls, sends = [], [], []
    for g, (calls, t) in enumerate(groups.values()):
        sfx = "" if len(groups) == 1 else str(g)
        t, more = _calls_into_contribution(src, ua, calls, t, sfx)
        subs += more
        ident = identity(ua.op, t, src)
        decls.append(f"__shared__ {t}* kp_dst{sfx};\n  if (threadIdx.x == 0) kp_dst{sfx} = nullptr;\n"
                     f"  {t} kp_c{sfx} = ({t})({ident});\n  {t}* kp_p{sfx} = nullptr;")
        sends.append(f"if (kp_p{sfx} != nullptr) kp_dst{sfx} = kp_p{sfx};  // the same address for every thread "
                     f"that sent one\n  const {t} kp_total{sfx} = kp_block_allreduce(kp_c{sfx}, {combine(ua.op, None)}, "
                     f"({t})({ident}));\n  if (threadIdx.x == 0 && kp_dst{sfx} != nullptr) {ua.fn}(kp_dst{sfx}, kp_total{sfx});")
    body = span_text(src, k.body.start_byte + 1, k.body.end_byte - 1, subs)
    what = "one atomic per block" if len(groups) == 1 else f"one atomic per block for each of {len(groups)} addresses"
    nl = "\n  "
    new_body = f"""{{
  // {ua.fn} combined in the block first: {what}
  {nl.join(decls)}
  __syncthreads();
  [&]() {{{body}}}();
  {nl.join(sends)}
}}"""
    return with_prelude(span_text(src, 0, len(src.data), [(k.body.start_byte, k.body.end_byte, new_body)]))


def _calls_into_contribution(src: SourceFile, ua: UniformAtomics, calls=None, t=None, sfx: str = ""
                             ) -> tuple[str, list]:
    t = t if calls is not None else ua.value_type
    if t is None:
        raise Refuse(f"the type {ua.fn} works on is not known (its address is not a pointer parameter)")
    subs = []
    for n in ua.calls if calls is None else calls:
        args = n.child_by_field_name("arguments").named_children
        v = src.node_text(args[1])
        c = f"kp_c{sfx}"
        step = {"sum": f"{c} = {c} + ({t})({v})", "max": f"{c} = ({v}) > {c} ? ({t})({v}) : {c}",
                "min": f"{c} = ({v}) < {c} ? ({t})({v}) : {c}"}[ua.op]
        subs.append((n.start_byte, n.end_byte, f"(kp_p{sfx} = ({src.node_text(args[0])}), {step})"))
    return t, subs


def rewrite_warp(src: SourceFile, k: Kernel, ua: UniformAtomics) -> str:
    """One atomic per warp: every lane runs the body (a lambda), the warp combines with shuffles, and the
    first lane that sent one sends the warp's value to the address they share."""
    t, subs = _calls_into_contribution(src, ua)
    ident = identity(ua.op, t, src)
    body = span_text(src, k.body.start_byte + 1, k.body.end_byte - 1, subs)
    new_body = f"""{{
  // {ua.fn} combined in each warp first (the address does not depend on threadIdx.x and blockDim.x is a
  // multiple of 32: a warp's lanes share it): one atomic per warp
  {t} kp_c = ({t})({ident});
  {t}* kp_p = nullptr;
  [&]() {{{body}}}();
  const unsigned kp_sent = __ballot_sync(0xffffffffu, kp_p != nullptr);
  const {t} kp_total = kp_warp_allreduce(kp_c, {combine(ua.op, None)});
  if (kp_sent != 0u && (int)(threadIdx.x & 31u) == __ffs(kp_sent) - 1) {ua.fn}(kp_p, kp_total);
}}"""
    return with_prelude(span_text(src, 0, len(src.data), [(k.body.start_byte, k.body.end_byte, new_body)]))
