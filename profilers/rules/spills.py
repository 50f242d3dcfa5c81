"""Register spills and local memory, with the source lines of the LDL/STL instructions."""
from __future__ import annotations

from ..advice import Evidence, Location, Severity
from ..tools import Context, tool
from ..source import walk
from .common import advice_at, first_code_column, nodes

LOCAL_OPS = ("LDL", "STL")


@tool(
    "spills",
    """Register spills and local memory. Reads the ptxas resource report (spill stores/loads,
    stack frame) and the SASS (LDL/STL local-memory instructions mapped to source lines).
    Use it when a kernel is slow for no visible reason, uses many registers, or indexes a
    per-thread array with a run-time index.""",
    needs=("artifact", "sass"),
    rules=("register-spill", "local-memory"),
)
def spills(ctx: Context):
    out = []
    for k in ctx.source.kernels:
        builds = ctx.builds(k)
        if not builds:
            continue
        b = max(builds, key=lambda b: (b.resources.spill_stores + b.resources.spill_loads, b.resources.stack_bytes))
        r = b.resources
        by_line = ctx.sass_by_line(k)
        local_lines = sorted(ln for ln, ins in by_line.items() if any(i.base in LOCAL_OPS for i in ins))
        counts = {ln: sum(1 for i in by_line[ln] if i.base in LOCAL_OPS) for ln in local_lines}
        if r.spill_stores or r.spill_loads:
            line = local_lines[0] if local_lines else k.line
            ev = [Evidence("spill stores", r.spill_stores, "bytes", "ptxas"),
                  Evidence("spill loads", r.spill_loads, "bytes", "ptxas"),
                  Evidence("registers", r.registers, "per thread", "ptxas"),
                  Evidence("LDL/STL instructions", sum(counts.values()), "", "sass")]
            out.append(advice_at(
                ctx, "register-spill", Severity.WARNING, k, line,
                f"{k.name} spills {r.spill_stores} bytes to local memory and reloads {r.spill_loads} bytes "
                f"({r.registers} registers per thread); the spill traffic goes through L1/L2 at every use",
                "reduce live values (split the kernel, recompute cheap values, shrink unrolled loops) or give "
                "the compiler more registers (a smaller block with __launch_bounds__(threads, minBlocks) or a "
                "larger -maxrregcount)",
                ev, related=[Location(ctx.path, ln, message=f"{counts[ln]} local-memory instructions") for ln in local_lines[1:8]],
            ))
        elif r.stack_bytes and local_lines:
            out.append(_local_memory(ctx, k, r, local_lines, counts))
    return out


def _local_arrays(ctx: Context, k) -> dict[str, str]:
    """Per-thread arrays declared in the kernel (not __shared__): name -> declaration text."""
    out = {}
    for d in nodes(k, "declaration"):
        if any(c.type == "type_qualifier" and ctx.source.node_text(c) in ("__shared__", "__constant__") for c in d.children):
            continue
        for c in d.children:
            decl = c.child_by_field_name("declarator") if c.type == "init_declarator" else c
            if decl is not None and decl.type == "array_declarator":
                name = decl.child_by_field_name("declarator")
                if name is not None:
                    out[ctx.source.node_text(name)] = " ".join(ctx.source.node_text(d).rstrip(";").split())
    return out


def _root_cause(ctx: Context, k, arrays: dict[str, str], lines: list[int]):
    """The access that puts an array in local memory: an index known only at run time, rather
    than a loop counter a full unroll would make constant; (node, array name, index node)."""
    env = ctx.constants(k)
    counted = {lp.node.id: lp.var for lp in k.loops if lp.var and (lp.trip_count or _counted_with(ctx.source, lp, env))}
    constants = set(ctx.source.constants) | set(env)
    best = None
    for n in nodes(k, "subscript_expression"):
        arg, idx = n.child_by_field_name("argument"), n.child_by_field_name("indices")
        if arg is None or idx is None or ctx.source.node_text(arg) not in arrays:
            continue
        inner = idx.named_children[0] if idx.named_children else idx
        if ctx.source.eval_int(inner) is not None:
            continue
        names = {ctx.source.node_text(x) for x in walk(inner) if x.type == "identifier"}
        # constant after a full unroll only when every name is a counted loop's counter *of a
        # loop around this subscript* (a counter's name reused for a run-time value is not)
        runtime = not names <= (_enclosing_counters(n, counted) | constants)
        line = n.start_point[0] + 1
        key = (not runtime, line not in lines, line)
        if best is None or key < best[0]:
            best = (key, n, ctx.source.node_text(arg), inner)
    return best[1:] if best else None


def _counted_with(src, lp, env: dict[str, int]) -> bool:
    """A for loop whose start and bound are constants of the instantiation (`for (b = 0; b < NBINS;
    ++b)` with NBINS a template argument): a full unroll makes its counter constant too."""
    n = lp.node
    if n.type != "for_statement" or not env:
        return False
    init, cond = n.child_by_field_name("initializer"), n.child_by_field_name("condition")
    if init is None or cond is None or cond.type != "binary_expression":
        return False
    if init.type == "declaration":
        d = next((c for c in init.children_by_field_name("declarator") if c.type == "init_declarator"), None)
        start = d.child_by_field_name("value") if d is not None else None
    elif init.type == "assignment_expression":
        start = init.child_by_field_name("right")
    else:
        return False
    return src.eval_int(start, env) is not None and src.eval_int(cond.child_by_field_name("right"), env) is not None


def _enclosing_counters(n, counted: dict[int, str]) -> set[str]:
    out = set()
    p = n.parent
    while p is not None:
        if p.id in counted:
            out.add(counted[p.id])
        p = p.parent
    return out


def _local_memory(ctx: Context, k, r, local_lines: list[int], counts: dict[int, int]):
    """One finding per kernel, at the access that causes it, its other LDL/STL lines related."""
    arrays = _local_arrays(ctx, k)
    cause = _root_cause(ctx, k, arrays, local_lines) if arrays else None
    total = sum(counts.values())
    ev = [Evidence("stack frame", r.stack_bytes, "bytes", "ptxas"),
          Evidence("LDL/STL instructions", total, "", "sass"),
          Evidence("lines with LDL/STL", len(local_lines), "", "sass"),
          Evidence("spill bytes", 0, "bytes", "ptxas")]
    remedy = ("index the array only with compile-time constants (fully unroll the loops that index it with "
              "#pragma unroll), or keep the values in shared memory or in separate scalar variables")
    if cause is not None:
        node, name, index = cause
        line = node.start_point[0] + 1
        msg = (f"`{name}` lives in local memory because `{ctx.source.node_text(index)}` indexes it at run time: "
               f"{r.stack_bytes} bytes per thread ({arrays[name]}), {total} LDL/STL on {len(local_lines)} line"
               f"{'s' if len(local_lines) != 1 else ''}")
        a = advice_at(ctx, "local-memory", Severity.WARNING, k, index, msg, remedy, ev)
    else:
        line = max(local_lines, key=lambda ln: counts[ln])
        msg = (f"a per-thread array of {r.stack_bytes} bytes lives in local memory: {total} LDL/STL on "
               f"{len(local_lines)} line{'s' if len(local_lines) != 1 else ''}, usually an index known only at run time")
        a = advice_at(ctx, "local-memory", Severity.WARNING, k, line, msg, remedy, ev)
        a.column = first_code_column(ctx, line)
    a.related = [Location(ctx.path, ln, first_code_column(ctx, ln), message=f"{counts[ln]} LDL/STL here")
                 for ln in local_lines if ln != line][:8]
    return a
