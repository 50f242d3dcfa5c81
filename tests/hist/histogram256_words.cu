// the CUDA sample's 256-bin histogram, without its per-warp sub-histograms: four bytes per 32-bit word
typedef unsigned int uint;
#define HISTOGRAM256_BIN_COUNT 256
#define UMUL(a, b) __umul24((a), (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

__global__ void histogram256Kernel(uint *d_Histogram, uint *d_Data, uint dataCount)
{
    for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount; pos += UMUL(blockDim.x, gridDim.x)) {
        uint data = d_Data[pos];
        atomicAdd(d_Histogram + ((data >> 0) & 0xFFU), 1);
        atomicAdd(d_Histogram + ((data >> 8) & 0xFFU), 1);
        atomicAdd(d_Histogram + ((data >> 16) & 0xFFU), 1);
        atomicAdd(d_Histogram + ((data >> 24) & 0xFFU), 1);
    }
}
