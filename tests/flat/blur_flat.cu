// box blur with loops over the taps, the pixel's row and column from one global id
#define RADIUS 1
__global__ void box_blur(float* out, const float* in, int w, int h) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int col = gid % w, row = gid / w;
    if (row < RADIUS || row >= h - RADIUS || col < RADIUS || col >= w - RADIUS) return;
    float acc = 0.0f;
    for (int dy = -RADIUS; dy <= RADIUS; ++dy)
        for (int dx = -RADIUS; dx <= RADIUS; ++dx)
            acc += in[(row + dy) * w + col + dx];
    out[row * w + col] = acc / ((2 * RADIUS + 1) * (2 * RADIUS + 1));
}
