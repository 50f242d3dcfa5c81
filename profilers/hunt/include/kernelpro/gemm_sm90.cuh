/// \file KernelPro building block: tensor-core matrix multiply (GEMM) tile for Hopper, sm_90a.
/// bf16 GEMM on Hopper tensor cores, assembled from CUTLASS 3 / CuTe: TMA copies of the
/// A and B tiles from global to shared memory, wgmma (warpgroup MMA, HGMMA in SASS)
/// reading the operands straight from shared memory, a warp-specialized persistent kernel
/// (one producer warpgroup issues TMA, two consumer warpgroups run wgmma cooperatively on
/// a 128x256x64 tile), thread-block clusters of 2 with TMA multicast, and a TMA store
/// epilogue. D = A * B with fp32 accumulation.
///
/// Layouts: A is M x K row-major (K contiguous), B is passed transposed as Bt, N x K
/// row-major (K contiguous: the "TN" GEMM, like torch.matmul(A, Bt.t())), D is M x N
/// row-major. M, N, K must be multiples of 8 (16-byte TMA alignment).
///
/// Build: nvcc -std=c++17 -arch=sm_90a --expt-relaxed-constexpr -DNDEBUG -I<cutlass>/include
/// (wgmma needs the arch-specific sm_90a target; without -DNDEBUG the device asserts of
/// CUTLASS make ptxas serialize the wgmma pipeline, warning C7510, and the kernel is slow).
///
/// The general form, GemmSm90<ElementA, LayoutA, ElementB, LayoutB, ElementD>, takes bf16 or
/// fp16 operands (or fp32 ones, multiplied in TF32 with fp32 sums) in either layout, a bf16, fp16 or fp32 output, leading dimensions, a batch
/// with its strides, and D = alpha * A * B + beta * D. `gemm_sm90(...)` runs it, and where the
/// tensor-core kernel refuses the problem (a leading dimension, offset or extent that is not a
/// multiple of 16 bytes), a plain one-output-per-thread kernel with the same epilogue: every
/// size gets an answer. The optimizer puts it behind a kernel's own signature (an extern "C"
/// host launcher beside the kernel; docs/launch-specs.md, "host launchers").
///
/// Usage:
///   #include <kernelpro/gemm_sm90.cuh>
///   cudaError_t e = kernelpro::gemm_bf16_sm90(m, n, k, dA, dBt, dD, stream);
///   // C (m x n, row-major) = A (m x k, row-major) * B (k x n, row-major), bf16, fp32 sums:
///   e = kernelpro::gemm_sm90<cutlass::bfloat16_t, kernelpro::RowMajor, cutlass::bfloat16_t,
///                            kernelpro::RowMajor, cutlass::bfloat16_t>(
///       m, n, k, 1, dA, k, 0, dB, n, 0, dC, n, 0, 1.0f, 0.0f);
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>

