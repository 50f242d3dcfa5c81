// style: hobby char-RNN / "LSTM from scratch in CUDA" cell: gates = x * W_ih^T + h * W_hh^T + b_ih + b_hh in PyTorch nn.LSTM layout (W_ih: 4H x I, W_hh: 4H x H, gate order i, f, g, o), one thread per (batch row, gate unit) with the gate unit on x, two consecutive dot-product loops through row pointers (input part then recurrent part) into one accumulator, epilogue picks sigmoid or tanh by which quarter of the 4H outputs the unit falls in; host main
// kernel: lstm_gates_kernel
// launch: grid cdiv(4*hidden_size, 32), cdiv(batch, 8) block 32, 8
// sizes: batch=37 input_size=45 hidden_size=19
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                     \
  {                                                                          \
    const cudaError_t error = call;                                          \
    if (error != cudaSuccess) {                                              \
      printf("Error: %s:%d, %s\n", __FILE__, __LINE__,                       \
             cudaGetErrorString(error));                                     \
      exit(1);                                                               \
    }                                                                        \
  }

__device__ __forceinline__ float sigmoidf_(float x) { return 1.0f / (1.0f + expf(-x)); }

// act_gates[b][g] for g in [0, 4H): i = sigma, f = sigma, g = tanh, o = sigma
__global__ void lstm_gates_kernel(const float* x, const float* h_prev,
                                  const float* w_ih, const float* w_hh,
                                  const float* b_ih, const float* b_hh,
                                  float* act_gates,
                                  int batch, int input_size, int hidden_size) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;      // gate unit, 0 .. 4H-1
  int b = blockIdx.y * blockDim.y + threadIdx.y;      // batch row
  int G = 4 * hidden_size;
  if (b >= batch || g >= G) return;

  const float* xr = x + b * input_size;
  const float* hr = h_prev + b * hidden_size;
  const float* wi = w_ih + g * input_size;
  const float* wh = w_hh + g * hidden_size;

  float acc = b_ih[g] + b_hh[g];
  for (int k = 0; k < input_size; k++) acc += xr[k] * wi[k];
  for (int k = 0; k < hidden_size; k++) acc += hr[k] * wh[k];

  int chunk = g / hidden_size;                        // 0:i 1:f 2:g 3:o
  act_gates[b * G + g] = (chunk == 2) ? tanhf(acc) : sigmoidf_(acc);
}

// c' = f*c + i*g ; h' = o*tanh(c')
__global__ void lstm_pointwise_kernel(const float* act_gates, const float* c_prev, float* c_next,
                                      float* h_next, int batch, int hidden_size) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (b >= batch || u >= hidden_size) return;
  const float* gr = act_gates + b * 4 * hidden_size;
  float ig = gr[u], fg = gr[hidden_size + u], gg = gr[2 * hidden_size + u], og = gr[3 * hidden_size + u];
  float c = fg * c_prev[b * hidden_size + u] + ig * gg;
  c_next[b * hidden_size + u] = c;
  h_next[b * hidden_size + u] = og * tanhf(c);
}

static float frand(unsigned& s) { s = s * 1664525u + 1013904223u; return ((s >> 8) & 0xffff) / 65535.0f - 0.5f; }

int main() {
  const int batch = 37, input_size = 45, hidden_size = 19, G = 4 * hidden_size;
  unsigned seed = 42;
  float *x = (float*)malloc(sizeof(float) * batch * input_size);
  float *h = (float*)malloc(sizeof(float) * batch * hidden_size);
  float *c = (float*)malloc(sizeof(float) * batch * hidden_size);
  float *wih = (float*)malloc(sizeof(float) * G * input_size);
  float *whh = (float*)malloc(sizeof(float) * G * hidden_size);
  float *bih = (float*)malloc(sizeof(float) * G);
  float *bhh = (float*)malloc(sizeof(float) * G);
  float *gates = (float*)malloc(sizeof(float) * batch * G);
  for (int i = 0; i < batch * input_size; i++) x[i] = frand(seed);
  for (int i = 0; i < batch * hidden_size; i++) { h[i] = frand(seed); c[i] = frand(seed); }
  for (int i = 0; i < G * input_size; i++) wih[i] = 0.3f * frand(seed);
  for (int i = 0; i < G * hidden_size; i++) whh[i] = 0.3f * frand(seed);
  for (int i = 0; i < G; i++) { bih[i] = 0.1f * frand(seed); bhh[i] = 0.1f * frand(seed); }

  float *d_x, *d_h, *d_c, *d_wih, *d_whh, *d_bih, *d_bhh, *d_gates, *d_cn, *d_hn;
  CHECK_CUDA(cudaMalloc(&d_x, sizeof(float) * batch * input_size));
  CHECK_CUDA(cudaMalloc(&d_h, sizeof(float) * batch * hidden_size));
  CHECK_CUDA(cudaMalloc(&d_c, sizeof(float) * batch * hidden_size));
  CHECK_CUDA(cudaMalloc(&d_wih, sizeof(float) * G * input_size));
  CHECK_CUDA(cudaMalloc(&d_whh, sizeof(float) * G * hidden_size));
  CHECK_CUDA(cudaMalloc(&d_bih, sizeof(float) * G));
  CHECK_CUDA(cudaMalloc(&d_bhh, sizeof(float) * G));
  CHECK_CUDA(cudaMalloc(&d_gates, sizeof(float) * batch * G));
  CHECK_CUDA(cudaMalloc(&d_cn, sizeof(float) * batch * hidden_size));
  CHECK_CUDA(cudaMalloc(&d_hn, sizeof(float) * batch * hidden_size));
  cudaMemcpy(d_x, x, sizeof(float) * batch * input_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_h, h, sizeof(float) * batch * hidden_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, c, sizeof(float) * batch * hidden_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_wih, wih, sizeof(float) * G * input_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_whh, whh, sizeof(float) * G * hidden_size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_bih, bih, sizeof(float) * G, cudaMemcpyHostToDevice);
  cudaMemcpy(d_bhh, bhh, sizeof(float) * G, cudaMemcpyHostToDevice);

  dim3 block(32, 8);
  dim3 grid((G + 31) / 32, (batch + 7) / 8);
  lstm_gates_kernel<<<grid, block>>>(d_x, d_h, d_wih, d_whh, d_bih, d_bhh, d_gates, batch, input_size, hidden_size);
  dim3 grid2((hidden_size + 31) / 32, (batch + 7) / 8);
  lstm_pointwise_kernel<<<grid2, block>>>(d_gates, d_c, d_cn, d_hn, batch, hidden_size);
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaMemcpy(gates, d_gates, sizeof(float) * batch * G, cudaMemcpyDeviceToHost);

  double maxerr = 0.0;
  for (int b = 0; b < batch; b++)
    for (int g = 0; g < G; g++) {
      double acc = bih[g] + bhh[g];
      for (int k = 0; k < input_size; k++) acc += (double)x[b * input_size + k] * wih[g * input_size + k];
      for (int k = 0; k < hidden_size; k++) acc += (double)h[b * hidden_size + k] * whh[g * hidden_size + k];
      double ref = (g / hidden_size == 2) ? tanh(acc) : 1.0 / (1.0 + exp(-acc));
      maxerr = fmax(maxerr, fabs(ref - gates[b * G + g]));
    }
  printf("gates max error %g\n", maxerr);
  return maxerr < 1e-4 ? 0 : 1;
}
