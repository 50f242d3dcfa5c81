// style: PMPP ch.9 text histogram histo_kernel (letters a-z grouped in bins of 4, global atomics, one char per thread)
// launch: grid cdiv(length, 256) block 256
// sizes: length=100003
// expect: private-bins
__global__ void histo_kernel(char *data, unsigned int length, unsigned int *histo) {
    unsigned int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < length) {
        int alphabet_position = data[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26) {
            atomicAdd(&(histo[alphabet_position/4]), 1);
        }
    }
}
