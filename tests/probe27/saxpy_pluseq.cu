// launch: grid cdiv(n, 256) block 256
// sizes: n=1000001 a=2.0
// expect: elementwise
// y += a * x
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
