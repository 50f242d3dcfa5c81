"""PyTorch's own op for each suite family, timed like the kernels: CUDA events around one
call, the L2 flushed between calls (a read of 256 MB, so it is cold and clean, as the product's
evaluator leaves it: profilers/runtime/runner.py l2_flusher), median of the repetitions, at every size of the spec
(eager, or compiled with torch.compile)."""
from __future__ import annotations

import statistics


def _op(torch, family: str, spec, size: str):
    F = torch.nn.functional
    v = dict(spec.sizes[size])
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device=dev, generator=g, dtype=torch.float32).to(dtype)

    if family == "gelu":
        x = randn(v["n"], dtype=torch.bfloat16)
        return lambda: F.gelu(x, approximate="tanh")
    if family == "residual":
        a, b = randn(v["N"]), randn(v["N"])
        out = torch.empty_like(a)
        return lambda: torch.add(a, b, out=out)
    if family == "encoder":
        B, T, C, V = v["B"], v["T"], v["C"], v["V"]
        tok = torch.randint(0, V, (B, T), device=dev, generator=g)
        wte, wpe = randn(V, C, dtype=torch.bfloat16), randn(T, C, dtype=torch.bfloat16)
        return lambda: F.embedding(tok, wte) + wpe
    if family == "softmax":
        x = randn(v["N"], v["C"])
        return lambda: torch.softmax(x, dim=-1)
    if family == "layernorm":
        x, w, b = randn(v["N"], v["C"]), randn(v["C"]), randn(v["C"])
        return lambda: torch.native_layer_norm(x, (v["C"],), w, b, 1e-5)
    if family == "rmsnorm":
        x, w = randn(v["N"], v["C"], dtype=torch.bfloat16), randn(v["C"], dtype=torch.bfloat16)
        return lambda: F.rms_norm(x, (v["C"],), w, 1e-6)
    if family == "bias_grad":
        d = randn(v["N"], v["OC"])
        return lambda: d.sum(dim=0)
    if family == "crossentropy":
        x = randn(v["N"], v["V"])
        t = torch.randint(0, v["V"], (v["N"],), device=dev, generator=g)
        return lambda: F.cross_entropy(x, t, reduction="none")
    raise KeyError(f"no PyTorch op for family {family!r}")


def l2_flusher(torch):
    """A call that flushes L2 clean: a read of 256 MB (every line evicted, dirty ones written back now),
    as the product's evaluator does (profilers/runtime/runner.py l2_flusher)."""
    return torch.zeros(64 << 20, dtype=torch.int32, device="cuda").sum


def _median_s(torch, fn, flush, reps: int) -> float:
    """Median seconds of `fn` by CUDA events, the L2 flushed before each call, after 3 warm-ups."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        flush()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e-3)
    return statistics.median(ts)


def _time_sizes(spec, make, reps: int) -> dict:
    """Median seconds per size of the call `make(torch, size)` returns (the L2 flushed before each call)."""
    import torch

    flush = l2_flusher(torch)
    out = {}
    for size in spec.sizes:
        fn = make(torch, size)
        out[size] = _median_s(torch, fn, flush, reps)
        del fn
        torch.cuda.empty_cache()
    return out


def time_torch(family: str, spec, reps: int = 30, compiled: bool = False) -> dict:
    """Median seconds per size of PyTorch's op (eager, or through torch.compile with `compiled`: the
    warm-up calls compile it, so compile time is not counted)."""

    def make(torch, size):
        fn = _op(torch, family, spec, size)
        return torch.compile(fn, dynamic=False) if compiled else fn

    return _time_sizes(spec, make, reps)


def time_copy(spec, reps: int = 30) -> dict:
    """Median seconds per size of a device-to-device copy moving the spec's useful bytes (half read,
    half written): what DRAM gives at that many bytes, the reference a memory-bound kernel is held to."""

    def make(torch, size):
        src = torch.empty(max(1, int(spec.bytes_moved(size)) // 2), dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)

    return _time_sizes(spec, make, reps)
