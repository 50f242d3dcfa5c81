"""Evaluate a kernel on the GPU: compile, build the worker job from the launch spec, run, judge.

`gpu_problem()` says in one line why there is no usable GPU (or None). `evaluate(...)` returns a
RunResult (failures as data). `measured_profile(report)` is `kernelpro profile --run`: the rows of
the measured table and dynamic advice (roofline, wrong results, crashes, noisy timing, and, with
Nsight Compute installed, the advice of rules/dynamic_ncu.py over one profiled launch).
"""
from __future__ import annotations

import math
import os
import secrets
import sys
from pathlib import Path

from ..advice import Advice, Evidence, Severity
from ..compile import CompiledArtifact, CompileOptions, compile_cuda, compile_library
from ..children import python_command
from .worker import RunResult, WorkerPool, shared_pool

NOISY_SPREAD = 0.05  # IQR/median above this: the timing is not trustworthy


class EvalError(Exception):
    """The spec and the compiled kernel do not fit together (a message for the user)."""


def gpu_problem() -> str | None:
    """Why the GPU runtime cannot run here, in one line; None when it can. Fast (no context).

    The driver and a device are looked for first (through libcuda itself), so a machine without a
    GPU is told so, not asked to install pycuda."""
    if os.environ.get("KERNELPRO_NO_GPU"):
        return "disabled by KERNELPRO_NO_GPU"
    problem = driver_problem()
    if problem:
        return problem
    try:
        import numpy  # noqa: F401
    except ImportError:
        return "numpy is not installed (pip install numpy)"
    try:
        import pycuda.driver as drv
    except (ImportError, OSError) as e:
        return f"pycuda is not installed ({e}); the GPU is there: pip install pycuda"
    try:
        drv.init()
        n = drv.Device.count()
    except Exception as e:  # pycuda.driver.Error and friends
        return f"no NVIDIA driver or device: {e}"
    if n == 0:
        return "no CUDA device found"
    return None


def driver_problem() -> str | None:
    """None when the NVIDIA driver loads and sees a device; else why not (no pycuda needed)."""
    import ctypes

    name = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return f"this machine has no NVIDIA driver ({name} not found), so no GPU to run kernels on"
    try:
        rc = lib.cuInit(0)
        count = ctypes.c_int(0)
        if rc == 0:
            rc = lib.cuDeviceGetCount(ctypes.byref(count))
    except AttributeError as e:
        return f"{name} is not a usable CUDA driver ({e})"
    if rc == 100:  # CUDA_ERROR_NO_DEVICE
        return "no CUDA device found"
    if rc != 0:
        return f"the NVIDIA driver does not start (CUDA error {rc})"
    return None if count.value > 0 else "no CUDA device found"


# --- job building (pure: tested without a GPU) ------------------------------------------------------
def same_template_args(written: tuple[str, ...], actual: tuple[str, ...] | None) -> bool:
    """The spec's `template = [...]` names this instantiation: each argument the same (`32` is `32u`), the rest
    defaulted."""
    if actual is None or len(written) > len(actual):
        return False
    num = lambda t: t.rstrip("uUlL") if t.rstrip("uUlL").lstrip("-").isdigit() else " ".join(t.split())  # noqa: E731
    return all(num(w) == num(a) for w, a in zip(written, actual))


def _mangled(art: CompiledArtifact, kernel: str, template: tuple[str, ...] = ()) -> str:
    builds = art.builds(kernel)
    if not builds:
        have = ", ".join(k.name for k in art.kernels) or "none"
        raise EvalError(f"kernel {kernel!r} is not in the compiled cubin (kernels: {have})")
    if template:
        chosen = [b for b in builds if same_template_args(template, b.template_args)]
        if len(chosen) != 1:
            raise EvalError(f"the spec's template = {list(template)} names {len(chosen)} of the instantiations of "
                            f"{kernel!r} ({', '.join(b.label for b in builds)})")
        return chosen[0].mangled
    if len(builds) > 1:
        raise EvalError(f"kernel {kernel!r} has {len(builds)} instantiations ({', '.join(b.label for b in builds)}): "
                        f"say which one runs with template = [...] in the spec, e.g. template = "
                        f"{list(builds[0].template_args or ())}")
    return builds[0].mangled


