// the read strided, the write contiguous: out (rows x cols) from in (cols x rows)
__global__ void gather_t(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= rows || j >= cols) return;
    out[i * cols + j] = in[j * rows + i];
}
