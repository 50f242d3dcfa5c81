// a leapfrog step of the 3-D wave equation (doubles), 3-D blocks, the old level read at the point
__global__ void wave_step(double* u_next, const double* u, const double* u_prev, int N, double c2) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x > 0 && y > 0 && z > 0 && x < N - 1 && y < N - 1 && z < N - 1) {
        int id = (z * N + y) * N + x;
        double lap = u[id - 1] + u[id + 1] + u[id - N] + u[id + N] + u[id - N * N] + u[id + N * N] - 6.0 * u[id];
        u_next[id] = 2.0 * u[id] - u_prev[id] + c2 * lap;
    }
}
