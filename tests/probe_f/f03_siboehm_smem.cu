// style: siboehm SGEMM kernel 3 (shared-memory cache blocking), fork with bounds guards for ragged sizes
// launch: grid cdiv(M, 32), cdiv(N, 32) block 1024
// sizes: M=161 N=229 K=187 alpha=1.0 beta=0.0
// template: 32
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cuda_runtime.h>

template <const int BLOCKSIZE>
__global__ void sgemm_shared_mem_block(int M, int N, int K, float alpha,
                                       const float *A, const float *B,
                                       float beta, float *C) {
  // the output block that we want to compute in this threadblock
  const uint cRow = blockIdx.x;
  const uint cCol = blockIdx.y;

  // allocate buffer for current block in fast shared mem
  __shared__ float As[BLOCKSIZE * BLOCKSIZE];
  __shared__ float Bs[BLOCKSIZE * BLOCKSIZE];

  // the inner row & col that we're accessing in this thread
  const uint threadCol = threadIdx.x % BLOCKSIZE;
  const uint threadRow = threadIdx.x / BLOCKSIZE;

  // advance pointers to the starting positions
  A += cRow * BLOCKSIZE * K;                    // row=cRow, col=0
  B += cCol * BLOCKSIZE;                        // row=0, col=cCol
  C += cRow * BLOCKSIZE * N + cCol * BLOCKSIZE; // row=cRow, col=cCol

  const bool rowOk = cRow * BLOCKSIZE + threadRow < M;
  const bool colOk = cCol * BLOCKSIZE + threadCol < N;

  float tmp = 0.0;
  for (int bkIdx = 0; bkIdx < K; bkIdx += BLOCKSIZE) {
    // each thread loads one element of A and one of B (zero outside the matrix)
    As[threadRow * BLOCKSIZE + threadCol] =
        (rowOk && bkIdx + threadCol < K) ? A[threadRow * K + threadCol] : 0.0f;
    Bs[threadRow * BLOCKSIZE + threadCol] =
        (colOk && bkIdx + threadRow < K) ? B[threadRow * N + threadCol] : 0.0f;

    // block threads in this block until cache is fully populated
    __syncthreads();
    A += BLOCKSIZE;
    B += BLOCKSIZE * N;

    // execute the dotproduct on the currently cached block
    for (int dotIdx = 0; dotIdx < BLOCKSIZE; ++dotIdx) {
      tmp += As[threadRow * BLOCKSIZE + dotIdx] *
             Bs[dotIdx * BLOCKSIZE + threadCol];
    }
    // need to sync again at the end, to avoid faster threads
    // fetching the next block into the cache before slower threads are done
    __syncthreads();
  }
  if (rowOk && colOk) {
    C[threadRow * N + threadCol] =
        alpha * tmp + beta * C[threadRow * N + threadCol];
  }
}

template __global__ void sgemm_shared_mem_block<32>(int, int, int, float,
                                                    const float *, const float *,
                                                    float, float *);
