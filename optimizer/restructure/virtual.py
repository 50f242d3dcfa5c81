"""A kernel's body run for a *virtual* thread: the shared step of the restaging rewrites (permute.py,
stencil.py).

`roles_helper` turns a kernel whose only side effect is one store (or one store per path: a boundary copied
as is, then `return`) into a `__device__` function
`kp_roles_<kernel>(params..., kp_vx, kp_vy, kp_phase, kp_val, kp_addr, kp_dst, kp_out)` that runs the old
body with threadIdx.x and threadIdx.y replaced by (kp_vx, kp_vy). It returns false where the old thread
would store nothing (its guards, its returns), else true with
- phase false: kp_addr[i] the address the old thread reads at its i-th staged load, null where it does
  not read it (no memory is read);
- phase true: kp_dst the address it stores to and kp_out the value, computed with kp_val[i] in place of
  the i-th staged load (other loads, of values only, are read as written).
So a rewrite can first learn what each old thread reads, stage those elements in shared memory in any
order, and then let any thread compute any old thread's store from the staged values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kernelpro.profilers.source import Kernel, SourceFile, walk

from .text import Refuse, span_text


@dataclass
class Staged:
    """The loads a rewrite stages (their nodes, in order) and the store it keeps."""
    loads: list  # tree-sitter nodes of the staged loads (subscripts or __ldg calls)
    store: object  # the store's subscript node (the left side of `=`)
    others: list  # loads read as written in the value (not staged)
    extra: list = None  # other stores of the same element on paths that then return (a boundary copied as is)
    more: list = None  # stores of the same point into other arrays before `store`: the helper's kp_which picks one


def elem_type(k: Kernel, array: str) -> str:
    """A pointer parameter's element type as written, without qualifiers."""
    p = k.param(array)
    t = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|\*", " ", p.type_text)
    return " ".join(t.split())


def template_parts(src: SourceFile, k: Kernel) -> tuple[str, str, object]:
    """(`template <...>` line, the helper's template arguments `<T, N>`, the declaration node to insert
    before): empty for a plain kernel."""
    node = k.node
    while node.parent is not None and node.parent.type in ("template_declaration", "linkage_specification"):
        node = node.parent
    if not k.is_template:
        return "", "", node
    t = k.node.parent
    while t is not None and t.type != "template_declaration":
        t = t.parent
    if t is None:
        raise Refuse("a template kernel whose template declaration was not found")
    return (f"template {src.node_text(t.child_by_field_name('parameters'))}\n",
            "<" + ", ".join(n for _, n in k.template_params) + ">", node)


def param_list(src: SourceFile, k: Kernel) -> str:
    """The kernel's parameters as a helper declares them: defaults dropped (`float alpha = 1.0f` is `float alpha`,
    so the helper's own parameters may follow)."""
    for n in walk(k.node):
        if n.type == "parameter_list":
            return ", ".join(
                src.node_text(p) if p.type != "optional_parameter_declaration" else
                src.data[p.start_byte:p.child_by_field_name("default_value").start_byte].decode().rstrip()[:-1].rstrip()
                for p in n.named_children if p.type != "comment")
    raise Refuse("the kernel's parameter list was not found")


def _address(src: SourceFile, n, subs) -> str:
    if n.type == "call_expression":  # __ldg(p) and the like: p is the address
        a = n.child_by_field_name("arguments").named_children[0]
        return span_text(src, a.start_byte, a.end_byte, subs)
    return f"&({span_text(src, n.start_byte, n.end_byte, subs)})"


