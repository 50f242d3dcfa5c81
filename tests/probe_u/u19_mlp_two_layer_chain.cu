// style: "tiny MLP in raw CUDA" tutorial: a chain of two linear layers (fc1 with tanh-GELU into a hidden buffer, then fc2 reading that temporary), PyTorch (out_features, in_features) weights, row-pointer dot products with bias, host main running both kernels
// kernel: fc2_forward
// launch: grid cdiv(D, 16), cdiv(N, 16) block 16, 16
// sizes: N=75 H=123 D=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define GELU_SCALE 0.7978845608028654f   // sqrt(2/pi)

// hidden[n][h] = gelu( x[n] . W1[h] + b1[h] ),  x: N x D, W1: H x D
__global__ void fc1_gelu_forward(const float *x, const float *W1, const float *b1,
                                 float *hidden, int N, int D, int H)
{
    int h = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (n < N && h < H) {
        const float *xr = x + n * D;
        const float *wr = W1 + h * D;
        float acc = b1[h];
        for (int i = 0; i < D; ++i) acc += xr[i] * wr[i];
        float cube = 0.044715f * acc * acc * acc;
        hidden[n * H + h] = 0.5f * acc * (1.0f + tanhf(GELU_SCALE * (acc + cube)));
    }
}

// y[n][d] = hidden[n] . W2[d] + b2[d],  hidden: N x H, W2: D x H
__global__ void fc2_forward(const float *hidden, const float *W2, const float *b2,
                            float *y, int N, int H, int D)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (n < N && d < D) {
        const float *hr = hidden + n * H;
        const float *wr = W2 + d * H;
        float acc = b2[d];
        for (int i = 0; i < H; ++i) acc += hr[i] * wr[i];
        y[n * D + d] = acc;
    }
}

static void fill(float *p, int n, float s)
{
    for (int i = 0; i < n; ++i) p[i] = s * ((float)rand() / RAND_MAX - 0.5f);
}

int main()
{
    const int N = 75, D = 45, H = 123;
    float *x = new float[N * D], *W1 = new float[H * D], *b1 = new float[H];
    float *W2 = new float[D * H], *b2 = new float[D], *y = new float[N * D];
    fill(x, N * D, 2.0f); fill(W1, H * D, 0.3f); fill(b1, H, 0.1f);
    fill(W2, D * H, 0.3f); fill(b2, D, 0.1f);

    float *dx, *dW1, *db1, *dh, *dW2, *db2, *dy;
    cudaMalloc(&dx, N * D * sizeof(float));
    cudaMalloc(&dW1, H * D * sizeof(float));
    cudaMalloc(&db1, H * sizeof(float));
    cudaMalloc(&dh, N * H * sizeof(float));
    cudaMalloc(&dW2, D * H * sizeof(float));
    cudaMalloc(&db2, D * sizeof(float));
    cudaMalloc(&dy, N * D * sizeof(float));
    cudaMemcpy(dx, x, N * D * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dW1, W1, H * D * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db1, b1, H * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dW2, W2, D * H * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db2, b2, D * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid1((H + 15) / 16, (N + 15) / 16);
    fc1_gelu_forward<<<grid1, block>>>(dx, dW1, db1, dh, N, D, H);
    dim3 grid2((D + 15) / 16, (N + 15) / 16);
    fc2_forward<<<grid2, block>>>(dh, dW2, db2, dy, N, H, D);
    cudaMemcpy(y, dy, N * D * sizeof(float), cudaMemcpyDeviceToHost);

    double checksum = 0.0;
    for (int i = 0; i < N * D; ++i) checksum += y[i];
    printf("checksum: %f\n", checksum);

    cudaFree(dx); cudaFree(dW1); cudaFree(db1); cudaFree(dh);
    cudaFree(dW2); cudaFree(db2); cudaFree(dy);
    delete[] x; delete[] W1; delete[] b1; delete[] W2; delete[] b2; delete[] y;
    return 0;
}
