"""What the analysis says about a launch at given sizes: reads past a buffer, outputs a grid leaves
unwritten, launches over the hardware's limits, buffers over the device's memory.

`Checker` evaluates the kernel's index bounds (analysis/extents.py) with the sizes bound: every
parameter's value, blockDim and gridDim from the launch. Bounds are upper bounds, so "writes at most
X of Y elements" is certain; "reads past" is `proven` when the bound is reached (its parts bound
disjoint indices, each reachable by the launch). `spec check` reports these; `spec init` picks sizes
at which there are none.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from pathlib import Path

from ..analysis.affine import add, atoms as poly_atoms, const, mul, poly_text
from ..analysis.extents import DIMS, KernelShapes, reach, use_bounds
from .expr import ExprError, parse_expr

MAX_THREADS = 1024
BLOCK_LIMITS = (1024, 1024, 64)
GRID_LIMITS = (2**31 - 1, 65535, 65535)
MAX_SHARED = 232448  # bytes of shared memory a block may have (H100/H200, opted in)


@dataclass
class Problem:
    kind: str  # reads-past, before-start, unwritten, launch, memory
    arg: str | None
    message: str
    proven: bool = True


def _val(expr, env: dict):
    try:
        v = parse_expr(expr).evaluate(env)
    except (ExprError, KeyError, ZeroDivisionError, ValueError, OverflowError):
        return None
    return int(v) if isinstance(v, float) and v.is_integer() else v


class Checker:
    """The kernel's bounds with a launch's expressions (spec text over the size variables)."""

    def __init__(self, ks: KernelShapes, values: dict[str, str], shapes: dict[str, list[str]], grid: list[str],
                 block: list[str], itemsize: dict[str, int] | None = None, consts: dict[str, int] | None = None,
                 shared: str = "0"):
        self.ks, self.shared = ks, shared
        self.values, self.shapes, self.grid, self.block = values, shapes, list(grid), list(block)
        self.itemsize = itemsize or {}
        self.consts = consts or {}

    def kernel_env(self, env: dict) -> dict | None:
        k = dict(self.consts)
        for p, e in self.values.items():
            v = _val(e, env)
            if isinstance(v, int):
                k[p] = v
        for i, d in enumerate(DIMS):
            for table, key in ((self.block, "blockDim"), (self.grid, "gridDim")):
                v = _val(table[i], env) if i < len(table) else 1
                if not isinstance(v, int):
                    return None
                k[f"{key}.{d}"] = v
        return k

    def elements(self, name: str, env: dict) -> int | None:
        dims = [_val(d, env) for d in self.shapes.get(name, [])]
        return math.prod(dims) if dims and all(isinstance(d, int) for d in dims) else None

    def problems(self, env: dict, size: str = "", memory: int | None = None) -> list[Problem]:
        out = self.launch_problems(env, size)
        if out:
            return out
        kenv = self.kernel_env(env)
        if kenv is None:
            return out
        f, A = self.ks.facts, self.ks.facts.atoms
        blk, grd = self.ks.block_bounds, self.ks.grid_bounds
        at = f" at size {size}" if size else ""
        for name, ptr in self.ks.pointers.items():
            n = self.elements(name, env)
            if n is None:
                continue
            hi, worst, low = None, None, None
            for u, _ in ptr.bounded:
                bounds = use_bounds(f, u, blk, grd)
                r = reach(u.index, bounds, A, kenv, exact=True)
                if r is None:
                    continue
                v = A.eval(r.end, kenv)
                if v is not None:
                    v += u.width - 1
                    if hi is None or v > hi:
                        hi, worst = v, (u, r, bounds)
                lo = reach(mul(u.index, const(-1)), bounds, A, kenv, exact=True)
                lv = A.eval(lo.end, kenv) if lo is not None else None
                if lv is not None and (low is None or 1 - lv < low[0]):
                    low = (1 - lv, u)
            if hi is not None and hi > n:
                u, r, bounds = worst
                used = {id(t.bound) for t in r.terms}
                every = all(id(b) in used for b in u.guards if b.kind in ("guard", "not"))  # no guard left out
                out.append(Problem("reads-past", name, f"`{u.text}` (line {u.line}) reaches element {hi - 1} of {name}, "
                                   f"which holds {n}{at}", every and self._attained(r, kenv)))
            if low is not None and low[0] < 0:
                out.append(Problem("before-start", name, f"`{low[1].text}` (line {low[1].line}) reaches element "
                                   f"{low[0]} of {name}, before its start{at}", False))
            if ptr.role in ("output", "inout"):
                out += self._unwritten(name, ptr, n, kenv, at)
        if memory is not None:
            total = sum((self.elements(a, env) or 0) * self.itemsize.get(a, 4) for a in self.shapes)
            if total > memory:
                out.append(Problem("memory", None, f"the buffers take {total / 2**30:.1f} GiB{at}; the device has "
                                   f"{memory / 2**30:.1f} GiB"))
        return out

    def launch_problems(self, env: dict, size: str = "") -> list[Problem]:
        at = f" at size {size}" if size else ""
        b = [_val(x, env) for x in self.block]
        g = [_val(x, env) for x in self.grid]
        if not all(isinstance(x, int) for x in b + g):
            return [Problem("launch", None, f"the grid or block does not evaluate to integers{at}")]
        if any(x < 1 for x in b + g):
            return [Problem("launch", None, f"the grid {g} or block {b} has a dimension below 1{at}")]
        if math.prod(b) > MAX_THREADS or any(x > lim for x, lim in zip(b, BLOCK_LIMITS)):
            return [Problem("launch", None, f"the block {b} is over the limits (1024 threads; 1024, 1024, 64){at}")]
        if any(x > lim for x, lim in zip(g, GRID_LIMITS)):
            return [Problem("launch", None, f"the grid {g} is over the limits (2^31 - 1, 65535, 65535){at}")]
        sh = _val(self.shared, env)
        if isinstance(sh, (int, float)) and sh > MAX_SHARED:
            return [Problem("launch", None, f"{sh:g} bytes of dynamic shared memory{at}, over a block's "
                                            f"{MAX_SHARED} (an H200's)")]
        for name, dims in self.shapes.items():
            vals = [_val(d, env) for d in dims]
            if not all(isinstance(v, int) and v >= 1 for v in vals):
                return [Problem("launch", name, f"the shape of {name} {dims} is not positive integers{at}")]
        return []

    def _margins(self, writes, n: int, top: int, kenv: dict) -> bool:
        """The elements left past the last write are no more than those every write leaves before its first
        (`out[i + RADIUS]` in an array of n + 2 * RADIUS): the kernel's margins, which no grid would write."""
        A = self.ks.facts.atoms
        low = None
        for u, _ in writes:
            first = {m: c for m, c in u.index.items() if not any(x.startswith(("threadIdx", "blockIdx")) for x in m)}
            v = A.eval(first, kenv) if first else 0
            if not isinstance(v, int):
                return False
            low = v if low is None else min(low, v)
        return bool(low) and 0 < n - 1 - top <= low

    def _unwritten(self, name: str, ptr, n: int, kenv: dict, at: str) -> list[Problem]:
        """Outputs the launch cannot reach: the highest element any write reaches, and each guarded coordinate
        of a write against how far the grid takes it."""
        f, A = self.ks.facts, self.ks.facts.atoms
        blk, grd = self.ks.block_bounds, self.ks.grid_bounds
        writes = [(u, r) for u, r in ptr.bounded if u.write]
        if not writes or any(u.index is None for u in ptr.uses if u.write):
            return []
        top, guarded = None, 0  # the highest element written with the launch, and as the guards alone allow
        for u, _ in writes:
            r = reach(u.index, use_bounds(f, u, blk, grd), A, kenv, exact=True)
            v = A.eval(r.end, kenv) if r is not None else None
            if v is None:
                return []
            top = max(top or 0, v + u.width - 1)
            g = reach(u.index, use_bounds(f, u, blk, grd, launch=False), A, kenv, exact=True)
            gv = A.eval(g.end, kenv) if g is not None else None
            guarded = None if guarded is None or gv is None else max(guarded, gv + u.width - 1)
        if top < (n if guarded is None else min(n, guarded)) and not self._margins(writes, n, top, kenv):
            return [Problem("unwritten", name, f"the grid leaves elements of {name} unwritten{at}: its writes reach "
                            f"at most {top} of {n} elements")]
        first = writes[0][0].index
        if len({poly_text(u.index) for u, _ in writes}) > 1 and all(
                all(not m or all(a.startswith("blockDim") for a in m) for m in add(u.index, first, -1))
                for u, _ in writes):
            return []  # writes at places a block apart (`Y[i]`, `Y[i + blockDim.x]`): together they reach `top`
        launch = blk + grd
        launch = launch + f.derived(launch)
        for u, r in writes:
            for t in r.terms:
                if t.bound.kind not in ("guard", "derived"):
                    continue
                rq = reach(t.bound.q, launch, A, kenv, exact=True)
                end = A.eval(rq.end, kenv) if rq is not None else None  # (None: a value not known at this size)
                top_q, want = (end - 1 if end is not None else None), A.eval(t.bound.u, kenv)
                if top_q is not None and want is not None and top_q < want and all(
                        not any(A.is_var(x) and x in A.stepped for x in m) for m in t.bound.q):
                    return [Problem("unwritten", name, f"`{poly_text(t.bound.q)}` goes up to {want} under "
                                    f"`{t.bound.text}` (line {t.bound.line}) but the grid takes it only to {top_q}, so "
                                    f"`{u.text}` leaves elements of {name} unwritten{at}")]
        return []

    def _attained(self, r, kenv: dict) -> bool:
        """The bound is reached: its parts bound disjoint indices, each up to its limit within the launch."""
        A = self.ks.facts.atoms
        seen: set = set()
        launch = self.ks.block_bounds + self.ks.grid_bounds
        for t in r.terms:  # disjoint in what they depend on: `idx` and `idx / (N * d)` are not
            names = {b for a in poly_atoms(t.bound.q) if A.is_var(a) for b in A.base_vars(a)}
            if names & seen:
                return False
            seen |= names
            if t.bound.kind in ("block", "grid"):
                continue
            rq = reach(t.bound.q, launch, A, kenv, exact=True)
            if rq is not None:
                top, want = A.eval(rq.end, kenv), A.eval(t.bound.u, kenv)
                if top is None or want is None or top - 1 < want:
                    return False
        return True


