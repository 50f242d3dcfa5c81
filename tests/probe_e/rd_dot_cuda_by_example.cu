// style: CUDA by Example ch.5 dot (shared cache[threadsPerBlock], grid-stride temp, while (i != 0) halving, blocksPerGrid = imin(32, ...)), host main
// launch: grid 32 block 256
// sizes: N=20011
// expect: block-tree|block-atomic
#include <stdio.h>
#include <stdlib.h>

#define imin(a,b) (a<b?a:b)

const int threadsPerBlock = 256;

__global__ void dot( float *a, float *b, float *c, int N ) {
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float   temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }

    // set the cache values
    cache[cacheIndex] = temp;

    // synchronize threads in this block
    __syncthreads();

    // for reductions, threadsPerBlock must be a power of 2
    // because of the following code
    int i = blockDim.x/2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        c[blockIdx.x] = cache[0];
}

int main( void ) {
    const int N = 20011;
    const int blocksPerGrid = imin( 32, (N+threadsPerBlock-1) / threadsPerBlock );
    float *a, *b, c, *partial_c;
    float *dev_a, *dev_b, *dev_partial_c;

    a = (float*)malloc( N*sizeof(float) );
    b = (float*)malloc( N*sizeof(float) );
    partial_c = (float*)malloc( blocksPerGrid*sizeof(float) );

    cudaMalloc( (void**)&dev_a, N*sizeof(float) );
    cudaMalloc( (void**)&dev_b, N*sizeof(float) );
    cudaMalloc( (void**)&dev_partial_c, blocksPerGrid*sizeof(float) );

    for (int i=0; i<N; i++) {
        a[i] = i;
        b[i] = i*2;
    }

    cudaMemcpy( dev_a, a, N*sizeof(float), cudaMemcpyHostToDevice );
    cudaMemcpy( dev_b, b, N*sizeof(float), cudaMemcpyHostToDevice );

    dot<<<blocksPerGrid,threadsPerBlock>>>( dev_a, dev_b, dev_partial_c, N );

    cudaMemcpy( partial_c, dev_partial_c, blocksPerGrid*sizeof(float), cudaMemcpyDeviceToHost );

    c = 0;
    for (int i=0; i<blocksPerGrid; i++) {
        c += partial_c[i];
    }
    printf( "Does GPU value %.6g = %.6g?\n", c, 2.0 * ((double)(N-1)*N*(2*N-1)/6) );

    cudaFree( dev_a );
    cudaFree( dev_b );
    cudaFree( dev_partial_c );
    free( a );
    free( b );
    free( partial_c );
    return 0;
}
