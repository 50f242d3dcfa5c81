// launch: grid cdiv(input_cols - kernel_cols + 1, 16), cdiv(input_rows - kernel_rows + 1, 16) block 16, 16
// sizes: input_rows=500 input_cols=700 kernel_rows=5 kernel_cols=7
// expect: stencil-tile
// valid 2-D convolution (cross-correlation) with the filter passed as a device array (LeetGPU "2D Convolution" solution style)
#include <cuda_runtime.h>

__global__ void conv2d_kernel(const float* input, const float* kernel, float* output,
                              int input_rows, int input_cols, int kernel_rows, int kernel_cols) {
    int out_rows = input_rows - kernel_rows + 1;
    int out_cols = input_cols - kernel_cols + 1;

    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < out_rows && col < out_cols) {
        float sum = 0.0f;
        for (int m = 0; m < kernel_rows; m++) {
            for (int n = 0; n < kernel_cols; n++) {
                sum += input[(row + m) * input_cols + (col + n)] * kernel[m * kernel_cols + n];
            }
        }
        output[row * out_cols + col] = sum;
    }
}

// input, kernel, output are device pointers
extern "C" void solve(const float* input, const float* kernel, float* output,
                      int input_rows, int input_cols, int kernel_rows, int kernel_cols) {
    int out_rows = input_rows - kernel_rows + 1;
    int out_cols = input_cols - kernel_cols + 1;
    dim3 threadsPerBlock(16, 16);
    dim3 blocksPerGrid((out_cols + threadsPerBlock.x - 1) / threadsPerBlock.x,
                       (out_rows + threadsPerBlock.y - 1) / threadsPerBlock.y);
    conv2d_kernel<<<blocksPerGrid, threadsPerBlock>>>(input, kernel, output,
                                                      input_rows, input_cols, kernel_rows, kernel_cols);
    cudaDeviceSynchronize();
}
