"""Run benchmark-suite kernels (and candidates made from them) in the CPU emulator at small
sizes, with inputs built from the family's launch spec and checked against its reference."""
from __future__ import annotations

import ast
import importlib.util
import math
import os

import numpy as np

from emu_run import Batch

SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "suite")

# sizes small enough for one std::thread per CUDA thread, odd where alignment matters
SMALL = {
    "gelu": {"n": 1003},
    "residual": {"N": 1003},
    "encoder": {"B": 2, "T": 3, "C": 40, "V": 50},
    "softmax": {"N": 3, "C": 1001},
    "layernorm": {"N": 3, "C": 200},
    "rmsnorm": {"N": 3, "C": 136},
    "bias_grad": {"N": 37, "OC": 45},
    "crossentropy": {"N": 3, "V": 1001},
    # matrix products: no size a multiple of any tile (the tensor-core kernels take their scalar path)
    "gemm_fp32": {"M": 37, "N": 45, "K": 29},
    "gemm_aat": {"N": 37, "K": 29},
    "gemm_chain": {"M": 37, "K": 29, "N": 45, "P": 19},
    "attn_scores": {"H": 2, "T": 37, "D": 24},
    "linear_bias": {"N": 37, "C": 29, "OC": 45},
    "gemm_bf16": {"M": 37, "N": 45, "K": 29},
    # stencils, transposes, column products, reductions and scans (issue 27): ragged against every tile,
    # the contiguous extent a multiple of 4 where a best has a 16-byte path (its scalar paths run at
    # test_suite_kernels.BEST_RAGGED)
    "stencil2d": {"H": 37, "W": 132},
    "stencil3d": {"D": 5, "H": 10, "W": 68},
    "conv3x3": {"H": 37, "W": 132},
    "transpose": {"H": 68, "W": 36},
    "permute4d": {"B": 2, "N": 7, "H": 3, "d": 12},
    "colmatvec": {"M": 37, "N": 36},
    "sum": {"n": 4099},
    "scan": {"n": 5003},
}
# a second emulator size for the matrix products: sizes whose vector paths (16-byte loads, cp.async)
# run, still not multiples of the tiles, and more than one tile in each direction where it is cheap
VECTOR = {
    "gemm_fp32": {"M": 136, "N": 132, "K": 72},
    "gemm_aat": {"N": 132, "K": 40},
    "gemm_chain": {"M": 132, "K": 40, "N": 136, "P": 24},
    "attn_scores": {"H": 2, "T": 136, "D": 32},
    "linear_bias": {"N": 132, "C": 40, "OC": 136},
    "gemm_bf16": {"M": 136, "N": 264, "K": 72},
}


