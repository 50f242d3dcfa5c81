// style: HPC-school "2-D heat equation" lab; column-first I2D(ni,i,j) macro with named neighbour indices iw/ie/is/in, explicit Euler with alpha/dt/h, Dirichlet edges copied by an if/else nested in the bounds guard
// launch: grid cdiv(ni, 32), cdiv(nj, 4) block 32, 4
// sizes: ni=211 nj=97 alpha=0.1 dt=0.005 h=0.05
// expect: stencil-tile|stencil-window

#define I2D(ni, i, j) (((ni) * (j)) + i)

__global__ void heat_step(float *T_new, float *T_old, int ni, int nj,
                          float alpha, float dt, float h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < ni && j < nj) {
        int ic = I2D(ni, i, j);
        if (i == 0 || j == 0 || i == ni - 1 || j == nj - 1) {
            // fixed-temperature boundary
            T_new[ic] = T_old[ic];
        } else {
            int iw = I2D(ni, i - 1, j);
            int ie = I2D(ni, i + 1, j);
            int is = I2D(ni, i, j - 1);
            int in = I2D(ni, i, j + 1);
            float r = alpha * dt / (h * h);
            T_new[ic] = T_old[ic]
                      + r * (T_old[iw] + T_old[ie] + T_old[is] + T_old[in] - 4.0f * T_old[ic]);
        }
    }
}
