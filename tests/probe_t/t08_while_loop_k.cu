// style: ported-from-C student code; the k loop written as a while loop with a manual k++ at the end of the body, pointer-walk style offsets a_off/b_off advanced by 1 and by n each iteration, sizes m/n/p (A is m x p, B is p x n), no host code
// launch: grid cdiv(n, 16), cdiv(m, 16) block 16, 16
// sizes: m=67 n=129 p=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

__global__ void mat_mult_while(float *a, float *b, float *c, int m, int n, int p)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < m && col < n) {
        float total = 0;
        int k = 0;
        int a_off = row * p;
        int b_off = col;
        while (k < p) {
            total += a[a_off] * b[b_off];
            a_off += 1;
            b_off += n;
            k++;
        }
        c[row * n + col] = total;
    }
}
