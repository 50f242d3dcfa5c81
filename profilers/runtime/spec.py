"""Launch specs: `<stem>.kernelpro.toml` beside `<stem>.cu` makes a kernel runnable.

The format is documented in docs/launch-specs.md. `load_spec` validates a spec against the
kernel's signature (from profilers.source) and raises SpecError("file:line: reason") for
anything wrong; `init_spec` gives the text of the spec runtime/infer.py infers; `load_reference`
imports the Python reference.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import keyword
import math
import re
import sys
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kernelpro.profilers.runtime.correctness import BASE_RTOL, SMALLEST_NORMAL, Tolerance, default_tolerance
from kernelpro.profilers.runtime.expr import FUNCTIONS, ExprError, evaluate_condition, parse_condition, parse_expr
from kernelpro.profilers.source import Kernel, Param, SourceFile, parse_source
from kernelpro.profilers.cachekey import CompileError, read_bounded, read_source

SPEC_SUFFIX = ".kernelpro.toml"
MAX_SPEC_BYTES = 1024 * 1024  # a launch spec is a few KB

ITEMSIZE = {
    "float32": 4, "float16": 2, "bfloat16": 2, "float64": 8,
    "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8,
}
DTYPES = tuple(ITEMSIZE)
FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float64")

# C++ base type -> (dtype, elements per C++ element)
_CTYPES = {
    "float": "float32", "double": "float64", "half": "float16", "__half": "float16",
    "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16",
    "int": "int32", "signed": "int32", "signed int": "int32", "int32_t": "int32",
    "unsigned": "uint32", "unsigned int": "uint32", "uint32_t": "uint32", "uint": "uint32",
    "long long": "int64", "long long int": "int64", "signed long long": "int64", "int64_t": "int64",
    "long": "int64", "long int": "int64", "ptrdiff_t": "int64",
    "unsigned long long": "uint64", "unsigned long long int": "uint64", "uint64_t": "uint64",
    "unsigned long": "uint64", "size_t": "uint64",
    "short": "int16", "int16_t": "int16", "unsigned short": "uint16", "uint16_t": "uint16",
    "char": "int8", "signed char": "int8", "int8_t": "int8",
    "unsigned char": "uint8", "uint8_t": "uint8",
}
_VECTORS = {
    "float2": ("float32", 2), "float4": ("float32", 4), "double2": ("float64", 2),
    "int2": ("int32", 2), "int4": ("int32", 4), "uint2": ("uint32", 2), "uint4": ("uint32", 4),
    "half2": ("float16", 2), "__half2": ("float16", 2), "__nv_bfloat162": ("bfloat16", 2),
    "char4": ("int8", 4), "uchar4": ("uint8", 4),
    "cuFloatComplex": ("float32", 2), "cuComplex": ("float32", 2), "cuDoubleComplex": ("float64", 2),  # cuComplex.h
}
FILLS = ("randn", "rand", "randint:LO:HI", "ones", "arange", "zeros")
TOP_KEYS = ("kernel", "template", "source", "sizes", "args", "scratch", "launch", "launches", "reference", "tolerance",
            "cost", "compile", "check")
ARG_KEYS = ("name", "dtype", "shape", "fill", "output", "value")
SCRATCH_KEYS = ("name", "dtype", "shape", "fill")
LAUNCH_KEYS = ("grid", "block", "shared_bytes")
STEP_KEYS = ("kernel", "grid", "block", "shared_bytes", "args", "when", "host")
MEMSET_KEYS = ("memset", "value")
CHECK_KEYS = ("distributions", "off_by_one")
DISTRIBUTIONS = ("spec", "negative", "scaled-down", "scaled-up", "denormal")
DEFAULT_DISTRIBUTIONS = ("spec", "negative", "scaled-down")
REFERENCE_KEYS = ("python", "kernel", "file", "grid", "block", "shared_bytes")
NO_REFERENCE = "no reference: correctness not checked against a reference"


def ctype_dtype(base_type: str) -> tuple[str, int] | None:
    """(dtype, width) for a C++ base type: float -> ("float32", 1), float4 -> ("float32", 4)."""
    t = " ".join(w for w in base_type.replace("*", " ").split() if w not in ("const", "volatile", "__restrict__", "struct"))
    t = t.replace("std::", "")
    if t in _VECTORS:
        return _VECTORS[t]
    d = _CTYPES.get(t)
    return (d, 1) if d else None


class SpecError(Exception):
    """A bad launch spec: str(e) == "file:line: reason"."""

    def __init__(self, file: str, line: int | None, reason: str):
        self.file = str(file)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.file}:{line}: {reason}" if line else f"{self.file}: {reason}")


@dataclass
class ArgSpec:
    name: str
    dtype: str | None = None  # element dtype; scalars: from the C++ signature
    shape: tuple[str, ...] | None = None  # buffers only
    fill: str | None = None  # inputs (default randn / randint:0:16); None on outputs: poisoned
    output: bool = False
    value: str | None = None  # scalars only
    line: int | None = None

    @property
    def is_buffer(self) -> bool:
        return self.shape is not None

    @property
    def inout(self) -> bool:
        """An output that is also read: filled (not poisoned) before the run."""
        return self.output and self.fill is not None


_IDENT = re.compile(r"[A-Za-z_]\w*")


def rebind_launch(launch: dict, base_args, step_args, values: dict | None = None) -> dict:
    """A launch (grid, block, shared_bytes) written for one step of a kernel, rewritten for another step of the
    same kernel whose arguments differ: a name that the first step passes as parameter i (or the bare size variable
    that argument's value is) becomes what the other step passes there. A chain launching one product twice, the
    second time as (M, P, N), then gets the second product's grid. Names neither step passes stay as they are
    (the sizes both share). ValueError where one name stands for two different arguments of the other step."""
    values = {k: str(v) for k, v in (values or {}).items() if v is not None}
    if list(base_args) == list(step_args):
        return dict(launch)
    sub: dict[str, str] = {}
    for b, t in zip(base_args, step_args):
        b, t = str(b), str(t)
        for name, new in ((b, t), (values.get(b), values.get(t, t))):
            if not name or not _IDENT.fullmatch(name):
                continue
            if sub.get(name, new) != new:  # (a name kept as itself counts: N for M and P for N is a conflict)
                raise ValueError(f"`{name}` is passed as two different arguments ({sub[name]} and {new}) by another "
                                 f"launch of the kernel: its launch cannot be carried over")
            sub[name] = new
    sub = {k: v for k, v in sub.items() if k != v}

    def one(v):
        if not isinstance(v, str) or not sub:
            return v
        return _IDENT.sub(lambda m: f"({sub[m.group(0)]})" if m.group(0) in sub else m.group(0), v)

    return {k: ([one(x) for x in v] if isinstance(v, (list, tuple)) else one(v)) for k, v in launch.items()}


@dataclass
class LaunchStep:
    kernel: str
    grid: tuple[str, ...]
    block: tuple[str, ...]
    shared_bytes: str = "0"
    args: tuple[str, ...] = ()  # arg / scratch names, or scalar expressions of the sizes
    dtypes: tuple[str, ...] = ()  # per kernel parameter: pointee dtype or scalar dtype
    pointers: tuple[bool, ...] = ()  # per kernel parameter
    line: int | None = None
    memset: str | None = None  # a memset step: the buffer set to `memset_value` bytes (no kernel runs)
    memset_value: int = 0
    when: str | None = None  # a condition on the size variables: the step runs only at sizes where it holds
    host: str | None = None  # a host step: this extern "C" function of the source, called with the kernel's
    # arguments, launches the work itself (a library GEMM behind the kernel's signature); no grid or block

    def to_table(self) -> dict:
        if self.memset:
            return {"memset": self.memset, "value": self.memset_value}
        if self.host:
            t = {"kernel": self.kernel, "host": self.host, "args": list(self.args)}
            return {**t, "when": self.when} if self.when else t
        t = {"kernel": self.kernel, "grid": list(self.grid), "block": list(self.block),
             "shared_bytes": self.shared_bytes, "args": list(self.args)}
        return {**t, "when": self.when} if self.when else t


@dataclass
class LaunchSpec:
    path: Path
    kernel: str
    source_path: Path
    sizes: dict[str, dict[str, int]]
    args: list[ArgSpec]
    scratch: list[ArgSpec]
    launches: list[LaunchStep]
    reference: dict
    rtol: float
    atol: float
    cost: dict
    warnings: list[str] = field(default_factory=list)
    flags: tuple[str, ...] = ()  # [compile] flags: extra nvcc flags the kernel is built with
    tolerance_given: tuple[str, ...] = ()  # the [tolerance] keys the spec sets; the rest are defaults
    reduction: str | None = None  # [tolerance] reduction: the reduction length, an expression
    distributions: tuple[str, ...] = DEFAULT_DISTRIBUTIONS  # [check] distributions of the input sets
    check_sizes: dict[str, dict[str, int]] = field(default_factory=dict)  # "small-1"/"small+1": checked, not timed
    template: tuple[str, ...] = ()  # `template = ["32"]`: which instantiation of a template kernel runs

    # --- lookups ----------------------------------------------------------
    def env(self, size: str | None = None) -> dict[str, int]:
        if size is None:
            size = next(iter(self.sizes))
        if size in self.check_sizes:
            return dict(self.check_sizes[size])
        if size not in self.sizes:
            raise KeyError(f"unknown size {size!r} (spec has {', '.join(self.sizes)})")
        return dict(self.sizes[size])

    def arg(self, name: str) -> ArgSpec | None:
        return next((a for a in self.args + self.scratch if a.name == name), None)

    @property
    def inputs(self) -> list[ArgSpec]:
        return [a for a in self.args if a.is_buffer and (not a.output or a.inout)]

    @property
    def outputs(self) -> list[ArgSpec]:
        return [a for a in self.args if a.is_buffer and a.output]

    # --- evaluation -------------------------------------------------------
    def eval(self, expr: str, size: str | None = None) -> int | float:
        """Evaluate an expression of the size variables at `size` (default: the first)."""
        v = parse_expr(expr).evaluate(self.env(size))
        return int(v) if isinstance(v, float) and v.is_integer() else v

    def eval_int(self, expr: str, size: str | None = None) -> int:
        v = self.eval(expr, size)
        if not isinstance(v, int):
            raise ExprError(f"{expr!r} = {v:g} is not an integer")
        return v

    def shape(self, name: str, size: str | None = None) -> tuple[int, ...]:
        a = self.arg(name)
        if a is None or a.shape is None:
            raise KeyError(f"{name!r} is not a buffer of the spec")
        return tuple(self.eval_int(s, size) for s in a.shape)

    def grid(self, step: LaunchStep, size: str | None = None) -> tuple[int, ...]:
        return tuple(self.eval_int(g, size) for g in step.grid)

    def block(self, step: LaunchStep, size: str | None = None) -> tuple[int, ...]:
        return tuple(self.eval_int(b, size) for b in step.block)

    def runs_at(self, step: LaunchStep, size: str | None = None) -> bool:
        """The step runs at `size`: it has no `when`, or its condition holds there."""
        return not step.when or evaluate_condition(step.when, self.env(size))

    def steps_at(self, size: str | None = None) -> list[LaunchStep]:
        return [s for s in self.launches if self.runs_at(s, size)]

    @property
    def kernel_steps(self) -> list[LaunchStep]:
        """The launches that run a kernel with a grid and block (memset and host steps left out)."""
        return [s for s in self.launches if not s.memset and not s.host]

    @property
    def host_steps(self) -> list[LaunchStep]:
        """The steps a host launcher of the source runs (LaunchStep.host)."""
        return [s for s in self.launches if s.host]

    def block_threads(self, size: str | None = None) -> int | None:
        """The threads of a block of the spec's kernel (None when only host launchers run it)."""
        steps = self.kernel_steps
        if not steps:
            return None
        step = next((s for s in steps if s.kernel == self.kernel), steps[0])
        return math.prod(self.block(step, size))

    def nbytes(self, name: str, size: str | None = None) -> int:
        a = self.arg(name)
        return math.prod(self.shape(name, size)) * ITEMSIZE[a.dtype]

    def bytes_moved(self, size: str | None = None) -> int:
        """[cost] bytes, else inputs read once + outputs written once (in/out buffers twice)."""
        if self.cost.get("bytes") is not None:
            return self.eval_int(self.cost["bytes"], size)
        total = 0
        for a in self.args:
            if a.is_buffer:
                n = self.nbytes(a.name, size)
                total += n * (2 if a.inout else 1)
        return total

    def flops(self, size: str | None = None) -> int | None:
        f = self.cost.get("flops")
        return None if f is None else self.eval_int(f, size)

    def reduction_length(self, size: str | None = None) -> tuple[int, str]:
        """(K, where it came from): [tolerance] reduction, else [cost] flops / (2 x output elements), else the
        largest input's elements over the largest output's."""
        if self.reduction:
            return max(1, self.eval_int(self.reduction, size)), "from [tolerance] reduction"
        outs = [math.prod(self.shape(a.name, size)) for a in self.outputs]
        if not outs:
            return 1, ""
        n_out = max(outs)
        flops = self.flops(size)
        if flops:
            return max(1, -(-flops // (2 * n_out))), "from [cost] flops"
        ins = [math.prod(self.shape(a.name, size)) for a in self.inputs]
        return max([1] + [-(-n // n_out) for n in ins]), "from the input and output sizes"

    def tolerance(self, size: str | None = None) -> Tolerance:
        """The tolerance at `size`: the spec's [tolerance] values, defaults for the rest."""
        floats = [a.dtype for a in self.outputs if a.dtype in BASE_RTOL]
        if not floats:
            return Tolerance(self.rtol, self.atol, 0.0, "integer outputs are compared exactly")
        dtype = max(floats, key=lambda d: BASE_RTOL[d])  # the loosest output type
        k, src = self.reduction_length(size)
        return default_tolerance(dtype, k, self.rtol if "rtol" in self.tolerance_given else None,
                                 self.atol if "atol" in self.tolerance_given else None, src)

    def with_launch(self, overrides: dict, source: SourceFile | None = None) -> "LaunchSpec":
        """A copy with a new launch configuration, validated.

        overrides: {"grid": [...], "block": [...], "shared_bytes": ...} for the steps that run
        `overrides.get("kernel", self.kernel)`, or {"launches": [ {kernel, grid, block,
        shared_bytes, args}, ... ]} for a new sequence. With `source`, step kernels and
        arguments are checked against its signatures.
        """
        unknown = set(overrides) - {"grid", "block", "shared_bytes", "kernel", "launches", "host"}
        if unknown:
            raise SpecError(str(self.path), None, f"with_launch: unknown keys {sorted(unknown)}")
        if source is None and Path(self.source_path).is_file():
            source = parse_source(Path(self.source_path).read_text(), str(self.source_path))
        new = dataclasses.replace(self, args=[dataclasses.replace(a) for a in self.args],
                                  scratch=[dataclasses.replace(a) for a in self.scratch], warnings=list(self.warnings))
        v = _Validator(new, source)
        if "launches" in overrides:
            if not isinstance(overrides["launches"], list) or not overrides["launches"]:
                raise SpecError(str(self.path), None, "with_launch: launches must be a non-empty list of tables")
            steps = [v.step(dict(s), i) for i, s in enumerate(overrides["launches"])]
        elif "host" in overrides:  # every launch of the kernel becomes a call of the source's host launcher
            target = overrides.get("kernel", self.kernel)
            steps = [v.step({"kernel": s.kernel, "host": overrides["host"], "args": list(s.args),
                             **({"when": s.when} if s.when else {})}, i)
                     if s.kernel == target and not s.memset else s for i, s in enumerate(self.launches)]
            if not any(s.host for s in steps):
                raise SpecError(str(self.path), None, f"with_launch: no launch of kernel {target!r}")
        else:
            target = overrides.get("kernel", self.kernel)
            steps, hit = [], False
            base = next((s for s in self.launches if s.kernel == target and not s.memset and not s.host), None)
            values = {a.name: a.value for a in self.args if a.value is not None}
            for i, s in enumerate(self.launches):
                if s.kernel != target or s.memset or s.host:
                    steps.append(s)
                    continue
                hit = True
                d = {"grid": list(s.grid), "block": list(s.block), "shared_bytes": s.shared_bytes}
                try:  # written for the kernel's first launch: another launch of it passes other sizes
                    d.update(rebind_launch({k: overrides[k] for k in LAUNCH_KEYS if k in overrides},
                                           base.args, s.args, values))
                except ValueError as e:
                    raise SpecError(str(self.path), s.line, f"[[launches]] #{i + 1}: {e}") from None
                step = v.step(d, i, table="launch", kernel=s.kernel, args=s.args)
                if not step.dtypes:  # no source to re-check: the kernel and its arguments are unchanged
                    step.dtypes, step.pointers = s.dtypes, s.pointers
                steps.append(step)
            if not hit:
                raise SpecError(str(self.path), None, f"with_launch: no launch of kernel {target!r}")
        new.launches = steps
        return new

    def bind(self, source: SourceFile) -> "LaunchSpec":
        """A copy whose launches are re-checked against another source (a candidate's)."""
        return self.with_launch({"launches": [s.to_table() for s in self.launches]}, source)


# --- off-by-one sizes -----------------------------------------------------------------

def _size_problem(spec: LaunchSpec, size: str) -> str | None:
    """Why the spec's expressions do not all evaluate at `size` (None when they do)."""
    try:
        for a in spec.args + spec.scratch:
            if a.is_buffer and any(d < 1 for d in spec.shape(a.name, size)):
                return f"{a.name} shape {list(spec.shape(a.name, size))} has a dimension below 1"
            if a.value is not None:
                v = spec.eval(a.value, size)
                if a.dtype not in FLOAT_DTYPES and not float(v).is_integer():
                    return f"{a.name} = {a.value!r} = {v:g} is not an integer"
        steps = spec.kernel_steps + ([spec.reference["step"]] if spec.reference.get("step") else [])
        for st in steps:
            if any(g < 1 for g in spec.grid(st, size)) or any(b < 1 for b in spec.block(st, size)):
                return f"the launch of {st.kernel} has a grid or block dimension below 1"
            if math.prod(spec.block(st, size)) > 1024:
                return f"the block of {st.kernel} has more than 1024 threads"
            if spec.eval_int(st.shared_bytes, size) < 0:
                return f"the shared memory of {st.kernel} is negative"
            for i, name in enumerate(st.args):
                arg = spec.arg(name)
                if (arg is None or not arg.is_buffer) and i < len(st.dtypes) and st.dtypes[i] not in FLOAT_DTYPES:
                    v = spec.eval(arg.value if arg is not None else name, size)
                    if not float(v).is_integer():
                        return f"argument {name!r} of {st.kernel} = {v:g} is not an integer"
        spec.bytes_moved(size), spec.flops(size), spec.reduction_length(size)
    except (ExprError, KeyError, ValueError, ZeroDivisionError) as e:
        return str(e)
    return None


def off_by_one_sizes(spec: LaunchSpec) -> dict[str, dict[str, int]]:
    """The smallest size with every variable one less and one more ("small-1", "small+1"): checked, never
    timed, so a kernel that only works at the spec's round sizes is caught. A variant where an expression
    does not evaluate (an inexact '/', a dimension of 0) is left out with a warning."""
    def elements(size: str) -> int:
        return sum(math.prod(spec.shape(a.name, size)) for a in spec.args + spec.scratch if a.is_buffer)

    try:
        base = min(spec.sizes, key=elements)
    except (ExprError, KeyError, ValueError):
        return {}
    out: dict[str, dict[str, int]] = {}
    for delta in (-1, 1):
        env = {k: v + delta for k, v in spec.sizes[base].items()}
        name = f"{base}{delta:+d}"
        if any(v < 1 for v in env.values()) or env in spec.sizes.values():
            continue
        spec.check_sizes = {**out, name: env}
        why = _size_problem(spec, name)
        if why:
            spec.warnings.append(f"off-by-one size {name} ({', '.join(f'{k} = {v}' for k, v in env.items())}) "
                                 f"left out: {why}; set [check] off_by_one = false to silence this")
        else:
            out[name] = env
    spec.check_sizes = out
    return out


# --- TOML line locator ----------------------------------------------------------------

def _code_and_depth(line: str) -> tuple[str, int]:
    """The line without its comment, and its net count of open brackets."""
    out, quote, depth = [], None, 0
    for ch in line:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        out.append(ch)
    return "".join(out), depth


_ARRAY_TABLE = re.compile(r"\s*\[\[\s*([A-Za-z0-9_.\-]+)\s*\]\]")
_TABLE = re.compile(r"\s*\[\s*([A-Za-z0-9_.\-]+)\s*\]")
_KEY = re.compile(r"\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*(?:\.\s*([A-Za-z0-9_\-]+)\s*)?=")


class _Lines:
    """Where each table and key of a TOML text starts (1-based lines)."""

    def __init__(self, text: str):
        self.keys: dict[tuple[str, int, str], int] = {}
        self.tables: dict[tuple[str, int], int] = {}
        counts: dict[str, int] = {}
        table, index, depth = "", 0, 0
        for no, raw in enumerate(text.split("\n"), 1):
            code, d = _code_and_depth(raw)
            if depth > 0:
                depth = max(0, depth + d)
                continue
            if m := _ARRAY_TABLE.match(code):
                table = m.group(1)
                index = counts.get(table, 0)
                counts[table] = index + 1
                self.tables[(table, index)] = no
            elif m := _TABLE.match(code):
                table, index = m.group(1), 0
                self.tables[(table, 0)] = no
            elif m := _KEY.match(code):
                key = m.group(1).strip('"')
                if m.group(2):  # dotted key a.b = ...
                    self.keys.setdefault((f"{table}.{key}" if table else key, 0, m.group(2)), no)
                    self.tables.setdefault((f"{table}.{key}" if table else key, 0), no)
                self.keys.setdefault((table, index, key), no)
                depth = max(0, d)

    def line(self, table: str = "", index: int = 0, key: str | None = None) -> int | None:
        if key is not None and (table, index, key) in self.keys:
            return self.keys[(table, index, key)]
        if (table, index) in self.tables:
            return self.tables[(table, index)]
        if not table:
            return None
        # an inline table: sizes.small -> the `small = {...}` key of [sizes]
        parent, _, last = table.rpartition(".")
        return self.keys.get((parent, 0, last)) or self.tables.get((parent, 0))


# --- validation -----------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _params(k: Kernel) -> list[Param]:
    """Every parameter in order, unnamed ones included (name "")."""
    return k.signature or k.params


def _pname(p: Param) -> str:
    return p.name or f"<unnamed {p.type_text}>"


def _sig(k: Kernel) -> str:
    return f"{k.name}({', '.join(_pname(p) for p in _params(k))})"


def _ctext(p: Param) -> str:
    return p.type_text + ("" if p.type_text.endswith("*") or not p.is_pointer else "*")


class _Validator:
    """Checks expressions, launches and arguments; shared by load_spec and with_launch."""

    def __init__(self, spec: LaunchSpec, source: SourceFile | None, lines: _Lines | None = None):
        self.spec = spec
        self.source = source
        self.lines = lines or _Lines("")

    def err(self, reason: str, table: str = "", index: int = 0, key: str | None = None) -> SpecError:
        return SpecError(str(self.spec.path), self.lines.line(table, index, key), reason)

    def size_names(self) -> set[str]:
        """Every variable some size of the spec defines."""
        return set().union(*(set(v) for v in self.spec.sizes.values())) if self.spec.sizes else set()

    def expr(self, value: Any, where: str, loc: tuple, integer: bool = True, minimum: int | None = 1) -> str:
        """Vet an expression at every size; returns its canonical text."""
        try:
            e = parse_expr(value)
        except ExprError as x:
            raise self.err(f"{where}: {x}", *loc) from None
        sizes = self.spec.sizes
        known = self.size_names()
        unknown = sorted(e.names - known)
        if unknown:
            raise self.err(f"{where}: unknown size variable {unknown[0]!r} in {e.text!r} "
                           f"(sizes define: {', '.join(sorted(known)) or 'nothing'})", *loc)
        for size, env in sizes.items():
            missing = sorted(e.names - set(env))
            if missing:
                line = self.lines.line(table="sizes." + size)
                at = self.lines.line(*loc)
                raise SpecError(str(self.spec.path), line,
                                f"size {size!r} does not define {missing[0]!r}, used by {where} {e.text!r}"
                                + (f" (line {at})" if at else ""))
            try:
                v = e.evaluate(env)
            except ExprError as x:
                raise self.err(f"{where} at size {size!r}: {x}", *loc) from None
            if integer and isinstance(v, float):
                if not v.is_integer():
                    raise self.err(f"{where}: {e.text!r} = {v:g} at size {size!r} is not an integer "
                                   f"(use // or cdiv)", *loc)
            if minimum is not None and v < minimum:
                what = "must be positive" if minimum == 1 else f"must be >= {minimum}"
                raise self.err(f"{where}: {e.text!r} = {v:g} at size {size!r} {what}", *loc)
        return e.text

    def dims(self, value: Any, where: str, loc: tuple) -> tuple[str, ...]:
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list) or not 1 <= len(value) <= 3:
            raise self.err(f"{where} must be a list of 1 to 3 expressions, e.g. [\"cdiv(n, 256)\"]", *loc)
        return tuple(self.expr(v, f"{where}[{i}]", loc) for i, v in enumerate(value))

    def launch_limits(self, grid: tuple[str, ...], block: tuple[str, ...], where: str, table: str, i: int) -> None:
        for size, env in self.spec.sizes.items():
            b = [int(parse_expr(x).evaluate(env)) for x in block]
            if math.prod(b) > 1024:
                raise self.err(f"{where} block {list(block)} = {math.prod(b)} threads at size {size!r}; "
                               f"the limit is 1024", table, i, "block")
            for d, (v, lim) in enumerate(zip(b, (1024, 1024, 64))):
                if v > lim:
                    raise self.err(f"{where} block[{d}] = {v} exceeds {lim}", table, i, "block")
            g = [int(parse_expr(x).evaluate(env)) for x in grid]
            for d, (v, lim) in enumerate(zip(g, (2**31 - 1, 65535, 65535))):
                if v > lim:
                    raise self.err(f"{where} grid[{d}] = {v} at size {size!r} exceeds {lim}", table, i, "grid")

    def step(self, d: dict, i: int, table: str = "launches", kernel: str | None = None,
             args: tuple[str, ...] | None = None) -> LaunchStep:
        """A [[launches]] table, or ([launch] / [reference]) grid+block+shared with kernel and args given."""
        loc = (table, i)
        where = f"[[launches]] #{i + 1}" if table == "launches" else f"[{table}]"
        if not isinstance(d, dict):
            raise self.err(f"{where} must be a table", *loc)
        if table == "launches" and "memset" in d:
            return self.memset_step(d, i, where)
        allowed = STEP_KEYS if table == "launches" else LAUNCH_KEYS
        for k in d:
            if k not in allowed:
                raise self.err(f"{where}: unknown key {k!r} (allowed: {', '.join(allowed)})", table, i, k)
        kernel = d.get("kernel", kernel or self.spec.kernel)
        if not isinstance(kernel, str):
            raise self.err(f"{where}: kernel must be a string", table, i, "kernel")
        if "host" in d:
            return self.host_step(d, i, kernel, where)
        for k in ("grid", "block"):
            if k not in d:
                raise self.err(f"{where}: missing {k} = [...]", *loc)
        grid = self.dims(d["grid"], f"{where} grid", (table, i, "grid"))
        block = self.dims(d["block"], f"{where} block", (table, i, "block"))
        self.launch_limits(grid, block, where, table, i)
        shared = self.expr(d.get("shared_bytes", 0), f"{where} shared_bytes", (table, i, "shared_bytes"), minimum=0)
        if args is None:
            args = d.get("args", [a.name for a in self.spec.args])
        if not isinstance(args, (list, tuple)) or not all(
                isinstance(a, (str, int, float)) and not isinstance(a, bool) for a in args):
            raise self.err(f"{where}: args must be a list of argument names or expressions", table, i, "args")
        when = self.when(d, i, table, where)
        step = LaunchStep(kernel, grid, block, shared, tuple(str(a) for a in args), line=self.lines.line(table, i),
                          when=when)
        if self.source is not None:
            self.bind_step(step, where, loc)
        return step

    def when(self, d: dict, i: int, table: str, where: str) -> str | None:
        when = d.get("when")
        if when is not None:
            try:
                cond = parse_condition(when) if isinstance(when, str) else None
            except ExprError as e:
                raise self.err(f"{where} when: {e}", table, i, "when") from None
            if cond is None:
                raise self.err(f"{where} when must be a condition string such as \"M * N >= 4096\"", table, i, "when")
            unknown = sorted(cond.names - self.size_names())
            if unknown:
                raise self.err(f"{where} when: {', '.join(unknown)} is not a size variable", table, i, "when")
        return when

    def host_step(self, d: dict, i: int, kernel: str, where: str) -> LaunchStep:
        """[[launches]] kernel = "k", host = "launcher", args = [...]: the source's extern "C" function
        `launcher`, declared with the kernel's parameters, called with the kernel's arguments."""
        host = d["host"]
        if not isinstance(host, str) or not re.fullmatch(r"[A-Za-z_]\w*", host):
            raise self.err(f"{where}: host must be the name of an extern \"C\" function of the source", "launches", i,
                           "host")
        extra = sorted(set(d) & {"grid", "block", "shared_bytes"})
        if extra:
            raise self.err(f"{where}: a host step takes no {', '.join(extra)}: its launcher {host} chooses them",
                           "launches", i, extra[0])
        args = d.get("args", [a.name for a in self.spec.args])
        if not isinstance(args, (list, tuple)) or not all(
                isinstance(a, (str, int, float)) and not isinstance(a, bool) for a in args):
            raise self.err(f"{where}: args must be a list of argument names or expressions", "launches", i, "args")
        step = LaunchStep(kernel, (), (), "0", tuple(str(a) for a in args), line=self.lines.line("launches", i),
                          when=self.when(d, i, "launches", where), host=host)
        if self.source is not None:
            if host not in self.source.host_functions:
                have = ", ".join(self.source.host_functions) or "none"
                raise self.err(f"{where}: host launcher {host!r} is not an extern \"C\" function of "
                               f"{self.source.path} (there: {have})", "launches", i, "host")
            self.bind_step(step, where, ("launches", i))
        return step

    def memset_step(self, d: dict, i: int, where: str) -> LaunchStep:
        """[[launches]] memset = "buf", value = 0: the buffer's bytes set before the next launch."""
        for k in d:
            if k not in MEMSET_KEYS:
                raise self.err(f"{where}: a memset step takes memset and value only, not {k!r}", "launches", i, k)
        name, value = d["memset"], d.get("value", 0)
        a = self.spec.arg(name) if isinstance(name, str) else None
        if a is None or not a.is_buffer:
            have = ", ".join(x.name for x in self.spec.args + self.spec.scratch if x.is_buffer) or "none"
            raise self.err(f"{where}: memset {name!r} is not a buffer of the spec (buffers: {have})",
                           "launches", i, "memset")
        if a in self.spec.args and (not a.output or a.inout):
            raise self.err(f"{where}: memset of input {name!r} would change the inputs; memset an output or "
                           f"a [[scratch]] buffer", "launches", i, "memset")
        if not _is_int(value) or not 0 <= value <= 255:
            raise self.err(f"{where}: memset value = {value!r} must be a byte, 0 to 255", "launches", i, "value")
        return LaunchStep("", (), (), "0", (name,), line=self.lines.line("launches", i), memset=name,
                          memset_value=value)

    def kernel(self, name: str, where: str, loc: tuple) -> Kernel:
        k = self.source.kernel(name)
        if k is None:
            have = ", ".join(x.name for x in self.source.kernels) or "none"
            at = f"{where}: " if where else ""
            raise self.err(f"{at}kernel {name!r} is not in {self.source.path} (kernels there: {have})", *loc)
        return k

    def bind_step(self, step: LaunchStep, where: str, loc: tuple) -> None:
        """Match a step's argument list to its kernel's parameters; fills dtypes/pointers."""
        k = self.kernel(step.kernel, where, (*loc, "kernel"))
        params = _params(k)
        if len(step.args) != len(params):
            raise self.err(f"{where}: {_sig(k)} takes {len(params)} parameters, the launch passes "
                           f"{len(step.args)} ({', '.join(step.args)})", *loc, "args")
        dtypes, pointers = [], []
        for p, a in zip(params, step.args):
            spec_arg = self.spec.arg(a)
            mapped = ctype_dtype(p.base_type)
            if p.is_pointer:
                if spec_arg is None or not spec_arg.is_buffer:
                    raise self.err(f"{where}: parameter {p.name!r} of {k.name} is a pointer ({_ctext(p)}); "
                                   f"{a!r} is not an arg or scratch buffer", *loc, "args")
                if mapped and spec_arg.dtype != mapped[0]:
                    raise self.err(f"{where}: parameter {p.name!r} of {k.name} is {_ctext(p)} but {a!r} has "
                                   f"dtype {spec_arg.dtype!r} (use {mapped[0]!r})", *loc, "args")
                if spec_arg.output and p.is_const and spec_arg in self.spec.args:
                    self.spec.warnings.append(f"{where}: output {a!r} is passed to const parameter {p.name!r} of {k.name}")
                dtypes.append(spec_arg.dtype)
            else:
                if spec_arg is not None and spec_arg.is_buffer:
                    raise self.err(f"{where}: parameter {p.name!r} of {k.name} is a scalar ({p.type_text}); "
                                   f"{a!r} is a buffer", *loc, "args")
                # each parameter gets its own C++ type (a size_t gets 8 bytes even if the same name went to
                # an int before); the arg's dtype only where the C++ type has no mapping
                dtype = (mapped[0] if mapped else None) or (spec_arg.dtype if spec_arg is not None else None)
                if dtype is None:
                    raise self.err(f"{where}: cannot map the C++ type {p.type_text!r} of {p.name!r} to a dtype; "
                                   f"give the arg a dtype", *loc, "args")
                if spec_arg is None:
                    self.expr(a, f"{where} argument {p.name!r}", (*loc, "args"),
                              integer=dtype not in FLOAT_DTYPES, minimum=None)
                else:
                    if spec_arg.dtype is None:
                        spec_arg.dtype = dtype
                    if dtype not in FLOAT_DTYPES:
                        self.expr(spec_arg.value, f"arg {a!r} value", ("args", self.spec.args.index(spec_arg), "value"),
                                  integer=True, minimum=None)
                dtypes.append(dtype)
            pointers.append(p.is_pointer)
        step.dtypes, step.pointers = tuple(dtypes), tuple(pointers)


class _Loader:
    def __init__(self, path: Path, text: str, source: SourceFile | None):
        self.path = path
        self.text = text
        self.lines = _Lines(text)
        self.source = source

    def err(self, reason: str, table: str = "", index: int = 0, key: str | None = None) -> SpecError:
        return SpecError(str(self.path), self.lines.line(table, index, key), reason)

    def compile_flags(self, data: dict) -> tuple[str, ...]:
        c = data.get("compile", {})
        if not isinstance(c, dict) or set(c) - {"flags"}:
            raise self.err("[compile]: the only key is flags = [\"--use_fast_math\", ...]", "compile")
        flags = c.get("flags", [])
        if not isinstance(flags, list) or not all(isinstance(f, str) and f.startswith("-") for f in flags):
            raise self.err("[compile] flags: a list of nvcc options such as \"--use_fast_math\"", "compile", 0, "flags")
        return tuple(flags)

    def load(self) -> LaunchSpec:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as e:
            msg = str(e)
            m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
            line = int(m.group(1)) if m else (len(self.text.split("\n")) if "end of document" in msg else None)
            raise SpecError(str(self.path), line, f"TOML syntax error: {msg}") from None
        for k in data:
            if k not in TOP_KEYS:
                line = self.lines.line("", 0, k) or self.lines.line(k)
                raise SpecError(str(self.path), line, f"unknown top-level key {k!r} (allowed: {', '.join(TOP_KEYS)})")
        kernel = data.get("kernel")
        if not isinstance(kernel, str) or not kernel:
            raise self.err('missing kernel = "NAME" (the __global__ function to run)', "", 0, "kernel")
        src_path = self.source_path(data)
        if self.source is None:
            try:
                self.source = parse_source(read_source(src_path), str(src_path))
            except CompileError as e:
                reason = (f"source file {src_path} not found (set source = \"FILE.cu\" in the spec)"
                          if not src_path.exists() else str(e))
                raise self.err(reason, "", 0, "source" if "source" in data else "kernel") from None
        spec = LaunchSpec(path=self.path, kernel=kernel, source_path=src_path, sizes={}, args=[], scratch=[],
                          launches=[], reference={}, rtol=0.0, atol=0.0, cost={})
        v = self.v = _Validator(spec, self.source, self.lines)
        k = v.kernel(kernel, "", ("", 0, "kernel"))
        spec.template = self.template(data, k)
        spec.sizes = self.sizes(data)
        spec.args = self.buffers(data, "args", ARG_KEYS)
        spec.scratch = self.buffers(data, "scratch", SCRATCH_KEYS)
        spec.flags = self.compile_flags(data)
        multi = "launches" in data
        if multi and "launch" in data:
            raise self.err("give either [launch] or [[launches]], not both", "launch")
        if not multi:
            self.match_signature(k, spec.args, "args")
            if "launch" not in data:
                raise self.err('missing [launch] table (grid = [...], block = [...]) or [[launches]]')
            spec.launches = [v.step(data["launch"], 0, table="launch", kernel=kernel,
                                    args=tuple(a.name for a in spec.args))]
        else:
            steps = data["launches"]
            if not isinstance(steps, list) or not steps:
                raise self.err("[[launches]] must be one or more tables", "launches")
            spec.launches = [v.step(s, i) for i, s in enumerate(steps)]
        self.check_use(spec)
        self.fill_defaults(spec)
        spec.reference = self.reference(data, spec, k)
        spec.rtol, spec.atol = self.tolerance(data, spec)
        spec.cost = self.cost(data)
        self.check(data, spec)
        if not spec.outputs:
            spec.warnings.append("no output = true buffer: nothing is checked")
        if not spec.reference:
            spec.warnings.append(NO_REFERENCE)
        return spec

    def source_path(self, data: dict) -> Path:
        if self.source is not None and data.get("source") is None and self.source.path not in ("<memory>", ""):
            return Path(self.source.path)
        if "source" in data:
            if not isinstance(data["source"], str):
                raise self.err("source must be a path string", "", 0, "source")
            return (self.path.parent / data["source"]).resolve()
        name = self.path.name
        stem = name[: -len(SPEC_SUFFIX)] if name.endswith(SPEC_SUFFIX) else self.path.stem
        cand = self.path.parent / f"{stem}.cu"
        if not cand.exists() and "." in stem:  # foo.kernel.kernelpro.toml -> foo.cu
            alt = self.path.parent / f"{stem.split('.')[0]}.cu"
            if alt.exists():
                return alt
        return cand

    def template(self, data: dict, k) -> tuple[str, ...]:
        """`template = ["32"]` or `["float", "256"]`: the template arguments of the instantiation to run, where the
        file instantiates the kernel more than once (cuda-samples' `MatrixMulCUDA<16>` and `<32>`)."""
        t = data.get("template")
        if t is None:
            return ()
        if not isinstance(t, list) or not t or not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in t):
            raise self.err('template must be a list of the template arguments, e.g. template = ["32"] or '
                           '["float", "256"]', "", 0, "template")
        if not k.is_template:
            raise self.err(f"template = {t}: {k.name} is not a template kernel", "", 0, "template")
        if len(t) > len(k.template_params):
            raise self.err(f"template = {t}: {k.name} takes {len(k.template_params)} template arguments "
                           f"({', '.join(n for _, n in k.template_params)})", "", 0, "template")
        return tuple(" ".join(str(x).split()) for x in t)

    def sizes(self, data: dict) -> dict[str, dict[str, int]]:
        s = data.get("sizes")
        if s is None or (isinstance(s, dict) and not s):
            raise self.err("no sizes: add [sizes] with at least one size, e.g. small = { n = 1048576 }", "sizes")
        if not isinstance(s, dict):
            raise self.err("sizes must be a table of named sizes, e.g. small = { n = 1048576 }", "", 0, "sizes")
        out = {}
        for name, env in s.items():
            loc = ("sizes." + name,)
            if not isinstance(env, dict) or not env:
                raise self.err(f"size {name!r} must be a table of variables, e.g. {name} = {{ n = 1048576 }}", *loc)
            for var, val in env.items():
                if not var.isidentifier() or var in FUNCTIONS or keyword.iskeyword(var):
                    raise self.err(f"size {name!r}: {var!r} is not a usable variable name", *loc)
                if not _is_int(val):
                    raise self.err(f"size {name!r}: {var} = {val!r} must be an integer", *loc)
                if val <= 0:
                    raise self.err(f"size {name!r}: {var} = {val} must be positive", *loc)
            out[name] = dict(env)
        return out

    def buffers(self, data: dict, table: str, keys: tuple[str, ...]) -> list[ArgSpec]:
        items = data.get(table, [])
        if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
            raise self.err(f"{table} must be an array of tables ([[{table}]])", "", 0, table)
        out, seen = [], {a.name for a in self.v.spec.args}
        for i, d in enumerate(items):
            loc = (table, i)
            for k in d:
                if k not in keys:
                    raise self.err(f"[[{table}]] #{i + 1}: unknown key {k!r} (allowed: {', '.join(keys)})", table, i, k)
            name = d.get("name")
            if not isinstance(name, str) or not name:
                raise self.err(f"[[{table}]] #{i + 1}: missing name = \"...\"", *loc)
            where = f"{table[:-1] if table == 'args' else table} {name!r}"
            if name in seen:
                raise self.err(f"{where}: duplicate name", table, i, "name")
            seen.add(name)
            a = ArgSpec(name=name, line=self.lines.line(table, i))
            if "dtype" in d:
                if d["dtype"] not in DTYPES:
                    raise self.err(f"{where}: unknown dtype {d['dtype']!r} (known: {', '.join(DTYPES)})", table, i, "dtype")
                a.dtype = d["dtype"]
            if "shape" in d:
                sh = d["shape"]
                if isinstance(sh, (str, int)) and not isinstance(sh, bool):
                    sh = [sh]
                if not isinstance(sh, list) or not sh:
                    raise self.err(f"{where}: shape must be a list of expressions, e.g. [\"n\"]", table, i, "shape")
                a.shape = tuple(self.v.expr(x, f"{where} shape[{j}]", (table, i, "shape")) for j, x in enumerate(sh))
            if "fill" in d:
                a.fill = self.fill(d["fill"], where, (table, i, "fill"))
            if "output" in d:
                if not isinstance(d["output"], bool):
                    raise self.err(f"{where}: output must be true or false", table, i, "output")
                a.output = d["output"]
            if "value" in d:
                a.value = self.v.expr(d["value"], f"{where} value", (table, i, "value"), integer=False, minimum=None)
            if a.value is not None and (a.shape is not None or a.fill is not None or a.output):
                raise self.err(f"{where}: a scalar has value only; a buffer has dtype, shape, fill, output", table, i, "value")
            if table == "scratch" or (a.value is None and table == "args" and "launches" in data):
                if a.dtype is None or a.shape is None:
                    raise self.err(f"{where}: a buffer needs dtype and shape", *loc)
            if table == "args" and "launches" in data and a.shape is None and a.value is None:
                raise self.err(f"{where}: give value (a scalar) or dtype and shape (a buffer)", *loc)
            out.append(a)
        return out

    def fill(self, f: Any, where: str, loc: tuple) -> str:
        if isinstance(f, str):
            if f in ("randn", "rand", "ones", "arange", "zeros"):
                return f
            m = re.fullmatch(r"randint:(-?\d+):(-?\d+)", f)
            if m:
                lo, hi = int(m.group(1)), int(m.group(2))
                if lo >= hi:
                    raise self.err(f"{where}: fill {f!r}: LO must be below HI (HI is exclusive)", *loc)
                return f
        raise self.err(f"{where}: unknown fill {f!r} (known: {', '.join(FILLS)})", *loc)

    def match_signature(self, k: Kernel, args: list[ArgSpec], table: str, what: str = "") -> None:
        """[[args]] against a kernel signature: count, names, order, dtypes, value/shape."""
        params = _params(k)
        names = [a.name for a in args]
        last = (table, len(args) - 1) if args else ("", 0, "kernel")
        for i, (a, p) in enumerate(zip(args, params)):
            if p.name and a.name != p.name:  # an unnamed parameter takes the [[args]] entry at its place
                if a.name in [q.name for q in params]:
                    reason = (f"args #{i + 1} is {a.name!r} but parameter {i + 1} of {_sig(k)} is {p.name!r}: "
                              f"[[args]] must follow the signature's order")
                else:
                    reason = f"args #{i + 1} {a.name!r} is not a parameter of {_sig(k)}"
                raise self.err(what + reason, table, i, "name")
        if len(args) != len(params):
            if len(args) > len(params):
                raise self.err(f"{what}{_sig(k)} has {len(params)} parameters; [[args]] #{len(params) + 1} "
                               f"{args[len(params)].name!r} is one too many", table, len(params))
            missing = ", ".join(_pname(p) for p in params[len(args):])
            raise self.err(f"{what}{_sig(k)} has {len(params)} parameters; the spec lists {len(args)} "
                           f"({', '.join(names) or 'none'}): missing {missing}", *last)
        for i, (a, p) in enumerate(zip(args, params)):
            self.match_param(a, p, i, table, what)

    def match_param(self, a: ArgSpec, p: Param, i: int, table: str, what: str) -> None:
        mapped = ctype_dtype(p.base_type)
        where = f"{what}arg {a.name!r}"
        ct = _ctext(p)
        if p.is_pointer:
            if a.value is not None:
                raise self.err(f"{where} is a pointer ({ct}): give dtype and shape, not value", table, i, "value")
            if a.dtype is None:
                hint = f' = "{mapped[0]}"' if mapped else ""
                raise self.err(f"{where} is a pointer ({ct}) and needs dtype{hint}", table, i)
            if a.shape is None:
                raise self.err(f"{where} is a pointer ({ct}) and needs shape = [...]", table, i)
            if mapped and a.dtype != mapped[0]:
                raise self.err(f"{where} is {ct} but dtype = {a.dtype!r} (use {mapped[0]!r})", table, i, "dtype")
            if mapped and mapped[1] > 1:
                last = a.shape[-1]
                if len(a.shape) < 2 or not last.isdigit() or int(last) != mapped[1]:
                    raise self.err(f"{where} is {ct}: its shape needs a trailing dimension of {mapped[1]} "
                                   f"({mapped[0]} x {mapped[1]}), e.g. [\"n\", {mapped[1]}]", table, i, "shape")
            if a.output and p.is_const:
                raise self.err(f"{where}: output = true on a const pointer ({ct}); the kernel cannot write it",
                               table, i, "output")
            if not a.output and not p.is_const and not what:
                self.v.spec.warnings.append(f"arg {a.name!r} is a non-const pointer without output = true: "
                                            f"its contents are not checked")
        else:
            if a.shape is not None or a.fill is not None or a.output:
                raise self.err(f"{where} is a scalar ({p.type_text}): give value, not shape/fill/output", table, i)
            if a.value is None:
                raise self.err(f"{where} is a scalar ({p.type_text}) and needs value = \"...\"", table, i)
            if mapped and mapped[1] > 1:
                raise self.err(f"{where}: vector scalars ({p.type_text} by value) are not supported", table, i)
            if a.dtype is not None and mapped and a.dtype != mapped[0]:
                raise self.err(f"{where} is {p.type_text} but dtype = {a.dtype!r} (use {mapped[0]!r})", table, i, "dtype")
            dtype = a.dtype or (mapped[0] if mapped else None)
            if dtype is None:
                raise self.err(f"{where}: cannot map the C++ type {p.type_text!r} to a dtype; give dtype", table, i)
            if dtype not in FLOAT_DTYPES:
                self.v.expr(a.value, f"{where} value", (table, i, "value"), integer=True, minimum=None)
            if not what:
                a.dtype = dtype

    def check_use(self, spec: LaunchSpec) -> None:
        used = {x for s in spec.launches for x in s.args}
        for i, a in enumerate(spec.scratch):
            if a.name not in used:
                raise self.err(f"scratch {a.name!r} is not passed to any launch", "scratch", i)
        for i, a in enumerate(spec.args):
            if a.name not in used:
                raise self.err(f"arg {a.name!r} is not passed to any launch", "args", i)
            if a.value is not None and a.dtype is None:
                raise self.err(f"arg {a.name!r}: cannot tell its scalar type; give dtype", "args", i)

    def fill_defaults(self, spec: LaunchSpec) -> None:
        for a in spec.args:
            if a.is_buffer and not a.output and a.fill is None:
                a.fill = "randn" if a.dtype in FLOAT_DTYPES else "randint:0:16"
            if a.fill == "zeros" and not a.output:
                spec.warnings.append(f"arg {a.name!r}: fill = \"zeros\" hides bugs; prefer randn or randint")

    def reference(self, data: dict, spec: LaunchSpec, k: Kernel) -> dict:
        r = data.get("reference")
        if r is None:
            return {}
        if not isinstance(r, dict):
            raise self.err("reference must be a table", "", 0, "reference")
        for key in r:
            if key not in REFERENCE_KEYS:
                raise self.err(f"[reference]: unknown key {key!r} (allowed: {', '.join(REFERENCE_KEYS)})",
                               "reference", 0, key)
        if "python" not in r and "kernel" not in r:
            raise self.err('[reference] needs python = "FILE.py:FUNCTION" or kernel = "NAME"', "reference")
        if "python" in r and "kernel" in r:
            spec.warnings.append("[reference] gives python and kernel: the Python reference is used")
        if "python" in r:
            p = r["python"]
            if not isinstance(p, str) or not p.strip():
                raise self.err('[reference] python must be "FILE.py:FUNCTION"', "reference", 0, "python")
            file, _, fn = p.rpartition(":") if ":" in p else (p, "", "reference")
            fn = fn or "reference"
            path = (self.path.parent / file).resolve()
            if not fn.isidentifier():
                raise self.err(f"[reference] python: {fn!r} is not a function name", "reference", 0, "python")
            if not path.is_file():
                raise self.err(f"[reference] python: {path} not found", "reference", 0, "python")
            return {"python": path, "function": fn, "line": self.lines.line("reference", 0, "python")}
        name = r["kernel"]
        if not isinstance(name, str):
            raise self.err("[reference] kernel must be a string", "reference", 0, "kernel")
        file = (self.path.parent / r["file"]).resolve() if "file" in r else spec.source_path
        if not Path(file).is_file():
            raise self.err(f"[reference] file {file} not found", "reference", 0, "file")
        src = self.source if Path(file) == spec.source_path else parse_source(Path(file).read_text(), str(file))
        rk = src.kernel(name)
        if rk is None:
            have = ", ".join(x.name for x in src.kernels) or "none"
            raise self.err(f"[reference] kernel {name!r} is not in {file} (kernels there: {have})",
                           "reference", 0, "kernel")
        self.match_signature(rk, spec.args, "args", what=f"[reference] kernel: ")
        main = next((s for s in spec.launches if s.kernel == spec.kernel), None)
        if ("grid" not in r or "block" not in r) and (main is None or len(spec.launches) > 1):
            raise self.err("[reference] kernel needs grid and block with [[launches]]", "reference")
        if "grid" in r:
            d = {k: r[k] for k in LAUNCH_KEYS if k in r}
        else:
            d = {"grid": list(main.grid), "block": list(main.block), "shared_bytes": main.shared_bytes}
        vsrc, self.v.source = self.v.source, src
        try:
            step = self.v.step(d, 0, table="reference", kernel=name, args=tuple(a.name for a in spec.args))
        finally:
            self.v.source = vsrc
        return {"kernel": name, "file": Path(file), "step": step, "line": self.lines.line("reference", 0, "kernel")}

    def tolerance(self, data: dict, spec: LaunchSpec) -> tuple[float, float]:
        """(rtol, atol) as given, else the loosest output dtype's floor (rtol at K = 1, the smallest normal)."""
        floats = [a.dtype for a in spec.outputs if a.dtype in BASE_RTOL]
        loosest = max(floats, key=lambda d: BASE_RTOL[d]) if floats else None
        rtol, atol = (BASE_RTOL[loosest], SMALLEST_NORMAL[loosest]) if loosest else (0.0, 0.0)
        t = data.get("tolerance", {})
        if not isinstance(t, dict):
            raise self.err("tolerance must be a table: [tolerance] rtol = 1e-4 atol = 1e-6", "", 0, "tolerance")
        for key, val in t.items():
            if key not in ("rtol", "atol", "reduction"):
                raise self.err(f"[tolerance]: unknown key {key!r} (allowed: rtol, atol, reduction)", "tolerance", 0, key)
            if key == "reduction":
                spec.reduction = self.v.expr(val, "[tolerance] reduction", ("tolerance", 0, key))
                continue
            if not _is_num(val) or not math.isfinite(val) or val < 0:
                raise self.err(f"[tolerance] {key} = {val!r} must be a finite number >= 0", "tolerance", 0, key)
        spec.tolerance_given = tuple(k for k in ("rtol", "atol") if k in t)
        rtol = float(t.get("rtol", rtol))
        atol = float(t.get("atol", atol))
        if rtol >= 1:
            raise self.err(f"[tolerance] rtol = {rtol:g} accepts outputs that are 100% wrong; use a value below 1 "
                           f"(e.g. 1e-4 for float32)", "tolerance", 0, "rtol")
        return rtol, atol

    def check(self, data: dict, spec: LaunchSpec) -> None:
        """[check] distributions = [...] and off_by_one = true|false; then the off-by-one sizes."""
        c = data.get("check", {})
        if not isinstance(c, dict):
            raise self.err("check must be a table: [check] distributions = [\"spec\", \"negative\"]", "", 0, "check")
        for key in c:
            if key not in CHECK_KEYS:
                raise self.err(f"[check]: unknown key {key!r} (allowed: {', '.join(CHECK_KEYS)})", "check", 0, key)
        if "distributions" in c:
            d = c["distributions"]
            if not isinstance(d, list) or not d or not all(isinstance(x, str) for x in d):
                raise self.err(f"[check] distributions must be a non-empty list of names ({', '.join(DISTRIBUTIONS)})",
                               "check", 0, "distributions")
            bad = [x for x in d if x not in DISTRIBUTIONS]
            if bad:
                raise self.err(f"[check] distributions: unknown {bad[0]!r} (known: {', '.join(DISTRIBUTIONS)})",
                               "check", 0, "distributions")
            spec.distributions = tuple(dict.fromkeys(d))
        off = c.get("off_by_one", True)
        if not isinstance(off, bool):
            raise self.err("[check] off_by_one must be true or false", "check", 0, "off_by_one")
        spec.check_sizes = off_by_one_sizes(spec) if off else {}

    def cost(self, data: dict) -> dict:
        c = data.get("cost", {})
        if not isinstance(c, dict):
            raise self.err("cost must be a table: [cost] bytes = \"12 * n\"", "", 0, "cost")
        out = {}
        for key, val in c.items():
            if key not in ("bytes", "flops"):
                raise self.err(f"[cost]: unknown key {key!r} (allowed: bytes, flops)", "cost", 0, key)
            out[key] = self.v.expr(val, f"[cost] {key}", ("cost", 0, key), minimum=0)
        return out


def load_spec(path: str | Path, source: SourceFile | None = None) -> LaunchSpec:
    """Read and validate a launch spec; `source` overrides the .cu file it names."""
    path = Path(path)
    try:
        text = read_bounded(path, MAX_SPEC_BYTES).decode("utf-8")
    except OSError as e:
        raise SpecError(str(path), None, f"cannot read the spec: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        line = e.object.count(b"\n", 0, e.start) + 1
        raise SpecError(str(path), line, f"not UTF-8 text (byte 0x{e.object[e.start]:02x}); a launch spec is TOML, "
                                         "save it as UTF-8") from None
    return _Loader(path, text, source).load()


def loads_spec(text: str, path: str | Path, source: SourceFile | None = None) -> LaunchSpec:
    """Validate spec text as if it were the file `path` (relative paths resolve beside it)."""
    return _Loader(Path(path), text, source).load()


def find_spec(cu_path: str | Path, kernel: str | None = None) -> Path | None:
    """`<stem>.<kernel>.kernelpro.toml` (when kernel is given) or `<stem>.kernelpro.toml` beside the file."""
    cu = Path(cu_path)
    names = ([f"{cu.stem}.{kernel}{SPEC_SUFFIX}"] if kernel else []) + [f"{cu.stem}{SPEC_SUFFIX}"]
    for n in names:
        p = cu.with_name(n)
        if p.is_file():
            return p
    return None


# --- reference ------------------------------------------------------------------------

def _where_in(tb, file: Path) -> int | None:
    line = None
    for fr in traceback.extract_tb(tb):
        try:
            if Path(fr.filename).resolve() == file:
                line = fr.lineno
        except OSError:
            pass
    return line


def load_reference(spec: LaunchSpec) -> Callable[[dict, dict], dict]:
    """The Python reference as fn(inputs, sizes) -> {output name: np.ndarray}.

    Raises SpecError for a missing file or function, or an exception while importing it
    (with the file:line from the traceback); the returned function raises SpecError when
    the reference itself raises or returns something unusable.
    """
    ref = spec.reference
    if "python" not in ref:
        what = f"a kernel ({ref['kernel']}), run by the runner" if ref else "none"
        raise SpecError(str(spec.path), ref.get("line"), f"no Python reference in the spec (reference: {what})")
    file, fn_name = Path(ref["python"]).resolve(), ref["function"]
    if not file.is_file():
        raise SpecError(str(spec.path), ref.get("line"), f"reference file {file} not found")
    mod_name = f"kernelpro_reference_{abs(hash(str(file)))}"
    mspec = importlib.util.spec_from_file_location(mod_name, file)
    module = importlib.util.module_from_spec(mspec)
    sys.path.insert(0, str(file.parent))
    try:
        mspec.loader.exec_module(module)
    except SyntaxError as e:
        raise SpecError(str(file), e.lineno, f"syntax error in the reference: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 - any failure of user code is reported, not raised
        raise SpecError(str(file), _where_in(e.__traceback__, file),
                        f"importing the reference failed: {type(e).__name__}: {e}") from None
    finally:
        try:
            sys.path.remove(str(file.parent))
        except ValueError:
            pass
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        have = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and getattr(v, "__module__", None) == mod_name]
        raise SpecError(str(spec.path), ref.get("line"),
                        f"{file.name} has no function {fn_name!r} (functions there: {', '.join(have) or 'none'})")
    outputs = {a.name: a for a in spec.outputs}
    from .devarrays import reference_kind

    kind = reference_kind(fn)  # a third parameter `xp` (or `torch`), as docs/launch-specs.md documents

    def reference(inputs: dict, sizes: dict) -> dict:
        import numpy as np

        args = [{k: np.array(v, copy=True) for k, v in inputs.items()}, dict(sizes)]
        if kind == "xp":  # on the host: numpy is the array module (the GPU runner passes CuPy)
            args.append(np)
        elif kind == "torch":
            try:
                import torch
            except ImportError:
                raise SpecError(str(file), None, f"{fn_name} takes `torch`, which is not installed") from None
            args = [{k: torch.from_numpy(v) for k, v in args[0].items()}, args[1], torch]
        try:
            got = fn(*args)
        except Exception as e:  # noqa: BLE001
            raise SpecError(str(file), _where_in(e.__traceback__, file),
                            f"the reference raised {type(e).__name__}: {e}") from None
        if not isinstance(got, dict):
            raise SpecError(str(file), None, f"{fn_name} must return a dict of output arrays, got {type(got).__name__}")
        out = {}
        for k, v in got.items():
            if k not in outputs:
                raise SpecError(str(file), None, f"{fn_name} returned {k!r}, which is not an output of the spec "
                                                 f"(outputs: {', '.join(outputs) or 'none'})")
            if hasattr(v, "detach"):  # torch
                v = v.detach().cpu().numpy()
            out[k] = np.asarray(v)
        return out

    return reference


# --- init -----------------------------------------------------------------------------


def init_spec(cu_path: str | Path, kernel: str | None, text: str | None = None) -> str:
    """The text of the spec inferred for `kernel` (None: the file's only kernel): shapes, sizes and launch, each
    value saying where it came from (runtime/infer.py), without a reference. `kernelpro spec init` uses
    `infer.infer_spec` and `infer.write_spec`, which add the kernel as it is now as the reference (a snapshot)."""
    from .infer import InferError, infer_spec

    try:
        return infer_spec(cu_path, kernel, text).toml(reference=False)
    except InferError as e:
        raise SpecError(str(cu_path), None, str(e).removeprefix(f"{cu_path}: ")) from None
