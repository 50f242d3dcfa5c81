"""The structural candidates the issue-27 probe's kernels (tests/probe27/, benchmarks/first_step.py) gained
from general fixes, compiled with nvcc and run in the CPU emulator against the kernel as written: every
buffer, inputs and outputs alike, starts from the same random values, and after the launch every buffer
must match (a sum's order changes within rounding). Sizes are the probe's, shrunk off the block."""
from __future__ import annotations

import os
import re
import shutil
import sys

import numpy as np
import pytest

from compile_batch import compile_each
from emu_run import Batch
from spec_emu import host_blanked

from kernelpro.optimizer.restructure import api
from kernelpro.profilers.compile import CompileOptions
from kernelpro.profilers.source import parse_source

TESTS = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(TESTS, "probe27")
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "benchmarks"))
import first_step  # noqa: E402

GXX = shutil.which("g++")
DTYPES = {"float": np.float32, "double": np.float64, "int": np.int32, "unsigned": np.uint32,
          "unsigned int": np.uint32, "char": np.int8, "unsigned char": np.uint8, "T": np.float32,
          "uchar4": np.uint8, "int8_t": np.int8, "int32_t": np.int32, "uint8_t": np.uint8, "__half": np.float16}

# file -> (plan, the kernel's name in the emulator, sizes for the run (the header's otherwise), buffer elements)
CASES = {
    "samples_reduce0.cu": ("block-tree", "reduce0<float>", {"n": 1000}, "n"),
    "samples_reduce1_cg.cu": ("block-tree", None, {"n": 1000}, "n"),
    "samples_reduce3.cu": ("block-tree", None, {"n": 1000}, "n"),
    "dot_cuda_by_example.cu": ("block-tree", None, {"N": 3001}, "N"),
    "sum_tree_atomic.cu": ("block-tree", None, {"n": 1000}, "n"),
    "blur_literal.cu": ("stencil-tile", None, {"w": 45, "h": 37}, "w*h"),  # `#pragma unroll` before a braceless loop
    "matadd_2d.cu": ("elementwise", None, {"M": 37, "N": 45}, "M*N"),  # 2-D indices flattened
    "pb_gemm_scale2d.cu": ("elementwise", None, {"NI": 29, "NJ": 53}, "NI*NJ"),
    "scale_reassigned.cu": ("elementwise", None, {"n": 1001}, "n"),  # the index built by reassignment
    "transpose_macro.cu": ("transpose-tile", None, {"m": 37, "n": 45, "lda": 37, "ldb": 45}, "m*n"),  # A(i, j) macros
    "heat3d_grid3.cu": ("stencil-march", None, {"n": 19}, "n*n*n"),  # A3(a, i, j, k) macros on a 3-D grid
    "hist_mod.cu": ("private-bins", None, {"n": 3001, "nbins": 100}, "n"),  # `if (k < 0) k += nbins;` keeps k < nbins
    "permute_remainder.cu": ("transpose-tile", None, {"D0": 5, "D1": 7, "D2": 37}, "D0*D1*D2"),  # rows of D1*D2
    # the store reaches a thread coordinate through a remainder (`(q % R)`): contiguous in runs of R
    "nchw_to_nhwc.cu": ("transpose-tile", None, {"N": 2, "C": 13, "H": 7, "W": 37}, "N*C*H*W"),
    "permute_batched_flat.cu": ("transpose-tile", None, {"B": 3, "R": 37, "C": 45}, "B*R*C"),
    "jacobi_flat1d.cu": ("stencil-tile", None, {"nx": 45, "ny": 37}, "nx*ny"),  # the boundary copied, then return
    # the neighbours clamped to the cell itself at the edges (`(r == 0) ? idx : idx - cols`): a choice of fixed loads
    # four outputs of each point (its derivatives), the neighbours clamped through min and max
    "srad_minmax.cu": ("stencil-tile", None, {"rows": 37, "cols": 45}, "rows*cols"),
    "hotspot_clamped.cu": ("stencil-tile", None, {"rows": 37, "cols": 45, "Cap": 0.5, "Rx": 0.1, "Ry": 0.1, "Rz": 0.2,
                                                   "step": 0.001, "amb": 80.0}, "rows*cols"),
    # the warp-synchronous `volatile` tail read as a tree (restructure/warptail.py), in a helper and templated;
    # the emulator runs a warp's threads one after another, not in lockstep, so these kernels as written are
    # wrong there: their candidates are checked against the block sums computed here (REFERENCE)
    "harris_reduce4.cu": ("block-tree", None, {"n": 1500}, "n"),
    "harris_reduce6.cu": ("block-tree", "reduce6<256>", {"n": 3001}, "n"),
    # the index through a `__device__ int at(x, y, z, nx, ny)` helper (SourceFile.index_functions)
    "st3d_idx_fn.cu": ("stencil-march", None, {"nx": 37, "ny": 21, "nz": 9}, "nx*ny*nz"),
    # the neighbours through a centre pointer, `p[-1]`, `p[nx]`
    "st_5pt_ptr.cu": ("stencil-tile", None, {"nx": 45, "ny": 37}, "nx*ny"),
    # a 1-D stencil (the taps' loop written out): a tile of one row with its halo
    "stencil1d_define.cu": ("stencil-tile", None, {"n": 1001}, "n + 6"),
    # a column's sum of squares, then the column scaled in place by it: the sum split, the update pass after it
    "colscale_norm.cu": ("column", None, {"m": 37, "n": 45}, "m*n"),
    # a transpose through `__stcs(&out[..], __ldg(&in[..]))`: the copy read without its cache hints
    "tr_ldg_stcs.cu": ("transpose-tile", None, {"rows": 37, "cols": 45}, "rows*cols"),
    # a lower bound beside the upper one (`if (i > 0 && i < n) y[i] += ...`): each element keeps its own test
    "ew_lower_guard.cu": ("elementwise", None, {"n": 1001, "a": 0.5}, "n"),
    # a column sum guarded by `j > 0 && j < N`: every column summed, the lower bound kept on the store
    "col_lower.cu": ("column", None, {"M": 37, "N": 45}, "M*N"),
    # a pointer walking down the column in the loop's update (`++r, p += cols`): the step moved into the body
    "colsum_ptr_comma.cu": ("column", None, {"rows": 37, "cols": 45}, "rows*cols"),
    # a rank-1 update on 2-D indices, `A[i * N + j] += alpha * x[i] * y[j]`: flattened, the vectors read at the
    # flat index's quotient and remainder, packed by the gather plan
    "ger_rank1.cu": ("gather", None, {"M": 37, "N": 45, "alpha": 2.0}, "M*N"),
    # a float binned by the count and clamped to the bins by two ifs (`if (b >= nbins) b = nbins - 1;`)
    "hist_clamped_bins.cu": ("private-bins", None, {"n": 3001, "nbins": 64}, "n"),
    # batch norm over columns: mean, then variance, then the column written; held back only by pointers that may
    # overlap, so planned with __restrict__ on them (tests/probe_c)
    "../probe_c/co07_batchnorm_column_normalize.cu": ("column", None, {"Nb": 37, "F": 45, "eps": 1e-5}, "Nb*F"),
    # thread 0 adding the block's shared values one by one, then one atomic (tests/probe_d): read as a tree
    "../probe_d/red_l2norm_serial_shared.cu": ("block-tree", None, {"n": 3001}, "n"),
    # a sum and a sum of squares, each thread's chunk sent by two atomics (tests/probe_d): one atomic per block each
    "../probe_d/red_chunked_mean_var.cu": ("block-atomic", None, {"n": 3001}, "n"),
    # an element-wise kernel reading a scale every thread reads at the same place (`x[i] / norm[0]`)
    "scale_by_norm.cu": ("elementwise", None, {"n": 1001}, "n"),
    # NCHW <-> NHWC through digits of the flat index, one side reaching the row through `((q / W) % H)` inside
    # another digit (tests/probe_e, tests/probe_d): contiguous in runs of W, restaged through the tile
    "../probe_e/tr_nchw_to_nhwc_gather.cu": ("transpose-tile", None, {"N": 2, "C": 37, "H": 5, "W": 7}, "N*C*H*W"),
    "../probe_e/tr_nhwc_to_nchw_scatter.cu": ("transpose-tile", None, {"N": 2, "C": 37, "H": 5, "W": 7}, "N*C*H*W"),
    "../probe_d/tr_nchw_to_nhwc.cu": ("transpose-tile", None, {"N": 2, "C": 37, "H": 5, "W": 7}, "N*C*H*W"),
    # the tree's shared memory a cast of the kernel's own `extern __shared__ unsigned char[]` (tests/probe_e)
    "../probe_e/rd_harris_reduce0.cu": ("block-tree", "reduce0<float>", {"n": 3001}, "n"),
    # a block scan of a predicate of the input (`in[gid] > threshold ? 1 : 0`, a select on loaded data)
    "../probe_e/sc_compaction_exclusive.cu": ("block-scan", None, {"n": 1001, "threshold": 50}, "n"),
    # a row's update of memory outside its loops done once, by the team's first lane (found by a second reading:
    # every lane did it), then read back after a barrier
    "../rowscan/total_update.cu": ("row-warp", None, {"rows": 37, "cols": 101}, "rows*cols"),
    "../rowscan/total_then_read.cu": ("row-block", None, {"rows": 37, "cols": 101}, "rows*cols"),
    # a 3x3 filter clamped to the edge on both sides (`min(max(px + dx, 0), width - 1)` in loops over the taps,
    # blind round K): the taps written out, then each clamp read as the side that can bind
    "../probe_k/k15_conv3x3_const.cu": ("stencil-tile", None, {"width": 45, "height": 37}, "width*height"),
    # Hillis-Steele through two shared arrays swapped by pointer (`float *t = src; src = dst; dst = t;`, round K): the
    # pointers followed by the block simulation, and left at the buffer holding the prefixes after the phase
    "../probe_k/k20_scan_pingpong.cu": ("block-scan", None, {"n": 1001}, "n"),
    # blind round L: a grid-stride product whose stride is a local (`idx += step`), read one output per thread with
    # the local gone; a batched product whose sizes are cast (`(unsigned)M`)
    "../probe_l/l01_gemm_gridstride_divmod.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    "../probe_l/l02_bmm_zbatch_offsets.cu": ("matmul-tiles", None, {"batch": 2, "M": 37, "N": 45, "K": 29},
                                             "batch*(M*N+M*K+K*N)"),
    # Caffe's CUDA_KERNEL_LOOP (a loop header as a macro before a block) over a launch with a thread for every
    # element: one pass a thread, then the permute's tile
    "../probe_l/l16_nchw2nhwc_caffe_loop.cu": ("transpose-tile", None, {"nthreads": 2590, "N": 2, "C": 5, "H": 7,
                                                                         "W": 37}, "N*C*H*W"),
    # a centre index stepped a plane a pass (`c += plane;`): read at the loop's counter, then the march
    "../probe_l/l11_heat3d_zloop.cu": ("stencil-march", None, {"nx": 37, "ny": 11, "nz": 19, "r": 0.1}, "nx*ny*nz"),
    # blind round M: a grid-stride permute over a fixed grid of 24 blocks (more elements than threads, so the loop
    # runs twice) whose index is peeled with `%` and `/=`: one pass a thread under a launch covering every element
    # C = A B^T through row pointers summed by a countdown `while (k--)`: a counted loop, forwards, then the tiles
    "../probe_m/m02_nt_rowptr_while.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    # four partial sums of a k loop unrolled by hand, added up after the remainder loop: one sum, then the tiles
    "../probe_m/m09_mm_unroll4.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    # PolyBench's syrk on the lower triangle (`(i < n) && (j <= i)`): the column bounded through the row; the tiles
    # write the triangle alone (the upper one keeps its values)
    "../probe_m/m11_syrk_lower_polybench.cu": ("matmul-tiles", None, {"ALPHA": 1.25, "BETA": 0.75, "n": 37, "m": 29},
                                               "n*n+n*m"),
    # a float binned with a clamp in two ternaries (`f >= (float)nbins ? nbins - 1 : (int)f`): the bins counted
    "../probe_m/m20_histo_global_atomic.cu": ("private-bins", None, {"n": 3001, "nbins": 37, "lo": -2.0, "hi": 3.0},
                                              "n"),
    # blind round N: 2-D indices bounded by two early returns, x and y read through row pointers (`yr[c] += a * xr[c]`)
    # a 5x5 filter with its weights in __constant__ memory, each tap through a `fetch` helper that returns 0 past the
    # edge (`if (..) return 0.0f; return img[..];`, read as one conditional expression and inlined)
    "../probe_n/n13_conv2d_const.cu": ("stencil-tile", None, {"width": 45, "height": 37}, "width*height"),
    "../probe_n/n20_axpy2d.cu": ("elementwise", None, {"a": 1.5, "rows": 37, "cols": 45}, "rows*cols"),
    # blind round O: Darknet's gemm_nn and gemm_tn, ALPHA folded into a local of the loop (`float A_PART = ALPHA *
    # A[..]; C[..] += A_PART * B[..];`): the local's product read as its factors, ALPHA the product's scale
    "../probe_o/o01_gemm_nn_darknet.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29, "ALPHA": 1.5, "lda": 29,
                                                                 "ldb": 45, "ldc": 45}, "M*N+M*K+K*N"),
    "../probe_o/o02_gemm_tn_nt.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29, "ALPHA": 0.75, "lda": 37,
                                                            "ldb": 45, "ldc": 45}, "M*N+M*K+K*N"),
    # four rows a thread in `float acc[RPT] = {0.f, ...}`, each at `row0 + r` under its own guard, row0 = gy_ * RPT:
    # the positions named, the first output read with row0 the thread's own row, then the tiles
    "../probe_o/o09_gemm_4rows.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    # blind round P: a heat step whose border copy and interior compute are an if/else inside the bounds guard
    # (the last statement of the guard's block), and NHWC -> NCHW through a macro'd size_t loop header with a line
    # continuation (the continuation was kept as a stray backslash) bounded by a local
    "../probe_p/p05_heat_step.cu": ("stencil-tile", None, {"ni": 45, "nj": 37, "alpha": 0.5, "dt": 0.1, "h": 1.0},
                                    "ni*nj"),
    "../probe_p/p09_nhwc_to_nchw.cu": ("transpose-tile", None, {"N": 2, "C": 13, "H": 5, "W": 37}, "N*C*H*W"),
    # Harris's reduce4 as a max, its warp tail in a register with __syncwarp between each read and write
    # (`v = fmaxf(v, sdata[tid + 32]); __syncwarp(); sdata[tid] = v;`): read as a max tree with barriers
    "../probe_p/p16_reduce_max_reduce4.cu": ("block-tree", "reduce4max<256>", {"n": 3001}, "n"),
    "../probe_m/m16_nchw_to_nhwc_gs.cu": ("transpose-tile", None, {"N": 3, "C": 7, "H": 9, "W": 37}, "N*C*H*W"),
    # blind round Q: a k loop unrolled by 4 as `for (; k + 4 <= K; k += 4)` before its remainder loop (the bound
    # read as `k + 3 < K`); an early return written `if (!(r < static_cast<size_t>(M) && c < ..)) return;` (De
    # Morgan on integer comparisons, the bound's integer cast dropped); a z loop whose boundary planes and edges
    # are copied and `continue` (a store of the same point that then leaves, as the 2-D heat step's)
    "../probe_q/q01_sgemm_unroll4.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    "../probe_q/q03_gemm_abt_sizet.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    # a 2 x 2 tile of outputs in named sums (`c00 .. c11`) with loads in locals guarded by `(r1 < M) ? .. : 0.f`:
    # read as the first sum alone, each coordinate the thread's own (round L's l08 and round Q's q10)
    "../probe_q/q10_regtile_2x2.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    "../probe_l/l08_microtile_2x2_regs.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    # blind round R: a block per row whose threads stride the columns (`for (col = threadIdx.x; col < N; col +=
    # blockDim.x)`) after an early return: the stride loop read one output a thread past the early exit
    "../probe_r/r01_gemm_rowblock_colstride.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "M*N+M*K+K*N"),
    # blind round S: a double-buffered Hillis-Steele scan whose bounds are written `t < static_cast<unsigned>(n)`
    # (the block simulator reads the cast)
    "../probe_s/s16_hillis_steele_inclusive_int.cu": ("block-scan", None, {"n": 413}, "n"),
    # blind round T: a k loop written `while (k < p)` whose counter is declared before two other declarations
    "../probe_t/t08_while_loop_k.cu": ("matmul-tiles", None, {"m": 37, "n": 45, "p": 29}, "m*n+m*p+p*n"),
    # and a sum split over two halves of k into two partials added once after (`sum_lo + sum_hi`)
    "../probe_t/t05_split_k_halves.cu": ("matmul-tiles", None, {"heightA": 37, "widthA": 29, "widthB": 45},
                                         "heightA*widthB+heightA*widthA+widthA*widthB"),
    # a batch loop inside each thread over rows `b * I + i` of A and C, B shared: a batch with B broadcast
    "../probe_t/t03_tensor_contraction_batch.cu": ("matmul-tiles", None, {"nb": 3, "I": 37, "J": 45, "Kd": 29},
                                                   "3*37*45+3*37*29+29*45"),
    # the multiply-add through a templated functor (`MulAdd<T> op; acc = op(a[..], b[..], acc);`) in a namespace,
    # the thread's indices through `static_cast<index_t>(..)`
    "../probe_t/t20_namespace_functor_muladd.cu": ("matmul-tiles", "linalg::detail::gemm_functor_kernel<float>",
                                                   {"m": 37, "n": 45, "k": 29}, "37*45+37*29+29*45"),
    # blind round U: a k loop unrolled by 4 into products held in locals, `sum += p0 + p1 + p2 + p3;`, through a row
    # pointer, the counter declared before the loop; a batch loop accumulating in global memory after zeroing it
    # (the batch loop is no sum along b: each pass updates another element); a strided batched GEMM whose flat index
    # splits through a remainder local (`rem = tid % (M * N); row = rem / N;`)
    "../probe_u/u16_unroll4_sizet.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "37*45+37*29+29*45"),
    "../probe_u/u07_dbmm_outer_batch_loop.cu": ("matmul-tiles", None, {"nbatch": 3, "n": 37, "m": 29, "p": 45},
                                                "3*(37*45+37*29+29*45)"),
    "../probe_u/u08_strided_batched_flat.cu": ("matmul-tiles", None, {}, "3*197+200"),
    # A·Bᵀ + B·Aᵀ through a helper called twice (two loops over the same range, read once as `ab + ba`): one loop
    "../probe_u/u04_syr2k_idx_macro_helper.cu": ("matmul-tiles", None, {"N": 37, "M": 29}, "37*37+37*29"),
    # blind round V: a column normalised after its sum behind `if (nrm < eps) return;` (read as an if around the
    # pass after the reduction); |x| summed through a tree helper (fabsf in the block simulator); a templated absmax
    # whose maxima are kept by `if (a > m) m = a;` and a tree of `if (.. && s[t + s] > s[t]) s[t] = s[t + s];`
    # (read as max); three channels' bins from a uchar4 at `2 * NBINS + p.z`; a (B, N, H, d) permute through a
    # reassigned remainder, moved as rows of d
    "../probe_v/v12_col_l2_normalize_macro.cu": ("column", None, {}, "59*87"),
    "../probe_v/v15_l1norm_seq_helper_atomic.cu": ("block-tree", None, {}, "n"),
    "../probe_v/v16_amax_template.cu": ("block-tree", "absmax_partial<float>", {}, "n"),
    "../probe_v/v20_histogram_rgb_atomic.cu": ("private-bins", None, {}, "4*npix"),
    "../probe_v/v08_permute_bnhd_remainder.cu": ("gather", None, {}, "B*N*H*D"),
    # blind round W: llm.c's matmul_forward splitting its row `bt` into `b = bt / T, t = bt % T` and indexing `b * T *
    # C + t * C` (read as the row bt, b and t computed from it as written); a batch on blockIdx.z that one operand
    # (the filter bank) does not read, through pointers stepped in the k loop
    "../probe_w/w01_llmc_matmul_fwd_b_t_split.cu": ("matmul-tiles", None, {"B": 2, "T": 13, "C": 29, "OC": 37},
                                                    "37*29+2*13*37"),
    "../probe_w/w19_torchaudio_melscale_ptrinc.cu": ("matmul-tiles", None,
                                                     {"batch": 3, "n_freqs": 29, "n_mels": 17, "n_time": 37}, "3*29*37"),
    # blind round X: Rodinia hotspot's neighbours clamped with its MIN/MAX macros inside the index (`grid_cols *
    # MAX(yidx - 1, 0) + xidx`: the macro's ternary read as max, the clamp as a choice of two loads); Parboil's
    # histogram whose bins are bounded by `value < (unsigned)(histo_width * histo_height)`
    "../probe_x/x01_rodinia_hotspot_clamp.cu": ("stencil-tile", None, {}, "77*59"),
    "../probe_x/x20_parboil_histo_saturate.cu": ("private-bins", None, {}, "97*63"),
    # an int8 product requantised through locals after the loop (`float y = alpha * acc + ..; int q =
    # __float2int_rn(y); q = clamp; out[..] = (int8_t)q;`): the store found through them, the epilogue the kernel's own
    "../probe_w/w16_smoothquant_a8w8_b32o8.cu": ("matmul-tiles", None, {"M": 37, "N": 45, "K": 29}, "45*29+37*45+37*29"),
    # the CUDA samples' MatrixMulCUDA<32> (aBegin/aStep walk, three counters in the tile loop): unstaged, then tiled
    "../probe_w/w13_cuda_samples_matrixMul_tiled_host.cu": ("matmul-tiles", "MatrixMulCUDA<32>", {},
                                                            "75*67+67*45+75*45"),
    # a grid-stride loop over a 3-D grid's flat index whose walls are written, then `continue` (blind round Z): one
    # pass a thread, the `continue` a `return`, then the stencil's tile
    "../probe_z/z05_cupy_rawkernel_wave3d_gridstride.cu": ("stencil-tile", None, {"nx": 37, "ny": 29, "nz": 23,
                                                                                  "c2": 0.1}, "nx*ny*nz"),
    # blind round Y: ONNX Runtime's MatMulInteger, `(static_cast<int32_t>(a[..]) - a_zp) * (.. - b_zp)` with the zero
    # points read through pointers, its index from a macro of statements (`CUDA_LONG id = ..; if (id >= N) return;`)
    "../probe_y/y04_onnxrt_matmulinteger_u8s8_zeropoints.cu": ("matmul-tiles", "onnxruntime::cuda::MatMulIntegerKernel",
                                                               {"M": 37, "N": 45, "K": 29},
                                                               "M*N+M*K+K*N"),
    # a weight along k (PySCF's density matrix D = C diag(occ) Cᵀ, `occ[i] * C[mu + i*ldc] * C[nu + i*ldc]`): A's
    # elements weighted as the tiles load them
    "../probe_y/y10_qchem_density_from_mo_coeffs_occ.cu": ("matmul-tiles", None, {"nbf": 37, "nocc": 21, "ldc": 39,
                                                                                 "ldd": 37}, "ldc*nbf + ldd*nbf"),
    # ALiBi's scores (blind round Y): the head `h = bh % NH` of the batch on the grid's z read by the epilogue's
    # slope, computed as written in the tiles
    "../probe_y/y16_alibi_causal_scores_half_bnth.cu": ("matmul-tiles", None, {"B": 2, "NH": 2, "T": 37, "HS": 21,
                                                                             "scale": 0.125}, "B*NH*T*(T+HS)"),
    # the weight beside a scale factor (`alpha * occ[i] * C[..] * C[..]`): alpha stays in the replayed update
    "../weighted/weighted_alpha.cu": ("matmul-tiles", None, {"nbf": 37, "nocc": 21, "ldc": 39, "ldd": 37,
                                                             "alpha": 2.5}, "ldc*nbf + ldd*nbf"),
    "../probe_q/q13_heat3d_zloop.cu": ("stencil-march", None, {"nx": 37, "ny": 29, "nz": 35, "c0": 0.4, "c1": 0.1},
                                       "nx*ny*nz"),
}


