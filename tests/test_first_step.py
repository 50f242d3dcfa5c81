"""Issues 26 and 27's measure on the probe corpora (tests/probe27/: public-style naive kernels of issue 27's
kinds; tests/probe26/: matrix products in public styles; tests/probe_c/ to tests/probe_f/: written blind), each kernel with its launch, sizes and the plans
that are a right first step: benchmarks/first_step.py runs the structural plans as `optimize --propose-only`
does (no GPU, no nvcc) and the first expansion must hold a right first step for at least the share reached
when the corpus was written and its misses fixed."""
from __future__ import annotations

import glob
import json
import os
import re
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
import first_step  # noqa: E402

from kernelpro.optimizer.restructure import api  # noqa: E402

# corpus -> (the fewest kernels it holds, the share reached)
REACHED = {"probe27": (144, 143 / 144), "probe26": (109, 107 / 109),
           # two rounds written blind (2026-12-06): kernels a helper wrote without reading the optimizer
           "probe_c": (64, 61 / 64), "probe_d": (50, 46 / 50),
           # a third (tests/probe_e, 2026-12-06 morning): 53/63 at first, 59/63 after the fixes it led to
           "probe_e": (63, 59 / 63),
           # a fourth, matrix products only (tests/probe_f): 23/31 at first (and a crash on a struct parameter), 29/32,
           # 31/32 with a planar complex product's two sums (the miss: a struct passed by value)
           "probe_f": (32, 31 / 32),
           # a fifth (tests/probe_g, 2026-12-06, every kind, 16 products): 33/36 at first (the coarsened tiled product,
           # a heat step's border in `if`/`else`, a permute whose rows stay contiguous), 36/36 after
           "probe_g": (36, 36 / 36),
           # a sixth, 24 products in harder spellings (tests/probe_h): 17/24 at first, 23/24 after, 24/24 once centered
           # operands (a covariance's `(x - mean_i) * (y - mean_j)`) are subtracted as the tiles load
           "probe_h": (24, 24 / 24),
           # a seventh, issue 27's kinds (tests/probe_i): 29/32 at first, 31/32 after (a cooperative-groups rank, Life),
           # 32/32 with the 2-D-block permute read as one flat index (flat2d.box)
           "probe_i": (32, 32 / 32),
           # an eighth, 16 products of the hidden kinds in new spellings (tests/probe_j, written last): 14/16,
           # the misses a batch folded into blockIdx.x and a batch split over blockIdx.y and blockIdx.z; 16/16 after
           # (a batch of block positions becomes digits of the tiled grid's z)
           "probe_j": (16, 16 / 16),
           # a ninth (tests/probe_k, blind, written after this session's product changes): 12 products of the issue's
           # kinds in new spellings and 8 of issue 27's; 18/20 as written (all 12 products), 20/20 after (a filter
           # clamped to the edge on both sides, a Hillis-Steele scan swapping two shared arrays by pointer)
           "probe_k": (20, 20 / 20),
           # a tenth (tests/probe_l, blind, written after this session's stencil, permute and dispatch changes): 14/20
           # as written; 17/20 after a grid-stride stride held in a local, a size cast `(unsigned)M`, and Caffe's
           # CUDA_KERNEL_LOOP read as one pass a thread where the launch has a thread for every element, 18/20 with a
           # centre index stepped a plane a pass (`c += plane;`) read at the loop's counter
           # 19/20 with a 2 x 2 tile in named sums (`c00 .. c11`, round Q's q10 the same) read at its first output
           "probe_l": (20, 19 / 20),
           # an eleventh (tests/probe_m, blind, 12 products and 8 of issue 27's kinds): 13/20 as written; 19/20 after a
           # head size `hs = C / NH` read as an exact quotient in the digit chain, a grid-stride loop over a fixed grid
           # read as one pass a thread under a covering launch, a countdown `while (k--)`, partial sums of a hand-
           # unrolled loop, a triangle `j <= i < n` bounding the column, a bin clamped in ternaries
           "probe_m": (20, 19 / 20),
           # a twelfth (tests/probe_n, blind, 10 products, 10 of issue 27's kinds and an element-wise one): 18/20 as
           # written; 20/20 after a `fetch` helper returning 0 past the edge (`if (..) return 0.0f; return img[..];`)
           # read as one conditional expression and inlined, and 2-D indices bounded by early returns with row
           # pointers read as one guard around accesses at the parameters
           "probe_n": (20, 20 / 20),
           # a thirteenth (tests/probe_o, blind, public styles from Darknet, PMPP, PolyBench, llm.c): 15/20 as written;
           # 18/20 after Darknet's `float A_PART = ALPHA * A[..]; C[..] += A_PART * B[..];` (the local's product read
           # as its factors, and inlined where the next statement uses it) and four rows a thread in a zero-initialised
           # array at `row0 + r` (the positions named, the first output read at the thread's own row); the misses a
           # template specialisation's fmaf helper and a block's chunk scanned serially by its first thread
           "probe_o": (20, 18 / 20),
           # a fourteenth (tests/probe_p, blind, issue 27's kinds): 17/20 as written; 19/20 after an if/else of border
           # and interior as the last statement of the bounds guard's block, and a macro'd loop header whose line
           # continuation was kept as a stray backslash; 20/20 with a warp tail of maxima kept in a register between
           # __syncwarp() calls (Harris's reduce4 as a max)
           "probe_p": (20, 20 / 20),
           # a fifteenth (tests/probe_q, blind, ten products and ten of issue 27's kinds): 16/20 as written; 19/20
           # after a k loop unrolled by 4 as `k + 4 <= K` before its remainder loop, an early return written
           # `if (!(r < static_cast<size_t>(M) && c < ..)) return;`, and a z loop whose boundary is copied and left
           # with `continue` (the register window only); 20/20 with a 2 x 2 tile in named sums read at its first
           # output (matmul.one_of_grid)
           "probe_q": (20, 20 / 20),
           # a sixteenth (tests/probe_r, blind, fourteen products in unusual spellings and six others): 17/20 as
           # written; 18/20 after a block-stride loop over the columns behind an early exit (a block per row); the
           # misses a struct of sizes passed by value and a Kepler-blog reduction already in shuffles and shared memory
           "probe_r": (20, 18 / 20),
           # a seventeenth (tests/probe_s, blind, no products: stencils, transposes, reductions, scans, rows,
           # columns): 17/20 as written, 18/20 after the block simulator reads `static_cast<unsigned>(n)`; the misses
           # a 5 x 5 Gaussian clamped two away through a helper (now said) and a row argmax
           "probe_s": (20, 18 / 20),
           # an eighteenth (tests/probe_t, blind, twenty products from scientific and ML codebases): 14/20 as
           # written; 16/20 after a `while` k loop whose counter is declared before other declarations and a sum
           # split over two halves of k; the misses: Fortran's 1-based column-major macros, a batch loop over
           # rows `(b * I + i)`, a complex product in float2, a multiply-add functor in a template; 18/20 in the next
           # session (the batch loop read as a batch over which B is the same, the functor's `operator()` inlined)
           "probe_t": (20, 18 / 20),
           # a nineteenth (tests/probe_u, blind, twenty products of the hidden kinds): 13/20 as written (three
           # float scalars added to the headers' sizes first); 17/20 after products held in locals used once later, a
           # batch loop zeroing and accumulating in global memory, a strided batched GEMM whose flat index splits
           # through a remainder local, and A·Bᵀ + B·Aᵀ through a helper called twice; the misses: runtime transpose
           # flags (`char transa`, `bool transA`: the layout chosen per call) and sizes in a struct passed by value
           "probe_u": (20, 17 / 20),
           # a twentieth (tests/probe_v, blind, issue 27's kinds): 13/20 as written; 18/20 after a return after the
           # reduction read as an if around the update pass, fabsf and `T(0)` in the block simulator, `if (a > m) m =
           # a;` read as a max, a bin index with its constant first, and v08's header taking the row-granular gather
           # (the convention of the earlier corpora); the misses a rotation (the store runs backwards along y) and a
           # per-pixel mean over frames on a 2-D grid (the column plan reads a 1-D column index only)
           "probe_v": (20, 18 / 20),
           # a twenty-first and twenty-second (tests/probe_w: twenty products imitating llm.c, PyTorch extensions,
           # Caffe, Darknet, PolyBench, Parboil, CUDA samples, PMPP, reference BLAS, quantisation, GNN and audio code;
           # tests/probe_x: issue 27's kinds from Rodinia, Parboil, PolyBench, SHOC, CUDA samples, PMPP, OpenCV, NumPy
           # and DL code): 13/20 and 13/20 as written; 16/20 after llm.c's row split into b = bt / T, t = bt % T read
           # back as bt, a batch on blockIdx.z that one operand does not read, and an int8 requantisation after the
           # loop; 15/20 after MIN/MAX macros clamping neighbours inside an index (Rodinia hotspot) and a bin bound
           # by a product of sizes (Parboil histo); 17/20 once the template kernels' headers name the instantiation a
           # spec runs (`// template: 32`: the CUDA samples' MatrixMulCUDA<32>, unstaged and tiled)
           "probe_w": (20, 17 / 20),
           "probe_x": (20, 15 / 20),
           # a twenty-third and twenty-fourth (2026-12-07; tests/probe_y: twenty products in styles the earlier rounds
           # lacked, TVM's generated code, ggml's quantised blocks, ONNX Runtime's zero points, cuBLAS's pointer
           # arrays, MAGMA, Eigen's mappers, Thrust functors, a Triton-ordered grid, quantum chemistry, coupled
           # cluster, HPL, an LSTM cell, Kahan sums, ALiBi, varlen attention, an OpenCL shim, a cuBLASLt epilogue;
           # tests/probe_z: issue 27's kinds from seismic, PDE, image, TensorFlow, TVM, GSL, scikit-learn, OCR and
           # particle codes): 3/20 and 7/20 as written (8/20 with z13 scored as the row reduction it is); 6/20 after
           # zero points subtracted through a conversion, a weight along k (C·diag(w)·Cᵀ) and a batch digit read by
           # the epilogue (`h = bh % NH`); 11/20 after a grid-stride loop's `continue` read as the one pass's `return`
           # (it had crashed the plans), GSL dgemv's `beta == 0` branch read at the spec's value, and a joint
           # histogram's bin bounded through `fb * nbins + mb`
           "probe_y": (20, 6 / 20),
           "probe_z": (20, 11 / 20)}
