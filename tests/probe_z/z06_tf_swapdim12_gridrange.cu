// style: TensorFlow conv_ops_gpu / transpose_functor spelling of SwapDimension1And2InTensor3Simple - template <typename T>, `int nthreads` first, Dimension<3>/Index<3> helper structs with FlatToTensorIndex / TensorIndexToFlat device helpers, and the grid-stride loop written as a range-based `for (int output_index : GpuGridRangeX(nthreads))` over a small iterator class; batched (d0, d1, d2) -> (d0, d2, d1) transpose read through __ldg
// launch: grid cdiv(nthreads, 256) block 256
// sizes: nthreads=9045 input_dim0=3 input_dim1=45 input_dim2=67
// template: float
// expect: transpose-tile
#include <cuda_runtime.h>

namespace tensorflow {
namespace functor {

// A dimension type with compile-time rank.
template <int N>
struct Dimension {
  int dims[N];
  __host__ __device__ int& operator[](int i) { return dims[i]; }
  __host__ __device__ const int& operator[](int i) const { return dims[i]; }
};

template <int N>
using Index = Dimension<N>;

// Helper class for converting a grid-stride loop into a range-based for loop.
template <typename T>
class GpuGridRange {
 public:
  class Iterator {
   public:
    __device__ Iterator(T index, T delta) : index_(index), delta_(delta) {}
    __device__ T operator*() const { return index_; }
    __device__ Iterator& operator++() {
      index_ += delta_;
      return *this;
    }
    __device__ bool operator!=(const Iterator& other) const {
      bool greater = index_ > other.index_;
      bool less = index_ < other.index_;
      // Anything past an end iterator (delta_ == 0) is equal.
      if (!other.delta_) return less;
      if (!delta_) return greater;
      return less || greater;
    }

   private:
    T index_;
    const T delta_;
  };

  __device__ GpuGridRange(T begin, T delta, T end)
      : begin_(begin), delta_(delta), end_(end) {}
  __device__ Iterator begin() const { return Iterator(begin_, delta_); }
  __device__ Iterator end() const { return Iterator(end_, 0); }

 private:
  T begin_;
  T delta_;
  T end_;
};

template <typename T>
__device__ GpuGridRange<T> GpuGridRangeX(T count) {
  return GpuGridRange<T>(blockIdx.x * blockDim.x + threadIdx.x,
                         gridDim.x * blockDim.x, count);
}

template <int N>
__device__ __forceinline__ Index<N> FlatToTensorIndex(int index,
                                                      const Dimension<N>& dims) {
  Index<N> tensor_index;
#pragma unroll
  for (int i = N - 1; i >= 0; i--) {
    int new_index = index / dims[i];
    tensor_index[i] = index - dims[i] * new_index;
    index = new_index;
  }
  return tensor_index;
}

template <int N>
__device__ __forceinline__ int TensorIndexToFlat(const Index<N>& index,
                                                 const Dimension<N>& dims) {
  int flat_index = index[0];
#pragma unroll
  for (int i = 1; i < N; i++) {
    flat_index = flat_index * dims[i] + index[i];
  }
  return flat_index;
}

// A Cuda custom kernel that swaps dimension-1 and dimension-2 of a 3D tensor.
template <typename T>
__global__ void SwapDimension1And2InTensor3Simple(int nthreads,
                                                  const T* __restrict__ input,
                                                  int input_dim0, int input_dim1,
                                                  int input_dim2,
                                                  T* __restrict__ output) {
  Dimension<3> input_dims;
  input_dims[0] = input_dim0;
  input_dims[1] = input_dim1;
  input_dims[2] = input_dim2;

  Dimension<3> output_dims;
  output_dims[0] = input_dims[0];
  output_dims[1] = input_dims[2];
  output_dims[2] = input_dims[1];

  for (int output_index : GpuGridRangeX<int>(nthreads)) {
    Index<3> output_tensor_index = FlatToTensorIndex(output_index, output_dims);

    Index<3> input_tensor_index;
    input_tensor_index[0] = output_tensor_index[0];
    input_tensor_index[1] = output_tensor_index[2];
    input_tensor_index[2] = output_tensor_index[1];

    int input_index = TensorIndexToFlat(input_tensor_index, input_dims);

    output[output_index] = __ldg(input + input_index);
  }
}

template __global__ void SwapDimension1And2InTensor3Simple<float>(
    int, const float* __restrict__, int, int, int, float* __restrict__);
template __global__ void SwapDimension1And2InTensor3Simple<double>(
    int, const double* __restrict__, int, int, int, double* __restrict__);

}  // namespace functor
}  // namespace tensorflow
