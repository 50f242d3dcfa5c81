// style: lecture-slide Blelloch exclusive scan in its literal "(tid + 1) % (2*d) == 0" form - one element per thread in extern __shared__ double s[], reduce (up-sweep) loop d = 1, 2, 4, ... with s[tid] += s[tid - d], last thread saves the block total and clears the root, down-sweep d = blockDim.x/2 ... 1 swapping through a temporary, unsigned indices throughout, zero padding past n; host main scans the block totals and checks on the CPU
// launch: grid cdiv(n, 256) block 256 shared 256*8
// sizes: n=1999
// expect: block-scan|scan-library|row-scan
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

__global__ void blelloch_exclusive(const double *d_in, double *d_out, double *d_block_totals,
                                   unsigned int n)
{
    extern __shared__ double s[];
    unsigned int tid = threadIdx.x;
    unsigned int gid = blockIdx.x * blockDim.x + tid;

    s[tid] = (gid < n) ? d_in[gid] : 0.0;
    __syncthreads();

    // reduce step
    for (unsigned int d = 1; d < blockDim.x; d <<= 1) {
        if ((tid + 1) % (2 * d) == 0)
            s[tid] += s[tid - d];
        __syncthreads();
    }

    if (tid == blockDim.x - 1) {
        d_block_totals[blockIdx.x] = s[tid];
        s[tid] = 0.0;
    }
    __syncthreads();

    // down-sweep step
    for (unsigned int d = blockDim.x >> 1; d >= 1; d >>= 1) {
        if ((tid + 1) % (2 * d) == 0) {
            double t = s[tid - d];
            s[tid - d] = s[tid];
            s[tid] += t;
        }
        __syncthreads();
    }

    if (gid < n)
        d_out[gid] = s[tid];
}

int main(void)
{
    const unsigned int n = 1999, threads = 256;
    const unsigned int blocks = (n + threads - 1) / threads;
    double *h_in = (double *)malloc(n * sizeof(double));
    double *h_out = (double *)malloc(n * sizeof(double));
    double *h_tot = (double *)malloc(blocks * sizeof(double));
    for (unsigned int i = 0; i < n; i++) h_in[i] = 0.5 * (double)(i % 9) - 1.0;

    double *d_in, *d_out, *d_tot;
    cudaMalloc((void **)&d_in, n * sizeof(double));
    cudaMalloc((void **)&d_out, n * sizeof(double));
    cudaMalloc((void **)&d_tot, blocks * sizeof(double));
    cudaMemcpy(d_in, h_in, n * sizeof(double), cudaMemcpyHostToDevice);

    blelloch_exclusive<<<blocks, threads, threads * sizeof(double)>>>(d_in, d_out, d_tot, n);
    cudaMemcpy(h_out, d_out, n * sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_tot, d_tot, blocks * sizeof(double), cudaMemcpyDeviceToHost);

    /* add scanned block totals on the host */
    double off = 0.0;
    for (unsigned int b = 0; b < blocks; b++) {
        for (unsigned int i = b * threads; i < (b + 1) * threads && i < n; i++) h_out[i] += off;
        off += h_tot[b];
    }

    double acc = 0.0, err = 0.0;
    for (unsigned int i = 0; i < n; i++) {
        err = fmax(err, fabs(h_out[i] - acc));
        acc += h_in[i];
    }
    printf("max err %g %s\n", err, err < 1e-9 ? "PASS" : "FAIL");
    cudaFree(d_in); cudaFree(d_out); cudaFree(d_tot);
    free(h_in); free(h_out); free(h_tot);
    return err < 1e-9 ? 0 : 1;
}
