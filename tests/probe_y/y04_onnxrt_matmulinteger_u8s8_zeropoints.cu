// style: ONNX Runtime contrib-op style MatMulInteger (uint8 A x int8 B -> int32 Y) with zero points: CUDA_LONG typedef, CALCULATE_ELEMENTWISE_INDEX_OR_EXIT guard macro over M*N, GridDim::maxThreadsPerBlock = 256, flat id split into (row, col) with / and %, scalar a_zero_point and per-column b_zero_point read through pointers, (a - a_zp) * (b - b_zp[col]) summed in int32
// launch: grid cdiv(M*N, 256) block 256
// sizes: M=37 N=45 K=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cstdint>

namespace onnxruntime {
namespace cuda {

typedef int32_t CUDA_LONG;

struct GridDim {
  enum : CUDA_LONG {
    maxThreadsPerBlock = 256,
    maxElementsPerThread = 1,
  };
};

#define CALCULATE_ELEMENTWISE_INDEX_OR_EXIT(id, N)          \
  CUDA_LONG id = blockDim.x * blockIdx.x + threadIdx.x;     \
  if (id >= N)                                              \
    return;

#define CeilDiv(a, b) (((a) + (b) - 1) / (b))

// Y[M, N] = (A[M, K] - a_zero_point) * (B[K, N] - b_zero_point[N]); A row-major uint8, B row-major int8
__global__ void MatMulIntegerKernel(const uint8_t* a,
                                    const int8_t* b,
                                    int32_t* y,
                                    const uint8_t* a_zero_point,
                                    const int8_t* b_zero_point,
                                    CUDA_LONG M,
                                    CUDA_LONG N,
                                    CUDA_LONG K) {
  CALCULATE_ELEMENTWISE_INDEX_OR_EXIT(id, M * N);

  const CUDA_LONG row = id / N;
  const CUDA_LONG col = id % N;

  const int32_t a_zp = static_cast<int32_t>(*a_zero_point);
  const int32_t b_zp = static_cast<int32_t>(b_zero_point[col]);

  int32_t sum = 0;
  for (CUDA_LONG k = 0; k < K; k++) {
    sum += (static_cast<int32_t>(a[row * K + k]) - a_zp) *
           (static_cast<int32_t>(b[k * N + col]) - b_zp);
  }
  y[id] = sum;
}

void MatMulIntegerImpl(cudaStream_t stream,
                       const uint8_t* a, const int8_t* b, int32_t* y,
                       const uint8_t* a_zero_point, const int8_t* b_zero_point,
                       CUDA_LONG M, CUDA_LONG N, CUDA_LONG K) {
  CUDA_LONG count = M * N;
  int blocksPerGrid = static_cast<int>(CeilDiv(count, GridDim::maxThreadsPerBlock));
  MatMulIntegerKernel<<<blocksPerGrid, GridDim::maxThreadsPerBlock, 0, stream>>>(
      a, b, y, a_zero_point, b_zero_point, M, N, K);
}

}  // namespace cuda
}  // namespace onnxruntime
