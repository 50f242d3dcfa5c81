// Cross-entropy from logits, one thread per row, unsigned index and a ternary max.
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
  const unsigned r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= (unsigned)N) return;
  const size_t base = (size_t)r * V;
  float best = logits[base];
  for (int j = 1; j < V; ++j) best = logits[base + j] > best ? logits[base + j] : best;
  float z = 0.0f;
  for (int j = 0; j < V; ++j) z += expf(logits[base + j] - best);
  const int t = targets[r];
  losses[r] = (logf(z) + best) - logits[base + t];
}
