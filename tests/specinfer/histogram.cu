// A histogram: the bins are indexed by the data's values under `v < nbins`; atomics make it in/out.
// expect: data [n] in; hist [nbins] inout
__global__ void histogram(const int* data, unsigned int* hist, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = data[i];
    if (v >= 0 && v < nbins) atomicAdd(&hist[v], 1u);
  }
}
