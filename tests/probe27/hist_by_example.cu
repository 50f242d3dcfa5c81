// launch: grid 64 block 256
// sizes: size=1000000
// expect: private-bins
// CUDA by Example, chapter 9: histogram with global atomics
__global__ void histo_kernel(unsigned char *buffer, long size, unsigned int *histo) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &(histo[buffer[i]]), 1 );
        i += offset;
    }
}
