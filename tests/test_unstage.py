"""Products already staged through shared memory (optimizer/restructure/unstage.py) read back as the
plain loop they compute, so the matrix-product plans rewrite them: the spellings of tests/staged/,
the plain loop and the tiles compiled with nvcc and run in the CPU emulator against the kernel as
written and numpy, at sizes that are not multiples of the tiles where the kernel allows them; and
the shapes it must leave alone, each with its reason."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api
from kernelpro.optimizer.restructure.passes import rename_reassigned_pointers
from kernelpro.optimizer.restructure.unstage import unstage
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "staged")
GXX = shutil.which("g++")

# file -> (grid, block, {array: shape}, {scalar: value}, output, reference, element type, plans offered)
CASES = {
    "tiled_pmpp": (["cdiv(Width, 16)", "cdiv(Width, 16)"], [16, 16], {"M": (37, 37), "N": (37, 37), "P": (37, 37)},
                   {"Width": 37}, "P", lambda v: v["M"] @ v["N"], np.float32, True),
    "tiles_ternary": (["cdiv(N, 8)", "cdiv(M, 8)"], [8, 8], {"A": (37, 29), "B": (29, 53), "C": (37, 53)},
                      {"M": 37, "N": 53, "K": 29}, "C", lambda v: v["A"] @ v["B"], np.float32, True),
    "tiles_flat_abt": (["n / 8", "m / 8"], [8, 8], {"a": (40, 36), "b": (24, 36), "c": (40, 24)},
                       {"m": 40, "n": 24, "k": 36, "alpha": 1.5, "beta": -0.5}, "c",
                       lambda v: 1.5 * v["a"][:, :32] @ v["b"][:, :32].T - 0.5 * v["c"], np.float32, True),
    "tiles_double_if": (["cdiv(n, 8)", "cdiv(n, 8)"], [8, 8], {"A": (29, 29), "B": (29, 29), "C": (29, 29)},
                        {"n": 29}, "C", lambda v: v["A"] @ v["B"], np.float64, True),
    "samples_tmpl": (["wB / 8", "hA / 8"], [8, 8], {"C": (24, 40), "A": (24, 16), "B": (16, 40)},
                     {"wA": 16, "wB": 40, "hA": 24}, "C", lambda v: v["A"] @ v["B"], np.float32, True),
    # pointer steps read at the tile; the row cRow * 32 + threadRow (threadIdx.x / 32) only through the
    # pointers: named, and its extent the launch's
    "sgemm_smem_ptr": (["cdiv(M, 32)", "cdiv(N, 32)"], [1024], {"A": (64, 64), "B": (64, 96), "C": (64, 96)},
                       {"M": 64, "N": 96, "K": 64, "alpha": 1.0, "beta": 0.5}, "C",
                       lambda v: v["A"] @ v["B"] + 0.5 * v["C"], np.float32, True),
}
SMALL = {"bm": 32, "bn": 16, "bk": 8, "tm": 2, "tn": 2, "pad": 1, "vec": 4}


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _plain(text: str, path: str, kernel: str) -> str | None:
    for _ in range(8):
        new = rename_reassigned_pointers(text, path, kernel)
        if new is None:
            break
        text = new
    return unstage(text, path, kernel)[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every spelling as written, as the plain loop and as tiles: compiled for sm_90, then one emulator
    program for all of them."""
    runs = []  # (case, what, source, kernel, grid, block)
    for name, (grid, block, arrays, scalars, out, ref, dt, tiles) in CASES.items():
        path = os.path.join(HERE, f"{name}.cu")
        text = open(path).read()
        k = parse_source(text, path).kernels[0]
        kn = k.name + ("<8>" if k.is_template else "")  # the emulator runs the file's instantiation
        runs.append((name, "as written", text, kn, grid, block))
        runs.append((name, "plain loop", _plain(text, path, k.name), kn, grid, block))
        ctx = api.Context(kernel=k.name, path=path, launch={"grid": grid, "block": block},
                          base_launch={"grid": grid, "block": block},
                          size_env={"small": {s: v for s, v in scalars.items() if not isinstance(v, float)}},
                          scalar_params={p.name: p.name for p in k.params if not p.is_pointer})
        plans, why = api.plans(text, ctx)
        got = {p.name: p for p in plans}
        assert ("matmul-tiles" in got) == tiles, (name, list(got), why)
        if tiles:
            for knobs in (got["matmul-tiles"].space[0], SMALL):
                c = got["matmul-tiles"].build(knobs)
                runs.append((name, c.description, c.source, kn, c.launch["grid"], c.launch["block"]))
    plain = [r for r in runs if r[1] == "plain loop"]
    assert all(r[2] is not None for r in plain), [r[0] for r in plain if r[2] is None]
    problems = compile_each(os.path.join(HERE, "x.cu"), [(r[3].split("<")[0], r[2], ()) for r in runs if r[1] != "as written"],
                            CompileOptions(arch="sm_90"))
    for r, p in zip([r for r in runs if r[1] != "as written"], problems):
        assert p is None, f"{r[0]}: {r[1]}:\n" + "\n".join(p)
    batch = Batch([(r[2], r[3]) for r in runs], str(tmp_path_factory.mktemp("staged")))
    return runs, batch


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_plain_loop_and_tiles_compute_what_the_staged_kernel_computes(built, name):
    runs, batch = built
    grid0, block0, arrays, scalars, out, ref, dt, tiles = CASES[name]
    k = parse_source(open(os.path.join(HERE, f"{name}.cu")).read()).kernels[0]
    idx = [p.name for p in k.params].index(out)
    mine = [(i, r) for i, r in enumerate(runs) if r[0] == name]
    assert len(mine) == (4 if tiles else 2)
    results = []
    for i, (_, what, _, _, grid, block) in mine:
        rng = np.random.default_rng(1)
        args, views = [], {}
        for p in k.params:
            if p.is_pointer:
                x = rng.standard_normal(arrays[p.name]).astype(dt)
                views[p.name] = x.astype(np.float64)
                args.append(x.reshape(-1).copy())
            else:
                args.append(scalars[p.name])
        res = batch.run(i, args, [_ev(g, scalars) for g in grid], [_ev(b, scalars) for b in block])
        results.append((what, res[idx].astype(np.float64)))
    want = np.asarray(ref(views), np.float64).reshape(-1)
    tol = 1e-4 if dt == np.float32 else 1e-10
    for what, got in results:
        assert np.allclose(got, want, rtol=tol, atol=tol), f"{what}: max error {np.max(np.abs(got - want))}"


