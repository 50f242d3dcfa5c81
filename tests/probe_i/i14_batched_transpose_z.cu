// style: batched matrix transpose (e.g. attention head reshuffle), batch index from blockIdx.z, each matrix M x N row-major -> N x M
// launch: grid cdiv(N, 32), cdiv(M, 8), batch block 32, 8
// sizes: batch=5 M=123 N=77
// expect: transpose-tile
__global__ void batched_transpose(const float* __restrict__ in, float* __restrict__ out,
                                  int batch, int M, int N)
{
    int b = blockIdx.z;
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // 0..N-1
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // 0..M-1
    if (b >= batch || row >= M || col >= N) return;

    const float* src = in + (size_t)b * M * N;
    float* dst = out + (size_t)b * M * N;
    dst[col * M + row] = src[row * N + col];
}