namespace kernelpro {

using RowMajor = cutlass::layout::RowMajor;
using ColumnMajor = cutlass::layout::ColumnMajor;

/// A CuTe stride (rows, columns, batch) for a leading dimension: the static unit stride stays
/// where the layout has it, the leading dimension and the batch stride go in the others.
template <class Stride>
Stride make_ld_stride(int64_t ld, int64_t batch) {
  Stride s{};
  if constexpr (cute::is_static<cute::remove_cvref_t<decltype(cute::get<0>(s))>>::value) {
    cute::get<1>(s) = ld;
  } else {
    cute::get<0>(s) = ld;
  }
  cute::get<2>(s) = batch;
  return s;
}

/// A CUTLASS 3 GEMM for sm_90a built with the collective builders: TMA + wgmma mainloop,
/// warp-specialized cooperative persistent kernel, TMA epilogue D = alpha * A * B + beta * D.
/// A is m x k (RowMajor: k contiguous, ColumnMajor: m contiguous), B is k x n (RowMajor: n
/// contiguous, ColumnMajor: k contiguous), D is m x n row-major; a batch of l problems apart
/// by the batch strides. The tile (CTA) shape and the cluster shape are template parameters.
template <class ElementA_, class LayoutA_, class ElementB_, class LayoutB_, class ElementD_,
          class TileShape = cute::Shape<cute::_128, cute::_256, cute::_64>,
          class ClusterShape = cute::Shape<cute::_2, cute::_1, cute::_1>>
struct GemmSm90 {
  using ElementA = ElementA_;
  using ElementB = ElementB_;
  using ElementD = ElementD_;
  using ElementAccumulator = float;
  using LayoutA = LayoutA_;
  using LayoutB = LayoutB_;
  using LayoutD = cutlass::layout::RowMajor;
  static constexpr int kAlignA = 16 / sizeof(ElementA);  // elements per 16-byte TMA access
  static constexpr int kAlignB = 16 / sizeof(ElementB);
  static constexpr int kAlignD = 16 / sizeof(ElementD);

  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementAccumulator,
      ElementD, LayoutD, kAlignD,  // C: the old D, read only where beta is not 0
      ElementD, LayoutD, kAlignD,
      cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;

  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
      ElementA, LayoutA, kAlignA, ElementB, LayoutB, kAlignB, ElementAccumulator,
      TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<
          static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
      cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, CollectiveMainloop,
                                                      CollectiveEpilogue, cutlass::gemm::PersistentScheduler>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  /// D = alpha * A * B + beta * D for l problems on `stream`. Returns cudaErrorNotSupported
  /// when the problem does not meet the kernel's requirements (16-byte aligned pointers,
  /// leading dimensions and batch strides), else the launch error.
  static cudaError_t run(int m, int n, int k, int l, const void* A, int64_t lda, int64_t batch_a, const void* B,
                         int64_t ldb, int64_t batch_b, void* D, int64_t ldd, int64_t batch_d, float alpha,
                         float beta, cudaStream_t stream = nullptr) {
    using StrideA = typename Kernel::StrideA;
    using StrideB = typename Kernel::StrideB;
    using StrideD = typename Kernel::StrideD;
    if (m <= 0 || n <= 0 || k <= 0 || l <= 0) {
      return cudaErrorNotSupported;
    }
    if (lda % kAlignA || ldb % kAlignB || ldd % kAlignD || (l > 1 && (batch_a % kAlignA || batch_b % kAlignB ||
                                                                   batch_d % kAlignD)) ||
        reinterpret_cast<uintptr_t>(A) % 16 || reinterpret_cast<uintptr_t>(B) % 16 ||
        reinterpret_cast<uintptr_t>(D) % 16) {
      return cudaErrorNotSupported;
    }
    StrideA sa = make_ld_stride<StrideA>(lda, batch_a);
    StrideB sb = make_ld_stride<StrideB>(ldb, batch_b);
    StrideD sd = make_ld_stride<StrideD>(ldd, batch_d);
    static int sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(0);
    cutlass::KernelHardwareInfo hw;
    cudaGetDevice(&hw.device_id);
    hw.sm_count = sm_count;
    typename Gemm::Arguments args{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {m, n, k, l},
        {reinterpret_cast<const ElementA*>(A), sa, reinterpret_cast<const ElementB*>(B), sb},
        {{alpha, beta}, reinterpret_cast<const ElementD*>(D), sd, reinterpret_cast<ElementD*>(D), sd},
        hw};
    Gemm gemm;
    if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
      return cudaErrorNotSupported;
    }
    size_t ws_size = Gemm::get_workspace_size(args);
    void* ws = nullptr;
    if (ws_size && cudaMallocAsync(&ws, ws_size, stream) != cudaSuccess) {
      return cudaErrorMemoryAllocation;
    }
    cutlass::Status st = gemm.initialize(args, ws, stream);
    if (st == cutlass::Status::kSuccess) {
      st = gemm.run(stream);
    }
    if (ws) {
      cudaFreeAsync(ws, stream);
    }
    if (st != cutlass::Status::kSuccess) {
      cudaError_t e = cudaGetLastError();
      return e != cudaSuccess ? e : cudaErrorLaunchFailure;
    }
    return cudaGetLastError();
  }
};

/// The same product one output per thread with fp32 sums, any strides and alignment: what
/// gemm_sm90 runs where the tensor-core kernel refuses the problem. `a_row`/`a_k` are A's
/// element strides along m and k, `b_k`/`b_col` B's along k and n.
template <class ElementA, class ElementB, class ElementD>
__global__ void gemm_sm90_fallback(int m, int n, int k, const ElementA* A, int64_t a_row, int64_t a_k,
                                   int64_t batch_a, const ElementB* B, int64_t b_k, int64_t b_col, int64_t batch_b,
                                   ElementD* D, int64_t ldd, int64_t batch_d, float alpha, float beta) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) {
    return;
  }
  const ElementA* a = A + blockIdx.z * batch_a + row * a_row;
  const ElementB* b = B + blockIdx.z * batch_b + col * b_col;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) {
    sum += static_cast<float>(a[i * a_k]) * static_cast<float>(b[i * b_k]);
  }
  ElementD* d = D + blockIdx.z * batch_d + row * ldd + col;
  float out = alpha * sum;
  if (beta != 0.0f) {
    out += beta * static_cast<float>(*d);
  }
  *d = static_cast<ElementD>(out);
}

