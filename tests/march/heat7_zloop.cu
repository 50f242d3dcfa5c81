// 7-point heat equation, one explicit step: each thread owns an (i, j) column and walks k (textbook style)
#define IDX(i, j, k) ((k) * nx * ny + (j) * nx + (i))

__global__ void heat_step(const float* __restrict__ T, float* __restrict__ Tnew, int nx, int ny, int nz, float r) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
        for (int k = 1; k < nz - 1; k++) {
            Tnew[IDX(i, j, k)] = T[IDX(i, j, k)] + r * (T[IDX(i - 1, j, k)] + T[IDX(i + 1, j, k)]
                                + T[IDX(i, j - 1, k)] + T[IDX(i, j + 1, k)]
                                + T[IDX(i, j, k - 1)] + T[IDX(i, j, k + 1)] - 6.0f * T[IDX(i, j, k)]);
        }
    }
}
