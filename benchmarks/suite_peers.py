"""The peers KernelPro's kernels are held to, beside PyTorch eager and torch.compile's default mode
(suite_torch.py): torch.compile with mode="max-autotune-no-cudagraphs" (max-autotune's kernel choice: with its CUDA
graphs the H200 measured 2-3x the default mode's time on 2026-12-05, likely the graphs' copies of inputs that are
not static addresses; not verified), Liger-Kernel (Triton) and QuACK (the CuTe
DSL), each wherever it implements the family's operation, timed at every size of the spec in the
same harness and L2 flush as the kernels (suite_torch._time_sizes).

A peer's output is compared with PyTorch eager's at the spec's first size before it is timed: one that
computes something else (another layout, reduction or rounding beyond the dtype's tolerance) is
recorded as a failure, not as a time. A peer whose package is missing is recorded as absent.
"""
from __future__ import annotations

from typing import Callable

from suite_torch import _op, _time_sizes, policies, precision, seeded

# family -> the peers that implement it (torch.compile max-autotune implements every family)
LIGER = {"softmax", "layernorm", "rmsnorm", "crossentropy"}
QUACK = {"softmax", "layernorm", "rmsnorm", "crossentropy"}
NAMES = ("torch_max_autotune", "liger", "quack")


def implements(peer: str, family: str) -> bool:
    if peer == "torch_max_autotune":
        return True
    return family in {"liger": LIGER, "quack": QUACK}[peer]


def _inputs(torch, family: str, v: dict):
    """The family's inputs as suite_torch._op makes them (same generator and seed, same dtypes)."""
    g, randn = seeded(torch)

    if family == "softmax":
        return (randn(v["N"], v["C"]),)
    if family == "layernorm":
        return randn(v["N"], v["C"]), randn(v["C"]), randn(v["C"])
    if family == "rmsnorm":
        return randn(v["N"], v["C"], dtype=torch.bfloat16), randn(v["C"], dtype=torch.bfloat16)
    if family == "crossentropy":
        x = randn(v["N"], v["V"])
        return x, torch.randint(0, v["V"], (v["N"],), device="cuda", generator=g)
    raise KeyError(family)


def _liger(torch, family: str, v: dict) -> Callable:
    from liger_kernel.transformers import functional as lf

    args = _inputs(torch, family, v)
    if family == "softmax":
        return lambda: lf.liger_softmax(args[0])
    if family == "layernorm":
        return lambda: lf.liger_layer_norm(*args, 1e-5)
    if family == "rmsnorm":
        return lambda: lf.liger_rms_norm(*args, 1e-6)
    return lambda: lf.liger_cross_entropy(*args, reduction="none")


def _quack(torch, family: str, v: dict) -> Callable:
    args = _inputs(torch, family, v)
    if family == "softmax":
        from quack.softmax import softmax_fwd

        return lambda: softmax_fwd(args[0])
    if family == "layernorm":
        from quack.rmsnorm import layernorm_fwd

        return lambda: layernorm_fwd(*args, eps=1e-5)
    if family == "rmsnorm":
        from quack.rmsnorm import rmsnorm_fwd

        return lambda: rmsnorm_fwd(args[0], args[1], eps=1e-6)[0]
    from quack.cross_entropy import cross_entropy_fwd

    return lambda: cross_entropy_fwd(*args)


def maker(peer: str, family: str, spec) -> Callable:
    """make(torch, size) -> the peer's call at that size."""
    def make(torch, size):
        v = dict(spec.sizes[size])
        if peer == "torch_max_autotune":  # without CUDA graphs (see the module's note)
            return torch.compile(_op(torch, family, spec, size), mode="max-autotune-no-cudagraphs", dynamic=False)
        return (_liger if peer == "liger" else _quack)(torch, family, v)
    return make


def _first(out):
    """The output tensor of a call (ops that return a tuple give their first element)."""
    return out[0] if isinstance(out, (tuple, list)) else out


def max_error(torch, family: str, spec, peer: str) -> float:
    """Largest |peer - eager| / (1 + |eager|) at the spec's first size (the output's own dtype)."""
    size = next(iter(spec.sizes))
    ref = _first(_op(torch, family, spec, size)()).float()
    got = _first(maker(peer, family, spec)(torch, size)()).float()
    if got.shape != ref.shape:
        raise ValueError(f"output shape {tuple(got.shape)}, PyTorch's {tuple(ref.shape)}")
    finite = torch.isfinite(ref)
    if not torch.equal(finite, torch.isfinite(got)):
        raise ValueError("non-finite values where PyTorch's are finite (or the reverse)")
    return float(((got - ref).abs() / (1 + ref.abs()))[finite].max())


def tolerance(spec) -> float:
    """bf16 outputs to 2^-7 (8 bits of mantissa), fp32 to 1e-3 (different summation orders, fast exp)."""
    return 1.6e-2 if any(a.dtype in ("bfloat16", "float16") for a in spec.outputs) else 1e-3


def time_peer(peer: str, family: str, spec, reps: int = 30) -> dict:
    """{"times_s": per size} or {"failure": why} or {"absent": why}; with the output's max error."""
    import torch

    try:
        with precision(torch, policies(family)[0]):
            err = max_error(torch, family, spec, peer)
            if err > tolerance(spec):
                return {"failure": f"wrong output: max error {err:.2e} beyond {tolerance(spec):.0e}"}
            return {"times_s": _time_sizes(spec, maker(peer, family, spec), reps), "max_error": err}
    except ImportError as e:
        return {"absent": f"{type(e).__name__}: {e}"[:300]}
    except Exception as e:  # an op that rejects the shape or dtype, a compiler that fails: said
        return {"failure": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
