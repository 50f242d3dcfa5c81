"""Run a launch spec in the CPU emulator, as the GPU runtime runs it: inputs from the spec's fills (the
runtime's own `inputs.values`), outputs poisoned (0xFF bytes), the kernel's launches, then the reference
on the same inputs ([reference] kernel: the snapshot file with its own launch; or the Python reference),
and the outputs compared with the runtime's `check_outputs` at the spec's tolerance.

The emulator compiles device code only: `device_text` drops host functions (`main`, launch wrappers) and
system includes, and inlines quoted includes. `SpecRuns` puts many specs' kernels and references into one
emulator program (one g++ run).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from emu_run import Batch
from kernelpro.profilers.runtime.correctness import check_outputs, poison
from kernelpro.profilers.runtime.inputs import STORAGE, host_view, values
from kernelpro.profilers.source import parse_source, walk


def device_text(path: str | Path, seen: set | None = None) -> str:
    """The file's device code for the emulator: host functions blanked (line numbers kept), system
    includes dropped, quoted includes inlined."""
    path = Path(path)
    seen = seen if seen is not None else set()
    seen.add(path.resolve())
    out = []
    for line in host_blanked(path.read_text(), str(path)).split("\n"):
        m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
        if m and m.group(1) == "<":
            out.append("")
        elif m:
            inc = (path.parent / m.group(2)).resolve()
            out.append(device_text(inc, seen) if inc not in seen and inc.is_file() else "")
        else:
            out.append(line)
    return "\n".join(out)


def host_blanked(text: str, path: str = "k.cu") -> str:
    """The text with its host functions (and explicit instantiations of them) blanked, line numbers kept."""
    src = parse_source(text, path)
    data = bytearray(src.data)
    cuts = []
    for n in walk(src.root):
        if n.type == "template_instantiation" and "__global__" not in src.node_text(n) and not any(
                re.search(rf"\b{re.escape(k.name)}\s*<", src.node_text(n)) for k in src.kernels):
            cuts.append((n.start_byte, n.end_byte))  # `template void launch<float>(...);`: a host function's
            continue
        if n.type != "function_definition":
            continue
        quals = {c.type for c in n.children}
        if "__global__" in quals or "__device__" in quals:
            continue
        up = n.parent
        while up is not None and up.type != "function_definition":
            up = up.parent
        if up is not None:  # a statement the parser reads as a nested definition (`CUDA_KERNEL_LOOP(i, n) { .. }`)
            continue
        outer = n
        while outer.parent is not None and outer.parent.type in ("template_declaration", "linkage_specification"):
            outer = outer.parent  # `template <...>` and `extern "C"` go with it
        cuts.append((outer.start_byte, outer.end_byte))
    for a, b in cuts:
        for i in range(a, b):
            if data[i] not in (10,):
                data[i] = 32
    return data.decode("utf-8", errors="replace")


def _scalar(spec, a, env):
    from kernelpro.profilers.runtime.expr import parse_expr
    v = parse_expr(a.value).evaluate(env)
    if a.dtype in ("float32", "float64", "float16", "bfloat16"):
        return float(v)
    return int(v)


@dataclass
class SpecRun:
    """One spec's kernel and reference, as entries of a shared emulator program."""
    spec: object
    kernel_name: str  # with the template arguments of a template kernel
    entries: list = field(default_factory=list)  # the batch entries of the kernel and of the reference

    def items(self) -> list[tuple[str, str]]:
        ref = self.spec.reference
        text = device_text(self.spec.source_path)
        items = [(text, _in_namespaces(text, self.spec.kernel) + self.kernel_name)]
        if ref.get("kernel"):
            name = ref["kernel"] + self.kernel_name[len(self.spec.kernel):]
            rtext = device_text(ref["file"])
            items.append((rtext, _in_namespaces(rtext, ref["kernel"]) + name))
        return items


def _in_namespaces(text: str, kernel: str) -> str:
    """`gram::` for a kernel defined in `namespace gram { ... }` (the emulator names it from outside)."""
    src = parse_source(text)
    k = src.kernel(kernel)
    out, n = [], k.node if k is not None else None
    while n is not None:
        if n.type == "namespace_definition" and n.child_by_field_name("name") is not None:
            out.insert(0, src.node_text(n.child_by_field_name("name")) + "::")
        n = n.parent
    return "".join(out)


