// style: seismic-modelling (Madagascar sfawefd-like) 2-D constant-density acoustic propagator - z is the fast axis (p[ix*nz + iz], iz on threadIdx.x, ix on threadIdx.y), 8th-order (radius NOP=4) second-derivative coefficients C0..C4 in a statically initialised __constant__ array, idx2/idz2 = 1/dx^2, 1/dz^2 scalars, vel2dt2 = (v*dt)^2 model array, leapfrog p_next = 2p - p_prev + vel2dt2*lap; two early-return lower/upper guards keep the NOP-wide frame untouched (the sponge lives in another kernel)
// launch: grid cdiv(nz, 32), cdiv(nx, 8) block 32, 8
// sizes: nz=101 nx=67 idx2=0.25 idz2=0.16
// expect: stencil-tile|stencil-march|stencil-window
#include <cuda_runtime.h>

#define NOP 4 /* half-length of the FD operator */

/* 8th-order centred 2nd-derivative coefficients */
__constant__ float c_fd8[NOP + 1] = {
    -205.0f / 72.0f,
       8.0f /  5.0f,
      -1.0f /  5.0f,
       8.0f / 315.0f,
      -1.0f / 560.0f
};

__global__ void step_forward_2d(float *p_next,          /* wavefield at t+dt      */
                                const float *p_cur,     /* wavefield at t         */
                                const float *p_prev,    /* wavefield at t-dt      */
                                const float *vel2dt2,   /* (v*dt)^2               */
                                int nz, int nx,
                                float idx2, float idz2)
{
    int iz = blockIdx.x * blockDim.x + threadIdx.x;
    int ix = blockIdx.y * blockDim.y + threadIdx.y;

    if (iz < NOP || iz >= nz - NOP) return;
    if (ix < NOP || ix >= nx - NOP) return;

    int id = ix * nz + iz;

    float d2z = c_fd8[0] * p_cur[id];
    float d2x = c_fd8[0] * p_cur[id];
#pragma unroll
    for (int r = 1; r <= NOP; r++) {
        d2z += c_fd8[r] * (p_cur[id + r]      + p_cur[id - r]);
        d2x += c_fd8[r] * (p_cur[id + r * nz] + p_cur[id - r * nz]);
    }

    p_next[id] = 2.0f * p_cur[id] - p_prev[id]
               + vel2dt2[id] * (d2x * idx2 + d2z * idz2);
}
