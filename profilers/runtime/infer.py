"""Launch specs inferred from a kernel and the host code beside it (`kernelpro spec init`).

Shapes come from the shared analysis (analysis/extents.py: each pointer's highest index under the
kernel's guards and loops, its strides giving the dimensions), element types through typedefs and
template arguments, inputs and outputs from the reads and writes. Sizes, the grid and the block come
from a launch in the host code (analysis/host.py: its arguments, `dim3`s, `cudaMalloc` byte counts,
`#define`s), else from how the threads map onto the outputs, with default sizes: a small one for
correctness (checked with its off-by-one neighbours where the kernel's guards allow them) and a large
one that takes about 100 us. The reference is the kernel as written, snapshotted beside the spec.

Every value is a `Guess`: the value, where it came from, and whether it is a default or a guess
(`guess`), which the TOML marks `GUESS` and `--json` reports.
"""
from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.affine import atom as katom
from ..analysis.extents import DIMS, KernelShapes, Reach, Term, analyse, gathers
from ..analysis.spelling import analysis_form, line_map
from ..analysis.mapping import axes, dynamic_shared, row_width, rows_loop_step, shared_block, thread_dims
from ..analysis.shapes import dims
from ..analysis.host import Host, HostLaunch, device_names, host_files
from ..analysis.types import table_for
from ..cachekey import CompileError, read_source
from ..source import Kernel, Param, parse_source
from . import symbolic as sym
from .expr import FUNCTIONS

SPEC_SUFFIX = ".kernelpro.toml"
TARGET_S = 100e-6  # the large size takes about this long
DRAM_BPS = 3.0e12  # the size model: bytes at an H200's bandwidth ...
ACCESS_RATE = 1.5e12  # ... or accesses at what a plain kernel sustains, whichever is slower
SMALL_THREADS = 16384  # the small size stays cheap for the CPU emulator and the checks
SMALL_WORK = 1e6
SMALL_ONE = (1000, 777, 501, 333, 201, 129, 97, 65, 45, 33, 17)
SMALL_MANY = ((37, 45, 29, 23, 19, 17, 13, 11), (21, 19, 17, 13, 11, 9, 7, 5), (11, 9, 7, 5, 5, 3, 3, 3))
MULTIPLES = (256, 512, 1024, 128, 64, 2048, 4096, 32)
FLOATS = {"eps": "1e-5", "epsilon": "1e-5", "alpha": "1.5", "beta": "0.5", "scale": "0.5", "gamma": "1.5",
          "momentum": "0.9", "lr": "0.001", "learning_rate": "0.001", "dt": "0.01"}


def _declares_struct(text: str, name: str) -> bool:
    """The file declares `name` as a struct or class (`struct Matrix {...}`, `typedef struct {...} Matrix;`)."""
    n = re.escape(name.split("::")[-1])
    return bool(re.search(rf"(?<!enum )\b(?:struct|class)\s+{n}\b", text) or
                re.search(rf"typedef\s+struct\s*\w*\s*\{{[^{{}}]*\}}\s*{n}\s*;", text))


class InferError(Exception):
    """No spec can be inferred (no such kernel, unreadable file)."""


@dataclass
class Guess:
    value: object
    why: str
    guess: bool = False

    def to_json(self) -> dict:
        return {"value": self.value, "from": self.why, "guess": self.guess}


@dataclass
class ArgPlan:
    name: str
    buffer: bool
    dtype: Guess | None = None
    shape: Guess | None = None  # list of expressions
    role: Guess | None = None  # input, output, inout
    fill: Guess | None = None
    value: Guess | None = None  # scalars

    def to_json(self) -> dict:
        out = {"name": self.name, "kind": "buffer" if self.buffer else "scalar"}
        for k in ("dtype", "shape", "role", "fill", "value"):
            g = getattr(self, k)
            if g is not None:
                out[k] = g.to_json()
        return out


@dataclass
class Plan:
    """An inferred launch spec, every value with where it came from."""
    kernel: str
    source: Path
    spec_path: Path
    snapshot: Path
    instantiation: str | None  # `k<float, 256>` for a template kernel
    sizes: dict[str, dict[str, int]]
    size_why: dict[str, str]
    variables: dict[str, Guess]  # size variable -> where it came from (its value: the host's, or None)
    args: list[ArgPlan]
    grid: Guess
    block: Guess
    shared: Guess
    off_by_one: Guess
    notes: list[str] = field(default_factory=list)
    host: bool = False  # sizes or the launch came from host code
    python_reference: str | None = None  # "FILE.py:FUNCTION" instead of the snapshot
    template: tuple[str, ...] = ()  # the spec's `template = [...]`: where the file instantiates the kernel more than once

    @property
    def guesses(self) -> list[str]:
        out = [f"size {v}: {g.why}" for v, g in self.variables.items() if g.guess]
        out += [f"sizes {n}: {w}" for n, w in self.size_why.items() if "GUESS" in w]
        for a in self.args:
            for k in ("dtype", "shape", "role", "fill", "value"):
                g = getattr(a, k)
                if g is not None and g.guess:
                    out.append(f"{a.name} {k}: {g.why}")
        for k in ("grid", "block", "shared"):
            g = getattr(self, k)
            if g.guess:
                out.append(f"launch {k}: {g.why}")
        return out

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "source": str(self.source), "spec": str(self.spec_path),
                "snapshot": str(self.snapshot), "instantiation": self.instantiation,
                "sizes": self.sizes, "size_from": self.size_why,
                "variables": {k: g.to_json() for k, g in self.variables.items()},
                "args": [a.to_json() for a in self.args],
                "launch": {"grid": self.grid.to_json(), "block": self.block.to_json(), "shared_bytes": self.shared.to_json()},
                "reference": ({"python": self.python_reference} if self.python_reference else
                              {"kernel": self.kernel, "file": str(self.snapshot),
                               "from": "the kernel as written, copied when the spec was made"}),
                "off_by_one": self.off_by_one.to_json(), "notes": self.notes, "guessed": self.guesses}

    def toml(self, reference: bool = True) -> str:
        """The spec's text; reference=False leaves the kernel-as-reference out (no snapshot to name)."""
        from .spectext import toml
        return toml(self, reference)


