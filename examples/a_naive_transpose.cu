// a_naive_transpose.cu -- out = in^T for a width x height float matrix, blocks of 32 x 8.
// Defect: the read in[y * width + x] is coalesced (threadIdx.x moves along a row), but the
// write out[x * height + y] moves `height` elements between neighbouring threads: each warp
// store touches 32 sectors of 32 bytes where 4 would do.
// Found by: uncoalesced-access (kernelpro.profilers.rules.coalescing).
// Fixed twin: a_naive_transpose_fixed.cu (a padded shared-memory tile; both sides coalesced).

__global__ void transpose(float* __restrict__ out, const float* __restrict__ in, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    out[x * height + y] = in[y * width + x];
  }
}

void launch_transpose(float* out, const float* in, int width, int height) {
  dim3 block(32, 8);
  dim3 grid((width + 31) / 32, (height + 7) / 8);
  transpose<<<grid, block>>>(out, in, width, height);
}
