"""Theoretical occupancy and what limits it, for the block size the kernel is launched with.

A register cap is offered only after compiling with it: a cap that makes ptxas spill is
reported with its cost instead. The cap edits the kernel's own `__launch_bounds__` when it
has one (never a second attribute). A kernel that keeps a register micro-tile (a per-thread
accumulator array of 16 or more values) is register-bound by design: it is told so.
"""
from __future__ import annotations

import re

from ..advice import Evidence, Severity
from ..occupancy import occupancy
from ..source import Kernel, SourceFile, walk
from ..tools import Context, tool
from .common import advice_at, nodes

LOW = 0.5  # below this theoretical occupancy, latency hiding usually suffers
TILE = 16  # a per-thread array of at least this many values kept in registers is a micro-tile


def launch_bounds_node(src: SourceFile, k: Kernel):
    """The kernel's `__launch_bounds__(...)` attribute node, or None."""
    return next((c for c in k.node.children if c.type == "launch_bounds"), None)


def hidden_launch_bounds(src: SourceFile, k: Kernel) -> bool:
    """`__launch_bounds__` written through a macro (`#define LB __launch_bounds__(256)`)."""
    head = src.data[k.node.start_byte:(k.body.start_byte if k.body is not None else k.node.end_byte)].decode(errors="replace")
    if "__launch_bounds__" in head:
        return True
    macros = src.memo.get("launch_bounds_macros")
    if macros is None:
        macros = {src.node_text(n.child_by_field_name("name")) for n in walk(src.root)
                  if n.type in ("preproc_def", "preproc_function_def") and "__launch_bounds__" in src.node_text(n)}
        src.memo["launch_bounds_macros"] = macros
    return any(re.search(rf"\b{re.escape(m)}\b", head) for m in macros)


_VECTOR = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4])")


def _lanes(type_text: str) -> int:
    """Scalars per element: 4 for float4, 2 for half2 or __nv_bfloat162, 1 otherwise."""
    t = type_text.replace("const", "").strip()
    m = _VECTOR.fullmatch(t)
    if m:
        return int(m.group(1))
    return 2 if t in ("half2", "__half2", "nv_bfloat162", "__nv_bfloat162") else 1


def register_tile(src: SourceFile, k: Kernel, env: dict[str, int]) -> tuple[str, int, int] | None:
    """(declaration text, values, line) of the largest per-thread local array of >= TILE values
    (scalars: a `float4 acc[8][2]` keeps 64)."""
    best = None
    for d in nodes(k, "declaration"):
        if any(c.type in ("type_qualifier", "storage_class_specifier") and src.node_text(c) in ("__shared__", "static", "extern")
               for c in d.children):
            continue
        t = d.child_by_field_name("type")
        lanes = _lanes(src.node_text(t)) if t is not None else 1
        for decl in d.children_by_field_name("declarator"):
            n, size = decl, lanes
            if n.type == "init_declarator":
                n = n.child_by_field_name("declarator")
            if n is None or n.type != "array_declarator":
                continue
            while n is not None and n.type == "array_declarator":
                v = src.eval_int(n.child_by_field_name("size"), env)
                if v is None:
                    size = 0
                    break
                size *= v
                n = n.child_by_field_name("declarator")
            if size >= TILE and (best is None or size > best[1]):
                best = (" ".join(src.node_text(d).split()), size, d.start_point[0] + 1)
    return best


def product_tile(src: SourceFile, k: Kernel) -> tuple[str, int, int] | None:
    """A matrix product (the contraction recogniser) whose thread computes a register tile of
    several outputs: (accumulator, outputs per thread, line of its update)."""
    from ..analysis.contraction import contractions

    best = None
    for c in contractions(src, k).products:
        rows, cols = c.per_thread
        line = c.update.start_point[0] + 1 if c.update is not None else k.line
        if rows * cols >= 2 and (best is None or rows * cols > best[1]):
            best = (f"{c.acc}: {rows}x{cols} outputs of {c.out.array}", rows * cols, line)
    return best


def _cap_edit(src: SourceFile, k: Kernel, threads: int, blocks: int) -> dict | None:
    """The edit that caps registers: the kernel's own __launch_bounds__ rewritten, or a new one."""
    node = launch_bounds_node(src, k)
    text = f"__launch_bounds__({threads}, {blocks})"
    if node is None:
        if hidden_launch_bounds(src, k):
            return None  # behind a macro: not ours to rewrite
        return {"line": k.line, "column": k.column, "end_line": k.line, "end_column": k.column, "new_text": text + " "}
    args = [src.node_text(a) for a in node.named_children]
    if not args:
        return None
    text = f"__launch_bounds__({args[0]}, {blocks})"  # keep the user's max threads expression
    line, col, end_line, end_col = src.pos(node)
    return {"line": line, "column": col, "end_line": end_line, "end_column": end_col, "new_text": text}


def _apply(text: str, e: dict) -> str:
    lines = text.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    a = starts[e["line"] - 1] + e["column"] - 1
    b = starts[e["end_line"] - 1] + e["end_column"] - 1
    return text[:a] + e["new_text"] + text[b:]


def trial_compile(ctx: Context, k: Kernel, edit: dict, mangled: str):
    """Resources of `mangled` with the edit applied (compiled like the profile, cached), or None."""
    from ..compile import compile_cuda
    from ..toolchain import discover

    art = ctx.artifact
    if k.file != art.path:
        return None  # a header: the edit would have to be compiled through the file that includes it
    try:
        tc = discover({"nvcc": art.command[0]})
        trial = compile_cuda(art.path, art.options, text=_apply(ctx.source.text, edit), toolchain=tc)
    except Exception:  # a toolchain problem: no trial, no offer
        return None
    if not trial.ok:
        return None
    return next((b.resources for b in trial.kernels if b.mangled == mangled), None)


