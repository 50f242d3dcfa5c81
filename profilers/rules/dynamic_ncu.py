"""Dynamic tools over one Nsight Compute profile (an NcuResult in ctx.measurement).

Each turns ncu's per-line counters into Advice at the source line: uncoalesced global
access, measured shared-memory bank conflicts, the dominant warp stalls, achieved occupancy
and waves, and warp divergence. `select_tools(verdict)` is the paper's two-stage invocation:
the roofline verdict picks which of them run; `dynamic_advice` runs the picked ones.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..advice import Advice, Evidence, Location, Severity, sort_advice
from ..source import Kernel, SourceFile, parse_source
from ..tools import REGISTRY, Context, run_tools, tool
from .common import advice_at, first_code_column

if TYPE_CHECKING:
    from ..runtime.ncu import LineCounters, NcuResult, RuleResult

NEEDS = ("gpu", "measurement")
MIN_SHARE = 0.02  # a line must carry this share of the kernel's traffic (or samples) to be named
EXCESS_FRACTION = 0.2  # excessive sectors / wavefronts above this share of a line's are a finding
MIN_SAMPLES = 20
STALL_LINE_SHARE = 0.10
FULL_WARP = 32.0
DIVERGED_KERNEL = 30.0  # threads per instruction below this: the kernel diverges
DIVERGED_LINE = 28.0

STALL_WORDS = {
    "long_scoreboard": "waiting on global/local memory (long scoreboard)",
    "barrier": "waiting at __syncthreads() for the rest of the block (barrier)",
    "mio_throttle": "waiting for the memory-input/output queue: shared memory, shuffles, special math (MIO throttle)",
    "math_pipe_throttle": "waiting for a busy math pipe (math pipe throttle)",
    "short_scoreboard": "waiting on shared memory or special-function results (short scoreboard)",
    "wait": "waiting out a fixed-latency dependency on the previous instruction (wait)",
    "not_selected": "ready but another warp was picked (not selected)",
    "lg_throttle": "waiting for the local/global memory queue, full of narrow accesses (LG throttle)",
    "tex_throttle": "waiting for the texture unit's queue (tex throttle)",
    "drain": "waiting for its stores to drain before the warp exits (drain)",
    "membar": "waiting at a memory fence (membar)",
    "branch_resolving": "waiting for a branch target to resolve (branch resolving)",
    "dispatch_stall": "held back by the dispatcher (dispatch stall)",
    "no_instruction": "waiting for instructions to be fetched: an instruction-cache miss (no instruction)",
    "selected": "issuing an instruction (selected: not a stall)",
    "imc_miss": "waiting on the constant cache (IMC miss)",
    "misc": "stalled for a miscellaneous reason (misc)",
    "sleeping": "sleeping (nanosleep or a yield)",
}
STALL_REMEDY = {
    "long_scoreboard": "keep more loads in flight: coalesce the access, load several elements per thread before "
                       "using them (unroll, vector loads), stage reused data in shared memory, and check for local "
                       "memory (spills) on this line",
    "barrier": "give the warps of a block equal work between barriers, use fewer __syncthreads(), or smaller blocks",
    "mio_throttle": "issue fewer shared-memory/shuffle instructions: vectorize shared accesses (float4), remove bank "
                    "conflicts, and keep values in registers",
    "math_pipe_throttle": "spread the work over other pipes (mix FP32 with integer work, use FP16x2 or tensor cores) "
                          "or accept it: the pipe is the limit",
    "short_scoreboard": "reduce shared-memory round trips and MUFU (sinf, expf, rsqrtf) on this line, or resolve its "
                        "bank conflicts",
    "wait": "give each thread independent work to interleave: several accumulators or elements per thread instead of "
            "one dependent chain, and more warps per SM",
    "not_selected": "nothing to fix here: enough warps are ready; fewer warps (smaller blocks) would do as well",
    "lg_throttle": "use wider accesses (float4 / 128-bit loads) so fewer memory instructions fill the queue",
    "tex_throttle": "issue fewer texture/LDG.CONSTANT fetches, or read through plain loads",
    "drain": "write less at the end of the kernel or spread the stores over the kernel",
    "membar": "use fewer or narrower memory fences (__threadfence_block instead of __threadfence)",
    "branch_resolving": "make the branch uniform or replace it with predicated/select code",
    "dispatch_stall": "check for register bank conflicts or too many special instructions on this line",
    "no_instruction": "shrink the hot loop (less unrolling, fewer inlined calls) so it fits the instruction cache",
    "selected": "nothing to fix: the warps are issuing",
    "imc_miss": "read constant memory uniformly (the same address across a warp) or move the data to global memory",
    "misc": "inspect the SASS of this line in Nsight Compute",
    "sleeping": "remove the sleep or yield from the hot path",
}
SELECTION = {
    "memory-bound": ("uncoalesced-global", "shared-bank-conflict-measured", "warp-stall"),
    "compute-bound": ("warp-stall", "warp-divergence", "achieved-occupancy"),
    "latency-bound": ("achieved-occupancy", "warp-stall", "warp-divergence"),
}
ALL_TOOLS = ("uncoalesced-global", "shared-bank-conflict-measured", "warp-stall", "achieved-occupancy",
             "warp-divergence")


# ---------------------------------------------------------------- helpers

def _ncu():
    """runtime.ncu, loaded when a dynamic tool runs: a static profile does without it."""
    from ..runtime import ncu

    return ncu


def _result(ctx: Context) -> NcuResult | None:
    m = ctx.measurement
    if isinstance(m, dict):
        m = m.get("ncu")
    return m if m is not None and isinstance(m, _ncu().NcuResult) else None


def _kernel(ctx: Context, res: NcuResult) -> Kernel | None:
    want = _ncu().base_name(res.kernel) if res.kernel else ""
    ks = ctx.source.kernels
    return next((k for k in ks if k.name == want), ks[0] if len(ks) == 1 and not want else None)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x - round(x)) < 1e-9 or abs(x) >= 100 else f"{x:,.3g}"


def _per(x: float) -> str:
    return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"


def _pct(x: float) -> str:
    """A fraction as a percent with two significant digits (0.000237 -> '0.024%')."""
    return f"{x * 100:.2g}%" if x < 0.1 else f"{x:.0%}"


def _line_text(ctx: Context, line: int) -> str:
    return ctx.source.lines[line - 1] if 0 < line <= len(ctx.source.lines) else ""


def _at_line(ctx: Context, rule: str, sev: Severity, k: Kernel | None, line: int, message: str, remedy: str,
             ev: list[Evidence], span: tuple[int, int] | None = None, **kw) -> Advice:
    a = advice_at(ctx, rule, sev, k, line, message, remedy, ev, **kw)
    text = _line_text(ctx, line)
    if span:
        a.column, a.end_column = span
    elif text.strip():
        code = text.split("//", 1)[0].rstrip() or text.rstrip()
        a.column, a.end_column = first_code_column(ctx, line), len(code) + 1
    if a.column:
        a.end_line = line
    return a


def _subscripts(ctx: Context, line: int, names: set[str]) -> list[tuple[str, str, int, int]]:
    """(array, `a[i][j]` text, column, end column) of the subscripts of `names` on the line."""
    text = _line_text(ctx, line).split("//", 1)[0]
    out = []
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\])+)", text):
        if m.group(1) in names:
            out.append((m.group(1), m.group(0), m.start() + 1, m.end() + 1))
    return out


def _pointer_params(k: Kernel | None) -> set[str]:
    return {p.name for p in k.params if p.is_pointer} if k else set()


def _shared_arrays(ctx: Context) -> dict[str, tuple[int, list[str]]]:
    """__shared__ arrays in the file: name -> (line, [dims as written])."""
    out = {}
    for i, text in enumerate(ctx.source.lines, 1):
        m = re.search(r"__shared__\s+(?:[\w:<>]+\s+)+?([A-Za-z_]\w*)\s*((?:\[[^\]]*\])+)", text)
        if m:
            out[m.group(1)] = (i, re.findall(r"\[([^\]]*)\]", m.group(2)))
    return out


def _ncu_rule(res: NcuResult, *words: str) -> RuleResult | None:
    """ncu's own rule result whose name holds all `words` (case-insensitive), if it fired (OPT/WRN)."""
    for r in res.rules:
        n = r.name.lower()
        if all(w in n for w in words) and r.type.upper() in ("OPT", "WRN", "WARN", "WARNING"):
            return r
    return None


