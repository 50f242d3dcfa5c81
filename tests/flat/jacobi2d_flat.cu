// Jacobi 2-D step, one thread per grid point over a flat index (PolyBench-GPU style), no bound on tid
__global__ void jacobi2d_step(const float* A, float* B, int n) {
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int i = tid / n;
    int j = tid % n;
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
