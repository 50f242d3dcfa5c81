// A 1-D convolution, "valid" mode: the output is shorter than the input by the filter's width less one.
// The filter's width bounds a loop, so its sizes stay below the input's.
// expect: input [input_size] in; kernel [kernel_size] in; output [input_size - kernel_size + 1] out
__global__ void convolution_1d_kernel(const float* input, const float* kernel, float* output, int input_size,
                                      int kernel_size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int output_size = input_size - kernel_size + 1;
  if (i < output_size) {
    float s = 0;
    for (int j = 0; j < kernel_size; j++) s += input[i + j] * kernel[j];
    output[i] = s;
  }
}
