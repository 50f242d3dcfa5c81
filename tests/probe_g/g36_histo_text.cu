// style: PMPP ch.9 text histogram with interleaved (grid-stride) partitioning and global atomicAdd on 7 bins of four letters each
// launch: grid cdiv(length, 1024) block 256
// sizes: length=1000003
// expect: private-bins
__global__ void histo_kernel(const char *data, int length, unsigned int *histo)
{
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int i = tid; i < length; i += blockDim.x * gridDim.x) {
        int alphabet_position = data[i] - 'a';
        if (alphabet_position >= 0 && alphabet_position < 26)
            atomicAdd(&(histo[alphabet_position / 4]), 1);
    }
}
