// style: PyTorch-extension style permute(1, 0, 2) of a contiguous 3-D tensor (D0,D1,D2) -> (D1,D0,D2); 3-D launch, innermost D2 stays contiguous on both sides
// launch: grid cdiv(D2, 32), cdiv(D0, 4), D1 block 32, 4
// sizes: D0=47 D1=39 D2=45
// expect: transpose-tile|gather
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void permute102(const float *x, float *y, int D0, int D1, int D2)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;   // along D2
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // along D0
    int j = blockIdx.z;                               // along D1

    if (k < D2 && i < D0 && j < D1) {
        // x[i][j][k] -> y[j][i][k]
        y[((size_t)j * D0 + i) * D2 + k] = x[((size_t)i * D1 + j) * D2 + k];
    }
}

int main(void)
{
    int D0 = 47, D1 = 39, D2 = 45;
    size_t numel = (size_t)D0 * D1 * D2;
    size_t nbytes = numel * sizeof(float);

    float *hx = (float *)malloc(nbytes), *hy = (float *)malloc(nbytes);
    for (size_t t = 0; t < numel; t++) hx[t] = (float)(t % 4093);

    float *dx, *dy;
    cudaMalloc((void **)&dx, nbytes);
    cudaMalloc((void **)&dy, nbytes);
    cudaMemcpy(dx, hx, nbytes, cudaMemcpyHostToDevice);

    dim3 blk(32, 4);
    dim3 grd((D2 + 31) / 32, (D0 + 3) / 4, D1);
    permute102<<<grd, blk>>>(dx, dy, D0, D1, D2);
    cudaMemcpy(hy, dy, nbytes, cudaMemcpyDeviceToHost);

    long bad = 0;
    for (int i = 0; i < D0; i++)
        for (int j = 0; j < D1; j++)
            for (int k = 0; k < D2; k++)
                if (hy[((size_t)j * D0 + i) * D2 + k] != hx[((size_t)i * D1 + j) * D2 + k]) bad++;
    printf("mismatches = %ld\n", bad);

    cudaFree(dx); cudaFree(dy);
    free(hx); free(hy);
    return 0;
}