def _q(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _var(name: str) -> str:
    return name if name.isidentifier() and name not in FUNCTIONS and not keyword.iskeyword(name) else name + "_"


def _mark(g: Guess) -> str:
    return ("GUESS: " if g.guess else "") + g.why


# --- where the files go ------------------------------------------------------------------------------
def spec_path_for(cu: Path, kernel: str) -> Path:
    """`<stem>.kernelpro.toml` beside a .cu file (`<stem>.<kernel>.kernelpro.toml` for a header, or where the
    plain name is another kernel's spec)."""
    plain = cu.with_name(cu.stem + SPEC_SUFFIX)
    if cu.suffix != ".cu":
        return cu.with_name(f"{cu.stem}.{kernel}{SPEC_SUFFIX}")
    if plain.is_file():
        m = re.search(r'^\s*kernel\s*=\s*"([^"]*)"', plain.read_text(errors="replace"), re.M)
        if m and m.group(1) != kernel:
            return cu.with_name(f"{cu.stem}.{kernel}{SPEC_SUFFIX}")
    return plain


def snapshot_path_for(spec: Path, cu: Path, kernel: str) -> Path:
    """The copy of the kernel's file the reference runs: beside the spec (its includes resolve as the file's)."""
    return spec.with_name(f"{cu.stem}.{kernel}.reference{cu.suffix}")


# --- binding the kernel's names to spec expressions ----------------------------------------------------
class _Unbound(Exception):
    pass


class _Binder:
    """Kernel atoms (parameters, blockDim, gridDim, template values) as spec polynomials."""

    def __init__(self, ks: KernelShapes):
        self.A = ks.facts.atoms
        self.table: dict[str, sym.Poly] = {}

    def atom(self, a: str) -> sym.Poly:
        if a in self.table:
            return self.table[a]
        note = self.A.notes.get(a)
        if note is None:
            raise _Unbound(a)
        op, x, y = note
        if op == "load":
            raise _Unbound(a)
        X, Y = self.poly(x), self.poly(y)
        if op in ("/", "floor"):
            return sym.floordiv(X, Y)
        if op == "%":
            return sym.mod(X, Y)
        if op == "min":
            return sym.pmin(X, Y)
        if op == "max":
            return sym.pmax(X, Y)
        if op in ("<<", ">>") and sym.number(Y) is not None and 0 <= sym.number(Y) < 63:
            f = sym.const(2 ** sym.number(Y))
            return sym.mul(X, f) if op == "<<" else sym.floordiv(X, f)
        raise _Unbound(a)

    def poly(self, p: dict) -> sym.Poly:
        out: sym.Poly = {}
        for m, c in p.items():
            term = sym.const(c)
            for a in m:
                term = sym.mul(term, self.atom(a))
            out = sym.add(out, term)
        return out


class _Eval:
    """extents.dims' evaluator for spec polynomials."""

    @staticmethod
    def eval(p, env):
        return sym.evaluate(p, env)


# --- the inference -------------------------------------------------------------------------------------
def infer_spec(cu_path: str | Path, kernel: str | None = None, text: str | None = None,
               spec_path: Path | None = None, python_reference: str | None = None) -> Plan:
    """The launch spec of `kernel` (None: the file's only kernel) in `cu_path` (its unsaved `text`), to be
    written at `spec_path` (default `spec_path_for`); `python_reference` ("FILE.py:FUNCTION", relative to the
    spec) replaces the kernel-as-reference."""
    cu = Path(cu_path)
    if text is None:
        try:
            text = read_source(cu)
        except CompileError as e:
            raise InferError(str(e)) from None
    files = host_files(str(cu), text)
    src = files[0]
    if kernel is None:
        if len(src.kernels) != 1:
            have = ", ".join(x.name for x in src.kernels)
            raise InferError(f"{len(src.kernels)} kernels here ({have}): name one with --kernel" if src.kernels
                             else "no __global__ kernel in this file")
        kernel = src.kernels[0].name
    k = src.kernel(kernel)
    if k is None:
        have = ", ".join(x.name for x in src.kernels) or "none"
        raise InferError(f"kernel {kernel!r} is not in {cu} (kernels there: {have})")
    # `A3(a, i, j, k)`, `at(A, r, k, K)` read as the access they stand for; `int r = .., c = ..;` split
    expanded = analysis_form(src.text, str(cu), kernel)
    lines = {}
    if expanded is not None:  # (the analysis only: the snapshot is the file as written)
        lines = line_map(src.text, expanded)
        src = files[0] = parse_source(expanded, str(cu))
        k = src.kernel(kernel)
    spec_path = spec_path or spec_path_for(cu, kernel)
    plan = _Inference(cu, src, files, k, spec_path).run()
    if lines:
        _relined(plan, lines, cu.name)
    plan.python_reference = python_reference
    return plan


def _relined(plan: Plan, lines: dict, name: str) -> None:
    """The plan's explanations with the lines of the text the analyses read (`line 23`, `file.cu:58`) given as the
    file's own."""
    def fix(t: str) -> str:
        t = re.sub(r"\bline (\d+)", lambda m: f"line {lines.get(int(m.group(1)), m.group(1))}", t)
        return re.sub(rf"\b{re.escape(name)}:(\d+)", lambda m: f"{name}:{lines.get(int(m.group(1)), m.group(1))}", t)
    guesses = [plan.grid, plan.block, plan.shared, plan.off_by_one, *plan.variables.values()]
    guesses += [getattr(a, f) for a in plan.args for f in ("dtype", "shape", "role", "fill", "value")]
    for g in guesses:
        if g is not None:
            g.why = fix(g.why)
    plan.size_why = {k: fix(v) for k, v in plan.size_why.items()}
    plan.notes = [fix(n) for n in plan.notes]


class _Inference:
    def __init__(self, cu: Path, src, files, k: Kernel, spec_path: Path):
        self.cu, self.src, self.files, self.k, self.spec_path = cu, src, files, k, spec_path
        self.ks = analyse(src, k)
        self.ranges: dict[str, str] = {}  # an int array whose values index another -> the size of their range
        self.variables: dict[str, Guess] = {}
        used = {p.name for p in k.params}
        for arr in gathers(self.ks):  # an embedding's ids: their range is a size of its own (V)
            name = next(n for n in ("V", "R", "NR", "V2", "R2") if n not in used and n not in self.ranges.values())
            self.ranges[arr] = name
            targets = [p.name for p in self.ks.pointers.values() if p.reach is None and p.unbounded is not None]
            self.variables[name] = Guess(None, f"the range of the values of {arr}, which index "
                                               f"{', '.join(targets)}", True)
        if self.ranges:
            self.ks = analyse(src, k, {a: katom(n) for a, n in self.ranges.items()})
        self.A = self.ks.facts.atoms
        self.bind = _Binder(self.ks)
        for n in self.ranges.values():
            self.bind.table[n] = sym.name(n)
        self.types = table_for(src)
        self.notes: list[str] = []
        self.host_values: dict[str, int] = {}
        self.launch: HostLaunch | None = None
        self.params = k.signature or k.params
        self.multiple: dict[str, int] = {}  # size variable -> a multiple the shapes need
        self.free_taken: set[str] = set()  # sizes already standing for a grid dimension
        self.template_why = ""  # where a template kernel's arguments came from

    # -- the steps ------------------------------------------------------------------------------------
    def run(self) -> Plan:
        try:
            launches = Host(self.files, device_names(self.src, self.k.body)).launches(self.k.name)
        except (RecursionError, AttributeError, ValueError, TypeError) as e:  # host code the reader trips on
            launches = []
            self.notes.append(f"the host code was not followed ({type(e).__name__}); the launch is inferred from "
                              f"the kernel")
        self.launch = launches[0] if launches else None
        if len(launches) > 1:
            self.notes.append(f"{len(launches)} launches of {self.k.name} in the host code; the first "
                              f"({Path(self.launch.file).name}:{self.launch.line}) is used")
        self.tmap, inst = self.templates()
        grid, block, shared = self.launch_config()
        args = self.arguments()
        sizes, size_why, off = self.sizes(args, grid, block, shared)
        for a in args:  # a gather's ids: values below the smallest size's range
            if a.name in self.ranges and a.fill is not None:
                r = self.ranges[a.name]
                hi = min(env.get(r, 16) for env in sizes.values())
                a.fill = Guess(f"randint:0:{hi}", f"its values index other buffers: below {r} at every size", True)
        snapshot = snapshot_path_for(self.spec_path, self.cu, self.k.name)
        plan = Plan(self.k.name, self.cu, self.spec_path, snapshot, inst, sizes, size_why, self.variables, args,
                    grid, block, shared, off, self.notes, host=self.launch is not None)
        insts = {tuple(" ".join(a.split()) for a in ln.template_args) for ln in launches if ln.template_args}
        insts |= {tuple(a) for a in self.src.explicit_instantiations(self.k.name)}
        if self.tmap and (len(insts) > 1 or self.launch is not None and self.launch.outer_template):
            # the runtime launches one instantiation: the one read (`BLOCK` as 256; a host template's first)
            plan.template = tuple(str(self.src.constants.get(self.tmap[n], self.tmap[n]))
                                  for _, n in self.k.template_params)
        return plan

    # -- templates ------------------------------------------------------------------------------------
    def templates(self) -> tuple[dict[str, str], str | None]:
        tps = self.k.template_params
        if not tps:
            return {}, None
        args: list[str] = list(self.launch.template_args) if self.launch is not None else []
        why = f"the launch at {Path(self.launch.file).name}:{self.launch.line}" if args else ""
        if not args:
            explicit = self.src.explicit_instantiations(self.k.name)
            if explicit:
                args, why = explicit[0], "the explicit instantiation in the file"
        tmap: dict[str, str] = {}
        for i, (kind, name) in enumerate(tps):
            if i < len(args):
                tmap[name] = args[i]
            elif kind == "type" and self.launch is not None:  # deduced from a pointer argument's host type
                for j, p in enumerate(self.params):
                    if p.is_pointer and self.types.resolve(p.base_type) == name and j in self.launch.arg_types:
                        tmap[name] = self.types.resolve(self.launch.arg_types[j])
                        why = why or f"the types of the arguments at {Path(self.launch.file).name}:{self.launch.line}"
                        break
        missing = [n for _, n in tps if n not in tmap]
        if missing:
            for kind, name in tps:
                if name in missing:
                    tmap[name] = "float" if kind == "type" else "256"
            self.notes.append(f"{self.k.name} is a template and the file has no instantiation of it for "
                              f"{', '.join(missing)}; GUESS {', '.join(f'{n} = {tmap[n]}' for n in missing)}. The "
                              f"compiled file has no kernel to run until it instantiates one (a launch, or "
                              f"`template __global__ void {self.k.name}<...>(...);`)")
        for kind, name in tps:
            if kind == "value":
                v = _int(tmap[name])
                self.bind.table[name] = sym.const(v) if v is not None else sym.name(_var(name))
        inst = f"{self.k.name}<{', '.join(tmap[n] for _, n in tps)}>"
        self.template_why = why if not missing else ""
        return tmap, inst

    # -- grid, block, shared ----------------------------------------------------------------------------
    def launch_config(self) -> tuple[Guess, Guess, Guess]:
        L = self.launch
        for i, p in enumerate(self.params):  # scalar parameters first: grid expressions may use them
            if not p.is_pointer and p.name:
                self.bind.table[p.name] = self.scalar_poly(i, p)
        if L is not None and L.grid and L.block and all(v.text for v in L.grid + L.block):
            where = f"the launch at {Path(L.file).name}:{L.line}: {L.written}"
            g = [self.host_poly(v.text) for v in L.grid]
            b = [self.host_poly(v.text) for v in L.block]
            default = {1: (256,), 2: (16, 16)}.get(len(b), (8, 8, 4, 1))
            fixed: dict[str, int] = {}  # a block size the host takes at run time (`dim3 block(bs, bs)`): one value
            guess = {}
            for i, x in enumerate(b):  # a block the host reads at run time: its value there, else a default
                if x is not None and sym.number(x) is None:
                    env = {n: self.host_values[n] for n in sym.names(x) if n in self.host_values}
                    v = sym.evaluate(x, env)
                    if not (isinstance(v, int) and 0 < v <= 1024):
                        v = default[min(i, len(default) - 1)]
                        if sym.names(x) and sym.render(x) in sym.names(x):  # a name: the same value in every use
                            fixed[sym.render(x)] = min(v, fixed.get(sym.render(x), v))
                    guess[i] = v
            for i, v in guess.items():  # (the smallest default of a name, in every dimension it sizes)
                v = fixed.get(sym.render(b[i]), v)
                b[i] = sym.const(v)
                self.notes.append(f"the launch's block {L.block[i].why} is not a constant; GUESS {v}")
            if fixed:  # the grid written with the block's size reads the same value
                g = [None if x is None else sym.parse(self._put(sym.render(x), fixed)) for x in g]
                for n in fixed:
                    self.variables.pop(n, None)
            g, launch_only = self._launch_constants(L, g)
            if all(x is not None for x in g + b):
                for i, d in enumerate(DIMS):
                    self.bind.table[f"gridDim.{d}"] = g[i] if i < len(g) else sym.const(1)
                    self.bind.table[f"blockDim.{d}"] = b[i] if i < len(b) else sym.const(1)
                shared = sym.const(0)
                if L.shared is not None:
                    shared = self.host_poly(L.shared.text) if L.shared.text else None
                    if shared is not None and launch_only:
                        shared = sym.parse(self._put(sym.render(shared), launch_only))
                    if shared is None:
                        self.notes.append(f"the dynamic shared memory of the launch ({L.shared.why}) is not followed; "
                                          f"GUESS 0")
                        shared = sym.const(0)
                    shared = self.constant_of_program(shared, g)
                return (Guess([sym.render(x) for x in g], f"from {where}"),
                        Guess([sym.render(x) for x in b], f"from {where}"),
                        Guess(sym.render(shared), f"from {where}" if L.shared else "none at the launch"))
            self.notes.append(f"the launch at {Path(L.file).name}:{L.line} has a grid or block the analysis does "
                              f"not follow; inferred from the kernel instead")
        elif L is not None:
            bad = next((v.why for v in (L.grid or []) + (L.block or []) if not v.text), "")
            self.notes.append(f"the launch at {Path(L.file).name}:{L.line} ({L.written}) is not followed ({bad}); "
                              f"the grid and block are inferred from the kernel instead")
        return self.mapping()

    def mapping(self) -> tuple[Guess, Guess, Guess]:
        """Grid and block from how the threads map onto the outputs (no launch to read)."""
        ax = axes(self.ks)
        used = thread_dims(self.ks) | {a.thread for a in ax.values() if a.thread}
        nd = max([DIMS.index(d) + 1 for d in used] or [1])
        block = list({1: (256,), 2: (16, 16), 3: (8, 8, 4)}[nd])
        bwhy = f"a default block of {math.prod(block)} threads"
        guessed = True
        sb = shared_block(self.ks)
        if sb is not None and len(sb) <= nd:
            block[:len(sb)] = sb
            bwhy, guessed = "from the shared array the threads index", False
        elif self.k.launch_bounds and nd == 1:
            block = [self.k.launch_bounds[0]]
            bwhy, guessed = "from __launch_bounds__", False
        whys = {}  # thread dimension -> why its block is what it is
        for a in sorted(ax.values(), key=lambda a: bool(a.quotient_of)):  # a quotient's rows after the remainder
            if a.quotient_of and a.thread:  # `blockIdx.y * T + threadIdx.x / D`: T rows of D threads
                if a.quotient_of * a.fixed_block * math.prod(block) // block[DIMS.index(a.thread)] <= 1024:
                    block[DIMS.index(a.thread)] = a.quotient_of * a.fixed_block
                    whys[a.thread] = (f"from `blockIdx.{a.dim} * {a.fixed_block} + threadIdx.{a.thread} / "
                                      f"{a.quotient_of}` in the index ({a.fixed_block} rows of {a.quotient_of} threads)")
                    guessed = False
                continue
            at = DIMS.index(a.thread) if a.thread else None
            if a.fixed_block and sb is not None and at is not None and at < len(sb) and a.fixed_block != sb[at] and \
                    a.fixed_block % sb[at] == 0:
                continue  # `blockIdx.x * (blockSize * 2) + tid` beside `sdata[blockSize]`: the block is the array's,
                # each thread several elements of the block's reach
            if a.fixed_block and a.thread and a.fixed_block * math.prod(block) // block[DIMS.index(a.thread)] <= 1024:
                rows = rows_loop_step(self.ks, a)  # a TILE x ROWS loop: ROWS threads take the tile's TILE rows
                block[DIMS.index(a.thread)] = rows[1] if rows else a.fixed_block
                whys[a.thread] = (f"from `blockIdx.{a.dim} * {a.fixed_block}` in the index"
                                  + (f" and the loop over `{rows[0]}` in steps of {rows[1]} (each thread "
                                     f"{a.fixed_block // rows[1]} rows of the tile)" if rows else ""))
                guessed = False
        if whys:
            bwhy = "; ".join(whys.values())
        for i, d in enumerate(DIMS):
            self.bind.table[f"blockDim.{d}"] = sym.const(block[i]) if i < len(block) else sym.const(1)
        grid, why, guessed_grid, free_threads, free_dim = [], [], False, None, None
        for i, d in enumerate(DIMS[:max([DIMS.index(x) + 1 for x in ax] or [1])]):
            a = ax.get(d)
            if a is None:
                grid.append(sym.const(1))
                continue
            per = a.fixed_block or (block[DIMS.index(a.thread)] * a.cyclic if a.thread else 1)
            if a.count is not None:
                try:
                    c = sym.cdiv(self.bind.poly(a.count[0]), sym.const(a.count[1]))
                except _Unbound:
                    c = None
                if c is not None:
                    grid.append(sym.cdiv(c, sym.const(per)) if a.mode == "threads" else c)
                    what = "one thread" if a.mode == "threads" else "one block"
                    unit = f"{what} per {a.count[1]} elements" if a.count[1] > 1 else f"{what} per element"
                    why.append(f"{d}: {unit} under {a.why}")
                    continue
            g = katom(f"blockIdx.{d}") if a.mode == "blocks" else {
                (f"blockIdx.{d}", f"blockDim.{a.thread}"): a.cyclic, (f"threadIdx.{a.thread}",): 1}
            if a.fixed_block:
                g = {(f"blockIdx.{d}",): a.fixed_block, (f"threadIdx.{a.thread}",): 1}
            rw = row_width(self.ks, g)
            if rw is not None:
                try:
                    c = self.bind.poly(rw[0])
                except _Unbound:
                    c = None
                if c is not None:
                    guessed_grid = True
                    grid.append(sym.cdiv(c, sym.const(per * a.step)) if a.mode == "threads" else c)
                    why.append(f"{d}: nothing bounds blockIdx.{d}; taken to move within rows of {sym.render(c)} "
                               f"(`{rw[1].text}`, line {rw[1].line})")
                    continue
            # a second dimension nothing bounds takes the first one's size: a kernel that bounds neither reads its
            # sizes from the grid (`width = gridDim.x * TILE`), and a square grid is the one such kernels that read a
            # matrix both ways (a transpose) cover whole (a non-square one leaves outputs unwritten)
            t = free_threads if a.mode == "threads" and free_threads else self.free_variable(a.mode)
            if a.mode == "threads":
                self.multiple[t] = math.lcm(self.multiple.get(t, 1), per * a.step)
                grid.append(sym.cdiv(sym.name(t), sym.const(per * a.step)))
                guessed_grid = True
                why.append(f"{d}: nothing bounds blockIdx.{d}; {t} threads" +
                           (f" ({a.step} elements each)" if a.step > 1 else "") +
                           (f" (as many as along {free_dim}: a square grid)" if t == free_threads else ""))
                free_threads, free_dim = free_threads or t, free_dim or d
            else:
                grid.append(sym.name(t))
                guessed_grid = True
                why.append(f"{d}: nothing bounds blockIdx.{d}; {t} blocks (one per row)")
        for i, d in enumerate(DIMS):
            self.bind.table[f"gridDim.{d}"] = grid[i] if i < len(grid) else sym.const(1)
        return (Guess([sym.render(x) for x in grid], "no launch in the host code; " + ("; ".join(why) or "one block"),
                      guessed_grid),
                Guess(block, bwhy, guessed), self.shared_guess())

    def shared_guess(self) -> Guess:
        """The dynamic shared memory an `extern __shared__` array needs, from its indices (no launch to read)."""
        ds = dynamic_shared(self.ks)
        if ds is None:
            return Guess("0", "no launch in the host code and no extern __shared__ array: none")
        size, end, text, complete = ds
        try:
            n = self.bind.poly(end) if end is not None else None
        except _Unbound:
            n = None
        if n is None:
            threads = sym.const(math.prod(sym.number(self.bind.table[f"blockDim.{d}"]) or 1 for d in DIMS))
            return Guess(sym.render(sym.mul(threads, sym.const(size))),
                         f"one element of the extern __shared__ array per thread (`{text}` is not bounded)", True)
        return Guess(sym.render(sym.mul(n, sym.const(size))), f"from the index `{text}` of the extern __shared__ "
                                                               f"array under the block's size" +
                     ("" if complete else " (some of its indices are not followed)"), not complete)

    def free_variable(self, mode: str) -> str:
        """A size for a grid dimension nothing bounds: an int parameter no index or guard uses, else n (rows)."""
        used = set()
        for p in self.ks.pointers.values():
            for u in p.uses:
                for poly in [u.index or {}] + [b.u for b in u.guards] + [b.q for b in u.guards]:
                    used |= {a for m in poly for a in m}
        ints = [p.name for p in self.params if not p.is_pointer and p.name and self.is_int(p)]
        free = [n for n in ints if n not in used and _var(n) not in self.multiple and _var(n) not in self.free_taken]
        prefer = [n for n in free if re.fullmatch(r"(?i)n|size|len(gth)?|count|num\w*|total\w*|rows?|\w*_?n|b", n)]
        fresh = next(n for n in ("n", "rows", "m", "n2", "rows2") if n not in self.free_taken and n not in ints)
        name = _var((prefer or free or [fresh])[0])
        self.free_taken.add(name)
        if name not in self.variables:
            self.variables[name] = Guess(None, "the threads of a grid dimension nothing in the kernel bounds", True)
        return name

    def is_int(self, p: Param) -> bool:
        from .spec import ctype_dtype
        m = ctype_dtype(self.types.resolve(self.tmap.get(self.types.resolve(p.base_type), p.base_type)))
        return m is not None and m[0] not in ("float32", "float64", "float16", "bfloat16")

    # -- scalars --------------------------------------------------------------------------------------
    def scalar_poly(self, i: int, p: Param) -> sym.Poly:
        L = self.launch
        if L is not None and i < len(L.args) and L.args[i].text and not L.args[i].is_float:
            poly = self.host_poly(L.args[i].text)
            if poly is not None:
                return poly
        name = _var(p.name)
        if name not in self.variables:
            self.variables[name] = Guess(None, f"the parameter {p.name} of {self.k.name}", L is None)
        return sym.name(name)

    def constant_of_program(self, e: sym.Poly, grid: list) -> sym.Poly:
        """e at the host's values where none of its names sizes the problem (no scalar argument or grid reads it):
        `shmem = 2 * TS * TS * sizeof(float)` with `const int TS = 16` is 2048 bytes, not a size to choose."""
        names = sym.names(e)
        used = set().union(*[sym.names(v) for n, v in self.bind.table.items() if not n.startswith(("gridDim",
                                                                                                    "blockDim"))],
                           *[sym.names(x) for x in grid if x is not None])
        if not names or names & used or any(n not in self.host_values for n in names):
            return e
        v = sym.evaluate(e, {n: self.host_values[n] for n in names})
        if not isinstance(v, int):
            return e
        for n in names:
            self.variables.pop(n, None)
        return sym.const(v)

    def host_poly(self, text: str) -> sym.Poly | None:
        """A host expression as a polynomial; its size names registered with the host's values."""
        poly = sym.parse(text)
        if poly is None:
            return None
        for n in sym.names(poly):
            sn = self.launch.names.get(n) if self.launch is not None else None
            if n not in self.variables:
                self.variables[n] = Guess(sn.value if sn else None, sn.why if sn else "host code", sn is None or
                                          sn.value is None)
            if sn is not None and sn.value is not None:
                self.host_values[n] = sn.value
        return poly

    # -- arguments ------------------------------------------------------------------------------------
    def arguments(self) -> list[ArgPlan]:
        from .spec import FLOAT_DTYPES, ctype_dtype

        out = []
        for i, p in enumerate(self.params):
            name = p.name or f"unnamed{i + 1}"
            base = self.types.resolve(p.base_type)
            resolved = self.types.resolve(self.tmap.get(base, base))
            mapped = ctype_dtype(resolved) or (("uint8", 1) if resolved == "bool" else None)
            if mapped is None and not p.is_pointer and (base.lstrip().startswith("{") or _declares_struct(self.src.text, p.base_type)):
                raise InferError(f"{self.k.name}'s parameter `{' '.join(p.type_text.split())} {name}` is a struct passed "
                                 f"by value: a launch spec passes buffers and scalars only; launch the kernel from a "
                                 f"wrapper kernel that takes the struct's pointers and sizes, or write the spec's "
                                 f"[[launches]] as a host step (docs/launch-specs.md)")
            if mapped is None:
                dt = Guess("float32", f"`{p.type_text}` has no known dtype", True)
            elif base in self.tmap:
                dt = Guess(mapped[0], f"the template argument {base} = {resolved} ({self.template_why or 'GUESS'})",
                           not self.template_why)
            elif words_of(p.base_type) != resolved:
                dt = Guess(mapped[0], f"`{p.base_type}` is {resolved}")
            else:
                dt = Guess(mapped[0], f"the parameter's type `{p.type_text}`")
            if not p.is_pointer:
                out.append(self.scalar_arg(i, p, name, dt, mapped, FLOAT_DTYPES))
                continue
            out.append(self.buffer_arg(i, p, name, dt, mapped))
        self.peers(out)
        return out

    def peers(self, args: list[ArgPlan]) -> None:
        """An output indexed like another buffer (`out[idx]`, `inp[idx]`) whose guards stop short of the other's
        reach (a stencil's border) takes the other's shape."""
        plans = {a.name: a for a in args if a.buffer}
        for p in self.ks.pointers.values():
            a = plans.get(p.name)
            if a is None or a.role.value != "output" or a.shape.guess or p.reach is None:
                continue
            mine = {repr(sorted(u.index.items())) for u in p.uses if u.index is not None}
            for q in self.ks.pointers.values():
                b = plans.get(q.name)
                if q is p or b is None or b.shape.guess or b.dtype.value != a.dtype.value or q.reach is None:
                    continue
                theirs = {repr(sorted(u.index.items())) for u in q.uses if u.index is not None}
                mp, mq = sym.parse(" * ".join(f"({x})" for x in a.shape.value)), \
                    sym.parse(" * ".join(f"({x})" for x in b.shape.value))
                if mine & theirs and mp is not None and mq is not None and self.at_least(mq, mp) and \
                        not self.same(mq, mp):
                    a.shape = Guess(list(b.shape.value), f"as {q.name}, indexed the same way ({a.shape.why}; its "
                                                         f"guards leave the rest unwritten)")
                    break

    def scalar_arg(self, i, p, name, dt, mapped, floats) -> ArgPlan:
        from .spec import ctype_dtype
        a = ArgPlan(name, False)
        if ctype_dtype(p.base_type) is None:  # a template parameter, a typedef, bool: the spec needs the dtype
            a.dtype = dt
        if dt.value in floats:
            L = self.launch
            v = L.args[i] if L is not None and i < len(L.args) else None
            if v is not None and v.text and (_float(v.text) is not None):
                a.value = Guess(_float(v.text), f"from {v.why}")
            else:
                low = (p.name or "").lower()
                a.value = Guess(FLOATS.get(low, "0.75"), "a default for a float scalar", True)
            return a
        if not p.name:
            a.value = Guess("1", "an unnamed parameter: any value", True)
            return a
        poly = self.bind.table.get(p.name)
        if poly is None:
            a.value = Guess("1", "GUESS", True)
            return a
        text = sym.render(poly)
        L = self.launch
        if L is not None and i < len(L.args) and L.args[i].text:
            a.value = Guess(text, f"from {L.args[i].why}")
        else:
            a.value = Guess(text, f"the size {text}")
        return a

    def buffer_arg(self, i: int, p: Param, name: str, dt: Guess, mapped) -> ArgPlan:
        a = ArgPlan(name, True, dtype=dt)
        ptr = self.ks.pointers.get(p.name) if p.name else None
        width = mapped[1] if mapped else 1
        elem_bytes = self.types.bytes(self.tmap.get(self.types.resolve(p.base_type), p.base_type)) or 4
        alloc = self.alloc_count(i, elem_bytes)
        shape = None
        if ptr is not None and ptr.reach is not None:
            shape = self.shape_of(ptr)
        if shape is not None and alloc is not None:
            dims_p, why = shape
            prod = _prod(dims_p)
            count, awhy = alloc
            self.range_from_alloc(dims_p, count, awhy)
            if not self.same(prod, count):
                if self.at_least(count, prod):
                    shape = ([count], f"from {awhy} (the kernel's index reaches {sym.render(prod)}: {why})")
                else:
                    self.notes.append(f"{name}: {awhy} allocates {sym.render(count)} elements but the kernel's index "
                                      f"reaches {sym.render(prod)} ({why})")
            else:
                shape = (dims_p, f"{why}; the same as {awhy}")
        elif shape is None and alloc is not None:
            shape = ([alloc[0]], f"from {alloc[1]}")
        trail = [str(width)] if width > 1 else []
        if shape is None:
            a.shape = self.fallback_shape(p, ptr, name, trail)
        else:
            a.shape = Guess([sym.render(x) for x in shape[0]] + trail, shape[1])
        if ptr is not None and ptr.low is not None and ptr.low < 0:
            self.notes.append(f"{name}: `{ptr.use.text}` may read before its start (index {ptr.low} at sample "
                              f"sizes); the spec cannot express an offset pointer")
        role = ptr.role if ptr is not None else ("input" if p.is_const else "output")
        if p.is_const:
            role = "input"
        rwhy = {"input": "the kernel only reads it" if ptr is not None and ptr.uses else "not written by the kernel",
                "output": "the kernel writes it" + (" (reading back only what it stored)" if ptr and ptr.own_reads
                                                    else ""),
                "inout": "the kernel reads and writes it (an accumulation, or an update in place)"}[role]
        a.role = Guess(role, rwhy, ptr is None or not ptr.uses)
        if role != "output":
            fill, fwhy = ("randn", "random normal values") if dt.value in ("float32", "float64", "float16", "bfloat16") \
                else ("randint:0:16", "small integers")
            if ptr is not None and ptr.index_of and fill.startswith("randint"):
                fill, fwhy = self.index_fill(ptr)
            a.fill = Guess(fill, fwhy)
        return a

    def fallback_shape(self, p: Param, ptr, name: str, trail: list) -> Guess:
        """A pointer the analysis cannot bound: said at the pointer, and guessed as large as the largest buffer the
        analysis bounds (else one element per size)."""
        local = [n for n, (base, off) in self.ks.facts.env.pointers.items() if base == p.name and off is None]
        why = (f"the index `{ptr.unbounded.text}` (line {ptr.unbounded.line}) is not bounded by the analysis"
               if ptr is not None and ptr.unbounded is not None else
               f"it is reached through `{local[0]}`, a pointer the analysis does not follow (stepped, or reassigned)"
               if local else
               f"the kernel passes {name} on without indexing it" if ptr is not None and ptr.uses == [] else
               "the analysis could not bound its index")
        big = self.largest_bounded(p.name)
        if big is not None:
            self.notes.append(f"{name}: {why}; its shape is a GUESS, as large as {big[1]}")
            return Guess([sym.render(x) for x in big[0]] + trail, f"{why}; as large as {big[1]}, the largest buffer "
                                                                  f"the analysis bounds", True)
        first = next(iter(self.variables), None) or self.free_variable("threads")
        self.notes.append(f"{name}: {why}; its shape [{first}] is a GUESS")
        return Guess([first] + trail, f"{why}; a guess of one element per {first}", True)

    def largest_bounded(self, skip: str) -> tuple[list, str] | None:
        """(shape, pointer) of the pointer with the most elements among those the analysis bounds."""
        best = None
        for q in self.ks.pointers.values():
            if q.name == skip or q.reach is None:
                continue
            got = self.shape_of(q)
            if got is None:
                continue
            v = sym.evaluate(_prod(got[0]), self.samples()[0])
            if isinstance(v, int) and (best is None or v > best[0]):
                best = (v, got[0], q.name)
        return (best[1], best[2]) if best else None

    def range_from_alloc(self, dims_p: list, count, awhy: str) -> None:
        """A gather's range (V) that the host's allocation of the gathered buffer gives: count / the other dims."""
        for r in self.ranges.values():
            if sym.name(r) not in dims_p or r in self.host_values:
                continue
            env = dict(self.host_values)
            rest = [d for d in dims_p if d != sym.name(r)]
            c, o = sym.evaluate(count, env), sym.evaluate(_prod(rest), env)
            if isinstance(c, int) and isinstance(o, int) and o > 0 and c % o == 0:
                self.host_values[r] = c // o
                self.variables[r] = Guess(c // o, f"{self.variables[r].why}; from {awhy}")

    def index_fill(self, ptr) -> tuple[str, str]:
        return "randint:0:16", (f"small integers: its values index {', '.join(ptr.index_of)} (GUESS: values below 16 "
                                f"stay inside them)")

    def alloc_count(self, i: int, elem_bytes: int) -> tuple[sym.Poly, str] | None:
        L = self.launch
        if L is None or i not in L.alloc_bytes:
            return None
        b = self.host_poly(L.alloc_bytes[i].text)
        if b is None:
            return None
        return sym.floordiv(b, sym.const(elem_bytes)), L.alloc_bytes[i].why

    def shape_of(self, ptr) -> tuple[list[sym.Poly], str] | None:
        r: Reach = ptr.reach
        try:
            terms = [Term(self.bind.poly(t.mult), _SpecBound(self.bind.poly(t.bound.u), t.bound))
                     for t in r.terms]
            end = self.bind.poly(r.end)
        except _Unbound as e:
            self.notes.append(f"{ptr.name}: its bound uses {e.args[0]}, which the launch does not give")
            return None
        sr = Reach(end, terms, {})
        samples = self.samples()
        shape = dims(sr, _Eval, samples)
        flat = _prod(shape)
        if len(shape) > 1 and self.clean(flat) != flat:  # the grid's reach: [cdiv(n, 256), 256] is [n]
            shape = [self.clean(flat)]
        shape = [self.clean(d) for d in shape]
        conds = [t.bound.text for t in r.terms if t.bound.kind in ("guard", "loop", "derived")]
        launch = [t.bound.kind for t in r.terms if t.bound.kind in ("block", "grid")]
        why = f"from the index `{ptr.use.text}` (line {ptr.use.line})"
        if conds:
            why += " under " + " and ".join(f"`{c}`" for c in dict.fromkeys(conds))
        if launch:
            why += " and the launch's " + " and ".join(dict.fromkeys(
                "grid" if k == "grid" else "block" for k in launch))
        return shape, why

    def clean(self, d: sym.Poly) -> sym.Poly:
        """A dimension as a size: `c * cdiv(n, c)` (a grid's reach) is n when n is a multiple of c; `n - 1`
        (the last element a stencil skips) is n."""
        if len(d) == 1:
            (m, c), = d.items()
            if len(m) == 1 and c > 1:
                s = sym.STRUCT.get(m[0])
                if s is not None and s[0] in ("cdiv", "//") and sym.number(s[2]) == c and len(sym.names(s[1])) == 1:
                    for n in sym.names(s[1]):
                        self.multiple[n] = max(self.multiple.get(n, 1), c)
                    return s[1]
        k = sym.number({m: c for m, c in d.items() if not m}) or 0
        rest = {m: c for m, c in d.items() if m}
        if rest and -8 <= k < 0 and all(c > 0 for c in rest.values()):
            return rest
        return d

    def samples(self) -> list[dict]:
        names = sorted(self.variables)
        return [{n: 97 + 13 * i for i, n in enumerate(names)}, {n: 1031 + 7 * i for i, n in enumerate(names)}]

    def same(self, a: sym.Poly, b: sym.Poly) -> bool:
        return all(sym.evaluate(a, s) == sym.evaluate(b, s) for s in self.samples())

    def at_least(self, a: sym.Poly, b: sym.Poly) -> bool:
        vals = [(sym.evaluate(a, s), sym.evaluate(b, s)) for s in self.samples()]
        return all(x is not None and y is not None and x >= y for x, y in vals)

    # -- sizes ------------------------------------------------------------------------------------------
    def _launch_constants(self, L, g: list) -> tuple[list, dict]:
        """The grid with the host's launch-only names at their values: a name a grid dimension reads beside a size the
        kernel is given, that itself reaches no argument of the kernel and no buffer's allocation (`per_block = 2 *
        threads` in `<<<(n + per_block - 1) / per_block, threads, per_block * sizeof(float)>>>`), is the launch's
        shape, not a size of the problem: the spec keeps it at its value at every size, in the shared memory too.
        (grid, name -> value)."""
        used: set = set()
        for v in list(L.args) + list(L.alloc_bytes.values()):
            p = sym.parse(v.text) if v is not None and v.text else None
            used |= set(sym.names(p)) if p is not None else set()
        # (only beside a size the kernel is given, `(n + per_block - 1) / per_block`: a grid dimension of launch-only
        # names alone, `<<<rows, 256>>>` with `row = blockIdx.x`, is the problem's size itself)
        names = {n for x in g if x is not None and set(sym.names(x)) & used for n in sym.names(x)}
        fixed = {n: self.host_values[n] for n in names - used if isinstance(self.host_values.get(n), int)}
        if not fixed:
            return g, {}
        for n in fixed:
            self.variables.pop(n, None)
        self.notes.append("the launch's " + ", ".join(f"{n} = {v}" for n, v in sorted(fixed.items()))
                          + " (reaching no argument of the kernel) kept at the host's value at every size")
        return [None if x is None else sym.parse(self._put(sym.render(x), fixed)) for x in g], fixed

    @staticmethod
    def _put(t: str, values: dict) -> str:
        return re.sub(r"\b(" + "|".join(map(re.escape, values)) + r")\b", lambda m: str(values[m.group(1)]), t)

    def sizes(self, args, grid, block, shared) -> tuple[dict, dict, Guess]:
        from .infersizes import Sizer
        return Sizer(self).choose(args, grid, block, shared)


class _SpecBound:
    """A bound whose limit is written in spec sizes (for extents.dims)."""

    def __init__(self, u, b):
        self.u, self.q, self.text, self.line, self.kind = u, b.q, b.text, b.line, b.kind


def words_of(t: str) -> str:
    from ..analysis.types import words
    return words(t)


def _width(types, p: Param) -> int | None:
    from .spec import ctype_dtype
    m = ctype_dtype(types.resolve(p.base_type))
    return m[1] if m else None


def _int(t: str) -> int | None:
    try:
        return int(str(t).rstrip("uUlL"), 0)
    except ValueError:
        return None


def _float(t: str) -> str | None:
    s = re.sub(r"[()]", "", str(t)).strip().rstrip("fF")
    try:
        float(s)
    except ValueError:
        return None
    return s if any(c in s for c in ".eE") else s + ".0"


def _prod(ds: list[sym.Poly]) -> sym.Poly:
    out = sym.const(1)
    for d in ds:
        out = sym.mul(out, d)
    return out


def write_spec(plan: Plan, text: str | None = None, force: bool = False) -> None:
    """The spec and its reference snapshot written (spectext.write)."""
    from .spectext import write
    write(plan, text, force)


def summary(plan: Plan) -> str:
    """What was inferred, in a few lines for a terminal (spectext.summary)."""
    from .spectext import summary as text
    return text(plan)
