// style: CUDA by Example ch.9 histo_kernel (global-memory atomics, 256 byte bins, while-loop grid stride, blocks = 2*SMs), host main
// launch: grid 264 block 256
// sizes: size=100003
// expect: private-bins
#include <stdio.h>
#include <stdlib.h>

#define SIZE (100003)

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

int main( void ) {
    unsigned char *buffer = (unsigned char*)malloc(SIZE);
    for (int i = 0; i < SIZE; i++) buffer[i] = rand() & 0xff;

    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaMalloc( (void**)&dev_buffer, SIZE );
    cudaMemcpy( dev_buffer, buffer, SIZE, cudaMemcpyHostToDevice );
    cudaMalloc( (void**)&dev_histo, 256 * sizeof( int ) );
    cudaMemset( dev_histo, 0, 256 * sizeof( int ) );

    cudaDeviceProp prop;
    cudaGetDeviceProperties( &prop, 0 );
    int blocks = prop.multiProcessorCount;   // 132 on H100 SXM
    histo_kernel<<<blocks*2,256>>>( dev_buffer, SIZE, dev_histo );

    unsigned int histo[256];
    cudaMemcpy( histo, dev_histo, 256 * sizeof( int ), cudaMemcpyDeviceToHost);
    long histoCount = 0;
    for (int i=0; i<256; i++) histoCount += histo[i];
    printf( "Histogram Sum:  %ld\n", histoCount );

    cudaFree( dev_histo );
    cudaFree( dev_buffer );
    free( buffer );
    return 0;
}