def _rule_gain(r: RuleResult | None) -> tuple[float | None, str]:
    if r and r.est_speedup and 0 < r.est_speedup < 95 and r.speedup_type.lower() != "local":
        return round(1 / (1 - r.est_speedup / 100), 2), f"Nsight Compute's estimate (rule {r.name})"
    return None, ""


def _rule_evidence(r: RuleResult | None) -> list[Evidence]:
    if not r:
        return []
    ev = [Evidence(f"ncu rule {r.name}", r.type, "", "ncu")]
    if r.est_speedup is not None:
        ev.append(Evidence(f"ncu rule {r.name} est. speedup", r.est_speedup, f"% ({r.speedup_type or 'global'})", "ncu"))
    return ev


def _lines(ctx: Context, res: NcuResult) -> list[LineCounters]:
    return res.lines_for(ctx.path)


# ---------------------------------------------------------------- uncoalesced global access

@tool(
    "uncoalesced-global",
    """Measured uncoalesced global memory access per source line (Nsight Compute source
    counters: L2 theoretical sectors global, ideal and excessive, per line and per request).
    Names the line and array access whose warps fetch more 32-byte sectors than the bytes they
    use, and how many sectors each request touches against the ideal. Use it for memory-bound
    kernels after a profile with ncu.""",
    needs=NEEDS, kind="dynamic", rules=("uncoalesced-global",),
)
def uncoalesced_global(ctx: Context):
    res = _result(ctx)
    if res is None:
        return []
    k = _kernel(ctx, res)
    lines = _lines(ctx, res)
    total_all = sum(ln.num("l2_sectors_global") for ln in lines)
    rule = _ncu_rule(res, "uncoalesced", "global")
    out = []
    found = []
    for ln in lines:
        tot = ln.num("l2_sectors_global")
        ideal, exc = ln.counters.get("l2_sectors_global_ideal"), ln.counters.get("l2_sectors_global_excessive")
        if not isinstance(exc, float) and isinstance(ideal, float):
            exc = tot - ideal
        if not isinstance(ideal, float) and isinstance(exc, float):
            ideal = tot - exc
        if not tot or not isinstance(exc, float) or exc < EXCESS_FRACTION * tot or tot < MIN_SHARE * total_all:
            continue
        found.append((exc, ln, tot, ideal))
    for exc, ln, tot, ideal in sorted(found, key=lambda f: -f[0])[:5]:
        sass = res.sass_for(ln.line, ctx.path)
        req = ln.num("l1_requests_global") or sum(
            s.num("inst_executed") for s in sass if s.opcode in ("LDG", "STG", "ATOMG", "RED", "ATOM", "LD", "ST")
            and (s.opcode not in ("LD", "ST") or str(s.counters.get("Address Space", "")).lower() in ("global", "generic")))
        ops = sorted({s.opcode for s in sass if s.num("l2_sectors_global_excessive") > 0})
        kind = ("loads" if all(o.startswith("LD") for o in ops) else "stores" if all(o.startswith("ST") for o in ops)
                else "accesses") if ops else "accesses"
        subs = _subscripts(ctx, ln.line, _pointer_params(k))
        what = f" (`{subs[0][1]}`)" if len(subs) == 1 else ""
        per = (f": each request touches {_per(tot / req)} sectors where {_per(ideal / req)} would do"
               if req else f" (ideal {_fmt(ideal)})")
        msg = f"{_fmt(exc)} of {_fmt(tot)} sectors the warps fetch on line {ln.line}{what} are excessive{per}"
        ev = [Evidence("L2 Theoretical Sectors Global Excessive", exc, "sectors", "ncu"),
              Evidence("L2 Theoretical Sectors Global", tot, "sectors", "ncu"),
              Evidence("L2 Theoretical Sectors Global Ideal", ideal, "sectors", "ncu")]
        if req:
            ev.append(Evidence("global requests (warp-level)", req, "requests", "ncu"))
        if ops:
            ev.append(Evidence("instructions with excessive sectors", " ".join(ops), "", "ncu"))
        ev += _rule_evidence(rule)
        gain, note = _rule_gain(rule)
        if gain is None and _ncu().verdict_name(res.verdict) == "memory-bound" and total_all > exc:
            g = total_all / (total_all - exc)
            gain, note = (round(g, 2), "if the kernel's time follows its L2 sector traffic") if g >= 1.05 else (None, "")
        remedy = (f"make consecutive threads (threadIdx.x) {kind[:-1] if kind != 'accesses' else 'access'} consecutive "
                  "addresses: put the threadIdx.x-derived index in the last (fastest) subscript, or stage the tile "
                  "through shared memory (read rows coalesced, transpose in shared memory), or change the layout "
                  "(structure of arrays instead of array of structures)")
        out.append(_at_line(ctx, "uncoalesced-global", Severity.WARNING, k, ln.line, msg, remedy, ev,
                            span=(subs[0][2], subs[0][3]) if len(subs) == 1 else None, gain=gain, gain_note=note))
    return out


