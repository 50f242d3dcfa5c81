// style: transformer head split (B,T,NH,HS) -> (B,NH,T,HS) in __half, 3-D grid (x=d, y=t, z=b*NH+h) with host launcher
// launch: grid cdiv(HS, 32), T, B*NH block 32
// sizes: B=2 T=37 NH=6 HS=17
// expect: transpose-tile|gather
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void split_heads_0213(const __half *in, __half *out, int B, int T, int NH, int HS)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y;
    int bh = blockIdx.z;
    if (d >= HS) return;
    int b = bh / NH;
    int h = bh % NH;
    // out[b][h][t][d] = in[b][t][h][d]
    out[((b * NH + h) * T + t) * HS + d] = in[((b * T + t) * NH + h) * HS + d];
}

void split_heads(const __half *h_in, __half *h_out, int B, int T, int NH, int HS)
{
    size_t bytes = (size_t)B * T * NH * HS * sizeof(__half);
    __half *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);

    dim3 block(32);
    dim3 grid((HS + 31) / 32, T, B * NH);
    split_heads_0213<<<grid, block>>>(d_in, d_out, B, T, NH, HS);

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}