def reference_problem(ref_path: Path, function: str) -> str | None:
    """Why `FILE.py:FUNCTION` names no function (read without running it), else None."""
    try:
        tree = ast.parse(ref_path.read_text(errors="replace"), str(ref_path))
    except SyntaxError as e:
        return f"{ref_path.name}:{e.lineno}: syntax error: {e.msg}"
    except OSError as e:
        return f"cannot read {ref_path}: {e.strerror or e}"
    names = []
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in n.names]
    if function in names:
        return None
    funcs = [x for x in names if not x.startswith("_")]
    return f"{ref_path.name} has no function {function!r} (functions there: {', '.join(funcs) or 'none'})"


def device_memory() -> tuple[int, str]:
    """(bytes, where from): the GPU's memory through NVML when there is one, else 141 GiB (an H200's)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            h = pynvml.nvmlDeviceGetHandleByIndex(0)
            total = int(pynvml.nvmlDeviceGetMemoryInfo(h).total)
            return total, f"{pynvml.nvmlDeviceGetName(h)}"
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - no NVML, no driver, no GPU: the largest device this targets
        return 141 * 2**30, "no GPU found: an H200's 141 GiB assumed"



def check_spec(spec) -> tuple[list[str], list[str]]:
    """(errors, warnings) `spec check` adds to the loader's: a Python reference function that is not there,
    buffers over the device's memory, and what the analysis says about each kernel launch at every size
    (a proven read past a buffer or an output the grid leaves unwritten is an error)."""
    from ..analysis.extents import analyse
    from ..analysis.spelling import analysis_form
    from ..cachekey import CompileError, read_source
    from ..source import parse_source
    from .spec import ITEMSIZE, _params, ctype_dtype

    errors: list[str] = []
    warnings: list[str] = []
    ref = spec.reference or {}
    if ref.get("python"):
        why = reference_problem(Path(ref["python"]), ref.get("function", "reference"))
        if why:
            errors.append(f"[reference] python: {why}")
    mem, where = device_memory()
    sizes = list(spec.sizes) + list(spec.check_sizes)
    for size in spec.sizes:
        total = sum(spec.nbytes(a.name, size) for a in spec.args + spec.scratch if a.is_buffer)
        if total > mem:
            errors.append(f"size {size}: the buffers take {total / 2**30:.1f} GiB, more than the device's "
                          f"{mem / 2**30:.1f} GiB ({where})")
    try:
        src = parse_source(read_source(Path(spec.source_path)), str(spec.source_path))
    except CompileError:
        return errors, warnings
    steps = list(spec.kernel_steps)
    if ref.get("step") is not None and Path(ref.get("file", spec.source_path)) == Path(spec.source_path):
        steps.append(ref["step"])
    seen = set()
    for st in steps:
        k = src.kernel(st.kernel)
        if k is None:
            continue
        form = analysis_form(src.text, str(spec.source_path), k.name)  # (macros, helpers: as the inference reads)
        ksrc = parse_source(form, str(spec.source_path)) if form else src
        k = ksrc.kernel(st.kernel) or k
        try:
            ks = analyse(ksrc if ksrc.kernel(st.kernel) else src, k)
        except RecursionError:
            continue
        values, shapes, item = {}, {}, {}
        for p, a in zip(_params(k), st.args):
            arg = spec.arg(a)
            if not p.name:
                continue
            if p.is_pointer and arg is not None and arg.is_buffer:
                m = ctype_dtype(p.base_type)
                shapes[p.name] = list(arg.shape[:-1] if m and m[1] > 1 and len(arg.shape) > 1 else arg.shape)
                item[p.name] = ITEMSIZE.get(arg.dtype, 4)
            elif not p.is_pointer:
                values[p.name] = arg.value if arg is not None and arg.value is not None else a
        chk = Checker(ks, values, shapes, list(st.grid), list(st.block), item, shared=st.shared_bytes)
        for size in sizes:
            if st.when and not spec.runs_at(st, size):
                continue  # a step that does not run at this size (its `when`)
            for pr in chk.problems(spec.env(size), size):
                key = (st.kernel, pr.kind, pr.arg)
                if key in seen:
                    continue
                seen.add(key)
                text = f"{st.kernel}: {pr.message}"
                if pr.kind == "unwritten" or (pr.kind == "reads-past" and pr.proven):
                    errors.append(text + (" (the analysis proves it)" if pr.kind == "reads-past" else ""))
                else:
                    warnings.append(text + (" (the analysis cannot tell whether the kernel reaches it)"
                                            if pr.kind == "reads-past" else ""))
    return errors, warnings