_INT_RANGE = {"int8": (-2**7, 2**7), "uint8": (0, 2**8), "int16": (-2**15, 2**15), "uint16": (0, 2**16),
              "int32": (-2**31, 2**31), "uint32": (0, 2**32), "int64": (-2**63, 2**63), "uint64": (0, 2**64)}


def _params(cub, mangled: str, kernel: str) -> list:
    """The compiled kernel's parameter list ((offset, size) per parameter) from its cubin."""
    params = cub.kernel_params(mangled) if cub is not None else None
    if params is None:
        raise EvalError(f"the cubin has no parameter list for {kernel} ({mangled})")
    return params


def _step(spec, st, size: str, names: dict[str, str], params: dict | None = None) -> dict:
    """One launch (or memset) of one size as plain JSON; checked against the compiled kernel's parameters
    (`params`: mangled name -> [KParam]): count, pointer sizes and each scalar's size, so an argument is
    passed with the type of the parameter it goes to."""
    if st.memset:
        return {"memset": st.memset, "byte": int(st.memset_value)}
    kp = (params or {}).get(names[st.kernel])
    if st.host:  # the launcher takes the kernel's parameters: passed as to the kernel, by ctypes
        return {"host": st.host, "name": f"{st.host} (host launcher of {st.kernel})",
                "args": _step_args(spec, st, size, kp, f"launch of {st.kernel} at size {size!r}")}
    grid = list(spec.grid(st, size))
    block = list(spec.block(st, size))
    where = f"launch of {st.kernel} at size {size!r}"
    if any(g < 1 for g in grid) or any(b < 1 for b in block):
        raise EvalError(f"{where}: grid {grid} / block {block} has a dimension below 1")
    if math.prod(block) > 1024:
        raise EvalError(f"{where}: block {block} has {math.prod(block)} threads; the limit is 1024")
    shared = int(spec.eval_int(st.shared_bytes, size)) if st.shared_bytes else 0
    args = _step_args(spec, st, size, kp, where)
    out = {"kernel": names[st.kernel], "name": st.kernel, "grid": grid, "block": block, "shared": shared, "args": args}
    if kp is not None:
        out["param_bytes"] = max((p.offset + p.size for p in kp), default=0)
    return out


def _step_args(spec, st, size: str, kp, where: str) -> list[dict]:
    """A step's arguments at `size`, each checked against the compiled kernel's parameter (`kp`: [KParam] or
    None): buffers as 8-byte pointers, scalars in their parameter's type and range."""
    from .spec import ITEMSIZE

    if kp is not None and len(kp) != len(st.args):
        sizes_text = ", ".join(f"{p.size}" for p in kp)
        raise EvalError(f"{where}: the compiled kernel takes {len(kp)} parameters (sizes {sizes_text} bytes, from the "
                        f"cubin), the launch passes {len(st.args)} ({', '.join(st.args)}); a parameter without a "
                        f"name counts too")
    args = []
    for i, name in enumerate(st.args):
        a = spec.arg(name)
        psize = kp[i].size if kp is not None else None
        if a is not None and a.is_buffer:
            if psize is not None and psize != 8:
                raise EvalError(f"{where}: argument {i + 1} {name!r} is a buffer (an 8-byte pointer) but parameter "
                                f"{i + 1} of the compiled kernel is {psize} bytes")
            args.append({"buf": name, "offset": kp[i].offset if kp is not None else None})
            continue
        dtype = (st.dtypes[i] if i < len(st.dtypes) else None) or (a.dtype if a else None)
        if dtype is None:
            raise EvalError(f"{where}: no dtype for scalar argument {name!r}")
        if psize is not None and ITEMSIZE[dtype] != psize:
            raise EvalError(f"{where}: argument {i + 1} {name!r} would be passed as {dtype} ({ITEMSIZE[dtype]} bytes) "
                            f"but parameter {i + 1} of the compiled kernel is {psize} bytes; give the arg the C++ "
                            f"parameter's type (dtype)")
        value = spec.eval(a.value if a is not None else name, size)
        if dtype not in ("float32", "float16", "bfloat16", "float64"):
            if not float(value).is_integer():
                raise EvalError(f"{where}: integer argument {name!r} = {value}")
            value = int(value)
            lo, hi = _INT_RANGE[dtype]
            if not lo <= value < hi:
                raise EvalError(f"{where}: argument {name!r} = {value} does not fit its {dtype} parameter")
        args.append({"scalar": value, "dtype": dtype, "offset": kp[i].offset if kp is not None else None})
    return args


