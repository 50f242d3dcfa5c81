// style: PolyBench/GPU 2mm first kernel (tmp = alpha * A * B) with compile-time sizes and 2-D array-style access macros A(i,j), accumulating in global memory
// launch: grid cdiv(141, 32), cdiv(187, 8) block 32, 8
// sizes: alpha=1.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

/* Problem size */
#define NI 187
#define NJ 141
#define NK 223

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

#define A(i, j)   A[(i) * NK + (j)]
#define B(i, j)   B[(i) * NJ + (j)]
#define TMP(i, j) tmp[(i) * NJ + (j)]

__global__ void mm2_kernel1(const DATA_TYPE *A, const DATA_TYPE *B, DATA_TYPE *tmp,
                            DATA_TYPE alpha)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if ((i < NI) && (j < NJ)) {
        int k;
        TMP(i, j) = 0;
        for (k = 0; k < NK; k++) {
            TMP(i, j) += alpha * A(i, k) * B(k, j);
        }
    }
}

void init_array(DATA_TYPE *A, DATA_TYPE *B)
{
    int i, j;
    for (i = 0; i < NI; i++)
        for (j = 0; j < NK; j++)
            A(i, j) = ((DATA_TYPE)i * j) / NI;
    for (i = 0; i < NK; i++)
        for (j = 0; j < NJ; j++)
            B(i, j) = ((DATA_TYPE)i * (j + 1)) / NJ;
}

int main(int argc, char **argv)
{
    DATA_TYPE alpha = 1.5f;
    DATA_TYPE *A = (DATA_TYPE *)malloc(NI * NK * sizeof(DATA_TYPE));
    DATA_TYPE *B = (DATA_TYPE *)malloc(NK * NJ * sizeof(DATA_TYPE));
    DATA_TYPE *tmp = (DATA_TYPE *)malloc(NI * NJ * sizeof(DATA_TYPE));
    init_array(A, B);

    DATA_TYPE *A_gpu, *B_gpu, *tmp_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * NI * NK);
    cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * NK * NJ);
    cudaMalloc((void **)&tmp_gpu, sizeof(DATA_TYPE) * NI * NJ);
    cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * NI * NK, cudaMemcpyHostToDevice);
    cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * NK * NJ, cudaMemcpyHostToDevice);

    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid1((size_t)ceil(((float)NJ) / ((float)block.x)), (size_t)ceil(((float)NI) / ((float)block.y)));
    mm2_kernel1<<<grid1, block>>>(A_gpu, B_gpu, tmp_gpu, alpha);
    cudaDeviceSynchronize();
    cudaMemcpy(tmp, tmp_gpu, sizeof(DATA_TYPE) * NI * NJ, cudaMemcpyDeviceToHost);

    printf("tmp[NI-1][NJ-1] = %f\n", TMP(NI - 1, NJ - 1));

    cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(tmp_gpu);
    free(A); free(B); free(tmp);
    return 0;
}
