// double precision, if/else fills with braces, tile loop over a tile count
#define BS 8
__global__ void dgemm_tiles(const double* A, const double* B, double* C, int n) {
    __shared__ double tA[BS][BS + 1];
    __shared__ double tB[BS][BS + 1];
    int r = blockIdx.y * BS + threadIdx.y, q = blockIdx.x * BS + threadIdx.x;
    double sum = 0.0;
    int tiles = (n + BS - 1) / BS;
    for (int p = 0; p < tiles; ++p) {
        if (r < n && p * BS + threadIdx.x < n) {
            tA[threadIdx.y][threadIdx.x] = A[r * n + p * BS + threadIdx.x];
        } else {
            tA[threadIdx.y][threadIdx.x] = 0.0;
        }
        if (q < n && p * BS + threadIdx.y < n) {
            tB[threadIdx.y][threadIdx.x] = B[(p * BS + threadIdx.y) * n + q];
        } else {
            tB[threadIdx.y][threadIdx.x] = 0.0;
        }
        __syncthreads();
        for (int e = 0; e < BS; ++e) sum += tA[threadIdx.y][e] * tB[e][threadIdx.x];
        __syncthreads();
    }
    if (r < n && q < n) C[r * n + q] = sum;
}
