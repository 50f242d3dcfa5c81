// style: Apache TVM CUDA codegen output (what `tvm.build(..., target="cuda").imported_modules[0].get_source()` prints for relay.transpose(data, axes=(0, 2, 3, 1))) - extern "C" default_function_kernel with __launch_bounds__(256), T_transpose/placeholder argument names, NO scalar parameters: the static shape (N, C, H, W) = (2, 19, 23, 29) is folded into literals (25346, 12673, 667, 19), every use of the thread id re-spelled as ((int)blockIdx.x) * 256 + ((int)threadIdx.x) with TVM's redundant parentheses, tail guarded by one if
// launch: grid cdiv(N*C*H*W, 256) block 256
// sizes: N=2 C=19 H=23 W=29
// expect: transpose-tile

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
extern "C" __global__ void __launch_bounds__(256) default_function_kernel(float* __restrict__ T_transpose, float* __restrict__ placeholder) {
  if (((((int)blockIdx.x) * 256) + ((int)threadIdx.x)) < 25346) {
    T_transpose[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))] = placeholder[((((((((int)blockIdx.x) * 256) + ((int)threadIdx.x)) / 12673) * 12673) + ((((((int)blockIdx.x) * 256) + ((int)threadIdx.x)) % 19) * 667)) + (((((((int)blockIdx.x) * 256) + ((int)threadIdx.x)) % 12673) / 19)))];
  }
}

