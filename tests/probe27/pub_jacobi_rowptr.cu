// launch: grid cdiv(w, 32), cdiv(h, 8) block 32, 8
// sizes: w=500 h=400
// expect: stencil-tile
// a Jacobi sweep through row pointers above, at and below the thread's row
__global__ void jacobi_rows(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
    int x = threadIdx.x + blockDim.x * blockIdx.x;
    int y = threadIdx.y + blockDim.y * blockIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    const float* up = in + (y - 1) * w;
    const float* mid = in + y * w;
    const float* dn = in + (y + 1) * w;
    out[y * w + x] = 0.25f * (up[x] + dn[x] + mid[x - 1] + mid[x + 1]);
}
