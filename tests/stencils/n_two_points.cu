// negative: the first store writes another point than the second (a neighbour), so the paths do not store one point
__global__ void two_points(const float* u, float* un, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1) return;
    if (j == 1) { un[i * n + j - 1] = u[i * n + j - 1]; return; }
    un[i * n + j] = 0.25f * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}
