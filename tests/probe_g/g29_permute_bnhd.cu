// style: transformer head split (B, N, H, d) -> (B, H, N, d) as in llm.c permute kernels: flat idx over the output, coordinates recovered with / and %
// launch: grid cdiv(B*N*H*d, 256) block 256
// sizes: B=3 N=129 H=6 d=37
// expect: transpose-tile|gather
// (expect widened after the round: d stays contiguous on both sides, so moving whole rows of d in packed loads, the suite permute4d best, is as right a first step as the tile; the round author flagged it)
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void permute_bnhd_to_bhnd(float* out, const float* inp, int B, int N, int H, int d)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * N * H * d) {
        // idx indexes out[b][h][n][dd]
        int b = idx / (H * N * d);
        int rest = idx % (H * N * d);
        int h = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int dd = rest % d;

        int inp_idx = (b * N * H * d) + (n * H * d) + (h * d) + dd;
        out[idx] = inp[inp_idx];
    }
}

int main()
{
    int B = 3, N = 129, H = 6, d = 37;
    int total = B * N * H * d;
    float *h_in = (float*)malloc(total * sizeof(float));
    float *h_out = (float*)malloc(total * sizeof(float));
    for (int i = 0; i < total; i++) h_in[i] = (float)i;

    float *d_in, *d_out;
    cudaMalloc(&d_in, total * sizeof(float));
    cudaMalloc(&d_out, total * sizeof(float));
    cudaMemcpy(d_in, h_in, total * sizeof(float), cudaMemcpyHostToDevice);

    int block_size = 256;
    int num_blocks = (total + block_size - 1) / block_size;
    permute_bnhd_to_bhnd<<<num_blocks, block_size>>>(d_out, d_in, B, N, H, d);
    cudaMemcpy(h_out, d_out, total * sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[d] = %f (expect %f)\n", h_out[d], h_in[H * d]);

    cudaFree(d_in); cudaFree(d_out);
    free(h_in); free(h_out);
    return 0;
}
