// style: CUDA samples threadFenceReduction (single-pass sum) - each block reduces blockSize*2-strided loads (while loop with the second load bounds-checked, index i reassigned), sequential-addressing tree that keeps mySum in a register, block partial to g_odata[blockIdx.x], then thread 0 does __threadfence() and atomicInc on a __device__ retirementCount; the block that draws the last ticket (__shared__ bool amLast) re-reduces the partials and writes g_odata[0], resetting the counter; host main with CPU check
// launch: grid cdiv(n, 512) block 256
// sizes: n=4093
// expect: block-tree|block-atomic|warp-atomic
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Global variable used by reduceSinglePass to count how many blocks have finished
__device__ unsigned int retirementCount = 0;

__device__ void reduceBlock(float *sdata, float mySum, const unsigned int tid)
{
    sdata[tid] = mySum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = mySum = mySum + sdata[tid + s];
        }
        __syncthreads();
    }
}

__global__ void reduceSinglePass(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[BLOCK_SIZE];
    __shared__ bool amLast;

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (BLOCK_SIZE * 2) + threadIdx.x;
    unsigned int gridSize = BLOCK_SIZE * 2 * gridDim.x;
    float mySum = 0.0f;

    // first level of reduction: each thread sums multiple elements
    while (i < n) {
        mySum += g_idata[i];
        if (i + BLOCK_SIZE < n)
            mySum += g_idata[i + BLOCK_SIZE];
        i += gridSize;
    }

    reduceBlock(sdata, mySum, tid);

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];

    if (gridDim.x > 1) {
        if (tid == 0) {
            // make this block's partial visible before taking a ticket
            __threadfence();
            unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
            amLast = (ticket == gridDim.x - 1);
        }
        __syncthreads();

        // the last block sums the results of all other blocks
        if (amLast) {
            i = tid;
            mySum = 0.0f;
            while (i < gridDim.x) {
                mySum += g_odata[i];
                i += BLOCK_SIZE;
            }
            reduceBlock(sdata, mySum, tid);
            if (tid == 0) {
                g_odata[0] = sdata[0];
                // reset retirement count so that next run succeeds
                retirementCount = 0;
            }
        }
    }
}

int main(int argc, char **argv)
{
    unsigned int n = 4093;
    unsigned int numBlocks = (n + BLOCK_SIZE * 2 - 1) / (BLOCK_SIZE * 2);
    float *h_idata = (float *)malloc(n * sizeof(float));
    double cpu = 0.0;
    for (unsigned int i = 0; i < n; i++) {
        h_idata[i] = (rand() & 0xFF) / (float)RAND_MAX;
        cpu += h_idata[i];
    }

    float *d_idata, *d_odata;
    cudaMalloc((void **)&d_idata, n * sizeof(float));
    cudaMalloc((void **)&d_odata, numBlocks * sizeof(float));
    cudaMemcpy(d_idata, h_idata, n * sizeof(float), cudaMemcpyHostToDevice);

    reduceSinglePass<<<numBlocks, BLOCK_SIZE>>>(d_idata, d_odata, n);

    float gpu = 0.0f;
    cudaMemcpy(&gpu, d_odata, sizeof(float), cudaMemcpyDeviceToHost);
    printf("GPU %f CPU %f %s\n", gpu, cpu, fabs(gpu - cpu) < 1e-4 * fabs(cpu) + 1e-6 ? "PASS" : "FAIL");

    cudaFree(d_idata);
    cudaFree(d_odata);
    free(h_idata);
    return 0;
}