def build_job(spec, art: CompiledArtifact, ref_art: CompiledArtifact | None = None, sizes=None,
              timing: bool = True, energy: bool = False, seed: int | None = None, check: bool = True,
              sanitize: bool = False, defences: bool = True, library: str | None = None) -> dict:
    """The worker job for one candidate: plain JSON, every expression evaluated.

    With `sizes` None every size of the spec runs, and (when checking) its off-by-one sizes after them,
    checked but not timed. `sanitize`: one launch at the smallest size and the off-by-one sizes, no reference, for Compute
    Sanitizer. `defences=False` (for benchmarks/eval_throughput.py only: what the defences cost) checks the
    first launch of each spec size once and times one input set, as before docs/evaluation.md."""
    from .cubin import Cubin, CubinError

    names = {st.kernel: _mangled(art, st.kernel, spec.template if st.kernel == spec.kernel else ())
             for st in spec.kernel_steps + spec.host_steps}
    try:
        cub = Cubin.read(art.cubin) if art.cubin else None
        rcub = Cubin.read(ref_art.cubin) if ref_art is not None and ref_art.cubin else None
    except (OSError, CubinError) as e:
        raise EvalError(f"cannot read the compiled kernel's parameters: {e}") from None
    params = {m: _params(cub, m, k) for k, m in names.items()}
    ref = (spec.reference or {}) if check and not sanitize else {}
    job = {"op": "run", "cubin": art.cubin, "kernels": sorted(set(names.values())), "timing": timing and not sanitize,
           "energy": energy and not sanitize, "seed": secrets.randbits(31) if seed is None else int(seed),
           "rtol": spec.rtol, "atol": spec.atol, "reference": None, "sizes": [], "sanitize": sanitize, "check": check and not sanitize,
           "distributions": list(getattr(spec, "distributions", ("spec",))) if not sanitize and defences else ["spec"]}
    if not defences:
        job.update(defences=False, reset_state=False)
    if spec.host_steps:  # the source built as a shared library: its launchers run these steps
        if library is None:
            raise EvalError(f"the spec's host launcher {spec.host_steps[0].host} needs the source built as a shared "
                            "library (compile_library)")
        job.update(library=library, hosts=sorted({st.host for st in spec.host_steps}))
    ref_names = {}
    if ref.get("python"):
        job["reference"] = {"python": f"{ref['python']}:{ref.get('function', 'reference')}"}
    elif ref.get("kernel"):
        if ref_art is None:
            raise EvalError("the spec's reference kernel was not compiled")
        ref_names = {ref["kernel"]: _mangled(ref_art, ref["kernel"], spec.template if ref["kernel"] == spec.kernel else ())}
        params.update({m: _params(rcub, m, k) for k, m in ref_names.items()})
        job["reference"] = {"kernel": ref["kernel"], "cubin": ref_art.cubin, "kernels": list(ref_names.values())}
    chosen = list(sizes) if sizes else list(spec.sizes)
    for s in chosen:
        if s not in spec.sizes and s not in getattr(spec, "check_sizes", {}):
            raise EvalError(f"unknown size {s!r} (the spec has {', '.join(spec.sizes)})")
    if sanitize:
        chosen = [min(chosen, key=spec.bytes_moved)]
    # the off-by-one sizes: checked (not timed) after the spec's own; for the sanitizer, one launch each too
    check_only = list(getattr(spec, "check_sizes", {})) if not sizes and (check or sanitize) and defences else []
    for s in chosen + check_only:
        bufs = []
        for a in [x for x in spec.args if x.is_buffer] + list(spec.scratch):
            shape = list(spec.shape(a.name, s))
            bufs.append({"name": a.name, "dtype": a.dtype, "count": math.prod(shape), "shape": shape,
                         "fill": a.fill, "output": bool(a.output), "scratch": a in spec.scratch})
        entry = {"name": s, "vars": spec.env(s), "buffers": bufs, "bytes": spec.bytes_moved(s), "flops": spec.flops(s),
                 "steps": [_step(spec, st, s, names, params) for st in spec.steps_at(s)],
                 "tolerance": spec.tolerance(s).to_json() if hasattr(spec, "tolerance") else None,
                 "check_only": s in check_only}
        if ref_names:
            entry["ref_steps"] = [_step(spec, ref["step"], s, ref_names, params)]
        job["sizes"].append(entry)
    return job


