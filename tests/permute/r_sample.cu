// CUDA samples' transpose, naive: the loop steps by blockDim.y, bounds checked in the loop
#define BLOCK_DIM 16
__global__ void transposeNaiveBounds(float *odata, float *idata, int width, int height)
{
    int xIndex = blockIdx.x * BLOCK_DIM + threadIdx.x;
    int yIndex = blockIdx.y * BLOCK_DIM + threadIdx.y;
    int index_in  = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    for (int i = 0; i < BLOCK_DIM; i += blockDim.y) {
        if (xIndex < width && yIndex + i < height)
            odata[index_out + i] = idata[index_in + i * width];
    }
}