# ---------------------------------------------------------------- shared-memory bank conflicts

@tool(
    "shared-bank-conflict-measured",
    """Measured shared-memory bank conflicts per source line (Nsight Compute source counters:
    L1 wavefronts shared, ideal and excessive, N-way conflicts). Names the line and the shared
    array whose accesses take more wavefronts than needed, the conflict degree, and the padding
    or swizzle that removes it. Use it for memory-bound kernels that use shared memory.""",
    needs=NEEDS, kind="dynamic", rules=("shared-bank-conflict-measured",),
)
def shared_bank_conflict(ctx: Context):
    res = _result(ctx)
    if res is None:
        return []
    k = _kernel(ctx, res)
    lines = _lines(ctx, res)
    w_all = sum(ln.num("l1_wavefronts_shared") for ln in lines)
    shared = _shared_arrays(ctx)
    rule = _ncu_rule(res, "shared", "conflict") or _ncu_rule(res, "bank")
    found = []
    for ln in lines:
        w = ln.num("l1_wavefronts_shared")
        ideal, exc = ln.counters.get("l1_wavefronts_shared_ideal"), ln.counters.get("l1_wavefronts_shared_excessive")
        if not isinstance(exc, float) and isinstance(ideal, float):
            exc = w - ideal
        if not isinstance(ideal, float) and isinstance(exc, float):
            ideal = w - exc
        if not w or not isinstance(exc, float) or exc < EXCESS_FRACTION * w or w < MIN_SHARE * w_all:
            continue
        found.append((exc, ln, w, ideal))
    out = []
    for exc, ln, w, ideal in sorted(found, key=lambda f: -f[0])[:5]:
        ways = ln.num("l1_conflicts_shared_nway") or (w / ideal if ideal else 0.0)
        subs = _subscripts(ctx, ln.line, set(shared))
        what = f" (`{subs[0][1]}`)" if subs else ""
        deg = f"a {_per(ways)}-way bank conflict" if ways > 1 else "bank conflicts"
        msg = (f"shared-memory accesses on line {ln.line}{what} take {_fmt(w)} wavefronts where {_fmt(ideal)} "
               f"would do: {deg}, {_fmt(exc)} excessive wavefronts")
        related = []
        if subs:
            name = subs[0][0]
            decl_line, dims = shared[name]
            related.append(Location(ctx.path, decl_line, message=f"{name} declared here"))
            last = dims[-1].strip() if dims else ""
            pad = f"{last} + 1" if last else "N + 1"
            remedy = (f"pad the rows of `{name}` by one word (declare it `{name}"
                      + "".join(f"[{d.strip()}]" for d in dims[:-1]) + f"[{pad}]`) so the elements of a column fall "
                      "in different banks, or swizzle the column index (col ^ row)")
        else:
            remedy = ("pad each row of the shared array by one word (e.g. [32][33]) or swizzle the index so the 32 "
                      "threads of a warp hit 32 different banks")
        ev = [Evidence("L1 Wavefronts Shared Excessive", exc, "wavefronts", "ncu"),
              Evidence("L1 Wavefronts Shared", w, "wavefronts", "ncu"),
              Evidence("L1 Wavefronts Shared Ideal", ideal, "wavefronts", "ncu")]
        if ln.num("l1_conflicts_shared_nway"):
            ev.append(Evidence("L1 Conflicts Shared N-Way", ln.num("l1_conflicts_shared_nway"), "", "ncu"))
        ev += _rule_evidence(rule)
        for m in ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"):
            if res.metric(m) is not None:
                ev.append(Evidence(m, res.metric(m), res.unit(m), "ncu"))
        gain, note = _rule_gain(rule)
        out.append(_at_line(ctx, "shared-bank-conflict-measured", Severity.WARNING, k, ln.line, msg, remedy, ev,
                            span=(subs[0][2], subs[0][3]) if subs else None, related=related,
                            gain=gain, gain_note=note))
    return out


