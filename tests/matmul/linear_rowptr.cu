// launch: grid cdiv(BT, 8), cdiv(OC, 32) block 8, 32
// sizes: BT OC C
// reference: out = inp @ weight.T + bias
// recognise: bias, transposed
__global__ void matmul_forward(float* out, const float* inp, const float* weight, const float* bias,
                               int BT, int C, int OC) {
    int bt = blockIdx.x * blockDim.x + threadIdx.x;
    int oc = blockIdx.y * blockDim.y + threadIdx.y;
    if (bt < BT && oc < OC) {
        float val = (bias != NULL) ? bias[oc] : 0.0f;
        const float* wrow = weight + oc * C;
        const float* inp_bt = inp + bt * C;
        for (int i = 0; i < C; i++) {
            val += inp_bt[i] * wrow[i];
        }
        out[bt * OC + oc] = val;
    }
}