NO_STEP_OK = {"probe_d"}  # corpora where some kernels need no structural step (an empty `expect`, not scored)


@pytest.mark.parametrize("corpus", sorted(REACHED))
def test_every_probe_kernel_has_a_header_the_script_reads(corpus):
    files = sorted(glob.glob(os.path.join(TESTS, corpus, "*.cu")))
    assert len(files) >= REACHED[corpus][0]
    for f in files:
        head = first_step.read_header(open(f).read())
        assert (head["expect"] or corpus in NO_STEP_OK) and head["launch"]["grid"] and head["launch"]["block"], f


@pytest.mark.parametrize("corpus", sorted(REACHED))
def test_the_first_expansion_holds_the_right_first_step(corpus, capsys):
    # (each kernel's plans built until an expected one builds: what the rate needs, in half the time; the builders
    # themselves are run to the end by the emulator tests, test_probe27_rewrites.py and the others)
    assert first_step.main([os.path.join(TESTS, corpus), "--json", "--first-hit"]) == 0  # no kernel crashes the plans
    got = json.loads(capsys.readouterr().out)
    misses = [f"{r['file']}: offered {r['offered']}; {r['not_applied'][:2]}" for r in got["rows"] if not r["hit"]]
    assert got["scored"] >= REACHED[corpus][0]
    assert got["rate"] >= REACHED[corpus][1] - 1e-9, f"{got['hits']}/{got['scored']}:\n" + "\n".join(misses)


