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
/// Usage:
///   #include <kernelpro/gemm_sm90.cuh>
///   cudaError_t e = kernelpro::gemm_bf16_sm90(m, n, k, dA, dBt, dD, stream);
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

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

/// A CUTLASS 3 GEMM for sm_90a built with the collective builders: TMA + wgmma mainloop,
/// warp-specialized cooperative persistent kernel, TMA epilogue. The tile (CTA) shape and
/// the cluster shape are template parameters; the defaults suit large bf16 problems.
template <class TileShape = cute::Shape<cute::_128, cute::_256, cute::_64>,
          class ClusterShape = cute::Shape<cute::_2, cute::_1, cute::_1>>
struct GemmBf16Sm90 {
  using ElementA = cutlass::bfloat16_t;
  using ElementB = cutlass::bfloat16_t;
  using ElementD = cutlass::bfloat16_t;
  using ElementAccumulator = float;
  using LayoutA = cutlass::layout::RowMajor;     // M x K, K contiguous
  using LayoutB = cutlass::layout::ColumnMajor;  // K x N with K contiguous (= Bt row-major)
  using LayoutD = cutlass::layout::RowMajor;     // M x N
  static constexpr int kAlignment = 16 / sizeof(ElementA);  // elements per 16-byte TMA access

  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementAccumulator,
      void, LayoutD, kAlignment,  // no C operand: D = alpha * A * B
      ElementD, LayoutD, kAlignment,
      cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;

  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
      ElementA, LayoutA, kAlignment, ElementB, LayoutB, kAlignment, ElementAccumulator,
      TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<
          static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
      cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, CollectiveMainloop,
                                                      CollectiveEpilogue, cutlass::gemm::PersistentScheduler>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  /// D[m x n] = A[m x k] * Bt[n x k]^T on `stream`. Returns cudaErrorInvalidValue when the
  /// sizes or pointers do not meet the kernel's requirements (multiples of 8, 16-byte
  /// aligned), or the launch error.
  static cudaError_t run(int m, int n, int k, const __nv_bfloat16* A, const __nv_bfloat16* Bt, __nv_bfloat16* D,
                         cudaStream_t stream = nullptr) {
    using StrideA = typename Kernel::StrideA;
    using StrideB = typename Kernel::StrideB;
    using StrideD = typename Kernel::StrideD;
    if (m <= 0 || n <= 0 || k <= 0 || m % kAlignment || n % kAlignment || k % kAlignment) {
      return cudaErrorInvalidValue;
    }
    StrideA sa = cute::make_stride(int64_t(k), cute::Int<1>{}, int64_t(m) * k);
    StrideB sb = cute::make_stride(int64_t(k), cute::Int<1>{}, int64_t(n) * k);
    StrideD sd = cute::make_stride(int64_t(n), cute::Int<1>{}, int64_t(m) * n);
    static int sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(0);
    cutlass::KernelHardwareInfo hw;
    cudaGetDevice(&hw.device_id);
    hw.sm_count = sm_count;
    typename Gemm::Arguments args{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {m, n, k, 1},
        {reinterpret_cast<const ElementA*>(A), sa, reinterpret_cast<const ElementB*>(Bt), sb},
        {{1.0f, 0.0f}, nullptr, sd, reinterpret_cast<ElementD*>(D), sd},
        hw};
    Gemm gemm;
    if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
      return cudaErrorInvalidValue;
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

/// bf16 GEMM with wgmma and TMA on sm_90a: D = A * Bt^T (A: m x k row-major, Bt: n x k
/// row-major, D: m x n row-major), fp32 accumulation, through GemmBf16Sm90's defaults.
inline cudaError_t gemm_bf16_sm90(int m, int n, int k, const __nv_bfloat16* A, const __nv_bfloat16* Bt,
                                  __nv_bfloat16* D, cudaStream_t stream = nullptr) {
  return GemmBf16Sm90<>::run(m, n, k, A, Bt, D, stream);
}

}  // namespace kernelpro
