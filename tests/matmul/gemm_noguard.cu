// launch: grid width / 16, width / 16 block 16, 16
// sizes: width
// reference: P = M @ N (square, no bounds check: width a multiple of 16)
// recognise: rows y, columns x
__global__ void MatrixMulKernel(float* Md, float* Nd, float* Pd, int Width) {
    int Row = blockIdx.y * 16 + threadIdx.y;
    int Col = blockIdx.x * 16 + threadIdx.x;
    float Pvalue = 0;
    for (int k = 0; k < Width; ++k)
        Pvalue += Md[Row * Width + k] * Nd[k * Width + Col];
    Pd[Row * Width + Col] = Pvalue;
}