NEGATIVES = {
    # the tile loop also writes the output: more than stage and sum
    "extra store": ("""
#define T 8
__global__ void k1(const float* A, const float* B, float* C, float* D, int n) {
    __shared__ float sa[T][T], sb[T][T];
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float s = 0;
    for (int t = 0; t < n; t += T) {
        sa[threadIdx.y][threadIdx.x] = A[r * n + t + threadIdx.x];
        sb[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < T; ++k) s += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
        D[r * n + c] = s;
    }
    C[r * n + c] = s;
}""", "does more in the tile loop"),
    # the fill tests the row, but the output's store is not guarded by it
    "unguarded fill": ("""
#define T 8
__global__ void k2(const float* A, const float* B, float* C, int n) {
    __shared__ float sa[T][T], sb[T][T];
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float s = 0;
    for (int t = 0; t < n; t += T) {
        sa[threadIdx.y][threadIdx.x] = (r < n) ? A[r * n + t + threadIdx.x] : 0.0f;
        sb[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < T; ++k) s += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
    }
    C[r * n + c] = s;
}""", "not one the output's store is guarded by"),
    # a sliding window over the staged row (a 1-D stencil), not a product's tile
    "window": ("""
#define T 8
__global__ void k3(const float* A, const float* B, float* C, int n) {
    __shared__ float sa[T][2 * T], sb[T][T];
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float s = 0;
    for (int t = 0; t < n; t += T) {
        sa[threadIdx.y][threadIdx.x] = A[r * n + t + threadIdx.x];
        sb[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < T; ++k) s += sa[threadIdx.y][k + threadIdx.x] * sb[k][threadIdx.x];
        __syncthreads();
    }
    C[r * n + c] = s;
}""", "read"),
    # the staged array is read again after the tile loop
    "read after": ("""
#define T 8
__global__ void k4(const float* A, const float* B, float* C, int n) {
    __shared__ float sa[T][T], sb[T][T];
    int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
    float s = 0;
    for (int t = 0; t < n; t += T) {
        sa[threadIdx.y][threadIdx.x] = A[r * n + t + threadIdx.x];
        sb[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + c];
        __syncthreads();
        for (int k = 0; k < T; ++k) s += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
    }
    C[r * n + c] = s + sa[threadIdx.y][0];
}""", "outside the tile loop"),
}


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_shapes_that_are_not_a_staged_product_are_left_with_a_reason(name):
    text, why = NEGATIVES[name]
    k = parse_source(text).kernels[0].name
    new, reason = unstage(text, "neg.cu", k)
    assert new is None
    assert reason is not None and why in reason, reason
    ctx = api.Context(kernel=k, path="neg.cu", launch={"grid": ["cdiv(n, 8)", "cdiv(n, 8)"], "block": [8, 8]},
                      base_launch=None, size_env={"small": {"n": 40}}, scalar_params={"n": "n"})
    plans, why_not = api.plans(text, ctx)
    assert not [p for p in plans if p.name.startswith("matmul")], [p.name for p in plans]
    assert any(reason in w for w in why_not), why_not
