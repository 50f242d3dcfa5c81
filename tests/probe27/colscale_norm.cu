// launch: grid cdiv(n, 128) block 128
// sizes: m=3000 n=1000
// expect: column
// each column divided by its Euclidean norm (a thread per column, two passes down it)
__global__ void normalize_cols(float* a, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  float ss = 0.f;
  for (int i = 0; i < m; ++i) ss += a[i * n + j] * a[i * n + j];
  float inv = rsqrtf(ss + 1e-12f);
  for (int i = 0; i < m; ++i) a[i * n + j] *= inv;
}
