"""The matrix-product rewrites (optimizer/restructure/matmul.py): the coalescing remap and
shared-memory tiles with register tiles, on the spellings of tests/matmul, each candidate compiled
with nvcc and run in the CPU emulator against numpy at sizes that are not multiples of the tiles
(M=37, N=53, K=29, batch 3); and `kernelpro optimize --propose-only` listing them without a GPU."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch

from kernelpro.optimizer.restructure import api, matmul
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source, walk

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matmul")
# spellings the recogniser reads only after the restructuring passes (unstage, reroll, ...): not in test_contraction
PASSES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matmul_forms")
PROBE26 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe26")  # the first-step measure's kernels
BLIND = [os.path.join(os.path.dirname(os.path.abspath(__file__)), d) for d in ("probe_c", "probe_d")]  # written blind


def _path(name: str) -> str:
    for d in (HERE, PASSES, PROBE26, *BLIND):
        p = os.path.join(d, f"{name}.cu")
        if os.path.exists(p):
            return p
    return os.path.join(PASSES, f"{name}.cu")
GXX = shutil.which("g++")
M, N, K, NB = 37, 53, 29, 3
BF16, F16 = "bf16", "f16"
LOW = ("gemm_bf16", "hgemm_tn", "hgemm_half2_acc", "bf16_linear_rowptr")


def _bf16(a):
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _f(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


# file -> (launch grid, block, {array: shape}, {scalar: value}, output, reference(views) -> output)
CASES = {
    "gemm_xrows": (["cdiv(M, 16)", "cdiv(N, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                   {"M": M, "N": N, "K": K, "alpha": 1.5, "beta": -0.5}, "C",
                   lambda v: 1.5 * v["A"] @ v["B"] - 0.5 * v["C"]),
    "gemm_xcols": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"a": (M, K), "b": (K, N), "c": (M, N)},
                   {"M": M, "N": N, "K": K}, "c", lambda v: v["a"] @ v["b"]),
    "gemm_global": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"c": (M, N), "a": (M, K), "b": (K, N)},
                    {"M": M, "N": N, "K": K, "alpha": 0.75}, "c", lambda v: v["c"] + 0.75 * v["a"] @ v["b"]),
    "linear_rowptr": (["cdiv(BT, 8)", "cdiv(OC, 32)"], [8, 32],
                      {"out": (M, N), "inp": (M, K), "weight": (N, K), "bias": (N,)},
                      {"BT": M, "C": K, "OC": N}, "out", lambda v: v["inp"] @ v["weight"].T + v["bias"]),
    "gemm_abt": (["cdiv(N, 32)", "cdiv(M, 8)"], [32, 8], {"a": (M, K), "b": (N, K), "c": (M, N)},
                 {"M": M, "N": N, "K": K}, "c", lambda v: v["a"] @ v["b"].T),
    "syr2k": (["cdiv(N, 16)", "cdiv(N, 16)"], [16, 16], {"A": (N, K), "B": (N, K), "C": (N, N)},
              {"N": N, "K": K}, "C", lambda v: v["A"] @ v["B"].T + v["B"] @ v["A"].T),
    "bmm_z": (["cdiv(N, 16)", "cdiv(M, 16)", "Bt"], [16, 16], {"A": (NB, M, K), "B": (NB, K, N), "C": (NB, M, N)},
              {"M": M, "N": N, "K": K, "Bt": NB}, "C", lambda v: v["A"] @ v["B"]),
    "gemm_loopbatch": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (NB, M, K), "B": (NB, K, N), "C": (NB, M, N)},
                       {"Bt": NB, "M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "gemm_noguard": (["Width / 16", "Width / 16"], [16, 16], {"Md": (48, 48), "Nd": (48, 48), "Pd": (48, 48)},
                     {"Width": 48}, "Pd", lambda v: v["Md"] @ v["Nd"]),  # the launch gives the size: a multiple of 16
    "syrk_aat": (["cdiv(N, 32)", "cdiv(N, 8)"], [32, 8], {"A": (N, K), "C": (N, N)}, {"N": N, "K": K}, "C",
                 lambda v: v["A"] @ v["A"].T),
    "linear_heads": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"out": (M, N), "x": (M, 2 * K), "w": (K, N)},
                     {"M": M, "N": N, "C": 2 * K, "NH": 2}, "out", lambda v: v["x"][:, :K] @ v["w"]),
    "gemm_flat": (["cdiv(M * N, 128)"], [128], {"A": (M, K), "B": (K, N), "C": (M, N)},
                  {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "attn_av": (["cdiv(HS, 32)", "cdiv(T, 8)", "NH"], [32, 8], {"out": (NB, M, K), "att": (NB, M, M), "v": (NB, M, K)},
                {"T": M, "HS": K, "NH": NB}, "out", lambda v: np.tril(v["att"]) @ v["v"]),
    "attn_scores": (["cdiv(T, 32)", "cdiv(T, 8)", "NH"], [32, 8], {"att": (NB, M, M), "q": (NB, M, K), "k": (NB, M, K)},
                    {"T": M, "HS": K, "NH": NB, "scale": 0.25}, "att",
                    lambda v: np.where(np.tril(np.ones((M, M))) > 0, 0.25 * v["q"] @ np.swapaxes(v["k"], 1, 2), -np.inf)),
    "gemm_blockrow": (["M"], ["N"], {"A": (M, K), "B": (K, N), "C": (M, N)},
                      {"M": M, "N": N, "K": K, "lda": K, "ldb": N, "ldc": N}, "C", lambda v: v["A"] @ v["B"]),
    "gemm_tmpl": (["cdiv(n, 16)", "cdiv(n, 16)"], [16, 16], {"a": (N, N), "b": (N, N), "c": (N, N)}, {"n": N}, "c",
                  lambda v: v["a"] @ v["b"]),
    "linear_dinp": (["cdiv(B * T, 16)", "cdiv(C, 16)"], [16, 16],
                    {"dinp": (M, K), "dout": (M, N), "weight": (N, K)}, {"B": 1, "T": M, "C": K, "OC": N}, "dinp",
                    lambda v: v["dinp"] + v["dout"] @ v["weight"]),
    "gemm_colmajor": (["cdiv(n, 16)", "cdiv(m, 16)"], [16, 16], {"A": (K, M), "B": (K, N), "C": (N, M)},
                      {"m": M, "n": N, "k": K, "alpha": 2.0, "lda": M, "ldb": N, "beta": 0.5, "ldc": M}, "C",
                      lambda v: (2.0 * v["A"].T @ v["B"] + 0.5 * v["C"].T).T),
    # staged through shared memory with no guard: the rows only from the grid (the tiles keep the launch's grid)
    "gemm_gridrows": (["n / 16", "rows / 16"], [16, 16], {"a": (48, 32), "b": (32, 80), "c": (48, 80)},
                      {"k": 32, "n": 80, "rows": 48}, "c", lambda v: v["a"] @ v["b"]),
    "gemm_gridstride": (["7"], [64], {"a": (M, K), "b": (K, N), "c": (M, N)}, {"M": M, "N": N, "K": K}, "c",
                        lambda v: v["a"] @ v["b"]),
    "gemm_subrem": (["cdiv(M * N, 128)"], [128], {"A": (M, K), "B": (K, N), "C": (M, N)}, {"M": M, "N": N, "K": K},
                    "C", lambda v: v["A"] @ v["B"]),
    "gemm_array2d": (["3", "3"], [16, 16], {"A": (40, 40), "B": (40, 40), "C": (40, 40)}, {}, "C",
                     lambda v: v["A"] @ v["B"]),
    "gemm_unroll_guarded": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"a": (M, K), "b": (K, N), "c": (M, N)},
                            {"M": M, "N": N, "K": K}, "c", lambda v: v["a"] @ v["b"]),
    "gemm_unrolled": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                      {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "gemm_dynshared": (["cdiv(N, 8)", "cdiv(M, 8)"], [8, 8], {"A": (M, K), "B": (K, N), "C": (M, N)},
                       {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "gemm_rowcache": (["cdiv(N, 32)", "M"], [32], {"A": (M, K), "B": (K, N), "C": (M, N)}, {"M": M, "N": N, "K": K},
                      "C", lambda v: v["A"] @ v["B"]),
    "gemm_bf16": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K, BF16), "B": (K, N, BF16), "C": (M, N, BF16)},
                  {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "hgemm_tn": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (K, M, F16), "B": (N, K, F16), "C": (M, N, F16)},
                 {"M": M, "N": N, "K": K}, "C", lambda v: v["A"].T @ v["B"].T),
    # public spellings of tests/probe26 the passes prepare: a tile loop synchronised through cooperative groups
    # with its k index in locals, a tile staged by part of the block (`if (tx < TK)`), a k loop run backwards,
    # pointers walked with `++pa; pb += N;`, padded tiles with alpha and beta
    "tiled_cg": (["cdiv(N, 32)", "cdiv(M, 32)"], [32, 32], {"A": (M, K), "B": (K, N), "C": (M, N)},
                 {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "rect_tiles": (["cdiv(N, 32)", "cdiv(M, 16)"], [32, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                   {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "reverse_k": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"a": (M, K), "b": (K, N), "c": (M, N)},
                  {"M": M, "N": N, "K": K}, "c", lambda v: v["a"] @ v["b"]),
    "ptr_walk": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                 {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    # the batch as two digits of blockIdx.z (`b = bh / H, h = bh % H`), round-to-nearest intrinsics, a flat
    # batched index bounded by `(size_t)batch * M * N`
    "bh_split_z": (["cdiv(T, 16)", "cdiv(T, 16)", "B * H"], [16, 16], {"q": (2, 3, M, K), "k": (2, 3, M, K),
                                                                       "s": (2, 3, M, M)},
                   {"B": 2, "H": 3, "T": M, "D": K}, "s", lambda v: v["q"] @ np.swapaxes(v["k"], 2, 3)),
    "rn_intrinsics": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                      {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "sizet_flat_batched": (["cdiv(batch * M * N, 256)"], [256], {"A": (NB, M, K), "B": (NB, K, N), "C": (NB, M, N)},
                           {"batch": NB, "M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    # a sum over two indices whose indices read the merged k * L + l (a tensor contraction): one product over K * L
    "kernel_tensor_contract": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, 5, 6), "B": (5, 6, N), "C": (M, N)},
                               {"M": M, "N": N, "K": 5, "L": 6}, "C",
                               lambda v: v["A"].reshape(M, 30) @ v["B"].reshape(30, N)),
    # the dot product read through float4 views, component by component (D a multiple of 4)
    "qk_float4": (["cdiv(T, 16)", "cdiv(T, 16)"], [16, 16], {"q": (M, 28), "k": (M, 28), "s": (M, M)},
                  {"T": M, "D": 28}, "s", lambda v: v["q"] @ v["k"].T),
    # the causal mask as a break (`if (t2 > t) break;`)
    "av_break": (["cdiv(HS, 32)", "cdiv(T, 8)", "NH"], [32, 8], {"att": (NB, M, M), "v": (NB, M, K), "out": (NB, M, K)},
                 {"NH": NB, "T": M, "HS": K}, "out", lambda v: np.tril(v["att"]) @ v["v"]),
    # a difference of two products in one loop (a complex product's real part), alpha inside a cast to double
    "mm_sub_products": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"Ar": (M, K), "Ai": (M, K), "Br": (K, N),
                                                                    "Bi": (K, N), "Cr": (M, N)},
                        {"M": M, "N": N, "K": K}, "Cr", lambda v: v["Ar"] @ v["Br"] - v["Ai"] @ v["Bi"]),
    "mm_scale_loop_acc_double": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                                 {"M": M, "N": N, "K": K, "alpha": 2.0}, "C", lambda v: 2.0 * v["A"] @ v["B"]),
    # ECE408's tiled product: A's and C's rows (and B's and C's columns) are one size at every size of the spec,
    # read as one; B has fewer rows than A has columns: the terms past them are zero fills (k < min of the two)
    "mm_ece408_tiled": (["cdiv(numCColumns, 16)", "cdiv(numCRows, 16)"], [16, 16], {"A": (M, K), "B": (20, N), "C": (M, N)},
                     {"numARows": M, "numAColumns": K, "numBRows": 20, "numBColumns": N, "numCRows": M,
                      "numCColumns": N}, "C", lambda v: v["A"][:, :20] @ v["B"]),
    # a sum over two loops (b, t) through row pointers declared in the inner loop: one loop over b * T + t
    "dweight_rows": (["cdiv(C, 32)", "cdiv(OC, 8)"], [32, 8], {"dweight": (N, K), "dout": (2, M, N), "inp": (2, M, K)},
                     {"B": 2, "T": M, "C": K, "OC": N}, "dweight",
                     lambda v: v["dweight"] + v["dout"].reshape(2 * M, N).T @ v["inp"].reshape(2 * M, K)),
    # two adjacent outputs per thread (`col = 2 * (bx * bd + tx)`), the second under `bool has2 = col + 1 < N`,
    # after an early exit: read one output per thread for the tiles (N odd: the last column alone)
    "mm15_matmul_two_per_thread": (["cdiv(N, 64)", "cdiv(M, 16)"], [32, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                        {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    # PMPP's tile count as a floating-point ceiling (`ph < ceil(Width/(float)TILE_WIDTH)`)
    "mm10_pmpp_tiled_matmul": (["cdiv(Width, 16)", "cdiv(Width, 16)"], [16, 16], {"M": (N, N), "N": (N, N), "P": (N, N)},
                   {"Width": N}, "P", lambda v: v["M"] @ v["N"]),
    # a do-while k loop (`do { ...; ++k; } while (k < K);`) read as its for
    "do_while_k": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                   {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    # a later batch of public-style spellings: strides of a batch passed in, two outputs 16 columns apart (the
    # second's update under its store's guard), 2-D grid-stride loops, a block per row with its threads striding
    # the columns, PolyBench's 2mm summing alpha * A * B in the output, fp16 summed in half by __hfma, a bf16
    # linear layer through row pointers
    "strided_batched": (["cdiv(N, 16)", "cdiv(M, 16)", "batch"], [16, 16],
                        {"A": (NB, M, K), "B": (NB, K, N), "C": (NB, M, N)},
                        {"M": M, "N": N, "K": K, "strideA": M * K, "strideB": K * N, "strideC": M * N, "batch": NB},
                        "C", lambda v: v["A"] @ v["B"]),
    "two_cols_per_thread": (["cdiv(N, 32)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                    {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "gridstride2d": (["2", "2"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)}, {"M": M, "N": N, "K": K}, "C",
                     lambda v: v["A"] @ v["B"]),
    "block_row_threads_cols": (["M"], [32], {"A": (M, K), "B": (K, N), "C": (M, N)}, {"M": M, "N": N, "K": K}, "C",
                               lambda v: v["A"] @ v["B"]),
    "mm_2mm_alpha": (["cdiv(nj, 32)", "cdiv(ni, 8)"], [32, 8], {"tmp": (M, N), "A": (M, K), "B": (K, N)},
                     {"ni": M, "nj": N, "nk": K, "alpha": 1.5}, "tmp", lambda v: 1.5 * v["A"] @ v["B"]),
    "hgemm_half2_acc": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K, F16), "B": (K, N, F16), "C": (M, N, F16)},
                        {"M": M, "N": N, "K": K}, "C", lambda v: v["A"] @ v["B"]),
    "bf16_linear_rowptr": (["cdiv(OC, 64)", "BT"], [64], {"out": (M, N, BF16), "inp": (M, K, BF16),
                                                          "weight": (N, K, BF16)},
                           {"BT": M, "C": K, "OC": N}, "out", lambda v: v["inp"] @ v["weight"].T),
    # and: a k loop unrolled by two with no remainder (K even), K a template parameter, operands declared as
    # pointers to rows (`const float (*A)[NN]`)
    "unroll2_noremainder": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, 30), "B": (30, N), "C": (M, N)},
                            {"M": M, "N": N, "K": 30}, "C", lambda v: v["A"] @ v["B"]),
    "tmpl_k": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, 64), "B": (64, N), "C": (M, N)},
               {"M": M, "N": N}, "C", lambda v: v["A"] @ v["B"]),
    "arr_ptr_param": (["cdiv(40, 16)", "cdiv(40, 16)"], [16, 16], {"A": (40, 40), "B": (40, 40), "C": (40, 40)}, {},
                      "C", lambda v: v["A"] @ v["B"]),
    "tiled_padded": (["cdiv(N, 16)", "cdiv(M, 16)"], [16, 16], {"A": (M, K), "B": (K, N), "C": (M, N)},
                     {"M": M, "N": N, "K": K, "alpha": 1.5, "beta": -0.5}, "C",
                     lambda v: 1.5 * v["A"] @ v["B"] - 0.5 * v["C"]),
}
EMU_TEMPLATE = {"gemm_gridrows": "<16>", "tmpl_k": "<64>"}
SHARED = {"gemm_dynshared": 512}  # the launch's dynamic shared bytes
SMALL_TILES = {"bm": 32, "bn": 16, "bk": 8, "tm": 2, "tn": 2, "pad": 1, "vec": 4}  # several blocks, tails in M, N and K
# the same with cp.async double buffering, single loads and no padding; then with the XOR swizzle;
TILE_KNOBS = [SMALL_TILES, {**SMALL_TILES, "vec": 1, "pad": 0, "stages": 2}, {**SMALL_TILES, "pad": 0, "stages": 2, "swz": 1},
              # double-buffered through registers (loaded before the slab is used, stored after), with and without
              # 16-byte loads, padded or swizzled
              {**SMALL_TILES, "stages": 2, "pre": 1}, {**SMALL_TILES, "vec": 1, "pad": 0, "stages": 2, "pre": 1, "swz": 1}]


def _ctx(name, text, tolerance=None):
    grid, block, arrays, scalars, out, ref = CASES[name]
    k = parse_source(text).kernels[0]
    env = {s: v for s, v in scalars.items() if not isinstance(v, float)}
    launch = {"grid": grid, "block": block, **({"shared_bytes": SHARED[name]} if name in SHARED else {})}
    return k, api.Context(kernel=k.name, path=_path(name), launch=launch,
                          base_launch=dict(launch), size_env={"small": env},
                          scalar_params={p.name: p.name for p in k.params if not p.is_pointer}, tolerance=tolerance)


def _ev(e, env):
    return int(eval(str(e).replace("/", "//"), {"cdiv": lambda a, b: -(-a // b)}, dict(env)))


def _args(k, name, seed=0):
    grid, block, arrays, scalars, out, ref = CASES[name]
    rng = np.random.default_rng(seed)
    args, views = [], {}
    for p in k.params:
        if p.is_pointer:
            shape = arrays[p.name]
            low = shape[-1] if shape[-1] in (BF16, F16) else None
            shape = shape[:-1] if low else shape
            x = rng.standard_normal(shape).astype(np.float32)
            store = _bf16(x) if low == BF16 else x.astype(np.float16) if low == F16 else x
            views[p.name] = _f(store) if low == BF16 else store.astype(np.float64)
            args.append(store.reshape(-1).copy())
        else:
            args.append(scalars[p.name])
    return args, views


def _want(name, views):
    return np.asarray(CASES[name][5](views), np.float64)


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_rewrite_compiles_and_computes_the_product(name, tmp_path):
    text = open(_path(name)).read()
    k, ctx = _ctx(name, text)
    plans, why = api.plans(text, ctx)
    names = [p.name for p in plans]
    assert "matmul-tiles" in names, why
    assert ("matmul-coalesce" in names) == (name in ("gemm_xrows", "linear_rowptr", "linear_dinp", "gemm_colmajor")), \
        names
    assert ("matmul-wmma" in names) == (name in LOW), names  # 16-bit operands only (TF32: no tolerance given)
    assert ("matmul-3xtf32" in names) == (name not in LOW + ("syr2k", "gemm_tmpl", "mm_sub_products")), names  # one
    # product of fp32
    runs = [("as written", text, ctx.launch)]
    prepared = not os.path.exists(os.path.join(HERE, f"{name}.cu"))  # a spelling the passes prepare: what it
    # tests is that reading; the tiles' first setting shows the rewrite computes the product (CI's time)
    assert ("matmul-library" in names) == (name in LOW), names  # 16-bit operands on sm_90
    for p in plans:
        if p.name == "matmul-library":  # a host launcher of CUTLASS: no emulator runs it (test_gemm_library.py
            continue                    # checks what its call computes; the GPU test runs it)
        if prepared and p.name != "matmul-tiles" and name != "gemm_gridrows":  # (the kept grid: in WMMA too)
            continue
        if prepared:
            settings = [p.space[0]]
        elif p.name == "matmul-tiles":  # the model's first and one of the small settings, in turn over the
            # spellings (each small setting on a third of them: seven or more), to keep CI's time
            settings = [p.space[0], TILE_KNOBS[sorted(CASES).index(name) % len(TILE_KNOBS)]]
        elif p.name == "matmul-wmma":  # both stage counts, each operand's layout (A and B transposed in hgemm_tn),
            # and a warp tile other than 32 x 32 (more fragments per warp) with the other stage count
            other = [s for s in p.space if s["stages"] != p.space[0]["stages"]]
            settings = [p.space[0], next((s for s in other if (s.get("wm", 32), s.get("wn", 32)) != (32, 32)), other[0])]
        else:
            settings = [p.space[0]]
        for knobs in settings:
            c = p.build(knobs)
            runs.append((c.description, c.source, c.launch))
    problems = compile_each(ctx.path, [(k.name, src, ()) for _, src, _ in runs[1:]], CompileOptions(arch="sm_90"))
    for (what, src, _), problem in zip(runs[1:], problems):
        assert problem is None, f"{what}:\n" + "\n".join(problem)
    emu_name = k.name + (EMU_TEMPLATE.get(name, "<float>") if k.is_template else "")
    batch = Batch([(src, emu_name) for _, src, _ in runs], str(tmp_path))
    env = {s: v for s, v in CASES[name][3].items()}
    out = CASES[name][4]
    idx = [p.name for p in k.params].index(out)
    for i, (what, src, launch) in enumerate(runs):
        args, views = _args(k, name)
        res = batch.run(i, args, [_ev(g, env) for g in launch["grid"]], [_ev(b, env) for b in launch["block"]],
                        shared_bytes=int(launch.get("shared_bytes") or 0))
        got = res[idx]
        got = _f(got) if got.dtype == np.uint16 else got.astype(np.float64)
        want = _want(name, views).reshape(-1)
        tol = 2e-2 if name in LOW else 1e-4
        assert np.allclose(got.astype(np.float64), want, rtol=tol, atol=tol), f"{what}: max error " \
            f"{np.max(np.abs(got - want))}"


SPEC = """kernel = "sgemm_naive"

