// A 3-D sweep written through an accessor macro, as ported C code writes it: the accesses behind the macro
// give the shapes (the snapshot keeps the macro as written).
// expect: A [n, n, n] in; B [n, n, n] out
#define AT(a, i, j, k) a[((i) * n + (j)) * n + (k)]
__global__ void sweep3d(int n, const float* A, float* B) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1 && k >= 1 && k < n - 1)
    AT(B, i, j, k) = 0.5f * (AT(A, i + 1, j, k) + AT(A, i - 1, j, k)) + 0.25f * (AT(A, i, j + 1, k) + AT(A, i, j, k - 1));
}
