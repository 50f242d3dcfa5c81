// launch: grid cdiv(N, 32), cdiv(M, 8), B block 32, 8
// sizes: B=4 M=100 N=130
// expect: transpose-tile
// swap the last two axes of a (B, M, N) tensor with a 3-D grid
__global__ void permute_0_2_1(const float *x, float *y, int B, int M, int N)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    int m = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (m < M && n < N)
        y[(b * N + n) * M + m] = x[(b * M + m) * N + n];
}