# --- evaluation ---------------------------------------------------------------------------------------
def evaluate(cu_path, spec, options: CompileOptions = CompileOptions(), source_text: str | None = None,
             timing: bool = True, energy: bool = False, *, pool: WorkerPool | None = None, sizes=None,
             seed: int | None = None, use_cache: bool = True, timeout_s: float | None = None,
             ref_options: CompileOptions | None = None) -> RunResult:
    """Compile `cu_path` (or its unsaved `source_text`), check at every size, time, measure energy. A reference
    kernel is compiled with `ref_options` (default `options`): a candidate's own flags do not move it."""
    try:
        art = compile_cuda(cu_path, options, text=source_text, use_cache=use_cache)
    except Exception as e:  # CompileError, ToolchainError
        return RunResult.failed(f"compile: {e}")
    if not art.ok:
        first = art.errors[0] if art.errors else None
        where = f"{Path(first.file).name}:{first.line}: " if first and first.file and first.line else ""
        return RunResult.failed(f"compile error: {where}{first.message if first else 'nvcc failed'}")
    ref_art = None
    ref = spec.reference or {}
    try:
        if ref.get("kernel"):
            ref_file = Path(ref.get("file") or spec.source_path)
            same = ref_file.resolve() == Path(cu_path).resolve()
            ropts = ref_options or options
            ref_art = art if same and source_text is None and ropts == options else \
                compile_cuda(ref_file, ropts, use_cache=use_cache)
            if not ref_art.ok:
                return RunResult.failed(f"the reference kernel {ref['kernel']} in {ref_file} does not compile")
        library = None
        if spec.host_steps:
            try:
                library = compile_library(cu_path, options, text=source_text, use_cache=use_cache)
            except Exception as e:  # CompileError, ToolchainError
                return RunResult.failed(f"compile: {e}")
        job = build_job(spec, art, ref_art, sizes=sizes, timing=timing, energy=energy, seed=seed, library=library)
    except EvalError as e:
        return RunResult.failed(str(e))
    except Exception as e:  # an expression that fails at a size (ExprError) and the like
        return RunResult.failed(f"{spec.path}: {e}")
    pool = pool or shared_pool()
    res = pool.run(job, timeout_s)
    res.seed = job["seed"]
    return res


# --- rows and advice for `profile --run` and `bench` ----------------------------------------------------
def _precision(spec) -> str:
    dts = {a.dtype for a in spec.outputs} or {"float32"}
    return "fp16" if dts & {"float16", "bfloat16"} and "float32" not in dts else "fp32"


def _tensor_cores(art: CompiledArtifact | None, spec) -> bool:
    """The spec's kernel runs on tensor cores (a host launcher: any kernel the source compiles, the library's)."""
    from .roofline import uses_tensor_cores

    if art is None:
        return False
    builds = art.kernels if getattr(spec, "host_steps", None) else art.builds(spec.kernel)
    return any(uses_tensor_cores(i.base for i in b.sass) for b in builds)


IMPOSSIBLE_PREFIX = "faster than the device allows"


