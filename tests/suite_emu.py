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
}


def _ev(expr, env):
    tree = ast.parse(str(expr).replace("/", "//") if "//" not in str(expr) else str(expr), mode="eval")
    return int(eval(compile(tree, "<e>", "eval"), {"__builtins__": {}},
                    {**env, "cdiv": lambda a, b: -(-a // b), "min": min, "max": max}))


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
        if a.value is not None:
            args.append(_ev(a.value, env))
            continue
        count = math.prod(_ev(s, env) for s in a.shape)
        dt = a.dtype
        if a.output:
            outs.append((len(args), a.name, dt))
        if a.output and not a.fill:
            store = np.full(count, 0xFFFF if dt == "bfloat16" else np.nan,
                            dtype=np.uint16 if dt == "bfloat16" else np.dtype(dt))
        elif a.fill == "zeros":
            store = np.zeros(count, dtype=np.uint16 if dt == "bfloat16" else np.dtype(dt))
        elif (a.fill or "").startswith("randint"):
            _, lo, hi = a.fill.split(":")
            store = rng.integers(int(lo), min(int(hi), _vocab(env, int(hi))), count).astype(np.dtype(dt))
        else:
            f = rng.standard_normal(count).astype(np.float32)
            store = bf16_bits(f) if dt == "bfloat16" else f.astype(np.dtype(dt))
        if not a.output:
            views[a.name] = bf16_float(store) if dt == "bfloat16" else store.copy()
        args.append(store)
    return args, views, outs


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
    """{output name: float values} after running source (or the batch's index-th) at env."""
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


def check(family: str, spec, got: dict, views, env, what: str):
    want = reference(family, spec, views, env)
    rtol, atol = spec.rtol, spec.atol
    for name, w in want.items():
        g = got[name].reshape(-1)
        w = np.asarray(w, dtype=np.float64).reshape(-1)
        bad = ~(np.abs(g - w) <= atol + rtol * np.abs(w))
        assert not bad.any(), (f"{what}: {name} differs at {np.flatnonzero(bad)[:5]} "
                               f"(got {g[bad][:3]}, want {w[bad][:3]})")


def refusals(proposer, inp, origin: str) -> str:
    """Why the structural plans did not apply to inp, after checking that `origin`'s did not
    (a fresh BuiltinProposer: its one entry of plans_refused)."""
    assert not [c for c, _ in proposer.structural_candidates(inp) if c.origin == origin]
    (why,) = proposer.plans_refused.values()
    return " ".join(why)
