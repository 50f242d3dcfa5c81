// b_naive_matmul.cu -- C = A * B with half inputs and float accumulation (row-major,
// A is M x K, B is K x N), one thread per output element.
// Defect: the k loop multiplies on the FP32 pipe (HADD2.F32 conversions + FFMA, one
// product per instruction) and the kernel has no tensor-core instruction (HMMA): on an
// H200 that leaves ~990 TFLOP/s of dense fp16/bf16 tensor throughput for ~67 TFLOP/s
// of fp32 FMA.
// Found by: matmul-without-tensor-cores (kernelpro.profilers.rules.tensor_cores).
// Fixed twin: b_naive_matmul_fixed.cu (nvcuda::wmma 16x16x16 fragments -> HMMA).
#include <cuda_fp16.h>

__global__ void matmul(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C,
                       int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) {
    acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
  }
  C[row * N + col] = acc;
}

void launch_matmul(const half* A, const half* B, float* C, int M, int N, int K) {
  dim3 grid((N + 31) / 32, (M + 7) / 8);
  matmul<<<grid, dim3(32, 8)>>>(A, B, C, M, N, K);
}