def judge_ceilings(spec, res: RunResult, ceilings: dict | None, art: CompiledArtifact | None = None) -> RunResult:
    """A result faster than the device's measured ceilings is an evaluation error, not a speedup: the
    kernel skipped work the [cost] says one run needs (or the [cost] is wrong). Marks `res` failed."""
    from .roofline import faster_than_ceiling

    if not res.ok or not ceilings:
        return res
    l2 = int((res.device or {}).get("l2_bytes") or 0)
    for s in res.sizes:
        why = faster_than_ceiling(s.bytes, s.flops, s.time_s, ceilings, _precision(spec),
                                  _tensor_cores(art, spec), l2)
        if why:
            res.ok = False
            res.failure = (f"{IMPOSSIBLE_PREFIX} at size {s.size}: {why}; the kernel cannot have done the work "
                           f"[cost] describes (skipped or cached work), or [cost] overstates it")
            break
    return res


def rows_and_verdicts(spec, res: RunResult, ceilings: dict | None, art: CompiledArtifact | None = None):
    """The measured rows (keys as report._print_measured reads them) and a Roofline per size."""
    from .roofline import analyze

    rows, verdicts = [], {}
    energy = res.energy or {}
    for s in res.sizes:
        row = {"kernel": spec.kernel, "size": s.size, "ok": s.ok, "time_us": s.time_s * 1e6,
               "spread_pct": s.spread * 100, "bandwidth_gbs": None, "bw_fraction": None, "gflops": None,
               "flop_fraction": None, "energy_uj": None, "power_w": None, "energy_uncertainty_pct": None,
               "bound": None, "max_rel_err": s.check.get("max_rel") if s.check else None,
               "rel_l2": (s.check or {}).get("rel_l2"), "tol_ratio": (s.check or {}).get("tol_ratio"),
               "check": (s.check or {}).get("reason"), "reps": len(s.times), "checked": s.checked, "sets": s.sets,
               "memory": s.memory, "device_state": s.device_state}
        if s.time_s > 0:
            row["bandwidth_gbs"] = s.bytes / s.time_s / 1e9 if s.bytes else None
            row["gflops"] = s.flops / s.time_s / 1e9 if s.flops else None
            if ceilings:
                r = analyze(s.bytes, s.flops, s.time_s, ceilings, _precision(spec), _tensor_cores(art, spec))
                verdicts[s.size] = r
                row.update(bw_fraction=r.bw_fraction, flop_fraction=r.flop_fraction, bound=r.verdict)
        e = energy.get(s.size)
        if e and "energy_uj" in e:
            row.update(energy_uj=e["energy_uj"], power_w=e["avg_power_w"],
                       energy_uncertainty_pct=e["uncertainty"] * 100, idle_w=e.get("idle_w"))
        rows.append(row)
    return rows, verdicts


def _remedy_for_failure(reason: str) -> str:
    r = reason.lower()
    if r.startswith("timeout"):
        return ("the kernel never finished: look for a loop whose bound never becomes false, a spin-wait, "
                "or __syncthreads() that not every thread of the block reaches")
    if "illegal_address" in r or "illegal memory" in r or "misaligned" in r:
        return ("an out-of-bounds or misaligned access: guard every index against the size (if (i < n)), check the "
                "grid against the buffers' shapes in the spec, and run compute-sanitizer to find the line")
    if r.startswith("wrong result"):
        return ("the outputs differ from the reference: check the indexing of the last partial block, the "
                "reduction order and any skipped elements; the evidence names the first bad element")
    if r.startswith("compile"):
        return "fix the compile error first"
    if r.startswith("compute-sanitizer"):
        return ("fix the access the sanitizer names (an index past the end of a buffer, a shared-memory race without "
                "__syncthreads, a read of memory nothing wrote); results that happen to pass are not correct")
    if r.startswith(IMPOSSIBLE_PREFIX):
        return ("every output element must be computed from the inputs at every launch: no results kept from an "
                "earlier launch, no input pattern assumed; if the kernel is honest, check [cost] bytes/flops")
    return "see the message; the run stopped there"