/// out[b][r][c] = in[b][c * in_ld + r] for r < rows, c < cols: an operand copied K-major (32 x 32 tiles through
/// padded shared memory), for the TF32 tensor cores, which read fp32 operands only along k.
__global__ void gemm_sm90_k_major(const float* in, int64_t in_ld, int64_t in_batch, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  const float* src = in + blockIdx.z * in_batch;
  float* dst = out + static_cast<int64_t>(blockIdx.z) * rows * cols;
  const int r0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {  // read along r (contiguous in `in`)
    const int r = r0 + threadIdx.x, c = c0 + j;
    if (r < rows && c < cols) tile[j][threadIdx.x] = src[static_cast<int64_t>(c) * in_ld + r];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += blockDim.y) {  // write along c (contiguous in `out`)
    const int r = r0 + j, c = c0 + threadIdx.x;
    if (r < rows && c < cols) dst[static_cast<int64_t>(r) * cols + c] = tile[threadIdx.x][j];
  }
}

/// Whether the last gemm_sm90 call on this host thread ran the tensor-core kernel (true) or the
/// plain fallback (false): a slow answer says which path gave it.
inline bool& gemm_sm90_last_used_tensor_cores() {
  static thread_local bool used = false;
  return used;
}

/// D = alpha * A * B + beta * D (see GemmSm90 for the layouts) on the tensor cores, or, where
/// they refuse the problem, with gemm_sm90_fallback: an answer at every size.
template <class ElementA, class LayoutA, class ElementB, class LayoutB, class ElementD,
          class TileShape = cute::Shape<cute::_128, cute::_256, cute::_64>,
          class ClusterShape = cute::Shape<cute::_2, cute::_1, cute::_1>>
cudaError_t gemm_sm90(int m, int n, int k, int l, const void* A, int64_t lda, int64_t batch_a, const void* B,
                      int64_t ldb, int64_t batch_b, void* D, int64_t ldd, int64_t batch_d, float alpha, float beta,
                      cudaStream_t stream = nullptr) {
  // fp32 operands go through TF32 wgmma, which reads them only K-major (A row-major, B column-major): an operand laid
  // out the other way (B row-major, the usual C = A * B) is first copied K-major into scratch memory (one pass over
  // it, a few percent of the product's time at large sizes). CUTLASS builds the MN-major form but it computes a
  // wrong product (measured: 1.4 relative error at 1024^3).
  constexpr bool a_mn = sizeof(ElementA) == 4 && cute::is_same_v<LayoutA, ColumnMajor>;
  constexpr bool b_mn = sizeof(ElementB) == 4 && cute::is_same_v<LayoutB, RowMajor>;
  cudaError_t e = cudaErrorNotSupported;
  if constexpr (a_mn || b_mn) {
    float* scratch = nullptr;
    const int64_t a_elems = a_mn ? static_cast<int64_t>(m) * k * l : 0;
    const int64_t b_elems = b_mn ? static_cast<int64_t>(n) * k * l : 0;
    const bool fits = m > 0 && n > 0 && k > 0 && l > 0 && l <= 65535 && (k + 31) / 32 <= 65535 && k % 4 == 0;
    if (fits && cudaMallocAsync(reinterpret_cast<void**>(&scratch), (a_elems + b_elems) * sizeof(float), stream) !=
                    cudaSuccess) {
      cudaGetLastError();  // (no scratch memory: the plain kernel below answers)
      scratch = nullptr;
    }
    if (scratch != nullptr) {
      const void* a = A;
      const void* b = B;
      if constexpr (a_mn) {  // A: m x k with m contiguous (A[i + p * lda]) -> k contiguous
        gemm_sm90_k_major<<<dim3((m + 31) / 32, (k + 31) / 32, l), dim3(32, 8), 0, stream>>>(
            static_cast<const float*>(A), lda, batch_a, scratch, m, k);
        a = scratch;
      }
      if constexpr (b_mn) {  // B: k x n with n contiguous (B[p * ldb + j]) -> n x k with k contiguous
        gemm_sm90_k_major<<<dim3((n + 31) / 32, (k + 31) / 32, l), dim3(32, 8), 0, stream>>>(
            static_cast<const float*>(B), ldb, batch_b, scratch + a_elems, n, k);
        b = scratch + a_elems;
      }
      e = cudaPeekAtLastError();
      if (e == cudaSuccess) {
        using LA = std::conditional_t<a_mn, RowMajor, LayoutA>;  // each operand K-major now (the other as it was)
        using LB = std::conditional_t<b_mn, ColumnMajor, LayoutB>;
        e = GemmSm90<ElementA, LA, ElementB, LB, ElementD, TileShape, ClusterShape>::run(
            m, n, k, l, a, a_mn ? k : lda, a_mn ? static_cast<int64_t>(m) * k : batch_a, b, b_mn ? k : ldb,
            b_mn ? static_cast<int64_t>(n) * k : batch_b, D, ldd, batch_d, alpha, beta, stream);
      }
      cudaFreeAsync(scratch, stream);
      if (e != cudaSuccess && e != cudaErrorNotSupported) {
        gemm_sm90_last_used_tensor_cores() = false;
        return e;
      }
    }
  } else {
    e = GemmSm90<ElementA, LayoutA, ElementB, LayoutB, ElementD, TileShape, ClusterShape>::run(
        m, n, k, l, A, lda, batch_a, B, ldb, batch_b, D, ldd, batch_d, alpha, beta, stream);
  }
  gemm_sm90_last_used_tensor_cores() = e != cudaErrorNotSupported;
  if (e != cudaErrorNotSupported) {
    return e;
  }
  if (m <= 0 || n <= 0 || l <= 0) {
    return cudaSuccess;  // nothing to compute
  }
  constexpr bool a_rows = cute::is_same_v<LayoutA, RowMajor>;
  constexpr bool b_rows = cute::is_same_v<LayoutB, RowMajor>;
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (m + 15) / 16, l);
  gemm_sm90_fallback<<<grid, block, 0, stream>>>(
      m, n, k, static_cast<const ElementA*>(A), a_rows ? lda : 1, a_rows ? 1 : lda, batch_a,
      static_cast<const ElementB*>(B), b_rows ? ldb : 1, b_rows ? 1 : ldb, batch_b, static_cast<ElementD*>(D), ldd,
      batch_d, alpha, beta);
  return cudaGetLastError();
}

