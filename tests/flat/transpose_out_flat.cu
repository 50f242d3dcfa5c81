// naive transpose with one thread per output element: the input read down its columns
__global__ void transpose_naive(float *odata, const float *idata, int width, int height) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // over odata: width rows of height
    if (i < width * height) {
        int r = i / height;
        int c = i % height;
        odata[i] = idata[c * width + r];
    }
}
