// launch: grid cdiv(N, 16), cdiv(N, 16) block 16, 16
// sizes: N=400 inv_h2=0.5
// expect: stencil-tile
// a 5-point stencil through an index macro
#define IDX(i, j) ((i) * N + (j))
__global__ void laplace5(const double* u, double* lap, int N, double inv_h2) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < N - 1 && j > 0 && j < N - 1)
        lap[IDX(i, j)] = (u[IDX(i - 1, j)] + u[IDX(i + 1, j)] + u[IDX(i, j - 1)] + u[IDX(i, j + 1)] - 4.0 * u[IDX(i, j)]) * inv_h2;
}
