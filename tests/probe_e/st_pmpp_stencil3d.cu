// style: PMPP ch.8 basic 3-D seven-point stencil_kernel (i on z, j on y, k on x, cube of side N, c0..c6)
// launch: grid cdiv(N, 8), cdiv(N, 8), cdiv(N, 8) block 8, 8, 8
// sizes: N=67 c0=0.4 c1=0.1 c2=0.1 c3=0.1 c4=0.1 c5=0.1 c6=0.1
// expect: stencil-tile|stencil-march
__global__ void stencil_kernel(float* in, float* out, unsigned int N,
                               float c0, float c1, float c2, float c3, float c4, float c5, float c6) {
    unsigned int i = blockIdx.z*blockDim.z + threadIdx.z;
    unsigned int j = blockIdx.y*blockDim.y + threadIdx.y;
    unsigned int k = blockIdx.x*blockDim.x + threadIdx.x;
    if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1 && k >= 1 && k < N - 1) {
        out[i*N*N + j*N + k] = c0*in[i*N*N + j*N + k]
                             + c1*in[i*N*N + j*N + (k - 1)]
                             + c2*in[i*N*N + j*N + (k + 1)]
                             + c3*in[i*N*N + (j - 1)*N + k]
                             + c4*in[i*N*N + (j + 1)*N + k]
                             + c5*in[(i - 1)*N*N + j*N + k]
                             + c6*in[(i + 1)*N*N + j*N + k];
    }
}