def roles_helper(src: SourceFile, k: Kernel, staged: Staged, load_t: str, store_t: str,
                 block_dims: tuple[int, int] | None = None, plane: bool = False,
                 march: dict[int, int] | None = None) -> str:
    """The helper's definition; block_dims replaces blockDim.x/y (a virtual block of another shape); with
    plane, blockIdx.z is a parameter too (kp_vz: the virtual thread's plane).

    march ({staged load i: the load j of the row before that reads its address}): one call per point instead
    of two phases, `kp_march_<kernel>(params..., kp_vx, kp_vy, kp_pa, kp_pv, kp_val, kp_addr, kp_dst, kp_out)`:
    each staged load that runs notes its address in kp_addr[i] and its value in kp_val[i], the value taken from
    kp_pv[j] where kp_pa[j] (the address load j read for the point before) is the same address, else read."""
    if march is not None and staged.more:
        raise Refuse("a point with several outputs: no march")
    if any(not p.name for p in k.signature):
        raise Refuse("an unnamed kernel parameter")
    subs = []
    for n in walk(k.body):
        t = src.node_text(n)
        if n.type == "field_expression" and t in ("threadIdx.x", "threadIdx.y"):
            subs.append((n.start_byte, n.end_byte, "kp_v" + t[-1]))
        elif plane and n.type == "field_expression" and t == "blockIdx.z":
            subs.append((n.start_byte, n.end_byte, "kp_vz"))
        elif block_dims and n.type == "field_expression" and t in ("blockDim.x", "blockDim.y"):
            subs.append((n.start_byte, n.end_byte, f"{block_dims[0] if t.endswith('x') else block_dims[1]}u"))
        elif n.type == "return_statement" and not n.named_children:  # (with several outputs: the one asked for
            subs.append((n.start_byte, n.end_byte, "return kp_hit;" if staged.more else "return false;"))  # may be in)

    more = list(staged.more or [])
    stores = [staged.store] + list(staged.extra or []) + more
    which = {id(n): j for j, n in enumerate(more)} | {id(staged.store): len(more)}  # with more: the output's number
    stmts = [n.parent.parent for n in stores]
    values = [n.parent.child_by_field_name("right") for n in stores]
    in_value = lambda n: any(within(n.start_byte, n.end_byte, v) for v in values)  # noqa: E731
    body_subs = [s for s in subs if not any(st.start_byte <= s[0] < st.end_byte for st in stmts)]
    def fetch(i, n):  # march: the load noted, its value from the point before's registers where it read the same
        a = f"(kp_addr[{i}] = {_address(src, n, subs)})"
        got = f"(kp_pa[{march[i]}] == {a} ? kp_pv[{march[i]}] : *kp_addr[{i}])" if i in march else f"*{a}"
        return f"(kp_val[{i}] = {got})"
    for i, n in enumerate(staged.loads):
        if not in_value(n):  # a local computed from a staged load before the store
            body_subs.append((n.start_byte, n.end_byte, fetch(i, n) if march is not None else
                              f"(kp_phase ? kp_val[{i}] : (kp_addr[{i}] = {_address(src, n, subs)}, {load_t}()))"))
    for n in staged.others:  # (march mode: read as written, the one call runs the whole body)
        if not in_value(n) and march is None:
            body_subs.append((n.start_byte, n.end_byte,
                              f"(kp_phase ? {span_text(src, n.start_byte, n.end_byte, subs)} : 0)"))
    for store, stmt, value in zip(stores, stmts, values):
        # in the value: staged loads from kp_val; outside it (locals of values): staged address or value by phase
        val_subs = [s for s in subs if within(s[0], s[1], value)]
        for i, n in enumerate(staged.loads):
            if within(n.start_byte, n.end_byte, value):
                val_subs.append((n.start_byte, n.end_byte, fetch(i, n) if march is not None else f"kp_val[{i}]"))
        value_text = span_text(src, value.start_byte, value.end_byte, val_subs)
        if march is not None:
            body_subs.append((stmt.start_byte, stmt.end_byte,
                              f"{{ kp_dst = {_address(src, store, subs)}; kp_out = {value_text}; return true; }}"))
            continue
        addr_set = " ".join(f"kp_addr[{i}] = {_chosen_address(src, n, value, subs, staged.loads)};"
                            for i, n in enumerate(staged.loads) if within(n.start_byte, n.end_byte, value))
        dst = _address(src, store, subs)
        if more:  # every output's loads are noted; the one asked for (kp_which) is handed back, and the body goes on
            j = which.get(id(store))
            body_subs.append((stmt.start_byte, stmt.end_byte,
                              f"{{ {addr_set} if (kp_which == {j}) {{ kp_dst = {dst}; if (kp_phase) kp_out = {value_text}; "
                              f"kp_hit = true; }} }}"))
            continue
        body_subs.append((stmt.start_byte, stmt.end_byte,
                          f"{{ {addr_set} kp_dst = {dst}; if (kp_phase) kp_out = {value_text}; return true; }}"))
    body = span_text(src, k.body.start_byte, k.body.end_byte, sorted(body_subs))
    body = body[:body.rstrip().rfind("}")].rstrip() + f"\n  return {'kp_hit' if more else 'false'};\n}}"
    # a staged load under its own condition leaves its address null where the old thread skips it
    body = "{\n  " + ("bool kp_hit = false; " if more else "") + " ".join(
        f"kp_addr[{i}] = nullptr;" for i in range(len(staged.loads))) + body[1:]
    tmpl, _, _ = template_parts(src, k)
    if march is not None:
        return (f"{tmpl}static __device__ __forceinline__ bool kp_march_{k.name}({param_list(src, k)}, int kp_vx, "
                f"int kp_vy, {'int kp_vz, ' if plane else ''}const {load_t}* const* kp_pa, const {load_t}* kp_pv, {load_t}* kp_val, "
                f"const {load_t}** kp_addr, {store_t}*& kp_dst, {store_t}& kp_out)\n{body}\n\n")
    return (f"{tmpl}static __device__ __forceinline__ bool kp_roles_{k.name}({param_list(src, k)}, int kp_vx, "
            f"int kp_vy, {'int kp_vz, ' if plane else ''}bool kp_phase, {'int kp_which, ' if more else ''}"
            f"const {load_t}* kp_val, const {load_t}** kp_addr, {store_t}*& kp_dst, {store_t}& kp_out)\n{body}\n\n")


