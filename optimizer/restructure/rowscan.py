"""A thread per row keeping a running sum along it (profilers/analysis/prefix.py's RowScan: cumsum along the last
dimension) becomes a warp per row: the row is walked 32 elements a step, each lane takes one element, a shuffle
scan (`__shfl_up_sync`, five steps) gives each lane the sum up to its element, the stores that read the running sum
run with it (the exclusive sum before the update, the inclusive after), and the step's total carries into the next.
The running sum ends with the row's total on every lane, as the thread's did; everything else of the row runs on
every lane as written (the same values)."""
from __future__ import annotations

from kernelpro.profilers.analysis.prefix import RowScan
from kernelpro.profilers.source import SourceFile

from .rows import WARP_ROW, _used_after
from .text import Refuse, line_indent, span_text


def warp_rows(src: SourceFile, rs: RowScan) -> str:
    """The file with the kernel's row scanned by a warp."""
    rk = rs.rk
    if rk.form not in ("if", "return"):
        raise Refuse("the row has no guard `if (row < rows)` (a warp per row needs one)")
    info = rk.loops_all.at(rs.loop)
    if not info.declared_in_header and _used_after(src, rk, info):
        raise Refuse(f"`{rs.var}` is used after the loop on line {rs.line}")
    ind = line_indent(src, rs.loop)
    i1, i2, i3 = ind + "  ", ind + "    ", ind + "      "
    t = rs.acc_type
    before = [f"{i2}{src.node_text(s)}" for s in rs.before]
    early = [f"{i3}{src.node_text(s)}" for s, after in rs.readers if not after]
    late = [f"{i3}{src.node_text(s)}" for s, after in rs.readers if after]
    out = [f"{{  // kernelpro: the running sum along the row spread over the warp, 32 elements a step (a shuffle scan)",
           f"{i1}{t} kp_carry = {rs.acc};",
           f"{i1}for ({rs.var_type} kp_c = ({rs.start}); kp_c < ({rs.end}); kp_c += 32) {{",
           f"{i2}const bool kp_in = kp_c + kp_lane < ({rs.end});",
           f"{i2}const {rs.var_type} {rs.var} = kp_in ? kp_c + kp_lane : kp_c;  // a lane past the end reads the "
           "step's first element, unused",
           *before,
           f"{i2}const {t} kp_x = kp_in ? ({t})({src.node_text(rs.added)}) : ({t})0;",
           f"{i2}{t} kp_s = kp_x;",
           f"{i2}#pragma unroll",
           f"{i2}for (int kp_o = 1; kp_o < 32; kp_o <<= 1) {{",
           f"{i3}const {t} kp_y = __shfl_up_sync(0xffffffffu, kp_s, kp_o);",
           f"{i3}if (kp_lane >= kp_o) kp_s += kp_y;",
           f"{i2}}}"]
    if early:
        out += [f"{i2}{t} kp_e = __shfl_up_sync(0xffffffffu, kp_s, 1);",
                f"{i2}if (kp_lane == 0) kp_e = ({t})0;"]
    out += [f"{i2}if (kp_in) {{"]
    if early:
        out += [f"{i3}{rs.acc} = kp_carry + kp_e;", *early]
    out += [f"{i3}{rs.acc} = kp_carry + kp_s;", *late, f"{i2}}}",
            f"{i2}kp_carry += __shfl_sync(0xffffffffu, kp_s, 31);",
            f"{i1}}}",
            f"{i1}{rs.acc} = kp_carry;",
            f"{ind}}}"]
    value = rk.row_decl.children_by_field_name("declarator")[0].child_by_field_name("value")
    rind = line_indent(src, rk.row_decl)
    subs = [(rk.row_decl.start_byte, rk.row_decl.start_byte, f"const int kp_lane = threadIdx.x % 32;\n{rind}"),
            (value.start_byte, value.end_byte, WARP_ROW),
            (rs.loop.start_byte, rs.loop.end_byte, "\n".join(out))]
    return span_text(src, 0, len(src.data), subs)

