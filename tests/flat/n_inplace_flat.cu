// Gauss-Seidel-like sweep in place over a flat index: neighbours may already be updated
__global__ void relax(float* u, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int i = idx / n, j = idx % n;
    if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1) return;
    u[idx] = 0.25f * (u[idx - 1] + u[idx + 1] + u[idx - n] + u[idx + n]);
}
