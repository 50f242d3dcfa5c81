// Cross-entropy from logits, one thread per row: find the max, sum the exponentials, subtract.
__global__ void crossentropy_forward(float* losses, const float* logits, const int* targets, int N, int V) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    const float* row = logits + (size_t)i * V;
    float mx = -INFINITY;
    for (int j = 0; j < V; j++) {
      mx = fmaxf(mx, row[j]);
    }
    float sum = 0.0f;
    for (int j = 0; j < V; j++) {
      sum += expf(row[j] - mx);
    }
    losses[i] = logf(sum) + mx - row[targets[i]];
  }
}