def _ev(expr, env):
    tree = ast.parse(str(expr).replace("/", "//") if "//" not in str(expr) else str(expr), mode="eval")
    return int(eval(compile(tree, "<e>", "eval"), {"__builtins__": {}},
                    {**env, "cdiv": lambda a, b: -(-a // b), "min": min, "max": max}))


def _is_float(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return not str(v).lstrip("+-").isdigit()


def bf16_bits(a):
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_float(b):
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def load_spec(family: str, stem: str):
    from kernelpro.profilers.runtime.spec import load_spec as ls
    return ls(os.path.join(SUITE, family, f"{stem}.kernelpro.toml"))


def inputs_for(spec, env, seed=0):
    """(emulator args in parameter order, {name: float view for the reference}, outputs)."""
    rng = np.random.default_rng(seed)
    args, views, outs = [], {}, []
    for a in spec.args:
        if a.value is not None:  # a float literal ("1.5") stays a float; sizes and counts are ints
            args.append(float(a.value) if _is_float(a.value) else _ev(a.value, env))
            continue
        count = math.prod(_ev(s, env) for s in a.shape)
        dt = a.dtype
        if a.output:
            outs.append((len(args), a.name, dt))
        if a.output and not a.fill:
            store = _poisoned(count, dt)
        elif a.fill == "zeros":
            store = np.zeros(count, dtype=np.uint16 if dt == "bfloat16" else np.dtype(dt))
        elif (a.fill or "").startswith("randint"):
            _, lo, hi = a.fill.split(":")
            store = rng.integers(int(lo), min(int(hi), _vocab(env, int(hi))), count).astype(np.dtype(dt))
        else:
            f = rng.standard_normal(count).astype(np.float32)
            store = bf16_bits(f) if dt == "bfloat16" else f.astype(np.dtype(dt))
        if not a.output or a.fill:  # an in/out buffer's initial value is among the reference's inputs
            views[a.name] = bf16_float(store) if dt == "bfloat16" else store.copy()
        args.append(store)
    return args, views, outs


def _poisoned(count, dt, fill=None):
    """A buffer of `count` elements of dtype dt: `fill`, else poison (NaN; integers every byte 0xFF, as the
    evaluator poisons them)."""
    if fill is not None:
        return np.full(count, fill, dtype=_store(dt))
    if dt == "bfloat16":
        return np.full(count, 0xFFFF, dtype=np.uint16)
    if np.dtype(dt).kind == "f":
        return np.full(count, np.nan, dtype=np.dtype(dt))
    out = np.empty(count, dtype=np.dtype(dt))
    out.view(np.uint8)[:] = 0xFF
    return out


def _vocab(env, hi):
    return min(hi, env.get("V", hi))


def reference(family: str, spec, views, env):
    path = os.path.join(SUITE, family, "ref.py")
    mod_spec = importlib.util.spec_from_file_location(f"suite_ref_{family}", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    fn = getattr(mod, spec.reference["function"])
    import inspect
    extra = (np,) if len(inspect.signature(fn).parameters) >= 3 else ()
    return fn({k: v.copy() for k, v in views.items()}, dict(env), *extra)


def run(family: str, spec, source: str, launch: dict, env, workdir, seed=0, batch=None, index=0):
    """{output name: float values} after running source (or the batch's index-th) at env. A spec with a
    sequence of launches ([[launches]], scratch buffers) runs its steps in order (`run_steps`)."""
    if len(spec.launches) > 1 or any(s.memset for s in spec.launches):
        return run_steps(spec, source, env, workdir, seed, launch)
    args, views, outs = inputs_for(spec, env, seed)
    grid = [_ev(g, env) for g in launch["grid"]]
    block = [_ev(b, env) for b in launch["block"]]
    if batch is None:
        batch, index = Batch([(source, spec.kernel)], workdir), 0
    shared = _ev(launch["shared_bytes"], env) if launch.get("shared_bytes") not in (None, "", 0, "0") else 0
    res = batch.run(index, args, grid, block, shared_bytes=shared)
    got = {}
    for i, name, dt in outs:
        got[name] = bf16_float(res[i]) if dt == "bfloat16" else res[i].astype(np.float64)
    return got, views


def _store(dt):
    return np.uint16 if dt == "bfloat16" else np.dtype(dt)


def run_steps(spec, source: str, env, workdir, seed=0, launch: dict | None = None):
    """The spec's [[launches]] in order at env: each kernel step gets its named buffers (arguments and
    [[scratch]], the scratch poisoned with NaN unless filled with zeros) and scalars; memsets set bytes.
    `launch` (a candidate's grid, block, shared_bytes) replaces those of every step of its kernel (default:
    the spec's), as LaunchSpec.with_launch does."""
    launch = dict(launch or {})
    target = launch.pop("kernel", spec.kernel)
    args, views, outs = inputs_for(spec, env, seed)
    bufs, scalars = {}, {}
    for a, v in zip(spec.args, args):
        (bufs if isinstance(v, np.ndarray) else scalars)[a.name] = v
    for s in spec.scratch:
        count = math.prod(_ev(d, env) for d in s.shape)
        bufs[s.name] = _poisoned(count, s.dtype, 0 if s.fill == "zeros" else None)
    kernels = sorted({s.kernel for s in spec.launches if not s.memset})
    batch = Batch([(source, k) for k in kernels], workdir)
    for step in spec.launches:
        if step.memset:
            bufs[step.memset].view(np.uint8)[:] = step.memset_value
            continue
        names = list(step.args) or [a.name for a in spec.args]
        call = [bufs[n] if n in bufs else scalars[n] if n in scalars else _ev(n, env) for n in names]
        conf = {"grid": step.grid, "block": step.block, "shared_bytes": step.shared_bytes}
        if step.kernel == target:
            conf.update({k: v for k, v in launch.items() if k in conf})
        grid = [_ev(g, env) for g in conf["grid"]]
        block = [_ev(b, env) for b in conf["block"]]
        shared = _ev(conf["shared_bytes"], env) if conf["shared_bytes"] not in (None, "", 0, "0") else 0
        res = batch.run(kernels.index(step.kernel), call, grid, block, shared_bytes=shared)
        for n, r in zip(names, res):
            if n in bufs:
                bufs[n] = r
    got = {}
    for _, name, dt in outs:
        got[name] = bf16_float(bufs[name]) if dt == "bfloat16" else bufs[name].astype(np.float64)
    return got, views


def tolerance_at(spec, env) -> tuple[float, float, float]:
    """(rtol, atol, atol_rms) of the spec at env, as the evaluator chooses them: the values given in
    [tolerance], the defaults for the rest (rtol from the reduction length K, atol as rtol x rms(ref))."""
    from kernelpro.profilers.runtime.correctness import BASE_RTOL, default_tolerance

    floats = [a.dtype for a in spec.outputs if a.dtype in BASE_RTOL]
    if not floats or set(spec.tolerance_given) == {"rtol", "atol"}:
        return spec.rtol, spec.atol, 0.0
    k = _ev(spec.reduction, env) if getattr(spec, "reduction", None) else 1
    tol = default_tolerance(max(floats, key=lambda d: BASE_RTOL[d]), k,
                            spec.rtol if "rtol" in spec.tolerance_given else None,
                            spec.atol if "atol" in spec.tolerance_given else None)
    return tol.rtol, tol.atol, tol.atol_rms


def check(family: str, spec, got: dict, views, env, what: str):
    want = reference(family, spec, views, env)
    rtol, atol, atol_rms = tolerance_at(spec, env)
    for name, w in want.items():
        g = got[name].reshape(-1)
        w = np.asarray(w, dtype=np.float64).reshape(-1)
        fin = np.isfinite(w)
        rms = float(np.sqrt(np.mean(w[fin] ** 2))) if fin.any() else 0.0
        with np.errstate(invalid="ignore"):
            ok = np.where(fin, np.abs(g - w) <= atol + atol_rms * rms + rtol * np.abs(w), g == w)
        bad = ~ok
        assert not bad.any(), (f"{what}: {name} differs at {np.flatnonzero(bad)[:5]} "
                               f"(got {g[bad][:3]}, want {w[bad][:3]})")


def refusals(proposer, inp, origin: str) -> str:
    """Why the structural plans did not apply to inp, after checking that `origin`'s did not
    (a fresh BuiltinProposer: its one entry of plans_refused)."""
    assert not [c for c, _ in proposer.structural_candidates(inp) if c.origin == origin]
    (why,) = proposer.plans_refused.values()
    return " ".join(why)