@tool(
    "occupancy",
    """Theoretical occupancy and its limiter (registers, shared memory, block size, blocks per
    SM) for the architecture and the block size the kernel is launched with (launch spec,
    launch site in the file, __launch_bounds__, or the default 256), and the register count or
    shared-memory size that would reach the next occupancy step. A register cap is compiled
    before it is offered and not offered when it spills. Use it for latency-bound kernels or
    before changing the block size.""",
    needs=("artifact",),
    rules=("low-occupancy",),
)
def occupancy_tool(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        builds = ctx.builds(k)
        if not builds:
            continue
        b = max(builds, key=lambda b: b.resources.registers)
        r = b.resources
        hint = ctx.block(k.name)
        smem = r.shared_bytes + ctx.dynamic_shared.get(k.name, 0)
        try:
            occ = occupancy(ctx.arch, hint.threads, r.registers, smem)
        except ValueError:
            continue
        if occ.occupancy >= LOW:
            continue
        ev = [Evidence("theoretical occupancy", round(occ.occupancy * 100, 2), "%", "occupancy"),
              Evidence("active warps", occ.active_warps, f"of {occ.max_warps}", "occupancy"),
              Evidence("registers", r.registers, "per thread", "ptxas"),
              Evidence("shared memory", smem, "bytes per block", "ptxas"),
              Evidence("block size", hint.threads, hint.origin, "launch")]
        fix, severity, message = None, Severity.INFO, f"{ctx.label(k)}: {occ.explain()} (block size {hint.threads} from {hint.origin})"
        if occ.limiter == "registers" and occ.next_registers:
            remedy, fix, severity, message = _registers(ctx, k, b, occ, hint, ev, message)
        elif occ.limiter == "shared_memory" and occ.next_shared_bytes:
            remedy = (f"use at most {occ.next_shared_bytes} bytes of shared memory per block (smaller tiles, "
                      "or fewer pipeline stages) to fit one more block per SM")
        elif occ.limiter == "blocks_per_sm":
            remedy = f"use larger blocks: {hint.threads} threads per block hit the limit of blocks per SM; try 128 or 256"
        else:
            remedy = "change the block size; try 128 or 256 threads"
        data = {"register_cap": occ.next_registers} if occ.limiter == "registers" and occ.next_registers \
            and (fix is not None or "no cap is offered" not in remedy) and severity != Severity.HINT else {}
        a = advice_at(ctx, "low-occupancy", severity, k, k.line, message, remedy, ev, fix=fix, data=data)
        a.line, a.column, a.end_line, a.end_column = k.line, k.column, k.line, k.end_column
        out.append(a)
    return out


def _registers(ctx: Context, k: Kernel, b, occ, hint, ev: list[Evidence], message: str):
    """(remedy, fix, severity, message) for a register-limited kernel."""
    from .unroll import macro_constants

    blocks = occ.blocks_per_sm + 1
    tile = register_tile(ctx.source, k, {**macro_constants(ctx.source), **ctx.constants(k)}) or product_tile(ctx.source, k)
    if tile is not None and b.resources.stack_bytes == 0:
        decl, size, line = tile
        ev.append(Evidence("register tile", f"{size} values ({decl}, line {line})", "per thread", "source"))
        return (f"this is the price of the register tile: each thread keeps {size} values in registers to reuse "
                "every load many times, which beats more warps; a register cap would spill the tile. For more warps, "
                "use a smaller tile (fewer values per thread) or more threads per block with the same tile",
                None, Severity.HINT,
                message + f"; it keeps a register tile of {size} values per thread ({decl}, line {line}), so it is "
                "register-bound by design")
    edit = _cap_edit(ctx.source, k, hint.threads, blocks)
    cap = f"__launch_bounds__({hint.threads}, {blocks})"
    if edit is None:
        return (f"cap registers at {occ.next_registers} per thread (minimum {blocks} blocks per SM in the kernel's "
                "__launch_bounds__) and check the spill report after, or reduce live values", None, Severity.INFO, message)
    trial = trial_compile(ctx, k, edit, b.mangled)
    if trial is None:
        return (f"cap registers at {occ.next_registers} per thread with {cap} and check the spill report after "
                "(the cap could not be compiled here), or reduce live values", None, Severity.INFO, message)
    spill = trial.spill_stores + trial.spill_loads
    ev.append(Evidence(f"compiled with {edit['new_text'].strip()}",
                       f"{trial.registers} registers, {trial.spill_stores}/{trial.spill_loads} bytes spill stores/loads",
                       "per thread", "ptxas"))
    if spill:
        return (f"capping registers ({edit['new_text'].strip()}) makes ptxas spill {trial.spill_stores} bytes per thread "
                f"(stores) and reload {trial.spill_loads}: the extra warps would wait on local memory, so no cap is "
                "offered; reduce live values instead (smaller unrolls, recompute cheap values, split the kernel)",
                None, Severity.INFO, message)
    try:
        after = occupancy(ctx.arch, hint.threads, trial.registers, b.resources.shared_bytes + ctx.dynamic_shared.get(k.name, 0))
        gained = f", {after.occupancy * 100:.4g}% occupancy"
    except ValueError:
        gained = ""
    title = f"{'Set' if launch_bounds_node(ctx.source, k) is not None else 'Add'} {edit['new_text'].strip()}"
    return (f"cap registers at {occ.next_registers} per thread with {edit['new_text'].strip()}: compiled here, it "
            f"uses {trial.registers} registers with no spills{gained}", {"title": title, "edits": [edit]},
            Severity.INFO, message)
