// once a negative: the neighbours are clamped at the edges through ?: and min, so their indices are chosen at
// run time; passes.clamped_neighbours reads each as a choice between two fixed loads, and the tile applies
__global__ void clamped(const float* in, float* out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int w = x == 0 ? x : x - 1, e = min(x + 1, n - 1);
    int up = max(y - 1, 0), dn = y == n - 1 ? y : y + 1;
    out[y * n + x] = 0.2f * (in[y * n + w] + in[y * n + e] + in[up * n + x] + in[dn * n + x] + in[y * n + x]);
}