def _block_sums(x, grid, chunk=512):
    """g_odata[b]: the sum of the elements whose position modulo grid x chunk falls in block b's chunk."""
    pos = np.arange(len(x)) % (grid * chunk) // chunk
    return np.array([x[pos == b].sum() for b in range(grid)])


def _block_maxima(x, grid, chunk=512):
    """g_odata[b]: the largest element whose position modulo grid x chunk falls in block b's chunk."""
    pos = np.arange(len(x)) % (grid * chunk) // chunk
    return np.array([x[pos == b].max() for b in range(grid)])


REFERENCE = {"harris_reduce4.cu": ("g_odata", _block_sums), "harris_reduce6.cu": ("g_odata", _block_sums),
             "../probe_p/p16_reduce_max_reduce4.cu": ("g_odata", _block_maxima)}


def _ev(e, env):
    e = re.sub(r"sizeof\((?:float|int|unsigned)\)", "4", re.sub(r"sizeof\(double\)", "8", str(e)))
    return int(eval(e.replace("/", "//"), {"cdiv": lambda a, b: -(-a // b), "min": min}, dict(env)))


@pytest.mark.skipif(GXX is None, reason="needs g++ for the CPU emulator")
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_candidate_computes_what_the_kernel_computes(name, tmp_path):
    plan_name, emu_name, sizes, elems = CASES[name]
    path = os.path.join(PROBE, name)
    text = open(path).read()
    head = first_step.read_header(text)
    head["sizes"].update(sizes)
    ctx = first_step.context(path, text, head)
    plans, why = api.plans(text, ctx)
    plan = next((p for p in plans if p.name == plan_name), None)
    assert plan is not None, why
    # (the emulator runs one block at a time: a column split's cluster of blocks is compiled, emulated as one)
    # (a product's tile space holds dozens of settings: its first here, test_matmul_rewrites.py runs the others; of
    # other plans the first and the last, the farthest apart: each family's own tests run every setting, CI's time)
    space = plan.space[:1] if plan_name.startswith("matmul-") else plan.space[:1] + plan.space[1:][-1:]
    cands = [plan.build({**k, "cluster": 1} if "cluster" in k else k) for k in space]
    clusters = [plan.build(k) for k in space if k.get("cluster", 1) > 1]  # compiled, not emulated
    k = parse_source(text).kernel(ctx.kernel)
    problems = compile_each(path, [(k.name, c.source, ()) for c in cands + clusters], CompileOptions(arch="sm_90"))
    for c, problem in zip(cands + clusters, problems):
        assert problem is None, f"{c.description}:\n" + "\n".join(problem)
    env = head["sizes"]
    runs = [(host_blanked(text), ctx.launch)] + [(host_blanked(c.source), c.launch) for c in cands]  # (no `main`)
    batch = Batch([(src, emu_name or k.name) for src, _ in runs], str(tmp_path))
    n = _ev(elems, env)
    outs = []
    for i, (_, launch) in enumerate(runs):
        rng = np.random.default_rng(3)
        args = []
        for p in k.params:
            if p.is_pointer:
                dt = DTYPES.get(p.base_type, np.float32)
                a = rng.standard_normal(n) if dt in (np.float32, np.float64) else rng.integers(0, 100, n)
                args.append(a.astype(dt))
            else:
                args.append(env[p.name])
        grid = [_ev(g, env) for g in launch["grid"]]
        got = batch.run(i, args, grid, launch["block"], shared_bytes=_ev(launch.get("shared_bytes") or 0, env))
        outs.append([g for g, p in zip(got, k.params) if p.is_pointer])
    ptrs = [p for p in k.params if p.is_pointer]
    if name in REFERENCE:  # the kernel as written cannot run in the emulator: the sums computed here instead
        out, ref = REFERENCE[name]
        x = outs[0][0]  # the input buffer, unchanged by every run
        want = ref(x.astype(np.float64), _ev(runs[0][1]["grid"][0], env))
        at = [p.name for p in ptrs].index(out)
        for c, o in zip(cands, outs[1:]):
            assert np.allclose(o[at][:len(want)], want, rtol=1e-4, atol=1e-3), f"{c.description}: {out} differs"
        return
    for c, o in zip(cands, outs[1:]):
        for a, b, p in zip(outs[0], o, ptrs):
            assert np.allclose(a, b, rtol=1e-4, atol=1e-3), f"{c.description}: {p.name} differs"


def test_clamped_neighbours_become_choices_of_fixed_loads_only_where_the_clamp_is_the_point_itself():
    from kernelpro.optimizer.restructure.passes import clamped_neighbours

    def run(text, kernel):
        for _ in range(3):
            out = clamped_neighbours(text, "x.cu", kernel)
            if out is None:
                return text
            text = out
        return text

    srad = open(os.path.join(PROBE, "srad_minmax.cu")).read()
    got = run(srad, "srad_derivs")
    assert "(i > 0 ? J[(i - 1) * cols + j] : J[(i) * cols + j])" in got
    assert "(j < cols - 1 ? J[i * cols + (j + 1)] : J[i * cols + (j)])" in got
    # two cells away is not the cell itself at the edge; no guard `j < cols`: the clamp may not be the point
    assert "? J[(i - 2)" not in run(srad.replace("max(i - 1, 0)", "max(i - 2, 0)"), "srad_derivs")
    assert "(j < cols - 1 ?" not in run(srad.replace("if (i < rows && j < cols)", "if (i < rows)"), "srad_derivs")
    # the clamp computed and read before the guard that bounds its coordinate: an extra thread would read past
    early = """__global__ void k1(const float* in, float* out, int R, int C) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int rs = min(r + 1, R - 1);
  float v = in[rs * C + c];
  if (r < R && c < C) out[r * C + c] = v;
}"""
    assert clamped_neighbours(early, "x.cu", "k1") is None
    # clamped on both sides: at most one side binds for a guarded coordinate one step away (or none at 0)
    both = """__global__ void k2(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  int xl = min(max(x + (-1), 0), W - 1);
  int xr = max(min(x + 1, W - 1), 0);
  int xc = min(max(x, 0), W - 1);
  int x2 = min(max(x + 2, 0), W - 1);
  out[y * W + x] = in[y * W + xl] + in[y * W + xr] + in[y * W + xc] + in[y * W + x2];
}"""
    got = clamped_neighbours(both, "x.cu", "k2")
    assert "int xl = (x > 0 ? x - 1 : x);" in got and "int xr = (x < W - 1 ? x + 1 : x);" in got
    assert "int xc = (x);" in got and "min(max(x + 2, 0), W - 1)" in got  # (two away: the edge is not the point)
    assert clamped_neighbours(both.replace("if (x >= W || y >= H) return;", ""), "x.cu", "k2") is None
    hot = open(os.path.join(PROBE, "hotspot_clamped.cu")).read()
    assert "(r == 0 ? temp_src[(idx)] : temp_src[(idx - cols)])" in run(hot, "hotspot_step")
    # the choice's inputs assigned again before the load: the load is left as written
    moved = run(hot.replace("float t = temp_src[idx];", "float t = temp_src[idx]; r = r + 0;"), "hotspot_step")
    assert "temp_src[S]" in moved and "temp_src[N]" in moved and "temp_src[(idx - 1)]" in moved


def test_several_outputs_of_one_point_are_restaged_only_when_each_is_another_array_at_that_point():
    from kernelpro.profilers.analysis.stencils import Stencil, stencil

    text = run_clamps(open(os.path.join(PROBE, "srad_minmax.cu")).read())
    k = lambda t: parse_source(t).kernel("srad_derivs")  # noqa: E731
    got = stencil(parse_source(text), k(text))
    assert isinstance(got, Stencil) and [a.array for a in got.more] == ["dN", "dS", "dW"] and got.store.array == "dE"
    for wrong in (("dS[i * cols + j] =", "dS[i * cols + j + 1] ="),  # another point
                  ("dW[i * cols + j] =", "dN[i * cols + j] ="),  # one array twice
                  ("- Jc;\n        dE", "- dN[i * cols + j];\n        dE")):  # an output read back: in place
        t = text.replace(*wrong)
        assert t != text and not isinstance(stencil(parse_source(t), k(t)), Stencil), wrong


def run_clamps(text: str) -> str:
    from kernelpro.optimizer.restructure.passes import clamped_neighbours

    for _ in range(3):
        out = clamped_neighbours(text, "x.cu", "srad_derivs")
        if out is None:
            return text
        text = out
    return text


def test_a_lower_bound_goes_inside_the_upper_one_only_for_the_same_index_and_plain_conditions():
    from kernelpro.optimizer.restructure.passes import split_lower_guards

    base = ("__global__ void f(float* y, const float* x, int n, int m) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x; int j = threadIdx.y;\n  COND y[i] += x[i];\n}\n")
    got = split_lower_guards(base.replace("COND", "if (i > 0 && i < n)"), "f.cu", "f")
    assert "if (i < n) { if ((i > 0)) y[i] += x[i]; }" in got
    assert "if (n > i) { if ((2 <= i)) y[i] += x[i]; }" in split_lower_guards(
        base.replace("COND", "if (2 <= i && n > i)"), "f.cu", "f")
    for cond in ("if (j > 1 && i < n)",  # another index's bound: nothing of i's to move
                 "if (i < n && i < m)",  # two upper bounds
                 "if (i >= 2 && i < n && g(i))"):  # a call
        assert split_lower_guards(base.replace("COND", cond), "f.cu", "f") is None, cond


def test_a_column_sum_s_lower_bound_moves_to_its_stores_only_where_every_column_reads_in_bounds():
    from kernelpro.optimizer.restructure.passes import lower_guard_to_stores

    text = open(os.path.join(PROBE, "col_lower.cu")).read()
    assert "if ((j > 0)) {" in lower_guard_to_stores(text, "c.cu", "colsum_skip")
    shifted = text.replace("t += A[i * N + j];", "t += A[i * N + j - 1];")  # column 0 would read A[-1]
    assert lower_guard_to_stores(shifted, "c.cu", "colsum_skip") is None
    written = text.replace("for (int i = 0; i < M; ++i) t += A[i * N + j];",
                           "for (int i = 0; i < M; ++i) { t += A[i * N + j]; A[0] = t; }")  # the loop writes memory
    assert lower_guard_to_stores(written, "c.cu", "colsum_skip") is None


def test_a_clamp_is_read_as_one_side_only_where_the_guard_really_bounds_a_signed_coordinate():
    """Found by a second reading: a guard `x < W && y < H || flag` does not bound x; an unsigned `x - 1` wraps at 0
    (the clamp then reads column W - 1, not 0): neither is rewritten."""
    from kernelpro.optimizer.restructure.passes import clamped_neighbours
    base = """__global__ void k3(const float* in, float* out, int W, int H, int flag) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H) {
    int xl = min(max(x - 1, 0), W - 1);
    out[y * W + x] = in[y * W + xl];
  }
}"""
    assert "int xl = (x > 0 ? x - 1 : x);" in clamped_neighbours(base, "x.cu", "k3")
    assert clamped_neighbours(base.replace("if (x < W && y < H)", "if (x < W && y < H || flag)"), "x.cu", "k3") is None
    unsigned = base.replace("int x = blockIdx", "unsigned x = blockIdx")
    assert clamped_neighbours(unsigned, "x.cu", "k3") is None
    assert clamped_neighbours(unsigned.replace("min(max(x - 1, 0), W - 1)", "max(x - 1, 0)"), "x.cu", "k3") is None


def test_a_shared_array_read_through_a_pointer_of_another_type_is_not_followed():
    """`int *ib = (int*)buf;` over a float array: the block simulation refuses it (it followed the pointer as the
    float array, and the rewrite then summed the ints' bits as floats)."""
    from kernelpro.profilers.analysis.scans import BlockScan, block_scan
    text = """__global__ void k4(const int* in, int* out, int n) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  int* ib = (int*)buf;
  ib[tid] = tid < n ? in[tid] : 0;
  __syncthreads();
  for (int d = 1; d < 256; d *= 2) {
    int v = tid >= d ? ib[tid - d] + (int)buf[tid - d] * 0 : 0;
    __syncthreads();
    ib[tid] += v;
    __syncthreads();
  }
  if (tid < n) out[tid] = ib[tid];
}"""
    src = parse_source(text)
    got = block_scan(src, src.kernels[0], 256, {"n": 200})
    assert not isinstance(got, BlockScan)
    assert "another type" in got.reason or "could not be followed" in got.reason, got.reason
