// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: rows=300 cols=400
// expect: stencil-tile
// Rodinia SRAD-like directional derivatives with the neighbours clamped through min/max
__global__ void srad_derivs(const float *J, float *dN, float *dS, float *dW, float *dE, int rows, int cols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols) {
        int iN = max(i - 1, 0), iS = min(i + 1, rows - 1);
        int jW = max(j - 1, 0), jE = min(j + 1, cols - 1);
        float Jc = J[i * cols + j];
        dN[i * cols + j] = J[iN * cols + j] - Jc;
        dS[i * cols + j] = J[iS * cols + j] - Jc;
        dW[i * cols + j] = J[i * cols + jW] - Jc;
        dE[i * cols + j] = J[i * cols + jE] - Jc;
    }
}
