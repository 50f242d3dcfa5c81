// style: hobby Llama-inference port, O = P V with head from blockIdx.y and batch from blockIdx.z, V and O in (B, T, NH, HS) token-major layout, flat (t, d) in x, host main
// launch: grid cdiv(T * HS, 128), NH, B block 128
// sizes: B=2 NH=3 T=67 HS=40
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_OK(x) do { cudaError_t err = (x); if (err != cudaSuccess) { \
    std::printf("cuda error %s at %d\n", cudaGetErrorString(err), __LINE__); return 1; } } while (0)

// att: (B, NH, T, T) softmaxed probabilities
// v:   (B, T, NH, HS)
// out: (B, T, NH, HS)
__global__ void attn_weighted_sum(float* out, const float* att, const float* v,
                                  int B, int NH, int T, int HS) {
  const int h = blockIdx.y;
  const int b = blockIdx.z;
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= B || h >= NH || e >= T * HS) return;
  const int t = e / HS;
  const int d = e - t * HS;

  const float* a = att + (((size_t)b * NH + h) * T + t) * T;
  const size_t vstride = (size_t)NH * HS;      // step between tokens
  const float* vb = v + (size_t)b * T * vstride + (size_t)h * HS + d;
  float acc = 0.0f;
  for (int t2 = 0; t2 < T; ++t2) acc += a[t2] * vb[t2 * vstride];
  out[((size_t)b * T + t) * vstride + (size_t)h * HS + d] = acc;
}

int main() {
  const int B = 2, NH = 3, T = 67, HS = 40;
  std::vector<float> hatt((size_t)B * NH * T * T, 1.0f / T), hv((size_t)B * T * NH * HS, 0.5f);
  std::vector<float> hout((size_t)B * T * NH * HS);
  float *datt, *dv, *dout;
  CUDA_OK(cudaMalloc(&datt, hatt.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&dv, hv.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&dout, hout.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(datt, hatt.data(), hatt.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dv, hv.data(), hv.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 grid((T * HS + 127) / 128, NH, B);
  attn_weighted_sum<<<grid, 128>>>(dout, datt, dv, B, NH, T, HS);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(hout.data(), dout, hout.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("out[0]=%f (expect 0.5)\n", hout[0]);
  cudaFree(datt); cudaFree(dv); cudaFree(dout);
  return 0;
}
