// style: "CUDA by Example" dot product in double precision; tid reassigned in a grid-stride while loop, cache[threadsPerBlock] reduced with `int i = blockDim.x/2; while (i != 0) { ...; i /= 2; }`, block result added with a double atomicAdd instead of a CPU finish, host main
// launch: grid cdiv(n, 256) block 256
// sizes: n=3001
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

const int threadsPerBlock = 256;

__global__ void dot(const double *a, const double *b, double *c, int n)
{
    __shared__ double cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    double temp = 0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[cacheIndex] = temp;
    __syncthreads();

    int i = blockDim.x / 2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        atomicAdd(c, cache[0]);
}

int main(void)
{
    int n = 3001;
    int blocksPerGrid = (n + threadsPerBlock - 1) / threadsPerBlock;
    double *a = (double *)malloc(n * sizeof(double));
    double *b = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { a[i] = i; b[i] = i * 2; }

    double *dev_a, *dev_b, *dev_c, c = 0;
    cudaMalloc((void **)&dev_a, n * sizeof(double));
    cudaMalloc((void **)&dev_b, n * sizeof(double));
    cudaMalloc((void **)&dev_c, sizeof(double));
    cudaMemcpy(dev_a, a, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dev_b, b, n * sizeof(double), cudaMemcpyHostToDevice);
    cudaMemcpy(dev_c, &c, sizeof(double), cudaMemcpyHostToDevice);

    dot<<<blocksPerGrid, threadsPerBlock>>>(dev_a, dev_b, dev_c, n);
    cudaMemcpy(&c, dev_c, sizeof(double), cudaMemcpyDeviceToHost);

#define sum_squares(x) (x * (x + 1) * (2 * x + 1) / 6)
    printf("GPU value %.6g = %.6g ?\n", c, 2 * sum_squares((double)(n - 1)));

    cudaFree(dev_a); cudaFree(dev_b); cudaFree(dev_c);
    free(a); free(b);
    return 0;
}
