// style: hobby "MLP in raw CUDA" forward layer y = relu(x W^T + b) with PyTorch weight layout W[out][in], batch row on blockIdx.y, output feature on x, bias added after the dot-product loop then fmaxf(., 0.f), launch wrapper + main
// launch: grid cdiv(out_dim, 32), cdiv(n_batch, 4) block 32, 4
// sizes: n_batch=37 in_dim=129 out_dim=67
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_OK(x) do { cudaError_t st = (x); if (st != cudaSuccess) { \
    printf("cuda error %s at %s:%d\n", cudaGetErrorString(st), __FILE__, __LINE__); return; } } while (0)

__global__ void linear_relu_forward(const float *__restrict__ input,   // [n_batch, in_dim]
                                    const float *__restrict__ weight,  // [out_dim, in_dim]
                                    const float *__restrict__ bias,    // [out_dim]
                                    float *__restrict__ output,        // [n_batch, out_dim]
                                    int n_batch, int in_dim, int out_dim)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (n >= n_batch || o >= out_dim) return;

    const float *x_row = input + (size_t)n * in_dim;
    const float *w_row = weight + (size_t)o * in_dim;

    float z = 0.0f;
    for (int i = 0; i < in_dim; ++i)
        z += x_row[i] * w_row[i];
    z += bias[o];

    output[(size_t)n * out_dim + o] = fmaxf(z, 0.0f);
}

void linear_relu(const float *d_in, const float *d_w, const float *d_b, float *d_out,
                 int n_batch, int in_dim, int out_dim)
{
    dim3 block(32, 4);
    dim3 grid((out_dim + block.x - 1) / block.x, (n_batch + block.y - 1) / block.y);
    linear_relu_forward<<<grid, block>>>(d_in, d_w, d_b, d_out, n_batch, in_dim, out_dim);
    CUDA_OK(cudaGetLastError());
}

int main()
{
    const int n_batch = 37, in_dim = 129, out_dim = 67;
    std::vector<float> x(n_batch * in_dim), w(out_dim * in_dim), b(out_dim), y(n_batch * out_dim);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.02f * (float)((int)(i % 50) - 25);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * (float)((int)(i % 31) - 15);
    for (size_t i = 0; i < b.size(); ++i) b[i] = 0.1f * (float)((int)(i % 7) - 3);

    float *d_x, *d_w, *d_b, *d_y;
    cudaMalloc(&d_x, x.size() * sizeof(float));
    cudaMalloc(&d_w, w.size() * sizeof(float));
    cudaMalloc(&d_b, b.size() * sizeof(float));
    cudaMalloc(&d_y, y.size() * sizeof(float));
    cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);

    linear_relu(d_x, d_w, d_b, d_y, n_batch, in_dim, out_dim);
    cudaMemcpy(y.data(), d_y, y.size() * sizeof(float), cudaMemcpyDeviceToHost);

    int positives = 0;
    for (float v : y) positives += (v > 0.0f);
    printf("%d / %zu activations are positive\n", positives, y.size());

    cudaFree(d_x); cudaFree(d_w); cudaFree(d_b); cudaFree(d_y);
    return 0;
}
