// An embedding gather: token ids index the table's rows under `tok < V`, a block per token, threads over C.
// expect: out [T, C] out; ids [T] in; table [V, C] in
__global__ void embed(float* out, const int* ids, const float* table, int T, int C, int V) {
  int t = blockIdx.x;
  if (t >= T) return;
  int tok = ids[t];
  if (tok < 0 || tok >= V) return;
  for (int c = threadIdx.x; c < C; c += blockDim.x) out[t * C + c] = table[tok * C + c];
}