def dynamic_advice(spec, res: RunResult, verdicts: dict, file: str, line: int) -> list[Advice]:
    """Advice from one measured run: failures, the roofline verdict, impossible speedups, noise."""
    out: list[Advice] = []
    k = spec.kernel
    if not res.ok:
        failure = res.failure or ""
        rule = ("wrong-result" if failure.startswith("wrong result") else
                "impossible-speedup" if failure.startswith(IMPOSSIBLE_PREFIX) else
                "sanitizer" if failure.startswith("compute-sanitizer") else "run-failed")
        ev = []
        bad = next((s for s in res.sizes + res.check_sizes if not s.ok), None)
        if bad and bad.check:
            for key in ("max_abs", "max_rel", "rel_l2", "tol_ratio", "unwritten", "nonfinite"):
                v = bad.check.get(key)
                if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
                    ev.append(Evidence(key, v, "", "runner"))
        out.append(Advice(rule, Severity.ERROR, k, file, line,
                          res.failure or "the run failed", _remedy_for_failure(res.failure or ""), evidence=ev))
        return out
    if verdicts:
        size = max(verdicts, key=lambda s: next((x.bytes for x in res.sizes if x.size == s), 0))
        r = verdicts[size]
        sr = next(x for x in res.sizes if x.size == size)
        ev = [Evidence("time", round(sr.time_s * 1e6, 3), "us", "events")]
        if r.bandwidth_gbs is not None:
            ev.append(Evidence("bandwidth", round(r.bandwidth_gbs, 1), "GB/s", "spec bytes / time"))
            ev.append(Evidence("of DRAM ceiling", round(r.bw_fraction * 100, 1), "%", "ceilings"))
        if r.gflops is not None:
            ev.append(Evidence("FLOP rate", round(r.gflops, 1), "GFLOP/s", "spec flops / time"))
            if r.flop_fraction is not None:
                ev.append(Evidence("of FMA peak", round(r.flop_fraction * 100, 1), "%", "ceilings"))
        e = (res.energy or {}).get(size) or {}
        if "energy_uj" in e:
            ev.append(Evidence("energy per launch", round(e["energy_uj"], 2), "uJ", "nvml"))
            ev.append(Evidence("average power", round(e["avg_power_w"], 1), "W", "nvml"))
        if r.impossible:
            out.append(Advice("impossible-speedup", Severity.ERROR, k, file, line,
                              f"at size {size} the measured rate is beyond the device's ceiling: {r.note}",
                              "check that every output element is computed at every launch (no cached results, no "
                              "skipped rows) and that [cost] bytes/flops in the spec are right", evidence=ev))
        else:
            remedy = {
                "memory-bound": "it runs near the DRAM roof: only moving fewer bytes helps (fuse kernels, narrower "
                                "types, read each input once, keep reused tiles in shared memory)",
                "compute-bound": "it runs near the FMA roof: cut instructions (fast math intrinsics, strength "
                                 "reduction, tensor cores for matrix products)",
                "latency-bound": "neither roof is near: expose more parallelism and memory-level parallelism (more "
                                 "blocks or threads, several independent loads per thread, vector loads, fewer "
                                 "__syncthreads); the stall advice says where threads wait",
            }[r.bound]
            out.append(Advice("roofline", Severity.INFO, k, file, line,
                              f"{k} is {r.bound} at size {size}: {_fraction_text(r)}", remedy, evidence=ev))
    weak = next((s for s in res.sizes + res.check_sizes if (s.check or {}).get("weak")), None)
    if weak is not None:
        out.append(Advice("weak-tolerance", Severity.WARNING, k, file, line,
                          f"at size {weak.size} {weak.check['weak']}: the spec's tolerance cannot tell a constant "
                          f"output from the right one",
                          "tighten [tolerance] atol to well below the typical output value (or remove it: the default "
                          "scales with the reference's size); the check now also requires the error to stay below "
                          "10% of the reference's spread", evidence=[]))
    for s in res.sizes:
        if s.spread > NOISY_SPREAD and s.times:
            out.append(Advice("timing-noisy", Severity.WARNING, k, file, line,
                              f"launch times at size {s.size} spread {s.spread * 100:.1f}% (IQR/median) over {len(s.times)} runs",
                              "another process may share the GPU, or the kernel's run time depends on its inputs; "
                              "compare candidates only at a size with a small spread",
                              evidence=[Evidence("spread", round(s.spread * 100, 2), "%", "events")]))
    return out


