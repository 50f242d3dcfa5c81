// launch: grid cdiv(width, 32), cdiv(height, 8) block 32, 8
// sizes: width=777 height=555 r=2
// expect: stencil-tile
// PMPP ch. 7: 2-D convolution with the filter in constant memory, ghost cells as zeros
#define FILTER_RADIUS 2
__constant__ float F_c[2*FILTER_RADIUS+1][2*FILTER_RADIUS+1];

__global__ void convolution_2D_const_mem_kernel(float *N, float *P, int r, int width, int height)
{
    int outCol = blockIdx.x*blockDim.x + threadIdx.x;
    int outRow = blockIdx.y*blockDim.y + threadIdx.y;
    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < 2*FILTER_RADIUS+1; fRow++) {
        for (int fCol = 0; fCol < 2*FILTER_RADIUS+1; fCol++) {
            int inRow = outRow - FILTER_RADIUS + fRow;
            int inCol = outCol - FILTER_RADIUS + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F_c[fRow][fCol]*N[inRow*width + inCol];
            }
        }
    }
    if (outRow < height && outCol < width)
        P[outRow*width + outCol] = Pvalue;
}
