// launch: grid cdiv(B, 128) block 128
// sizes: B=4096 V=1000
// expect: row-warp|row-block
// cross-entropy loss per row: -log softmax(logits)[target]
__global__ void xent(const float* logits, const int* targets, float* loss, int B, int V) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= B) return;
  const float* row = logits + (size_t)b * V;
  float mx = -INFINITY;
  for (int v = 0; v < V; ++v) mx = fmaxf(mx, row[v]);
  float s = 0.f;
  for (int v = 0; v < V; ++v) s += expf(row[v] - mx);
  loss[b] = logf(s) + mx - row[targets[b]];
}