def _chosen_address(src: SourceFile, n, value, subs, loads) -> str:
    """Load n's address, `(cond) ? &(..) : nullptr` where n is one branch of a choice in the value (`x == 0 ?
    in[y * n + x] : in[y * n + x - 1]`: the clamped neighbour's other load is not read at the edge, so its address
    is not handed out there, and a tile never stages what the kernel as written would not read)."""
    conds, m = [], n
    while m is not None and m.id != value.id:
        p = m.parent
        if p is not None and p.type == "conditional_expression":
            c = p.child_by_field_name("condition")
            if c is not None and m.id != c.id:
                if any(within(x.start_byte, x.end_byte, c) for x in loads):
                    return _address(src, n, subs)  # a choice made on a staged value: not known before the loads
                t = span_text(src, c.start_byte, c.end_byte, [x for x in subs if within(x[0], x[1], c)])
                conds.append(f"({t})" if m.id == p.child_by_field_name("consequence").id else f"!({t})")
        m = p
    return f"({' && '.join(conds)}) ? {_address(src, n, subs)} : nullptr" if conds else _address(src, n, subs)


def within(start: int, end: int, node) -> bool:
    """Bytes [start, end) lie inside node."""
    return node.start_byte <= start and end <= node.end_byte


def call(src: SourceFile, k: Kernel, vx: str, vy: str, phase: str, vz: str | None = None,
         which: str | None = None) -> str:
    """A call of the helper for virtual thread (vx, vy) (in plane vz; asking for output `which` where the point
    has several), with kp_val, kp_addr, kp_dst, kp_out in scope."""
    _, targs, _ = template_parts(src, k)
    args = ", ".join(p.name for p in k.signature)
    z = f"{vz}, " if vz is not None else ""
    w = f"{which}, " if which is not None else ""
    return f"kp_roles_{k.name}{targs}({args}, {vx}, {vy}, {z}{phase}, {w}kp_val, kp_addr, kp_dst, kp_out)"


def insert_before(src: SourceFile, k: Kernel) -> int:
    """Where the helper goes: before the kernel's definition (its template header included)."""
    return template_parts(src, k)[2].start_byte


def march_call(src: SourceFile, k: Kernel, vx: str, vy: str, vz: str | None = None) -> str:
    """A call of the march helper for virtual thread (vx, vy) (in plane vz), with kp_pa, kp_pv, kp_val, kp_addr,
    kp_dst, kp_out in scope."""
    _, targs, _ = template_parts(src, k)
    args = ", ".join(p.name for p in k.signature)
    z = f"{vz}, " if vz is not None else ""
    return f"kp_march_{k.name}{targs}({args}, {vx}, {vy}, {z}kp_pa, kp_pv, kp_val, kp_addr, kp_dst, kp_out)"


def when_old(inside: str, qx: str, qy: str, expr: str) -> str:
    """`expr` behind `inside` (C condition that old thread (kp_qx, kp_qy) of this block existed in the old launch)
    for virtual thread (qx, qy); `expr` alone where every virtual thread existed ("true")."""
    if inside == "true":
        return expr
    return f"({inside.replace('kp_qx', qx).replace('kp_qy', qy)}) && {expr}"


def reuse_preds(offsets: list[tuple], axis: int) -> dict[int, int]:
    """{load i: the load j whose offset is i's plus one along `axis`}: what the point before along that axis read
    at i's address (a march's registers)."""
    def ahead(o):
        return o[:axis] + (o[axis] + 1,) + o[axis + 1:]
    return {i: offsets.index(ahead(o)) for i, o in enumerate(offsets) if ahead(o) in offsets}


def march_loop(load_t: str, store_t: str, n: int, comment: str, head: str, call: str, pre: str = "") -> str:
    """A march's body: the registers of the point before, then `head` (a for statement) running `call` (the march
    helper) for each point and storing where it stores; `pre` runs before the loop (an early return)."""
    return f"""{{
  // {comment}
  {load_t} kp_val[{n}];
  const {load_t}* kp_addr[{n}];
  const {load_t}* kp_pa[{n}];
  {load_t} kp_pv[{n}];
  {store_t}* kp_dst;
  {store_t} kp_out;
#pragma unroll
  for (int kp_j = 0; kp_j < {n}; ++kp_j) {{ kp_pa[kp_j] = nullptr; kp_pv[kp_j] = kp_val[kp_j] = {load_t}(); }}
  {pre}
  {head} {{
    if ({call}) *kp_dst = kp_out;
#pragma unroll
    for (int kp_j = 0; kp_j < {n}; ++kp_j) {{ kp_pa[kp_j] = kp_addr[kp_j]; kp_pv[kp_j] = kp_val[kp_j]; }}
  }}
}}"""
