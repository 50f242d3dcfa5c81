// style: PyTorch/Caffe batch-norm training statistics spelling - per-channel mean and biased variance over N*H*W of an NCHW tensor, one thread per channel, nested n / spatial loops over input[(n * C + c) * HW + hw], sum and sum-of-squares kept in float, save_mean/save_var written and running_mean/running_var blended with `momentum` using the unbiased m/(m-1) factor
// launch: grid cdiv(C, 64) block 64
// sizes: N=5 C=19 H=9 W=13 momentum=0.1
// expect: column
#include <cuda_runtime.h>

__global__ void batch_norm_collect_statistics_naive(
    const float* __restrict__ input,
    float* __restrict__ save_mean,
    float* __restrict__ save_var,
    float* __restrict__ running_mean,
    float* __restrict__ running_var,
    int N, int C, int H, int W,
    float momentum)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;

  const int HW = H * W;
  const int m = N * HW;

  float sum = 0.f;
  float sumsq = 0.f;
  for (int n = 0; n < N; ++n) {
    for (int hw = 0; hw < HW; ++hw) {
      float x = input[(n * C + c) * HW + hw];
      sum += x;
      sumsq += x * x;
    }
  }

  float mean = sum / m;
  float var = sumsq / m - mean * mean;
  if (var < 0.f) var = 0.f;

  save_mean[c] = mean;
  save_var[c] = var;

  float unbiased_var = (m > 1) ? var * m / (m - 1) : var;
  running_mean[c] = (1.f - momentum) * running_mean[c] + momentum * mean;
  running_var[c]  = (1.f - momentum) * running_var[c]  + momentum * unbiased_var;
}