/// gemm_sm90 with its tile chosen by the problem, as a library's heuristic would: 128 x 256 tiles in clusters of 2
/// where there are at least as many of them as SMs (4096^3: 512 tiles), else 128 x 128 tiles without clusters, twice
/// as many, for products that would leave most SMs idle (1024^3: 32 large tiles on 132 SMs). BK: the k depth of a
/// tile (64 for 16-bit operands, 32 for fp32 ones in TF32: the same shared memory per stage).
template <class ElementA, class LayoutA, class ElementB, class LayoutB, class ElementD, int BK = 64>
cudaError_t gemm_sm90_by_size(int m, int n, int k, int l, const void* A, int64_t lda, int64_t batch_a, const void* B,
                              int64_t ldb, int64_t batch_b, void* D, int64_t ldd, int64_t batch_d, float alpha,
                              float beta, cudaStream_t stream = nullptr) {
  static const int sms = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(0);
  const int64_t large_tiles = static_cast<int64_t>((m + 127) / 128) * ((n + 255) / 256) * l;
  if (large_tiles >= sms) {
    return gemm_sm90<ElementA, LayoutA, ElementB, LayoutB, ElementD,
                     cute::Shape<cute::_128, cute::_256, cute::Int<BK>>, cute::Shape<cute::_2, cute::_1, cute::_1>>(
        m, n, k, l, A, lda, batch_a, B, ldb, batch_b, D, ldd, batch_d, alpha, beta, stream);
  }
  return gemm_sm90<ElementA, LayoutA, ElementB, LayoutB, ElementD,
                   cute::Shape<cute::_128, cute::_128, cute::Int<BK>>, cute::Shape<cute::_1, cute::_1, cute::_1>>(
      m, n, k, l, A, lda, batch_a, B, ldb, batch_b, D, ldd, batch_d, alpha, beta, stream);
}

/// bf16 GEMM with wgmma and TMA on sm_90a: D = A * Bt^T (A: m x k row-major, Bt: n x k
/// row-major, D: m x n row-major), fp32 accumulation. Returns cudaErrorNotSupported where
/// m, n or k is not a multiple of 8 (no fallback here). (A template only so that a file
/// including the header compiles its GEMM only where it calls it.)
template <class Unused = void>
cudaError_t gemm_bf16_sm90(int m, int n, int k, const __nv_bfloat16* A, const __nv_bfloat16* Bt,
                           __nv_bfloat16* D, cudaStream_t stream = nullptr) {
  if (m % 8 || n % 8 || k % 8) {
    return cudaErrorNotSupported;
  }
  return GemmSm90<cutlass::bfloat16_t, RowMajor, cutlass::bfloat16_t, ColumnMajor, cutlass::bfloat16_t>::run(
      m, n, k, 1, A, k, 0, Bt, k, 0, D, n, 0, 1.0f, 0.0f, stream);
}

}  // namespace kernelpro