def _fraction_text(r) -> str:
    parts = []
    if r.bandwidth_gbs is not None:
        parts.append(f"{r.bandwidth_gbs:.0f} GB/s ({r.bw_fraction * 100:.0f}% of the measured DRAM bandwidth)")
    if r.gflops is not None and r.flop_fraction is not None:
        parts.append(f"{r.gflops:.0f} GFLOP/s ({r.flop_fraction * 100:.0f}% of the FMA peak)")
    return ", ".join(parts) or "no cost known"


def measure_spec(cu_path, spec, options: CompileOptions, source_text=None, energy=True, sizes=None,
                 art: CompiledArtifact | None = None, pool: WorkerPool | None = None, ncu: bool = False,
                 sanitize: bool | tuple = False) -> dict:
    """Run and judge: {"measured": rows, "advice": [...], "result": RunResult, "ceilings", "notes"}.

    A time beyond the device's ceilings fails the result (judge_ceilings); `sanitize` (True, or a tuple of
    tool names) runs Compute Sanitizer on one launch of a result that passed."""
    from .ceilings import get_ceilings

    pool = pool or shared_pool()
    notes = []
    res = evaluate(cu_path, spec, options, source_text, timing=True, energy=energy, pool=pool, sizes=sizes)
    ceilings = None
    if res.ok:
        try:
            ceilings = get_ceilings(pool)
        except Exception as e:
            notes.append(f"device ceilings not measured: {e}")
    if art is None and res.ok:
        try:
            art = compile_cuda(cu_path, options, text=source_text)
        except Exception:
            art = None
    judge_ceilings(spec, res, ceilings, art)
    if res.ok and sanitize:
        from .sanitizer import TOOLS, sanitize_spec

        tools = TOOLS if sanitize is True else tuple(sanitize)
        san = sanitize_spec(cu_path, spec, options, source_text=source_text, pool_timeout_s=pool.timeout_s,
                            tools=tools)
        if san.get("failure"):
            res.ok, res.failure = False, san["failure"]
        notes += san.get("notes", [])
    for s in res.sizes + res.check_sizes:
        notes += [f"size {s.size}: {n}" for n in s.notes]
    rows, verdicts = rows_and_verdicts(spec, res, ceilings, art)
    for size, e in (res.energy or {}).items():
        if e.get("error"):
            notes.append(f"energy not measured at size {size}: {e['error']}")
    src_line = 1
    try:
        from ..source import parse_source

        text = source_text if source_text is not None else Path(cu_path).read_text()
        k = parse_source(text, str(cu_path)).kernel(spec.kernel)
        src_line = k.line if k else 1
    except Exception:
        pass
    advice = dynamic_advice(spec, res, verdicts, str(Path(cu_path).resolve()), src_line)
    lines: list[dict] = []
    if res.ok and ncu and art is not None:
        advice += _ncu_advice(notes, cu_path=cu_path, spec=spec, art=art, source_text=source_text, verdicts=verdicts,
                              lines=lines)
    return {"measured": rows, "advice": advice, "result": res, "ceilings": ceilings, "notes": notes, "lines": lines}