[sizes]
small = { M = 1000, N = 1200, K = 700 }
large = { M = 4096, N = 4096, K = 4096 }

[[args]]
name = "M"
value = "M"

[[args]]
name = "N"
value = "N"

[[args]]
name = "K"
value = "K"

[[args]]
name = "alpha"
value = "1.5"

[[args]]
name = "A"
dtype = "float32"
shape = ["M * K"]
fill = "randn"

[[args]]
name = "B"
dtype = "float32"
shape = ["K * N"]
fill = "randn"

[[args]]
name = "beta"
value = "0.5"

[[args]]
name = "C"
dtype = "float32"
shape = ["M * N"]
fill = "randn"
output = true

[reference]
python = "ref.py:gemm"

[tolerance]
rtol = 1e-3
atol = 1e-3

[launch]
grid = ["cdiv(M, 16)", "cdiv(N, 16)"]
block = [16, 16]
"""
REF = """def gemm(inputs, sizes):
    M, N, K = sizes["M"], sizes["N"], sizes["K"]
    a, b, c = (inputs[x] for x in ("A", "B", "C"))
    return {"C": 1.5 * a.reshape(M, K) @ b.reshape(K, N) + 0.5 * c.reshape(M, N)}
"""


@pytest.mark.slow
def test_propose_only_lists_the_matmul_rewrites_without_a_gpu(tmp_path):
    shutil.copy(os.path.join(HERE, "gemm_xrows.cu"), tmp_path / "gemm.cu")
    (tmp_path / "gemm.kernelpro.toml").write_text(SPEC)
    (tmp_path / "ref.py").write_text(REF)
    r = subprocess.run([sys.executable, "-m", "kernelpro.profilers.cli", "optimize", str(tmp_path / "gemm.cu"),
                        "--kernel", "sgemm_naive", "--propose-only", "--json"], capture_output=True, text=True,
                       env={**os.environ, "KERNELPRO_NO_GPU": "1"})
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    by = {c["origin"]: c for c in d["candidates"]}
    assert {"builtin:matmul-coalesce", "builtin:matmul-tiles"} <= set(by), [c["origin"] for c in d["candidates"]]
    remap, tiles = by["builtin:matmul-coalesce"], by["builtin:matmul-tiles"]
    assert remap["compiles"] and tiles["compiles"]
    assert remap["launch"]["grid"] == ["cdiv(N, 16)", "cdiv(M, 16)"] and "uncoalesced-access" in remap["answers"]
    assert tiles["launch"]["block"] == [tiles["knobs"]["bm"] * tiles["knobs"]["bn"] //
                                        (tiles["knobs"]["tm"] * tiles["knobs"]["tn"])]
    assert {"matmul-without-tensor-cores", "matmul-global-operands"} <= set(tiles["answers"])
    # the structural rewrites come before the local edits
    kinds = [c["kind"] for c in d["candidates"]]
    assert kinds.index("structural") == 0


@pytest.mark.parametrize("tolerance, admitted", [((1e-2, 0.1), True), ((1e-2, 1e-3), False), ((1e-4, 0.1), False)])
def test_tf32_only_where_the_spec_tolerance_admits_its_error_at_that_k(tolerance, admitted):
    text = open(os.path.join(HERE, "gemm_xcols.cu")).read()
    k, ctx = _ctx("gemm_xcols", text, tolerance)
    plans, why = api.plans(text, ctx)
    wmma = [p for p in plans if p.name == "matmul-wmma"]
    assert bool(wmma) == admitted, why
    if admitted:
        c = wmma[0].build(wmma[0].space[0])
        assert "TF32 admitted by the spec's tolerance (rtol 0.01, atol 0.1) at K = 29" in c.description
        assert "precision::tf32" in c.source and "__float_to_tf32" in c.source
    else:
        assert any("does not admit TF32's error at K = 29" in w for w in why), why


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_the_tf32_candidate_compiles_and_computes_the_product(tmp_path):
    name = "gemm_abt"
    text = open(_path(name)).read()
    k, ctx = _ctx(name, text, (1e-2, 0.1))
    plan = next(p for p in api.plans(text, ctx)[0] if p.name == "matmul-wmma")
    cands = [plan.build(kn) for kn in plan.space[:2]]
    problems = compile_each(ctx.path, [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * len(cands), problems
    batch = Batch([(c.source, k.name) for c in cands], str(tmp_path))
    env = CASES[name][3]
    for i, c in enumerate(cands):
        args, views = _args(k, name)
        got = batch.run(i, args, [_ev(g, env) for g in c.launch["grid"]], [_ev(b, env) for b in c.launch["block"]])[2]
        want = _want(name, views).reshape(-1)
        err = np.abs(got - want)
        assert 1e-4 < err.max() < 0.05, c.description  # TF32's rounding (fp32 alone is within 1e-5)


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_3xtf32_keeps_fp32_accuracy_on_long_sums_where_tf32_does_not(tmp_path):
    """Sums of 1000 products in the emulator, whose tensor cores take TF32 (19-bit) operands: the
    3xTF32 candidate (offered where the tolerance refuses TF32) is within a few times the fp32 tiles'
    error, plain TF32 (offered under a loose tolerance) far from both; the double-buffered candidate
    with its wait for the copies removed reads slabs that have not landed and is wrong."""
    name = "gemm_abt"
    text = open(_path(name)).read()
    k, strict = _ctx(name, text, (1e-5, 1e-5))
    loose = _ctx(name, text, (1e-2, 1.0))[1]
    sp, lp = ({p.name: p for p in api.plans(text, ctx)[0]} for ctx in (strict, loose))
    assert "matmul-wmma" not in sp and "matmul-3xtf32" not in lp and "matmul-3xtf32" in sp
    knobs = {"bm": 64, "bn": 64, "bk": 32, "stages": 2}
    split, tf32 = sp["matmul-3xtf32"].build({**knobs, "wm": 64, "wn": 32}), lp["matmul-wmma"].build(knobs)
    assert "kp_f[4][2]" in split.source and "kp_f[2][2]" in tf32.source  # a 64 x 32 warp tile: 4 x 2 fragments
    simt = sp["matmul-tiles"].build({**SMALL_TILES, "bm": 64, "bn": 64, "tm": 4, "tn": 4, "stages": 2})
    assert "3xTF32 split precision" in split.description and "does not admit TF32's error" in split.description
    nowait = split.source.replace("__pipeline_wait_prior(1);", "")
    assert nowait != split.source
    cands = [split, tf32, simt]
    problems = compile_each(strict.path, [(k.name, c.source, ()) for c in cands], CompileOptions(arch="sm_90"))
    assert problems == [None] * 3, problems
    batch = Batch([(c.source, k.name) for c in cands] + [(nowait, k.name)], str(tmp_path))
    env = {"M": 40, "N": 48, "K": 1000}
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((env[d], env["K"])).astype(np.float32) for d in ("M", "N"))
    want = a.astype(np.float64) @ b.astype(np.float64).T
    errs = []
    for i, c in enumerate(cands + [split]):
        got = batch.run(i, [a, b, np.zeros(env["M"] * env["N"], np.float32), env["M"], env["N"], env["K"]],
                        [_ev(g, env) for g in c.launch["grid"]], [_ev(x, env) for x in c.launch["block"]])[2]
        errs.append(np.abs(got.reshape(want.shape) - want).max())
    e3, etf, e32, ewait = errs
    assert e3 < 4 * max(e32, 1e-5), errs  # fp32's accuracy
    assert etf > 30 * e3 and etf > 1e-3, errs  # TF32's (about 1e-2 here)
    assert ewait > 1.0, errs


def test_3xtf32_adds_each_slab_to_fp32_registers_so_sums_truncated_in_the_mma_do_not_drift(tmp_path):
    """The emulator's MMA rounds its sums toward zero as the tensor cores do. K = 3000: 3xTF32 with each
    slab's sums added to registers stays at fp32's accuracy; the same kernel with the whole chain of sums
    kept in the MMA accumulator drifts (relative L2 error a few 1e-5 here; 5.7e-5 measured on an H100 at
    4096^3, where it failed the strict tolerance)."""
    name = "gemm_abt"
    text = open(_path(name)).read()
    k, strict = _ctx(name, text, (1e-5, 1e-5))
    sp = {p.name: p for p in api.plans(text, strict)[0]}
    split = sp["matmul-3xtf32"].build({"bm": 32, "bn": 32, "bk": 16, "stages": 2})  # one warp per block
    simt = sp["matmul-tiles"].build({**SMALL_TILES, "bm": 32, "bn": 32, "tm": 4, "tn": 4, "stages": 2})
    chain = (split.source.replace("mma_sync(kp_g[m][n]", "mma_sync(kp_f[m][n]").replace(", kp_g[m][n]);", ", kp_f[m][n]);")
             .replace("kp_f[m][n].x[e] += kp_g[m][n].x[e];", ""))
    assert chain != split.source and "kp_f[m][n].x[e] += kp_g[m][n].x[e];" in split.source
    srcs = [split.source, simt.source, chain]  # (nvcc compiles such candidates in the test above)
    batch = Batch([(s_, k.name) for s_ in srcs], str(tmp_path))
    env = {"M": 20, "N": 24, "K": 3000}
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((env[d], env["K"])).astype(np.float32) for d in ("M", "N"))
    want = a.astype(np.float64) @ b.astype(np.float64).T
    rel = []
    for i, c in enumerate([split, simt, split]):
        got = batch.run(i, [a, b, np.zeros(env["M"] * env["N"], np.float32), env["M"], env["N"], env["K"]],
                        [_ev(g, env) for g in c.launch["grid"]], [_ev(x, env) for x in c.launch["block"]])[2]
        rel.append(np.linalg.norm(got.reshape(want.shape) - want) / np.linalg.norm(want))
    promoted, fp32, chained = rel
    assert promoted < 2 * fp32, rel  # fp32's accuracy
    assert chained > 10 * fp32, rel  # the drift the GPU showed


def test_knob_spaces_fit_shared_memory_and_put_the_likely_best_first():
    from kernelpro.optimizer.restructure import matmul

    text = open(os.path.join(HERE, "gemm_xcols.cu")).read()
    k, ctx = _ctx("gemm_xcols", text)
    c = matmul.product(parse_source(text), k.name)
    plans = {p.name: p for p in api.plans(text, ctx)[0]}
    tiles = plans["matmul-tiles"].space
    for s in tiles:  # every setting's stages of padded slabs within the 48 KB of static shared memory
        assert s["stages"] * s["bk"] * (s["bm"] + s["bn"] + 2 * s["pad"]) * 4 <= 48 * 1024, s
    assert {(s["stages"], s["swz"]) for s in tiles} == {(1, 0), (2, 0), (1, 1), (2, 1)}
    # the register pipeline first (measured faster than cp.async on the H100), cp.async double buffering next
    assert tiles[0]["stages"] == 2 and tiles[0]["vec"] == 4 and not tiles[0]["swz"] and tiles[0].get("pre") == 1
    assert any(s.get("pre", 0) == 0 and s["stages"] == 2 for s in tiles)
    two = matmul.tile_space(2, 4, 4096, 4096, 1, "sm_90", async_ok=True)  # two products (syr2k): twice the slabs
    got = {(s["bm"], s["bn"], s["bk"], s["stages"], s["pad"]) for s in two}
    assert (128, 128, 16, 1, 4) in got and (128, 128, 16, 2, 4) not in got  # 2 x 2 x 16 x 264 x 4 bytes: 66 KB
    # before sm_80 no cp.async (two stages only through registers); nothing read along k (gemm_colmajor): no
    # swizzle; bf16 operands kept as float in shared memory: no cp.async either
    assert {(s["stages"], s.get("pre", 0)) for s in matmul.tile_space(1, 4, 4096, 4096, 1, "sm_75",
                                                                      **matmul.simt_features(c, 75))} == {(1, 0), (2, 1)}
    for name, want in (("gemm_colmajor", {"swz_ok": False, "async_ok": True}), ("gemm_bf16", {"async_ok": False})):
        t = open(_path(name)).read()
        f = matmul.simt_features(matmul.product(parse_source(t), parse_source(t).kernels[0].name), 90)
        assert want.items() <= f.items(), (name, f)
    split = plans["matmul-3xtf32"].space
    assert split[0]["stages"] == 2 and all(matmul.wmma_smem(c, True, s["bm"], s["bn"], s["bk"], s["stages"]) <=
                                           48 * 1024 for s in split)
    # fp32 slabs of 128 x 64 x 32 in two stages take 55 KB: 16 deep instead; 16-bit ones fit 32 deep
    assert {"bm": 128, "bn": 64, "bk": 32, "stages": 2} not in split and {"bm": 128, "bn": 64, "bk": 16, "stages": 2} \
        in split
    assert matmul.wmma_space(c, "16-bit", 4096, 4096, 1)[0] == {"bm": 128, "bn": 64, "bk": 32, "stages": 2}
    # a small product: the tiles that give the SMs most blocks first (32 x 32 in warps of 16 x 32 or 32 x 16 since the
    # small shapes came in: 16 blocks for 128 x 128 outputs, against 4 of 64 x 64)
    small = matmul.wmma_space(c, "16-bit", 128, 128, 1)
    assert small[0]["bm"] * small[0]["bn"] == 32 * 32 and (small[0].get("wm", 32), small[0].get("wn", 32)) != (32, 32), \
        small[:3]


def test_rows_known_only_from_the_grid_keep_the_launch_s_grid_in_the_file_and_the_spec():
    """The CUDA sample's matrixMul spelling: no guard, no row count among the kernel's parameters. The tiles
    read the size from gridDim (times the old block's rows) and keep the grid; only the block changes."""
    text = open(_path("gemm_gridrows")).read().replace(
        "template __global__", "void run(const float* a, const float* b, float* c, int k, int n, int rows) {\n"
        "  dim3 block(16, 16);\n  dim3 grid(n / 16, rows / 16);\n  gemm_staged<16><<<grid, block>>>(a, b, c, k, n);\n}\n"
        "template __global__")
    k, ctx = _ctx("gemm_gridrows", text)
    plans, why = api.plans(text, ctx)
    tiles = next(p for p in plans if p.name == "matmul-tiles")
    assert all(s["bm"] >= 16 and s["bn"] >= 16 for s in tiles.space)  # no more tiles than blocks
    c = tiles.build(tiles.space[0])
    threads = (tiles.space[0]["bm"] // tiles.space[0]["tm"]) * (tiles.space[0]["bn"] // tiles.space[0]["tn"])
    assert c.launch == {"grid": ["n / 16", "rows / 16"], "block": [threads]}
    assert f"gemm_staged<16><<<grid, {threads}>>>" in c.source
    assert "kp_M = (long long)(gridDim.y * 16)" in c.source and "kp_N = (long long)(gridDim.x * 16)" in c.source
    # a block of other rows than the index's multiple would make gridDim * 16 wrong: no kept grid then
    ctx.launch["block"] = [16, 8]
    assert "matmul-tiles" not in [p.name for p in api.plans(text, ctx)[0]]


def test_a_remainder_by_subtraction_reads_as_the_remainder_only_where_the_quotient_is_the_same():
    from kernelpro.optimizer.restructure.passes import remainder_by_subtraction

    text = open(_path("gemm_subrem")).read()
    assert "int j = t % N;" in remainder_by_subtraction(text, "x.cu", "mm_subrem")
    assert "int j = t % N;" in remainder_by_subtraction(text.replace("t - i * N", "t - N * i"), "x.cu", "mm_subrem")
    assert "int j = t % N;" in remainder_by_subtraction(text.replace("t - i * N", "t - (t / N) * N"), "x.cu",
                                                        "mm_subrem")
    # another divisor, another dividend, or a quotient changed after it was taken: left alone
    assert remainder_by_subtraction(text.replace("t - i * N", "t - i * K"), "x.cu", "mm_subrem") is None
    assert remainder_by_subtraction(text.replace("t - i * N", "(t + 1) - i * N"), "x.cu", "mm_subrem") is None
    assert remainder_by_subtraction(text.replace("if (i < M) {", "i += 1; if (i < M) {"), "x.cu", "mm_subrem") is None


def test_a_loop_unrolled_by_hand_is_read_as_its_remainder_loop_only_where_every_step_is_there():
    from kernelpro.optimizer.restructure.passes import counter_into_header, reroll_loops

    text = open(_path("gemm_unrolled")).read()
    once = reroll_loops(text, "x.cu", "mm_unrolled")
    assert "k + 2 < K" not in once and "k = 0;" in once
    assert "for (int k = 0; k < K; k++)" in counter_into_header(
        once.replace("int k;\n", "").replace("k = 0;", "int k = 0;"), "x.cu", "mm_unrolled")
    # a step missing, a step twice, another step size or bound: not the same sum, left alone
    assert reroll_loops(text.replace("s += A[row * K + k] * B[k * N + col];\n      s +=", "s +="), "x.cu",
                        "mm_unrolled") is None
    assert reroll_loops(text.replace("(k + 1)] * B[(k + 1)", "k] * B[(k)"), "x.cu", "mm_unrolled") is None
    assert reroll_loops(text.replace("k += 3", "k += 4"), "x.cu", "mm_unrolled") is None
    assert reroll_loops(text.replace("k + 2 < K", "k + 2 < N"), "x.cu", "mm_unrolled") is None
    # the same bound written otherwise (round Q's `k + 4 <= K` for four steps): read the same; one step off: not
    for same in ("k + 3 <= K", "k < K - 2", "k <= K - 3"):
        assert reroll_loops(text.replace("k + 2 < K", same), "x.cu", "mm_unrolled") == once, same
    for off in ("k + 2 <= K", "k < K - 1", "k <= K - 2", "k < K - 3"):
        assert reroll_loops(text.replace("k + 2 < K", off), "x.cu", "mm_unrolled") is None, off
    # each later step guarded against the end instead of a remainder loop: one step per iteration
    g = open(_path("gemm_unroll_guarded")).read()
    once = reroll_loops(g, "x.cu", "mm_unroll_guarded")
    assert "i + 1 < K" not in once and "i < K; ++i) { sum += a[row * K + i] * b[i * N + col]; }" in once
    for wrong in (("if (i + 3 < K) sum", "sum"),  # a step unguarded: it would run past the end
                  ("if (i + 2 < K) {", "if (i + 1 < K) {"),  # a guard that is not its step's
                  ("i + 3] * b[(i + 3)", "i + 2] * b[(i + 2)"),  # a step twice, one missing
                  ("i += 4", "i += 5"),  # five per iteration, four steps
                  ("for (int i = 0; i < K; i += 4) {", "int i;\n        for (i = 0; i < K; i += 4) {")):  # read after?
        assert reroll_loops(g.replace(*wrong), "x.cu", "mm_unroll_guarded") is None, wrong
    swapped = g.replace("if (i + 1 < K) sum += a[row * K + i + 1] * b[(i + 1) * N + col];",
                        "if (i + 3 < K) sum += a[row * K + i + 3] * b[(i + 3) * N + col];", 1)
    swapped = swapped.replace("if (i + 3 < K) sum += a[row * K + i + 3] * b[(i + 3) * N + col];\n        }",
                              "if (i + 1 < K) sum += a[row * K + i + 1] * b[(i + 1) * N + col];\n        }", 1)
    assert swapped != g and reroll_loops(swapped, "x.cu", "mm_unroll_guarded") is None  # another order of the sums
    # the counter read after the loop: it stays declared outside
    assert counter_into_header(once.replace("int k;\n", "").replace("k = 0;", "int k = 0;").replace(
        "C[row * N + col] = s;", "C[row * N + col] = s + k;"), "x.cu", "mm_unrolled") is None


def test_a_countdown_while_loop_is_read_as_a_counted_loop_only_where_its_counter_is_its_own():
    from kernelpro.optimizer.restructure.passes import countdown_loops

    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_m", "m02_nt_rowptr_while.cu")).read()
    once = countdown_loops(text, "x.cu", "matmul_nt_kernel")
    assert "for (int k = (int)(K) - 1; k >= 0; --k) {" in once and "while" not in once.split("__global__")[1]
    assert countdown_loops(text.replace("while (k--)", "while (k-- > 0)"), "x.cu", "matmul_nt_kernel") is not None
    for wrong in (("C[row * N + col] = acc;", "C[row * N + col] = acc + k;"),  # the counter read after the loop (-1)
                  ("acc += a_row[k] * b_row[k];", "acc += a_row[k] * b_row[k]; k -= 1;"),  # stepped in the body too
                  ("while (k--)", "while (--k)"),  # another count of iterations
                  ("int k = K;\n", "int k = K;\n        acc = 0;\n"),  # not declared just before
                  ("int k = K;", "unsigned k = K;"),  # unsigned: `k - 1` in the body would wrap at 0, not go to -1
                  ("int k = K;", "float k = K;")):  # a float counter: `k / 2` would divide otherwise
        changed = text.replace(*wrong)
        assert changed != text and countdown_loops(changed, "x.cu", "matmul_nt_kernel") is None, wrong


def test_partial_sums_of_a_hand_unrolled_loop_are_read_as_one_sum_only_where_they_are_added_up_alone():
    """Round M's m09: `s0 += f(k); s1 += f(k + 1); ...` with k += 4, a remainder loop into s0, then
    `C = (s0 + s1) + (s2 + s3)`: the remainder loop alone and C = s0 (the other partials stay zero)."""
    from kernelpro.optimizer.restructure.passes import reroll_loops

    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_m", "m09_mm_unroll4.cu")).read()
    once = reroll_loops(text, "x.cu", "mm_unroll4")
    assert "k + 3 < K" not in once and "C[r * N + c] = s0;" in once and "s0 += A[r * K + k] * B[k * N + c];" in once
    for wrong in (("s1 = 0.0f", "s1 = 1.0f"),  # a partial that does not start at zero
                  ("(s0 + s1) + (s2 + s3)", "(s0 + s1) + (s2 * s3)"),  # not their sum alone
                  ("(s0 + s1) + (s2 + s3)", "(s0 + s1) + (s2 + s3) + s1"),  # a partial read twice
                  ("(s0 + s1) + (s2 + s3)", "(s0 + s1) + s2"),  # a partial dropped
                  ("s2 += A[r * K + k + 2]", "s1 += A[r * K + k + 2]"),  # two steps into one partial
                  ("s3 += A[r * K + k + 3] * B[(k + 3) * N + c];", "s3 += A[r * K + k + 2] * B[(k + 2) * N + c];"),
                  # the remainder's partial changed or read elsewhere after the loops (second read of the change)
                  ("C[r * N + c] = (s0 + s1) + (s2 + s3);", "s0 *= 0.5f; C[r * N + c] = (s0 + s1) + (s2 + s3);"),
                  ("C[r * N + c] = (s0 + s1) + (s2 + s3);", "C[r * N + c] = (s0 + s1) + (s2 + s3); C[0] = s0;")):
        changed = text.replace(*wrong)
        assert changed != text and reroll_loops(changed, "x.cu", "mm_unroll4") is None, wrong


def test_a_row_of_outputs_summed_in_global_memory_is_summed_in_locals_only_where_that_is_the_same_sum():
    from kernelpro.optimizer.restructure.passes import sums_into_locals

    text = open(_path("llmc_attn_v")).read()
    once = sums_into_locals(text, "x.cu", "attention_value_kernel1")
    assert "float kp_sum = (float)0;" in once and "kp_sum += att_btt2 * value_t2[i];" in once
    assert "out_bth[i] = kp_sum;" in once and "out_bth[i] = 0.0f" not in once
    zero = "for (int i = 0; i < hs; i++) { out_bth[i] = 0.0f; }"
    for wrong in ((zero, zero.replace("0.0f", "1.0f")),  # not zeroed first: the sum starts elsewhere
                  (zero, zero.replace("i < hs", "i < hs - 1")),  # another range than the sums'
                  ("out_bth[i] += att_btt2", "out_bth[i] += out[0] * att_btt2"),  # the output read in the loop
                  ("out_bth[i] += att_btt2 * value_t2[i]", "out_bth[i + 1] += att_btt2 * value_t2[i]"),  # another element
                  ("float att_btt2 = att_bth[t2];", "float att_btt2 = att_bth[t2]; out[0] = 1.0f;"),  # a store there
                  # the k loop run again per output needs its own fresh counter: not the output's name, not declared
                  # outside (it would not restart), stepped alone (a pointer stepped beside it would not restart)
                  ("for (int t2 = 0; t2 <= t; t2++) {", "for (int i = 0; i <= t; i++) { int t2 = i;"),
                  ("for (int t2 = 0; t2 <= t; t2++) {", "int t2 = 0;\n        for (; t2 <= t; t2++) {"),
                  ("for (int t2 = 0; t2 <= t; t2++) {", "for (int t2 = 0; t2 <= t; t2++, att_bth += 0) {")):
        assert sums_into_locals(text.replace(*wrong), "x.cu", "attention_value_kernel1") is None, wrong


def test_several_outputs_per_thread_in_named_sums_read_as_one_only_where_they_are_the_same_product_moved():
    from kernelpro.optimizer.restructure import matmul

    text = open(_path("two_outputs")).read()
    one = matmul.one_output(parse_source(text), "mm_two", [16, 16])
    assert "s1" not in one and "int row = blockIdx.y * blockDim.y + threadIdx.y;" in one
    assert "if (row >= M) return;" in one and "s0 += A[row * K + k] * b;" in one
    for wrong in (("A[(row + 16) * K + k] * b", "A[(row + 8) * K + k] * b"),  # the sum at another row than its store
                  ("if (row + 16 < M) C[(row + 16)", "if (row + 16 < N) C[(row + 16)"),  # another guard
                  ("s1 += A[(row + 16) * K + k] * b", "s1 += A[(2 * row) * K + k] * b"),  # not a constant apart
                  ("  if (row < M) C[row * N + col] = s0;", "  C[0] = 1.f;\n  if (row < M) C[row * N + col] = s0;"),
                  ("A[(row + 16) * K + k] * b", "A[row + 16 * K + k] * b"),  # another index, not row + 16 (precedence)
                  ("blockIdx.y * 32", "blockIdx.y * 64")):  # rows of each block the old threads never computed
        t = text.replace(*wrong)
        assert t != text and matmul.one_output(parse_source(t), "mm_two", [16, 16]) is None, wrong
    assert matmul.one_output(parse_source(text), "mm_two", [16, 8]) is None  # a block of 8 rows: 16 uncovered


def test_dynamic_shared_memory_cut_by_pointers_reads_as_static_arrays_and_the_tiles_drop_the_dynamic_bytes():
    from kernelpro.optimizer.restructure.passes import static_shared_regions

    text = open(_path("gemm_dynshared")).read()
    got = static_shared_regions(text, "x.cu", "mm_dynshared", 512)
    assert "__shared__ float sA[64]; __shared__ float sB[64];" in got and "buf" not in got.split("{", 1)[1]
    assert static_shared_regions(text, "x.cu", "mm_dynshared", None) is None  # the last array's end unknown
    assert static_shared_regions(text, "x.cu", "mm_dynshared", 256) is None  # sB would be empty
    assert static_shared_regions(text.replace("acc += sA", "acc += buf[0] + sA"), "x.cu", "mm_dynshared", 512) is None
    k, ctx = _ctx("gemm_dynshared", text)
    tiles = next(p for p in api.plans(text, ctx)[0] if p.name == "matmul-tiles")
    assert tiles.build(tiles.space[0]).launch["shared_bytes"] == 0


def test_a_row_cached_in_shared_memory_is_read_from_global_memory_only_where_that_is_the_same():
    from kernelpro.optimizer.restructure.passes import unshare_preloads

    text = open(_path("gemm_rowcache")).read()
    got = unshare_preloads(text, "x.cu", "mm_rowcache")
    assert "__shared__" not in got and "__syncthreads" not in got and "s += A[r * K + (k)] * B[k * N + c];" in got
    # a later barrier, a fill that does not start at the thread, the cache written again: left alone
    assert unshare_preloads(text.replace("C[r * N + c] = s;\n  }", "C[r * N + c] = s;\n  }\n  __syncthreads();"),
                            "x.cu", "mm_rowcache") is None
    assert unshare_preloads(text.replace("int i = threadIdx.x;", "int i = threadIdx.x + 1;"), "x.cu",
                            "mm_rowcache") is None
    assert unshare_preloads(text.replace("s += arow[k]", "arow[k] += 1.0f; s += arow[k]"), "x.cu",
                            "mm_rowcache") is None


SYRK = """__global__ void gram(float* C, const float* A, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * A[j * K + k];
    C[i * N + j] = 0.5f * C[i * N + j] + s;
  }
}
"""


def test_a_symmetric_product_is_read_only_where_c_is_symmetric():
    from kernelpro.optimizer.restructure import matmul

    def sym(text):
        src = parse_source(text)
        return matmul.symmetric(matmul.product(src, src.kernels[0].name))
    assert sym(SYRK) and sym(open(os.path.join(HERE, "..", "..", "benchmarks", "suite", "gemm_aat", "naive_ptr.cu")).read())  # N vs N*N/N
    assert sym(open(_path("syrk_aat")).read())
    for other in ("A[i * K + k] * A[k * N + j]",  # A A, not A Aᵀ
                  "A[i * K + k] * A[j * K + k + 1]",  # the column's operand shifted
                  "A[i * K + k] * A[j * N + k]"):  # another row stride
        assert not sym(SYRK.replace("A[i * K + k] * A[j * K + k]", other)), other
    assert not sym(SYRK.replace("int N, int K", "int M, int N, int K").replace("i < N &&", "i < M &&"))  # not square
    assert not sym(open(_path("gemm_abt")).read()) and not sym(open(_path("syr2k")).read())


@pytest.mark.slow
@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
def test_a_symmetric_product_computes_the_tiles_below_the_diagonal_and_writes_each_twice(tmp_path):
    """C = A Aᵀ (gemm_aat: half the flops for the hand-written best, while the search's tiles computed all of C,
    2.5 ms against cuBLAS's 1.30 on the H100): only the square tiles on and below the diagonal are computed, and
    each is also stored to its mirror through the kernel as written (here C = 0.5 C + A Aᵀ, reading the old C at
    each of the two places). Checked at a size that is not a multiple of the tiles, every element of C written."""
    N, K = 45, 23
    k = parse_source(SYRK).kernels[0]
    launch = {"grid": ["cdiv(N, 16)", "cdiv(N, 16)"], "block": [16, 16]}
    ctx = api.Context(kernel="gram", path=str(tmp_path / "g.cu"), launch=launch, base_launch=dict(launch),
                      size_env={"small": {"N": N, "K": K}}, scalar_params={"N": "N", "K": "K"})
    plans = {p.name: p for p in api.plans(SYRK, ctx)[0]}
    runs = []
    for name in ("matmul-tiles", "matmul-3xtf32"):
        p = plans[name]
        assert all(x.get("sym") == 1 and x["bm"] == x["bn"] for x in p.space), name
        for knobs in ([p.space[0], {**TILE_KNOBS[3], "bm": 16, "bn": 16, "sym": 1}] if name == "matmul-tiles"
                      else [p.space[0]]):
            c = p.build(knobs)
            assert "only the tiles on and below the diagonal" in c.description
            assert "if (kp_j0 > kp_i0) return;" in c.source
            runs.append(c)
    assert compile_each(ctx.path, [("gram", c.source, ()) for c in runs], CompileOptions(arch="sm_90")) == [None] * 3
    batch = Batch([(c.source, "gram") for c in runs], str(tmp_path))
    rng = np.random.default_rng(4)
    a = rng.standard_normal((N, K)).astype(np.float32)
    old = rng.standard_normal((N, N)).astype(np.float32)
    want = 0.5 * old.astype(np.float64) + a.astype(np.float64) @ a.T.astype(np.float64)
    for i, c in enumerate(runs):
        grid = [_ev(g, {"N": N, "K": K}) for g in c.launch["grid"]]
        got = batch.run(i, [old.reshape(-1).copy(), a.reshape(-1), N, K], grid,
                        [_ev(b, {}) for b in c.launch["block"]])[0].reshape(N, N)
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4), (c.description, np.argwhere(~np.isclose(got, want)))


def test_public_tile_loops_backward_loops_and_walked_pointers_read_as_the_product_only_where_they_are():
    """tests/probe26's tiled_cg, rect_tiles, reverse_k and ptr_walk (computed right in the emulator above), and
    what must stay unread: a tile staged by fewer threads than the array is wide (part of it left unset), a
    backward loop whose iterations pass values through memory, a walked pointer read after its loop."""
    from kernelpro.optimizer.restructure.passes import ascending_sum_loops, index_pointer_steps
    from kernelpro.optimizer.restructure.unstage import unstage

    rect = open(_path("rect_tiles")).read()
    assert unstage(rect, "r.cu", "mm_rect")[0] is not None
    half = rect.replace("if (tx < TK) As", "if (tx < TK / 2) As")  # As[ty][8..15] never stored
    new, why = unstage(half, "r.cu", "mm_rect")
    assert new is None and "stage" in why, why
    cg = open(_path("tiled_cg")).read()
    new, _ = unstage(cg, "c.cu", "mm_tiled_cg")
    assert new is not None and "block.sync" not in new and "this_thread_block" not in new and "sA" not in new
    rev = open(_path("reverse_k")).read()
    assert "for (int k = 0; k <= (int)(K - 1); ++k) s +=" in ascending_sum_loops(rev, "r.cu", "mm_rev")
    shift = ("__global__ void f(float* y, const float* x, int n) {\n  int i = threadIdx.x;\n"
             "  for (int k = n - 1; k > 0; --k) y[k] = y[k - 1] + x[i];\n}\n")
    assert ascending_sum_loops(shift, "s.cu", "f") is None
    # not where the order matters beyond rounding: a second index walked in the sum (a convolution, not a
    # correlation), a call that is not pure math, an end that the sum changes
    conv = rev.replace("s += a[i * K + k] * b[k * N + j];", "s += a[i * K + k] * b[jj++];").replace(
        "float s = 0;", "float s = 0; int jj = j;")
    assert ascending_sum_loops(conv, "r.cu", "mm_rev") is None
    assert ascending_sum_loops(rev.replace("* b[k * N + j]", "* draw(k)"), "r.cu", "mm_rev") is None
    grow = ("__global__ void g(const int* a, int* out, int K) { int s = K;\n"
            "  for (int k = s - 1; k >= 0; --k) s += a[k]; out[0] = s; }\n")
    assert ascending_sum_loops(grow, "g.cu", "g") is None
    # the causal break as the loop's bound only where the row is known below the loop's end, and not written in it
    from kernelpro.optimizer.restructure.passes import break_to_bound
    av = open(_path("av_break")).read()
    assert "for (int t2 = 0; t2 <= t; ++t2)" in break_to_bound(av, "a.cu", "att_v_break")
    assert break_to_bound(av.replace("if (t >= T || i >= HS) return;", "if (i >= HS) return;"), "a.cu",
                          "att_v_break") is None
    assert break_to_bound(av.replace("if (t2 > t) break;", "if (t2 > t) break;\n    t -= 0;"), "a.cu",
                          "att_v_break") is None
    # an unsigned length of 0: `n - 1` taken in the loop's type, no iteration as before
    assert "k <= (int)(n - 1)" in ascending_sum_loops(grow.replace("int s = K;", "int s = 0; unsigned n = K;").replace(
        "k = s - 1", "k = n - 1"), "g.cu", "g")
    walk_ = open(_path("ptr_walk")).read()
    once = index_pointer_steps(walk_, "w.cu", "mm_ptrwalk")
    twice = index_pointer_steps(once, "w.cu", "mm_ptrwalk")
    assert "pb += N" not in once and "++pa" in once and "++pa" not in twice and "pa[(long long)(k)]" in twice
    kept = walk_.replace("  C[row * N + col] = acc;", "  C[row * N + col] = acc + *pa;")  # pa read after the loop
    assert "++pa" in (index_pointer_steps(index_pointer_steps(kept, "w.cu", "mm_ptrwalk") or kept, "w.cu",
                                          "mm_ptrwalk") or kept)


def test_round_to_nearest_intrinsics_read_as_arithmetic_and_other_roundings_are_not():
    from kernelpro.optimizer.restructure.passes import plain_rn_arithmetic

    text = open(_path("rn_intrinsics")).read()
    once = plain_rn_arithmetic(text, "r.cu", "mm_rn")
    twice = plain_rn_arithmetic(once, "r.cu", "mm_rn")
    assert "__fmul_rn" not in once and "__fadd_rn" in once and plain_rn_arithmetic(twice, "r.cu", "mm_rn") is None
    assert "sum = ((sum) + (((A[row * K + k]) * (B[k * N + col]))));" in twice
    rz = text.replace("__fadd_rn", "__fadd_rz").replace("__fmul_rn", "__fmul_rz")  # toward zero: not `+`
    assert plain_rn_arithmetic(rz, "r.cu", "mm_rn") is None


def test_two_loops_merge_only_where_every_index_reads_k_times_l_plus_l():
    from kernelpro.optimizer.restructure.passes import merge_sum_loops
    text = open(_path("kernel_tensor_contract")).read()
    merged = merge_sum_loops(text, "t.cu", "contract2")
    assert "for (int kp_k = 0; kp_k < (K) * (L); ++kp_k)" in merged
    assert "A[(i * K + 0) * L + kp_k] * B[(0 * L + kp_k) * N + j]" in merged
    other = text.replace("B[(k * L + l) * N + j]", "B[k * N + j]")  # B moves with k alone: two indices, no product
    assert merge_sum_loops(other, "t.cu", "contract2") is None
    stray = text.replace("s += A[", "s += l * A[")  # l used outside an index
    assert merge_sum_loops(stray, "t.cu", "contract2") is None
    ragged = text.replace("l < L", "l < k")  # the inner bound moves with k: not a rectangle
    assert merge_sum_loops(ragged, "t.cu", "contract2") is None


def test_a_dot_product_through_vector_views_reads_as_its_scalar_loop_only_in_that_shape():
    from kernelpro.optimizer.restructure.passes import scalar_vector_dots
    from kernelpro.profilers.analysis.spelling import plain_form
    text = plain_form(open(_path("qk_float4")).read(), "q.cu", "qk4")
    new = scalar_vector_dots(text, "q.cu", "qk4")
    assert "for (int kp_e = 0; kp_e < 4 * (D / 4); ++kp_e)" in new and "acc += q[(i * D) + kp_e] * k[(j * D) + kp_e];" in new
    for bad in ("a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.x",  # a component twice, one missing
                "a.x * b.x + a.y * b.y + a.z * b.z",  # three of four
                "a.x * b.y + a.y * b.x + a.z * b.z + a.w * b.w"):  # mismatched components
        assert scalar_vector_dots(text.replace("a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w", bad), "q.cu", "qk4") is None
    assert scalar_vector_dots(text.replace("a = qi[d];", "a = qi[d + 1];"), "q.cu", "qk4") is None


def test_a_fill_bound_by_another_size_than_the_store_is_read_as_it_only_where_the_spec_makes_them_one():
    """ECE408's `Row < numARows` fill under C's `Row < numCRows` store: one size where every size of the spec gives
    them one value (and the candidate says it read them as one); at a size where A has fewer rows than C the
    kernel as written stores zero rows, which the tiles would not: refused, with the reason."""
    text = open(_path("mm_ece408_tiled")).read()
    _, ctx = _ctx("mm_ece408_tiled", text)
    plans, _ = api.plans(text, ctx)
    tiles = next(p for p in plans if p.name == "matmul-tiles")
    assert "`Row < numARows` read as the store's `Row < numCRows`" in tiles.build(tiles.space[0]).description
    ragged = replace(ctx, size_env={"small": {**ctx.size_env["small"], "numARows": 30}})
    plans, why = api.plans(text, ragged)
    assert "matmul-tiles" not in [p.name for p in plans]
    assert any("`Row < numARows` is not one the output's store is guarded by" in w for w in why), why


def test_a_tile_of_named_sums_is_read_at_its_first_output_only_where_every_sum_is_it_moved():
    """Round Q's q10 and round L's l08: four sums `c00 .. c11` of a 2 x 2 tile a thread, loads in locals with zero
    edges. Read as c00's kernel, its coordinates the thread's own; a sum of another product, offsets that leave a
    hole or step past the thread's share, a sum read twice or a coordinate beside its own neighbour: left alone."""
    text = open(os.path.join(os.path.dirname(__file__), "probe_q", "q10_regtile_2x2.cu")).read()
    text = text[text.index("__global__"):text.index("int main")]
    got = matmul.one_of_grid(parse_source(text), "sgemm_reg2x2", [16, 16])
    assert got is not None and "c11" not in got and "c01" not in got and "a1" not in got and "b1" not in got
    assert "const int r0 = blockIdx.y * blockDim.y + threadIdx.y;" in got and "C[r0 * N + c0] = c00;" in got
    for wrong in (("c11 += a1 * b1;", "c11 += a1 * a1;"),  # another product
                  ("const int r1 = r0 + 1;", "const int r1 = r0 + 2;"),  # rows 0 and 2: a hole
                  ("2 * (blockIdx.y", "4 * (blockIdx.y"),  # four rows a thread, two computed
                  ("C[r0 * N + c0] = c00;", "C[r0 * N + c0] = c00 + c11;"),  # a sum read twice
                  ("const float b1 = (c1 < N) ? B[k * N + c1] : 0.f;",
                   "const float b1 = (c1 < N) ? B[k * N + c1] * A[r0 * K + k] : 0.f;"),  # c1 beside r0 in one sum
                  # (the second read's cases) an edge that is not the tile's, a load truncated, a sum not zero,
                  # updated elsewhere or of another type, a store under another guard or at another position
                  ("(r1 < M) ? A[r1 * K + k]", "(r1 < M && k < K / 2) ? A[r1 * K + k]"),
                  ("(c1 < N) ? B[k * N + c1]", "(c1 < N - 5) ? B[k * N + c1]"),
                  ("const float a1 =", "const int a1 ="),
                  ("c11 = 0.f;", "c11 = 1.f;"),
                  ("float c00 = 0.f, c01 = 0.f, c10 = 0.f, c11 = 0.f;",
                   "float c00 = 0.f, c01 = 0.f, c10 = 0.f; double c11 = 0.0;"),
                  ("for (int k = 0; k < K; ++k) {", "c11 += A[0];\n    for (int k = 0; k < K; ++k) {"),
                  ("if (c1 < N) C[r1 * N + c1] = c11;", "if (c1 < N && K > 40) C[r1 * N + c1] = c11;"),
                  ("C[r1 * N + c0] = c10;", "C[r0 * N + c0] = c10;"),
                  ("c10 += a1 * b0;", "c10 += a0 * b0;")):
        assert wrong[0] in text, wrong
        assert matmul.one_of_grid(parse_source(text.replace(*wrong)), "sgemm_reg2x2", [16, 16]) is None, wrong


def test_a_guard_s_bound_loses_only_widening_integer_casts():
    """`r < static_cast<size_t>(M)` bounds the rows by M; `r < (unsigned char)M` does not (300 rows would be 44)."""
    from kernelpro.profilers.analysis.contraction import _uncast, text as ctext

    for cast, want in (("static_cast<size_t>(M)", "M"), ("(int)M", "M"), ("(long long)(M)", "M"),
                       ("(unsigned char)M", "(unsigned char)M"), ("static_cast<short>(M)", "static_cast<short>(M)"),
                       ("(float)M", "(float)M")):
        src = parse_source(f"__global__ void f(int M, float* o) {{ int r = threadIdx.x; if (r < {cast}) o[r] = 0; }}")
        cond = next(n for n in walk(src.root) if n.type == "binary_expression" and ctext(src, n).startswith("r <"))
        assert ctext(src, _uncast(src, cond.child_by_field_name("right"))) == want, cast


def test_a_stride_loop_after_an_early_exit_is_read_one_output_a_thread_and_not_after_other_work():
    """Round R's r01: `if (row >= M) return;` then `for (col = threadIdx.x; col < N; col += blockDim.x)`: the loop
    read as one output a thread, the exit kept; an exit that also writes, or an if with an else, is not skipped."""
    path = os.path.join(os.path.dirname(__file__), "probe_r", "r01_gemm_rowblock_colstride.cu")
    text = open(path).read()
    text = text[text.index("__global__"):text.index("int main")]
    got = matmul.unstride(parse_source(text), "matmul_row_per_block")
    assert got is not None and "if (row >= M) return;" in got and "col += blockDim.x" not in got
    for wrong in ("if (row >= M) { C[0] = 0.f; return; }", "if (row >= M) return; else C[0] = 0.f;"):
        assert matmul.unstride(parse_source(text.replace("if (row >= M) return;", wrong)),
                               "matmul_row_per_block") is None, wrong
    # an exit inside an outer stride loop, or a return in the loop's body, ends the thread's later passes too
    nest = """__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < M; row += gridDim.y * blockDim.y) {
    EXIT
    for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < N; col += gridDim.x * blockDim.x) {
      float s = 0.f;
      INNER
      for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
      C[row * N + col] = s;
    }
  }
}"""
    plain = matmul.unstride(parse_source(nest.replace("EXIT", "").replace("INNER", "")), "mm")
    assert plain is not None and "+= gridDim" not in plain  # both loops read one pass a thread
    for exit_, inner in (("if (A[row * K] == 0.f) return;", ""), ("", "if (A[row * K] == 0.f) return;")):
        got = matmul.unstride(parse_source(nest.replace("EXIT", exit_).replace("INNER", inner)), "mm")
        assert got is None or "col += gridDim" in got, (exit_, inner)


def test_a_sum_split_over_two_ranges_is_read_as_one_loop_only_where_the_halves_are_the_same_sum():
    """Round T's t05: `for (k = 0; k < half; k++) lo += f(k); for (k = half; k < K; k++) hi += f(k); C = lo + hi;`
    read as one loop into lo; other terms, a gap between the ranges, a partial read elsewhere or not starting at
    zero, or a split point the first loop moves: left alone."""
    from kernelpro.optimizer.restructure.passes import join_split_sums

    path = os.path.join(os.path.dirname(__file__), "probe_t", "t05_split_k_halves.cu")
    text = open(path).read()
    text = text[text.index("__global__"):text.index("int main")]
    got = join_split_sums(text, "x.cu", "matmul_split_halves")
    assert got is not None and "k < widthA; k++)\n        sum_lo +=" in got and "sum_hi +=" not in got
    assert "C[row * widthB + col] = sum_lo;" in got
    for wrong in (("sum_hi += A[row * widthA + k]", "sum_hi += 2.0f * A[row * widthA + k]"),
                  ("for (int k = half; k < widthA", "for (int k = half + 1; k < widthA"),
                  ("= sum_lo + sum_hi;", "= sum_lo + sum_hi + sum_hi;"),
                  ("float sum_hi = 0.0f;", "float sum_hi = 1.0f;"),
                  ("sum_lo += A[row * widthA + k] * B[k * widthB + col];",
                   "{ sum_lo += A[row * widthA + k] * B[k * widthB + col]; half--; }")):
        assert wrong[0] in text, wrong
        assert join_split_sums(text.replace(*wrong), "x.cu", "matmul_split_halves") is None, wrong
