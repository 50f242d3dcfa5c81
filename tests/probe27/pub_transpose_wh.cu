// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=500 height=300
// expect: transpose-tile
// the naive transpose with width and height, the x index first in the sum
__global__ void transposeNaive(float* out, const float* in, const int width, const int height) {
    unsigned int xIndex = threadIdx.x + blockDim.x * blockIdx.x;
    unsigned int yIndex = threadIdx.y + blockDim.y * blockIdx.y;
    if (xIndex < width && yIndex < height) {
        unsigned int index_in = xIndex + width * yIndex;
        unsigned int index_out = yIndex + height * xIndex;
        out[index_out] = in[index_in];
    }
}
