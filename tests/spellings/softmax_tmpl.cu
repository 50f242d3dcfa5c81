// launch: grid cdiv(N, 256) block 256
// expect: online max and sum
#include <cfloat>
template <typename T>
__device__ __forceinline__ T my_max(T a, T b) { return a > b ? a : b; }

template <typename T>
__global__ void softmax_forward(T* out, const T* inp, int N, int C) {
    size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < (size_t)N) {
        T mx = -FLT_MAX;
        for (size_t j = 0; j < C; ++j) mx = my_max(mx, inp[row * C + j]);
        T total = 0;
        for (size_t j = 0; j < C; ++j) {
            T e = expf(inp[row * C + j] - mx);
            out[row * C + j] = e;
            total += e;
        }
        for (size_t j = 0; j < C; ++j) out[row * C + j] = out[row * C + j] / total;
    }
}
template __global__ void softmax_forward<float>(float*, const float*, int, int);
