// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M N C NH
// reference: out = x[:, :C/NH] @ w (a head's slice: K through a local)
// recognise: rows y, columns x
__global__ void head_proj(float* out, const float* x, const float* w, int M, int N, int C, int NH) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int hs = C / NH;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int i = 0; i < hs; i++) acc += x[row * C + i] * w[i * N + col];
        out[row * N + col] = acc;
    }
}