def ncu_advice(cu_path, spec, art: CompiledArtifact, source_text, verdicts: dict, notes: list,
               timeout_s: float = 300.0, lines: list | None = None) -> list[Advice]:
    """Nsight Compute on one launch of the kernel at its largest size (the runner's --once job under
    `ncu`), turned into advice by the dynamic tools the roofline verdict selects."""
    import json
    import tempfile

    from . import ncu
    from ..rules.dynamic_ncu import dynamic_advice as ncu_dynamic_advice
    from ..source import parse_source

    problem = ncu.ncu_problem()
    if problem:
        notes.append(f"no Nsight Compute advice: {problem}")
        return []
    size = max(spec.sizes, key=lambda s: spec.bytes_moved(s))
    if spec.host_steps:  # the launcher's own kernels are not the spec's kernel: no counters to read here
        notes.append(f"no Nsight Compute advice: {spec.kernel} runs through the host launcher "
                     f"{spec.host_steps[0].host} (a library kernel)")
        return []
    job = build_job(spec, art, sizes=[size], timing=False, energy=False, check=False)
    work = Path(tempfile.mkdtemp(prefix="kernelpro-ncu-"))
    (work / "job.json").write_text(json.dumps(job))
    target = python_command("kernelpro.profilers.runtime.runner", "--once", str(work / "job.json"),
                            "--out", str(work / "result.json"))
    verdict = verdicts[size].bound if size in verdicts else None
    res = ncu.profile_kernel(target, spec.kernel, work / "ncu", verdict=verdict, timeout_s=timeout_s)
    text = source_text if source_text is not None else Path(cu_path).read_text()
    src = parse_source(text, str(Path(cu_path).resolve()))
    if lines is not None:
        lines += line_counters(res, str(cu_path))
    return ncu_dynamic_advice(res, src, verdict=verdict, notes=notes)


def line_counters(res, path: str) -> list[dict]:
    """Per source line of `path`, Nsight Compute's counters in one short text for the editor:
    the share of warp-stall samples and the top reason, excessive L2 sectors and shared wavefronts.
    [{"line": 12, "text": "31% of stalls (long_scoreboard) · 75% excess sectors"}]"""
    rows = res.lines_for(path)
    total = sum(r.num("samples") for r in rows) or 0.0
    out = []
    for r in rows:
        parts = []
        s = r.num("samples")
        if total and s / total >= 0.01:
            reasons = {k.split(":", 1)[1]: v for k, v in r.counters.items()
                       if k.startswith("stall:") and isinstance(v, float) and v > 0}
            top = f" ({max(reasons, key=reasons.get)})" if reasons else ""
            parts.append(f"{s / total:.0%} of stalls{top}")
        for key, what in (("l2_sectors_global", "sectors"), ("l1_wavefronts_shared", "shared wavefronts")):
            allv, exc = r.num(key), r.num(key + "_excessive")
            if allv > 0 and exc / allv >= 0.05:
                parts.append(f"{exc / allv:.0%} excess {what}")
        if parts:
            out.append({"line": r.line, "text": " · ".join(parts)})
    return out


def _ncu_advice(notes: list, **kw) -> list[Advice]:
    try:
        return ncu_advice(notes=notes, **kw)
    except ImportError as e:
        notes.append(f"no Nsight Compute advice: {e}")
    except Exception as e:  # Nsight Compute is optional: its failure must not hide the measurement
        notes.append(f"Nsight Compute advice unavailable: {type(e).__name__}: {e}")
    return []


def measured_profile(report, kernel: str | None = None) -> dict | None:
    """`kernelpro profile --run`: rows + dynamic advice, or None after one clear line on stderr."""
    from .spec import SpecError, find_spec, load_spec

    path = Path(report.path)
    spec_path = find_spec(path, kernel)
    if spec_path is None:
        name = kernel or (report.kernels[0].name if getattr(report, "kernels", None) else "NAME")
        print(f"kernelpro: no launch spec beside {path}: run `kernelpro spec init {path} --kernel {name}`", file=sys.stderr)
        return None
    try:
        spec = load_spec(spec_path, source=getattr(report, "source", None))
    except SpecError as e:
        print(f"kernelpro: {e}", file=sys.stderr)
        return None
    if kernel and spec.kernel != kernel:
        print(f"kernelpro: {spec_path} describes kernel {spec.kernel!r}, not {kernel!r}", file=sys.stderr)
        return None
    art = getattr(report, "artifact", None)
    options = art.options if art is not None else CompileOptions(arch=getattr(report, "arch", "sm_90"))
    text = getattr(getattr(report, "source", None), "text", None)
    out = measure_spec(path, spec, options, source_text=text, energy=True, art=art,
                       ncu=not os.environ.get("KERNELPRO_NO_NCU"))
    for n in out["notes"]:
        print(f"kernelpro: note: {n}", file=sys.stderr)
    return out
