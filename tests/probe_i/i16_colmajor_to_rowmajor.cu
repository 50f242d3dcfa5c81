// style: cuBLAS-interop helper "convert Fortran/column-major matrix to C/row-major"; reads A_cm[j*m + i] (column-major, ld = m), writes A_rm[i*n + j]
// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=211 n=149
// expect: transpose-tile
__global__ void colmajor_to_rowmajor(const float *A_cm, float *A_rm, int m, int n)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;   // row index 0..m-1
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // col index 0..n-1

    if (i < m && j < n)
        A_rm[i * n + j] = A_cm[j * m + i];
}
