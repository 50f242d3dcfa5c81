// style: CUDA samples reduction (reduce1) spelling - template <class T>, cooperative_groups thread_block with cg::sync(cta) in place of __syncthreads, interleaved addressing through `int index = 2 * s * tid`, unsigned int n, out-of-range threads load 0, static __shared__ T sdata[REDUCE_THREADS] instead of SharedMemory<T>; host main re-launches on the partial sums until one value is left
// launch: grid cdiv(n, 256) block 256
// sizes: n=4093
// template: float
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define REDUCE_THREADS 256

/*
    This version uses contiguous threads, but its interleaved
    addressing results in many shared memory bank conflicts.
*/
template <class T>
__global__ void reduce1(T *g_idata, T *g_odata, unsigned int n) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  __shared__ T sdata[REDUCE_THREADS];

  // load shared mem
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  sdata[tid] = (i < n) ? g_idata[i] : 0;

  cg::sync(cta);

  // do reduction in shared mem
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;

    if (index < blockDim.x) {
      sdata[index] += sdata[index + s];
    }

    cg::sync(cta);
  }

  // write result for this block to global mem
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template <class T>
T benchmarkReduce(unsigned int n, T *d_idata, T *d_odata) {
  unsigned int s = n;
  T *in = d_idata, *out = d_odata;
  while (s > 1) {
    unsigned int blocks = (s + REDUCE_THREADS - 1) / REDUCE_THREADS;
    reduce1<T><<<blocks, REDUCE_THREADS>>>(in, out, s);
    T *tmp = in; in = out; out = tmp;
    s = blocks;
  }
  T gpu_result;
  cudaMemcpy(&gpu_result, in, sizeof(T), cudaMemcpyDeviceToHost);
  return gpu_result;
}

int main(int argc, char **argv) {
  unsigned int size = 4093;
  unsigned int bytes = size * sizeof(int);
  int *h_idata = (int *)malloc(bytes);
  for (unsigned int i = 0; i < size; i++) {
    // Keep the numbers small so we don't get truncation error in the sum
    h_idata[i] = (int)(rand() & 0xFF);
  }

  int *d_idata = NULL, *d_odata = NULL;
  unsigned int maxBlocks = (size + REDUCE_THREADS - 1) / REDUCE_THREADS;
  cudaMalloc((void **)&d_idata, bytes);
  cudaMalloc((void **)&d_odata, (maxBlocks > size ? maxBlocks : size) * sizeof(int));
  cudaMemcpy(d_idata, h_idata, bytes, cudaMemcpyHostToDevice);

  int gpu_result = benchmarkReduce<int>(size, d_idata, d_odata);

  int cpu_result = 0;
  for (unsigned int i = 0; i < size; i++) cpu_result += h_idata[i];

  printf("GPU result = %d\nCPU result = %d\n", gpu_result, cpu_result);
  printf("%s\n", gpu_result == cpu_result ? "PASS" : "FAIL");

  cudaFree(d_idata);
  cudaFree(d_odata);
  free(h_idata);
  return gpu_result != cpu_result;
}