# ---------------------------------------------------------------- warp stalls

def _reasons(counters: dict) -> dict[str, float]:
    return {k.split(":", 1)[1]: v for k, v in counters.items()
            if k.startswith("stall:") and isinstance(v, float) and v > 0}


@tool(
    "warp-stall",
    """The dominant warp-stall reasons and the source lines they sit on (Nsight Compute PC
    sampling: warp stall samples per line and per reason). Gives the top lines by samples, each
    with its main reasons in plain words (waiting on global memory, at a barrier, on a full
    shared-memory queue ...) and what to change. Use it for any bound; it says where the time
    goes.""",
    needs=NEEDS, kind="dynamic", rules=("warp-stall",),
)
def warp_stall(ctx: Context):
    res = _result(ctx)
    if res is None:
        return []
    k = _kernel(ctx, res)
    lines = [ln for ln in _lines(ctx, res) if ln.num("samples") > 0]
    total = sum(ln.num("samples") for ln in lines)
    if total < MIN_SAMPLES:
        return []
    kernel_reasons: dict[str, float] = {}
    for ln in lines:
        for r, v in _reasons(ln.counters).items():
            kernel_reasons[r] = kernel_reasons.get(r, 0.0) + v
    stalled = {r: v for r, v in kernel_reasons.items() if r != "selected"}
    top_kernel = max(stalled, key=stalled.get) if stalled else None
    out = []
    for ln in sorted(lines, key=lambda x: -x.num("samples"))[:3]:
        s = ln.num("samples")
        if s < STALL_LINE_SHARE * total:
            continue
        reasons = _reasons(ln.counters)
        ranked = sorted(((v, r) for r, v in reasons.items() if r != "selected"), reverse=True)
        if not ranked:
            continue
        parts = [f"{v / s:.0%} {STALL_WORDS.get(r, r.replace('_', ' '))}" for v, r in ranked[:2] if v >= 0.1 * s]
        if not parts:
            continue
        main = ranked[0][1]
        msg = f"{s / total:.0%} of the warp samples fall on line {ln.line}: " + "; ".join(parts)
        ev = [Evidence("warp stall samples on the line", s, "samples", "ncu"),
              Evidence("warp stall samples in the kernel", total, "samples", "ncu")]
        ev += [Evidence(f"stall_{r}", v, "samples", "ncu") for v, r in ranked[:4]]
        if top_kernel:
            ev.append(Evidence("dominant stall in the kernel", f"{top_kernel} "
                               f"({kernel_reasons[top_kernel] / total:.0%} of samples)", "", "ncu"))
        out.append(_at_line(ctx, "warp-stall", Severity.INFO, k, ln.line, msg,
                            STALL_REMEDY.get(main, "inspect this line's SASS in Nsight Compute"), ev))
    return out