def test_reasons_count_lines_in_the_file_as_written():
    """A plan that reads the kernel after a pass moved its lines (helpers inserted above it, a flat index viewed as
    rows) says the lines as the file has them (round F cited line 146 of a 74-line file)."""
    for corpus, name, plan, want in (("probe_f", "f13_polybench_gemm.cu", "column", "line 19 uses"),
                                     ("probe_f", "f33_linear_ext_1d.cu", "flat", "on line 19 contiguous but those on line 19, 21")):
        path = os.path.join(TESTS, corpus, name)
        text = open(path).read()
        ctx = first_step.context(path, text, first_step.read_header(text))
        _, why = api.plans(text, ctx)
        said = [w for w in why if w.startswith(plan + ":")]
        assert said and want in said[0], said
        for n in map(int, re.findall(r"\bline (\d+)", " ".join(why))):
            assert n <= text.count("\n") + 1, why


def test_a_loop_of_taps_that_stays_unreadable_says_why():
    """Round S's 5 x 5 Gaussian through a `clampi` helper (neighbours two away clamped at the edges: three loads to
    choose between, not two): no stencil plan yet, and `not_applied` says so instead of nothing."""
    path = os.path.join(TESTS, "probe_s", "s03_gauss5x5_constant.cu")
    text = open(path).read()
    ctx = first_step.context(path, text, first_step.read_header(text))
    plans, why = api.plans(text, ctx)
    said = [w for w in why if w.startswith("stencil:")]
    assert not plans and said and "once the loops over the taps are written out" in said[0], why
