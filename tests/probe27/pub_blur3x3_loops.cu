// launch: grid cdiv(w, 16), cdiv(h, 16) block 16, 16
// sizes: w=640 h=480
// expect: stencil-tile
// a 3x3 box blur with loops over the window, the edges skipped by bounds checks on each neighbour
__global__ void box_blur(const unsigned char* in, unsigned char* out, int w, int h) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < w && row < h) {
        int sum = 0, n = 0;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                int r = row + dy, c = col + dx;
                if (r >= 0 && r < h && c >= 0 && c < w) { sum += in[r * w + c]; ++n; }
            }
        }
        out[row * w + col] = (unsigned char)(sum / n);
    }
}