# ---------------------------------------------------------------- occupancy and waves

def _blocks_per_sm(res: NcuResult) -> float | None:
    limits = [res.metric(f"launch__occupancy_limit_{x}") for x in ("registers", "shared_mem", "warps", "blocks")]
    limits = [v for v in limits if v]
    return min(limits) if limits else None


@tool(
    "achieved-occupancy",
    """Achieved against theoretical occupancy, waves per SM and the tail effect (Nsight Compute
    launch statistics and occupancy sections). Finds grids too small to fill the GPU (less than
    one wave), a partial last wave that leaves SMs idle, and achieved occupancy far below the
    theoretical. Use it for latency-bound or compute-bound kernels.""",
    needs=NEEDS, kind="dynamic", rules=("achieved-occupancy",),
)
def achieved_occupancy(ctx: Context):
    res = _result(ctx)
    if res is None:
        return []
    k = _kernel(ctx, res)
    if k is None:
        return []
    ach = res.metric("sm__warps_active.avg.pct_of_peak_sustained_active")
    theo = res.metric("sm__maximum_warps_per_active_cycle_pct")
    waves = res.metric("launch__waves_per_multiprocessor")
    grid = res.metric("launch__grid_size")
    block = res.metric("launch__block_size")
    sms = res.metric("device__attribute_multiprocessor_count", "launch__sm_count")
    bps = _blocks_per_sm(res)
    ev = []
    for name, v, unit in (("sm__warps_active.avg.pct_of_peak_sustained_active", ach, "%"),
                          ("sm__maximum_warps_per_active_cycle_pct", theo, "%"),
                          ("launch__waves_per_multiprocessor", waves, "waves"), ("launch__grid_size", grid, "blocks"),
                          ("launch__block_size", block, "threads"), ("SMs", sms, ""), ("blocks per SM", bps, "")):
        if v is not None:
            ev.append(Evidence(name, v, unit, "ncu"))
    per_wave = sms * bps if sms and bps else None
    line = k.line
    span = (k.column, k.end_column) if k.column and k.end_column else None
    out = []
    if waves is not None and waves < 0.9:
        busy = f"; only {_fmt(grid)} of {_fmt(sms)} SMs get a block" if grid and sms and grid < sms else ""
        blocks = (f"{_fmt(grid)} block" + ("s" if grid != 1 else "")) if grid else "too few blocks"
        msg = (f"{k.name} launches {blocks}" + (f" of {_fmt(block)} threads" if block else "")
               + f": {waves:.2g} waves, so the GPU runs {_pct(waves)} full{busy}")
        fill = f"at least {_fmt(per_wave)} blocks of {_fmt(block)} threads fill one wave; " if per_wave and block else ""
        remedy = (f"give the launch more parallel work: {fill}split each thread's serial work across more threads "
                  "or blocks, or batch several independent problems into one launch")
        out.append(_at_line(ctx, "achieved-occupancy", Severity.WARNING, k, line, msg, remedy, ev, span=span))
        return out
    if waves is not None and 1 <= waves < 8:
        full = math.floor(waves)
        tail = waves - full
        idle = (math.ceil(waves) - waves) / math.ceil(waves) if tail > 1e-6 else 0.0
        if idle >= 0.1:
            msg = (f"{waves:.1f} waves: the last wave runs {tail:.0%} full, so {idle:.0%} of the launch's SM time "
                   "is idle (tail effect)")
            size = f" ({_fmt(sms)} SMs x {_fmt(bps)} blocks = {_fmt(per_wave)} blocks per wave)" if per_wave else ""
            remedy = (f"size the grid to a whole number of waves{size}: a grid-stride loop over exactly one or two "
                      "waves of blocks, or a block size that divides the work evenly")
            out.append(_at_line(ctx, "achieved-occupancy", Severity.INFO, k, line, msg, remedy, ev, span=span))
    if ach is not None and theo and ach < 0.7 * theo and (waves is None or waves >= 0.9):
        msg = (f"achieved occupancy {ach:.1f}% against a theoretical {theo:.1f}%: warps sit idle because blocks "
               "finish unevenly or start late")
        remedy = ("balance the work between the warps and blocks (no long-running stragglers), avoid a partial last "
                  "wave, and keep per-block setup short")
        out.append(_at_line(ctx, "achieved-occupancy", Severity.INFO, k, line, msg, remedy, ev, span=span))
    return out


