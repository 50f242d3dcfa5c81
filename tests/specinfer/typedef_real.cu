// Element types through a typedef and a `using`: real is double, idx_t an int64.
// expect: a [n] inout; b [n] in; dtype a float64
typedef double real;
using idx_t = long long;

__global__ void add_inplace(real* a, const real* b, idx_t n) {
  idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}
