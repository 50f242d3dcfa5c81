// a_slow_math_fixed.cu -- Gaussian kernel density estimate.
// Fixed twin of a_slow_math.cu: 1/sigma and the exp -> exp2 scale are computed once before
// the loop; the loop body is a subtraction, two multiplies and exp2f (one MUFU.EX2).
// slow-math-in-loop stays silent here.

__global__ void kde(const float* __restrict__ queries, const float* __restrict__ points,
                    float* __restrict__ density, int nq, int np, float sigma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nq) return;
  float q = queries[i];
  const float inv_sigma = 1.0f / sigma;
  const float scale = -0.5f * 1.44269504f;  // exp(x) = exp2(x * log2(e))
  float acc = 0.0f;
  for (int j = 0; j < np; ++j) {
    float d = (q - points[j]) * inv_sigma;
    acc += exp2f(scale * d * d);
  }
  density[i] = acc;
}

void launch_kde(const float* queries, const float* points, float* density, int nq, int np, float sigma) {
  kde<<<(nq + 255) / 256, 256>>>(queries, points, density, nq, np, sigma);
}
