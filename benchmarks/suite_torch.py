"""PyTorch's own op for each suite family, timed like the kernels: CUDA events around one
call, the L2 flushed between calls (a read of 256 MB, so it is cold and clean, as the product's
evaluator leaves it: profilers/runtime/runner.py l2_flusher), median of the repetitions, at every size of the spec
(eager, or compiled with torch.compile).

The matrix products run through cuBLAS under a precision policy, named beside every number they give:
`fp32` (strict: torch.backends.cuda.matmul.allow_tf32 off), `tf32` (allow_tf32 on: fp32 operands rounded
to TF32 on the tensor cores) and `bf16` (bf16 operands, fp32 accumulation). POLICIES lists each family's;
the first is its default (what `time_torch` gives without `policy`).

The stencils' op is the interior's arithmetic on slices, a new (H-2) x (W-2) (x (D-2)) tensor not copied
into out's interior (eager: a kernel per operation; torch.compile fuses them into one); the 3x3
convolution is F.conv2d with padding 1 (every point, as the kernels) through cuDNN with its TF32 off
(strict fp32, as the kernel); the column product y = x A is cuBLAS's gemv through torch.matmul (no TF32)."""
from __future__ import annotations

import contextlib
import statistics

POLICIES = {
    "gemm_fp32": ("fp32", "tf32"),
    "gemm_aat": ("fp32", "tf32"),
    "gemm_chain": ("fp32", "tf32"),
    "attn_scores": ("fp32", "tf32"),
    "linear_bias": ("fp32", "tf32"),
    "gemm_bf16": ("bf16",),
}


def policies(family: str) -> tuple[str, ...]:
    """The precision policies under which the family's PyTorch op is timed ("-" where it has no product)."""
    return POLICIES.get(family, ("-",))


@contextlib.contextmanager
def precision(torch, policy: str):
    """torch.backends.cuda.matmul.allow_tf32 on for "tf32", off for "fp32" and "bf16"; restored after."""
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = policy == "tf32"
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def _matmul_op(torch, family: str, v: dict, randn):
    """The cuBLAS call (through torch) computing the family's function, outputs preallocated."""
    if family == "gemm_fp32":  # C = 1.5 A B + 0.5 C: cuBLAS's own alpha and beta
        a, b, c = randn(v["M"], v["K"]), randn(v["K"], v["N"]), randn(v["M"], v["N"])
        d = torch.empty_like(c)
        return lambda: torch.addmm(c, a, b, beta=0.5, alpha=1.5, out=d)
    if family == "gemm_aat":
        a = randn(v["N"], v["K"])
        c = torch.empty(v["N"], v["N"], device="cuda")
        return lambda: torch.mm(a, a.t(), out=c)
    if family == "gemm_chain":
        a, b, c = randn(v["M"], v["K"]), randn(v["K"], v["N"]), randn(v["N"], v["P"])
        t = torch.empty(v["M"], v["N"], device="cuda")
        d = torch.empty(v["M"], v["P"], device="cuda")
        return lambda: torch.mm(torch.mm(a, b, out=t), c, out=d)
    if family == "attn_scores":  # one batched product with alpha = scale, then the causal mask in place
        h, t_, d_ = v["H"], v["T"], v["D"]
        q, k = randn(h, t_, d_), randn(h, t_, d_)
        s = torch.empty(h, t_, t_, device="cuda")
        upper = torch.ones(t_, t_, dtype=torch.bool, device="cuda").triu(1)

        def scores():
            s.baddbmm_(q, k.transpose(1, 2), beta=0.0, alpha=0.125)  # beta 0: s's old values are not read
            return s.masked_fill_(upper, float("-inf"))

        return scores
    if family == "linear_bias":
        x, w, b = randn(v["N"], v["C"]), randn(v["OC"], v["C"]), randn(v["OC"])
        y = torch.empty(v["N"], v["OC"], device="cuda")
        return lambda: torch.addmm(b, x, w.t(), out=y)
    if family == "gemm_bf16":
        a, b = randn(v["M"], v["K"], dtype=torch.bfloat16), randn(v["K"], v["N"], dtype=torch.bfloat16)
        c = torch.empty(v["M"], v["N"], device="cuda", dtype=torch.bfloat16)
        return lambda: torch.mm(a, b, out=c)
    return None


def seeded(torch):
    """(generator, randn(*shape, dtype)) from seed 0: every op's inputs, and the peers' (suite_peers.py), alike."""
    g = torch.Generator(device="cuda").manual_seed(0)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device="cuda", generator=g, dtype=torch.float32).to(dtype)
    return g, randn


def _op(torch, family: str, spec, size: str):
    F = torch.nn.functional
    v = dict(spec.sizes[size])
    dev = "cuda"
    g, randn = seeded(torch)

    mm = _matmul_op(torch, family, v, randn)
    if mm is not None:
        return mm
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
    if family == "stencil2d":
        x = randn(v["H"], v["W"])
        return lambda: 0.6 * x[1:-1, 1:-1] + 0.1 * (x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:])
    if family == "stencil3d":
        x = randn(v["D"], v["H"], v["W"])
        c = (slice(1, -1),) * 3
        return lambda: 0.4 * x[c] + 0.1 * (x[:-2, 1:-1, 1:-1] + x[2:, 1:-1, 1:-1] + x[1:-1, :-2, 1:-1]
                                           + x[1:-1, 2:, 1:-1] + x[1:-1, 1:-1, :-2] + x[1:-1, 1:-1, 2:])
    if family == "conv3x3":
        x = randn(1, 1, v["H"], v["W"])
        w = torch.tensor([[0.0625, 0.125, -0.0625], [0.25, 0.5, 0.125], [-0.125, 0.25, 0.0625]],
                         device=dev).reshape(1, 1, 3, 3)
        torch.backends.cudnn.allow_tf32 = False  # strict fp32 (the suite's only cuDNN call)
        return lambda: F.conv2d(x, w, padding=1)
    if family == "transpose":
        x = randn(v["H"], v["W"])
        return lambda: x.t().contiguous()
    if family == "permute4d":
        x = randn(v["B"], v["N"], v["H"], v["d"])
        return lambda: x.permute(0, 2, 1, 3).contiguous()
    if family == "colmatvec":
        a, x = randn(v["M"], v["N"]), randn(v["M"])
        y = torch.empty(v["N"], device=dev)
        return lambda: torch.matmul(x, a, out=y)
    if family == "sum":
        x = randn(v["n"])
        return lambda: torch.sum(x)
    if family == "scan":
        x = torch.randint(0, 16, (v["n"],), device=dev, generator=g, dtype=torch.int32)
        return lambda: torch.cumsum(x, 0, dtype=torch.int32)
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


def time_torch(family: str, spec, reps: int = 30, compiled: bool = False, policy: str | None = None) -> dict:
    """Median seconds per size of PyTorch's op (eager, or through torch.compile with `compiled`: the
    warm-up calls compile it, so compile time is not counted), under `policy` (default: the family's
    first; see POLICIES)."""
    import torch

    policy = policy or policies(family)[0]

    def make(torch, size):
        fn = _op(torch, family, spec, size)
        return torch.compile(fn, dynamic=False) if compiled else fn

    with precision(torch, policy):
        return _time_sizes(spec, make, reps)


def time_copy(spec, reps: int = 30) -> dict:
    """Median seconds per size of a device-to-device copy moving the spec's useful bytes (half read,
    half written): what DRAM gives at that many bytes, the reference a memory-bound kernel is held to."""

    def make(torch, size):
        src = torch.empty(max(1, int(spec.bytes_moved(size)) // 2), dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)

    return _time_sizes(spec, make, reps)
