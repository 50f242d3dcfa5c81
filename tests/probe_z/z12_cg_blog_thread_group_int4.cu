// style: NVIDIA Developer Blog "Cooperative Groups: Flexible CUDA Thread Programming" sum_kernel_block - `using namespace cooperative_groups`, generic `thread_group g` passed to a reduce_sum(g, temp, val) helper whose loop halves i = g.size()/2 with g.sync() around a store/load of a register `val`, thread_sum reading the int input as int4 vectors in a grid-stride loop (n/4 vectors, plus the n%4 leftovers the blog ignores), extern __shared__ temp, g.thread_rank() == 0 does atomicAdd(sum, block_sum); blog's host main (nBlocks from n, not n/4)
// launch: grid cdiv(n, 256) block 256 shared 256*4
// sizes: n=4093
// expect: block-tree|block-atomic|warp-atomic
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

using namespace cooperative_groups;

__device__ int reduce_sum(thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();

    // Each iteration halves the number of active threads
    // Each thread adds its partial sum[i] to sum[lane+i]
    for (int i = g.size() / 2; i > 0; i /= 2)
    {
        temp[lane] = val;
        g.sync(); // wait for all threads to store
        if (lane < i) val += temp[lane + i];
        g.sync(); // wait for all threads to load
    }
    return val; // note: only thread 0 will return full sum
}

__device__ int thread_sum(int *input, int n)
{
    int sum = 0;

    for (int i = blockIdx.x * blockDim.x + threadIdx.x;
         i < n / 4;
         i += blockDim.x * gridDim.x)
    {
        int4 in = ((int4 *)input)[i];
        sum += in.x + in.y + in.z + in.w;
    }
    // the n % 4 elements past the last full int4
    int rem = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (rem < n) sum += input[rem];
    return sum;
}

__global__ void sum_kernel_block(int *sum, int *input, int n)
{
    int my_sum = thread_sum(input, n);

    extern __shared__ int temp[];
    auto g = this_thread_block();
    int block_sum = reduce_sum(g, temp, my_sum);

    if (g.thread_rank() == 0) atomicAdd(sum, block_sum);
}

int main()
{
    int n = 4093;
    int *sum, *data;
    cudaMallocManaged(&sum, sizeof(int));
    cudaMallocManaged(&data, n * sizeof(int));
    long long ref = 0;
    for (int i = 0; i < n; i++) { data[i] = (i * 37) % 11 - 5; ref += data[i]; }
    *sum = 0;

    int blockSize = 256;
    int nBlocks = (n + blockSize - 1) / blockSize;
    int sharedBytes = blockSize * sizeof(int);

    sum_kernel_block<<<nBlocks, blockSize, sharedBytes>>>(sum, data, n);
    cudaDeviceSynchronize();

    int result = *sum;
    printf("sum = %d (ref %lld) %s\n", result, ref, result == ref ? "PASS" : "FAIL");
    cudaFree(sum);
    cudaFree(data);
    return result == ref ? 0 : 1;
}
