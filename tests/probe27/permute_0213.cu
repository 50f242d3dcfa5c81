// launch: grid cdiv(B * N * NH * d, 256) block 256
// sizes: B=2 N=100 NH=12 d=64
// expect: transpose-tile|gather
// (B, N, H, D) -> (B, H, N, D), llm.c permute style with the index split by divisions
__global__ void permute_kernel(float* q, const float* inp, int B, int N, int NH, int d) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * NH * N * d) {
    int b = idx / (NH * N * d);
    int rest = idx % (NH * N * d);
    int nh_ = rest / (N * d);
    rest = rest % (N * d);
    int n = rest / d;
    int d_ = rest % d;
    int inp_idx = (b * N * NH * d) + (n * NH * d) + (nh_ * d) + d_;
    q[idx] = inp[inp_idx];
  }
}