class SpecRuns:
    def __init__(self, runs: list[SpecRun], workdir: str):
        items, where = [], {}
        for r in runs:  # a reference still equal to its kernel shares the kernel's entry
            r.entries = []
            for item in r.items():
                if item not in where:
                    where[item] = len(items)
                    items.append(item)
                r.entries.append(where[item])
        self.batch = Batch(items, workdir)
        self.runs = runs

    def check(self, run: SpecRun, size: str, seed: int = 0):
        """(Check, outputs, reference outputs) of one size of one spec."""
        spec = run.spec
        env = spec.env(size)
        bufs, scalars, views, dtypes, shapes = {}, {}, {}, {}, {}
        for i, a in enumerate(spec.args):
            if a.value is not None:
                scalars[a.name] = _scalar(spec, a, env)
                continue
            shape = [int(x) for x in spec.shape(a.name, size)]
            count = math.prod(shape)
            if a.output and not a.fill:
                arr = poison(np.empty(count, dtype=STORAGE[a.dtype]))
            else:
                arr = np.ascontiguousarray(values(np, seed * 1000 + i, a.fill, a.dtype, count))
            bufs[a.name], dtypes[a.name], shapes[a.name] = arr, a.dtype, shape
        for s in spec.scratch:
            count = math.prod(int(x) for x in spec.shape(s.name, size))
            bufs[s.name] = poison(np.empty(count, dtype=STORAGE[s.dtype]))
        ref_bufs = {k: v.copy() for k, v in bufs.items()}
        outs = self._launches(run, run.entries[0], spec.launches, bufs, scalars, env, size)
        got = {a.name: host_view(outs[a.name], a.dtype, shapes[a.name]) for a in spec.outputs}
        ref = spec.reference
        if ref.get("kernel"):
            routs = self._launches(run, run.entries[1], [ref["step"]], ref_bufs, scalars, env, size)
            want = {a.name: host_view(routs[a.name], a.dtype, shapes[a.name]) for a in spec.outputs}
        elif ref.get("python"):
            from kernelpro.profilers.runtime.spec import load_reference
            inputs = {a.name: host_view(ref_bufs[a.name], a.dtype, shapes[a.name]) for a in spec.inputs}
            want = load_reference(spec)(inputs, env)
        else:
            want = None
        tol = spec.tolerance(size)
        poisoned = {a.name: not a.fill for a in spec.outputs}
        chk = check_outputs(got, want, tol.rtol, tol.atol, dtypes, poisoned, atol_rms=tol.atol_rms, note=tol.note)
        return chk, got, want

    def _launches(self, run, index, steps, bufs, scalars, env, size):
        spec = run.spec
        for st in steps:
            if st.memset:
                bufs[st.memset].view(np.uint8)[:] = st.memset_value
                continue
            call = []
            for name in st.args:
                if name in bufs:
                    call.append(bufs[name])
                elif name in scalars:
                    call.append(scalars[name])
                else:
                    from kernelpro.profilers.runtime.expr import parse_expr
                    call.append(parse_expr(name).evaluate(env))
            grid = spec.grid(st, size)
            block = spec.block(st, size)
            shared = spec.eval_int(st.shared_bytes, size)
            res = self.batch.run(index, call, grid, block, shared_bytes=shared, timeout=300)
            for name, r in zip(st.args, res):
                if r is not None and name in bufs:
                    bufs[name] = r.reshape(-1)
        return bufs


def check_spec(spec, kernel_name: str | None = None, workdir: str | None = None, sizes=None) -> list:
    """[(size, Check)] of a spec in the emulator (its smallest size and its off-by-one sizes by default)."""
    import tempfile

    run = SpecRun(spec, kernel_name or spec.kernel)
    runs = SpecRuns([run], workdir or tempfile.mkdtemp(prefix="kp-spec-emu-"))
    if sizes is None:
        sizes = smallest_sizes(spec)
    return [(s, runs.check(run, s)[0]) for s in sizes]


def smallest_sizes(spec) -> list[str]:
    """The spec's smallest size and its off-by-one sizes (what the emulator can afford)."""
    def elements(s):
        return sum(math.prod(spec.shape(a.name, s)) for a in spec.args if a.is_buffer)
    return [min(spec.sizes, key=elements)] + list(spec.check_sizes)

