// launch: grid 64 block 256
// sizes: size=1000000
// expect: private-bins
// 256-bin byte histogram with global-memory atomics and a grid-stride while loop, no privatization (CUDA by Example ch. 9 hist_gpu_gmem_atomics.cu)
/*
 * Copyright 1993-2010 NVIDIA Corporation.  All rights reserved.
 */
#include <stdio.h>
#include <stdlib.h>

#define SIZE    (100*1024*1024)

__global__ void histo_kernel( unsigned char *buffer,
                              long size,
                              unsigned int *histo ) {
    // calculate the starting index and the offset to the next
    // block that each thread will be processing
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &histo[buffer[i]], 1 );
        i += stride;
    }
}
