// launch: grid cdiv(n, 128) block 128
// sizes: n=500000 s=0.5
// expect: elementwise
// an index variable built up by reassignment
__global__ void scale(double *v, double s, int n)
{
    int i = blockIdx.x;
    i = i * blockDim.x;
    i += threadIdx.x;
    if (i >= n) return;
    v[i] = s * v[i];
}
