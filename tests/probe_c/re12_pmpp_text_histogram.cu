// launch: grid cdiv(length, 256) block 256
// sizes: length=500000
// expect: private-bins
// letter histogram in bins of four letters, one global atomicAdd per character (PMPP ch. 9 basic histo_kernel)
#define NUM_BINS 7

__global__ void histo_kernel(char *data, unsigned int length, unsigned int *histo) {
    unsigned int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < length) {
        int alphabet_position = data[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26) {
            atomicAdd(&(histo[alphabet_position/4]), 1);
        }
    }
}
