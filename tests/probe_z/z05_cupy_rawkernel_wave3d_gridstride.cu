// style: CuPy RawKernel source (the string handed to cp.RawKernel from Python) - extern "C", `const int` scalar args with a float c2 = (c*dt/h)^2, one long long grid-stride loop over all nx*ny*nz cells, (ix, iy, iz) peeled from the flat index with % and /, outer walls written 0 then `continue`, 3-D 7-point leapfrog wave update u_next = 2u - u_prev + c2*lap with neighbours at tid +- 1, +- nx, +- nx*ny
// launch: grid cdiv(nx*ny*nz, 256) block 256
// sizes: nx=37 ny=29 nz=23 c2=0.1
// expect: stencil-tile|stencil-march|stencil-window
//
// Python side (for reference):
//   wave = cp.RawKernel(src, 'wave3d_leapfrog')
//   n = nx * ny * nz
//   wave(((n + 255) // 256,), (256,), (u_prev, u, u_next, np.int32(nx), np.int32(ny), np.int32(nz), np.float32(c2)))
//   u_prev, u, u_next = u, u_next, u_prev

extern "C" __global__
void wave3d_leapfrog(const float* u_prev, const float* u, float* u_next,
                     const int nx, const int ny, const int nz, const float c2)
{
    const long long n = (long long)nx * ny * nz;
    const long long plane = (long long)nx * ny;
    for (long long tid = (long long)blockDim.x * blockIdx.x + threadIdx.x;
         tid < n;
         tid += (long long)blockDim.x * gridDim.x) {
        const int ix = (int)(tid % nx);
        const int iy = (int)((tid / nx) % ny);
        const int iz = (int)(tid / plane);
        if (ix == 0 || iy == 0 || iz == 0 || ix == nx - 1 || iy == ny - 1 || iz == nz - 1) {
            u_next[tid] = 0.0f;   // clamped (Dirichlet) walls
            continue;
        }
        const float lap = u[tid - 1] + u[tid + 1]
                        + u[tid - nx] + u[tid + nx]
                        + u[tid - plane] + u[tid + plane]
                        - 6.0f * u[tid];
        u_next[tid] = 2.0f * u[tid] - u_prev[tid] + c2 * lap;
    }
}
