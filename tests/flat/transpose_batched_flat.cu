// a batch of R x C matrices transposed, the batch, row and column all digits of one index
__global__ void batched_transpose(const float* in, float* out, int batch, int R, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * R * C) return;
    int b = idx / (R * C);
    int r = (idx / C) % R;
    int c = idx % C;
    out[b * R * C + c * R + r] = in[idx];
}
