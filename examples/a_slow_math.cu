// a_slow_math.cu -- Gaussian kernel density estimate: density[i] = sum_j exp(-((q_i - p_j)/sigma)^2 / 2).
// Defect: inside the loop over all points, expf (about 10 instructions with its range
// reduction) and a division by the float variable sigma (a reciprocal, a correction and a
// call to the slow path) run once per point, in every thread; no --use_fast_math.
// Found by: slow-math-in-loop (kernelpro.profilers.rules.slow_math).
// Fixed twin: a_slow_math_fixed.cu (the reciprocal hoisted out of the loop, exp2f with a
// pre-scaled argument).

__global__ void kde(const float* __restrict__ queries, const float* __restrict__ points,
                    float* __restrict__ density, int nq, int np, float sigma) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nq) return;
  float q = queries[i];
  float acc = 0.0f;
  for (int j = 0; j < np; ++j) {
    float d = (q - points[j]) / sigma;
    acc += expf(-0.5f * d * d);
  }
  density[i] = acc;
}

void launch_kde(const float* queries, const float* points, float* density, int nq, int np, float sigma) {
  kde<<<(nq + 255) / 256, 256>>>(queries, points, density, nq, np, sigma);
}