# ---------------------------------------------------------------- warp divergence

def _threads_per_inst(ln: LineCounters) -> float | None:
    inst = ln.num("inst_executed")
    th = ln.num("thread_inst_executed") or ln.num("pred_on_thread_inst_executed")
    return th / inst if inst and th else None


@tool(
    "warp-divergence",
    """Warp divergence: threads per instruction executed (32 when every lane of a warp is active)
    for the kernel and per source line (Nsight Compute source counters: instructions and thread
    instructions executed, divergent branches). Names the lines that run with the fewest active
    lanes and the branch that splits the warps. Use it for compute- or latency-bound kernels
    with data- or thread-dependent branches.""",
    needs=NEEDS, kind="dynamic", rules=("warp-divergence",),
)
def warp_divergence(ctx: Context):
    res = _result(ctx)
    if res is None:
        return []
    k = _kernel(ctx, res)
    lines = _lines(ctx, res)
    ratio = res.metric("smsp__thread_inst_executed_per_inst_executed.ratio")
    inst_all = sum(ln.num("inst_executed") for ln in lines)
    if ratio is None:
        th_all = sum(ln.num("thread_inst_executed") for ln in lines)
        ratio = th_all / inst_all if inst_all and th_all else None
    if ratio is None or ratio >= DIVERGED_KERNEL:
        return []
    ev_kernel = [Evidence("smsp__thread_inst_executed_per_inst_executed.ratio", round(ratio, 2), "threads", "ncu")]
    eff = res.metric("smsp__sass_average_branch_targets_threads_uniform.pct")
    if eff is not None:
        ev_kernel.append(Evidence("smsp__sass_average_branch_targets_threads_uniform.pct", eff, "%", "ncu"))
    branches = [ln for ln in lines if ln.num("divergent_branches") > 0]
    related = [Location(ctx.path, b.line, message=f"{_fmt(b.num('divergent_branches'))} divergent branches")
               for b in sorted(branches, key=lambda b: -b.num("divergent_branches"))[:3]]
    remedy = ("make the branch uniform within each warp: choose the path per warp (e.g. `(threadIdx.x / 32) % 2` "
              "instead of `threadIdx.x % 2`), or reorder the work so neighbouring threads take the same path")
    cands = []
    for ln in lines:
        tpi = _threads_per_inst(ln)
        if tpi is None or tpi >= DIVERGED_LINE or ln.num("inst_executed") < MIN_SHARE * inst_all:
            continue
        cands.append((ln.num("inst_executed") * (FULL_WARP - tpi), ln, tpi))
    out = []
    for lost, ln, tpi in sorted(cands, key=lambda c: -c[0])[:3]:
        msg = (f"instructions on line {ln.line} run with {tpi:.1f} of 32 threads active on average "
               f"({1 - tpi / FULL_WARP:.0%} of the lanes idle): the warps diverge, and the kernel as a whole runs "
               f"{ratio:.1f} threads per instruction")
        ev = ev_kernel + [Evidence("Instructions Executed", ln.num("inst_executed"), "warp instructions", "ncu"),
                          Evidence("Thread Instructions Executed", ln.num("thread_inst_executed"), "", "ncu")]
        out.append(_at_line(ctx, "warp-divergence", Severity.WARNING, k, ln.line, msg, remedy, ev,
                            related=[r for r in related if r.line != ln.line]))
    if not out and k is not None:
        msg = (f"{k.name} runs {ratio:.1f} of 32 threads per instruction on average: its warps diverge "
               "(no per-line counters to say where)")
        out.append(_at_line(ctx, "warp-divergence", Severity.WARNING, k, k.line, msg, remedy, ev_kernel,
                            span=(k.column, k.end_column) if k.column and k.end_column else None, related=related))
    return out


