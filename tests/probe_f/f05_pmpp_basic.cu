// style: PMPP (Kirk & Hwu) ch. 3/4 basic MatrixMulKernel on square Width x Width matrices
// launch: grid cdiv(Width, 16), cdiv(Width, 16) block 16, 16
// sizes: Width=171
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
__global__ void MatrixMulKernel(float* M, float* N, float* P, int Width) {
    // Calculate the row index of the P element and M
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    // Calculate the column index of P and N
    int Col = blockIdx.x * blockDim.x + threadIdx.x;

    if ((Row < Width) && (Col < Width)) {
        float Pvalue = 0;
        // each thread computes one element of the block sub-matrix
        for (int k = 0; k < Width; ++k) {
            Pvalue += M[Row * Width + k] * N[k * Width + Col];
        }
        P[Row * Width + Col] = Pvalue;
    }
}
