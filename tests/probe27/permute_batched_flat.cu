// launch: grid cdiv(B * R * C, 512) block 512
// sizes: B=3 R=120 C=90
// expect: transpose-tile
// a batch of transposes over one flat index (PyTorch-style permute(0, 2, 1) lowered by hand)
__global__ void bt_flat(const float* src, float* dst, int B, int R, int C)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)B * R * C) return;
    int b = idx / (R * C);
    int r = (idx / C) % R;
    int c = idx % C;
    dst[(long long)b * R * C + (long long)c * R + r] = src[idx];
}
