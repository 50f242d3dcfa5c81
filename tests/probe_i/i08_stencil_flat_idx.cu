// style: blog-post "simple smoothing stencil"; linear index computed once as idx = row*W + col, neighbours addressed as idx-1, idx+1, idx-W, idx+W; edges copied through
// launch: grid cdiv(W, 16), cdiv(H, 16) block 16, 16
// sizes: W=243 H=167
// expect: stencil-tile
__global__ void smooth5(const float *src, float *dst, int W, int H)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= H || col >= W) return;

    int idx = row*W + col;
    if (row == 0 || col == 0 || row == H - 1 || col == W - 1) {
        dst[idx] = src[idx];
        return;
    }
    dst[idx] = 0.2f * (src[idx] + src[idx-1] + src[idx+1] + src[idx-W] + src[idx+W]);
}
