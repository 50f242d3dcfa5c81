// style: TVM-generated CUDA source (relay nn.dense + add + nn.relu fused, default GPU schedule): extern "C" __launch_bounds__(64) kernel with no size arguments, every shape baked in as a literal (67x37 data, 45x37 weight), ((int)blockIdx.x) casts everywhere, one flat fused index split with / 45 and % 45, T_matmul_NT_local[1] accumulator, max(.., 0.000000e+00f) epilogue
// launch: grid 48 block 64
// sizes:
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce

#if (((__CUDACC_VER_MAJOR__ == 11) && (__CUDACC_VER_MINOR__ >= 4)) || \
     (__CUDACC_VER_MAJOR__ > 11))
#define TVM_ENABLE_L2_PREFETCH 1
#else
#define TVM_ENABLE_L2_PREFETCH 0
#endif

#ifdef _WIN32
  using uint = unsigned int;
  using uchar = unsigned char;
  using ushort = unsigned short;
  using int64_t = long long;
  using uint64_t = unsigned long long;
#else
  #define uint unsigned int
  #define uchar unsigned char
  #define ushort unsigned short
  #define int64_t long long
  #define uint64_t unsigned long long
#endif
extern "C" __global__ void __launch_bounds__(64) tvmgen_default_fused_nn_dense_add_nn_relu_kernel(float* __restrict__ T_relu, float* __restrict__ p0, float* __restrict__ p1, float* __restrict__ p2);
extern "C" __global__ void __launch_bounds__(64) tvmgen_default_fused_nn_dense_add_nn_relu_kernel(float* __restrict__ T_relu, float* __restrict__ p0, float* __restrict__ p1, float* __restrict__ p2) {
  float T_matmul_NT_local[1];
  if (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 3015) {
    T_matmul_NT_local[0] = 0.000000e+00f;
    for (int k = 0; k < 37; ++k) {
      T_matmul_NT_local[0] = (T_matmul_NT_local[0] + (p0[(((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 45) * 37) + k)] * p1[(((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 45) * 37) + k)]));
    }
    T_relu[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = max((T_matmul_NT_local[0] + p2[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 45)]), 0.000000e+00f);
  }
}

