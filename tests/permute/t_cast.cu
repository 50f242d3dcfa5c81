// a transpose that converts: double in, float out
__global__ void transpose_cast(float* out, const double* in, int R, int C) {
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * blockDim.x + tx;
    int y = blockIdx.y * blockDim.y + ty;
    if (x < C && y < R) out[x * R + y] = (float)in[y * C + x];
}