# ---------------------------------------------------------------- two-stage invocation

BUSY = 50.0  # % of peak at which Nsight Compute's speed of light calls a unit busy


def refine_verdict(verdict, res: NcuResult) -> tuple[str | None, str | None]:
    """The second look: the roofline counts only the bytes a kernel needs, so a kernel that
    moves eight sectors for every one it uses looks latency-bound while its memory pipes are
    saturated. Nsight Compute's speed of light sees the real traffic; busy pipes decide."""
    name = _ncu().verdict_name(verdict)
    if name != "latency-bound":
        return name, None
    mem_v = res.metric("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    sm_v = res.metric("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    if mem_v is not None and mem_v >= BUSY and (sm_v is None or mem_v >= sm_v):
        return "memory-bound", (f"the roofline says latency-bound, but Nsight Compute finds the memory pipes "
                                f"{mem_v:.0f}% busy: memory-bound on traffic the kernel does not need")
    if sm_v is not None and sm_v >= BUSY:
        return "compute-bound", (f"the roofline says latency-bound, but Nsight Compute finds the SM pipes "
                                 f"{sm_v:.0f}% busy: compute-bound on instructions the result does not need")
    return name, None


def select_tools(verdict) -> list[str]:
    """The dynamic tools the roofline verdict calls for (all of them when it is unknown)."""
    return list(SELECTION.get(_ncu().verdict_name(verdict) or "", ALL_TOOLS))


def dynamic_advice(ncu_result: NcuResult, source_file: SourceFile | str | Path, verdict=None,
                   tools: list[str] | None = None, notes: list[str] | None = None) -> list[Advice]:
    """Run the dynamic tools the verdict selects (or `tools`) over one profile of a kernel in
    `source_file` (a parsed SourceFile or a path to the .cu file)."""
    if not isinstance(source_file, SourceFile):
        p = Path(source_file)
        source_file = parse_source(p.read_text(errors="replace"), str(p))
    chosen, why = refine_verdict(verdict if verdict is not None else ncu_result.verdict, ncu_result)
    if why and notes is not None:
        notes.append(why)
    names = tools or select_tools(chosen if chosen is not None else verdict)
    unknown = [n for n in names if n not in REGISTRY or REGISTRY[n].kind != "dynamic"]
    if unknown:
        raise ValueError(f"unknown dynamic tool(s): {', '.join(unknown)} (known: {', '.join(ALL_TOOLS)})")
    ctx = Context(source=source_file, artifact=None, measurement=ncu_result)
    out = run_tools(ctx, [REGISTRY[n] for n in names])
    if notes is not None:
        notes.extend(ctx.notes)
    return sort_advice(out)
