// launch: grid cdiv(B * T, 16), cdiv(C, 16) block 16, 16
// sizes: B T C OC
// reference: dinp += dout @ weight
// recognise: rows x, columns y
__global__ void matmul_backward_dinp(float* dinp, const float* dout, const float* weight, int B, int T, int C, int OC) {
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt >= B * T || c >= C) return;
    const float* dout_bt = dout + bt * OC;
    float sum = 0.0f;
    for (int o = 0; o < OC; o++) {
        sum += weight[o * C + c] * dout_bt[o];
    }
    dinp[bt * C + c] += sum;
}
