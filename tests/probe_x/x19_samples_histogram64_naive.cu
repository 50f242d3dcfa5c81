// style: CUDA samples histogram64 spelling - uint/uchar typedefs, UMUL/UMAD __umul24 macros, d_Data read as packed uints (dataCount counts uints, four byte samples each), bins picked with (data >> 2) & 0x3FU shifts, grid-stride loop with one global atomicAdd per byte straight into d_Histogram; host main with histogram64CPU reference
// launch: grid cdiv(dataCount, 192) block 192
// sizes: dataCount=3999
// expect: private-bins
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

typedef unsigned int uint;
typedef unsigned char uchar;

#define HISTOGRAM64_BIN_COUNT 64
#define HISTOGRAM64_THREADBLOCK_SIZE 192

// Fast mul on G8x / G9x / G100
#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

////////////////////////////////////////////////////////////////////////////////
// Naive GPU histogram: every byte goes straight to a global-memory bin
////////////////////////////////////////////////////////////////////////////////
__global__ void histogram64Naive(uint *d_Histogram, uint *d_Data, uint dataCount)
{
    for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount;
         pos += UMUL(blockDim.x, gridDim.x))
    {
        uint data4 = d_Data[pos];
        atomicAdd(d_Histogram + ((data4 >>  2) & 0x3FU), 1U);
        atomicAdd(d_Histogram + ((data4 >> 10) & 0x3FU), 1U);
        atomicAdd(d_Histogram + ((data4 >> 18) & 0x3FU), 1U);
        atomicAdd(d_Histogram + ((data4 >> 26) & 0x3FU), 1U);
    }
}

extern "C" void histogram64CPU(uint *h_Histogram, void *h_Data, uint byteCount)
{
    for (uint i = 0; i < HISTOGRAM64_BIN_COUNT; i++)
        h_Histogram[i] = 0;

    for (uint i = 0; i < byteCount; i++)
    {
        uint data = ((uchar *)h_Data)[i];
        h_Histogram[(data >> 2) & 0x3FU]++;
    }
}

int main(int argc, char **argv)
{
    uint dataCount = 3999;                 // in uints
    uint byteCount = dataCount * 4;
    uchar *h_Data = (uchar *)malloc(byteCount);
    uint h_HistogramCPU[HISTOGRAM64_BIN_COUNT];
    uint h_HistogramGPU[HISTOGRAM64_BIN_COUNT];

    srand(2009);
    for (uint i = 0; i < byteCount; i++)
        h_Data[i] = rand() % 256;

    uint *d_Data, *d_Histogram;
    cudaMalloc((void **)&d_Data, byteCount);
    cudaMalloc((void **)&d_Histogram, HISTOGRAM64_BIN_COUNT * sizeof(uint));
    cudaMemcpy(d_Data, h_Data, byteCount, cudaMemcpyHostToDevice);
    cudaMemset(d_Histogram, 0, HISTOGRAM64_BIN_COUNT * sizeof(uint));

    uint blocks = (dataCount + HISTOGRAM64_THREADBLOCK_SIZE - 1) / HISTOGRAM64_THREADBLOCK_SIZE;
    histogram64Naive<<<blocks, HISTOGRAM64_THREADBLOCK_SIZE>>>(d_Histogram, d_Data, dataCount);
    cudaMemcpy(h_HistogramGPU, d_Histogram, HISTOGRAM64_BIN_COUNT * sizeof(uint), cudaMemcpyDeviceToHost);

    histogram64CPU(h_HistogramCPU, h_Data, byteCount);

    int PassFailFlag = 1;
    for (uint i = 0; i < HISTOGRAM64_BIN_COUNT; i++)
        if (h_HistogramGPU[i] != h_HistogramCPU[i])
            PassFailFlag = 0;
    printf(PassFailFlag ? " ...64-bin histograms match\n\n" : " ***64-bin histograms do not match!!!***\n\n");

    cudaFree(d_Histogram);
    cudaFree(d_Data);
    free(h_Data);
    return !PassFailFlag;
}
