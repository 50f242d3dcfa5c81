// launch: grid cdiv(batch*R*C, 256) block 256
// sizes: batch=8 R=300 C=250
// expect: transpose-tile
// 3-D permute (0,2,1) out[b][c][r] = in[b][r][c], flat thread index split with / and % over the output (PyTorch-style permute/contiguous reference kernel)
__global__ void permute_021_kernel(const float* __restrict__ in, float* __restrict__ out,
                                   int batch, int R, int C)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batch * R * C;
    if (tid >= total) return;

    // tid enumerates out in (b, c, r) order
    int r = tid % R;
    int c = (tid / R) % C;
    int b = tid / (R * C);

    out[tid] = in[(b * R + r) * C + c];
}
