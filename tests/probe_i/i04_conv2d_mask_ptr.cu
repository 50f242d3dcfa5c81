// style: PMPP 4th ed. ch.7 convolution_2D_basic_kernel, filter F passed as a plain pointer, MASK_RADIUS #define, ghost cells skipped by an if
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=197 height=151
// expect: stencil-tile
#define MASK_RADIUS 2
#define MASK_WIDTH (2*MASK_RADIUS + 1)

__global__ void convolution_2D_basic_kernel(float *N, float *F, float *P,
                                            int width, int height)
{
    int outCol = blockIdx.x*blockDim.x + threadIdx.x;
    int outRow = blockIdx.y*blockDim.y + threadIdx.y;
    if (outRow >= height || outCol >= width) return;

    float Pvalue = 0.0f;
    for (int fRow = 0; fRow < MASK_WIDTH; fRow++) {
        for (int fCol = 0; fCol < MASK_WIDTH; fCol++) {
            int inRow = outRow - MASK_RADIUS + fRow;
            int inCol = outCol - MASK_RADIUS + fCol;
            if (inRow >= 0 && inRow < height && inCol >= 0 && inCol < width) {
                Pvalue += F[fRow*MASK_WIDTH + fCol] * N[inRow*width + inCol];
            }
        }
    }
    P[outRow*width + outCol] = Pvalue;
}
