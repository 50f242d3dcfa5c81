// variable-coefficient diffusion over a flat index (unsigned, nested ifs), kappa read at the point
__global__ void diffuse(float* out, const float* u, const float* kappa, unsigned int N, float dt) {
    unsigned int idx = blockDim.x * blockIdx.x + threadIdx.x;
    if (idx < N * N) {
        unsigned int i = idx / N, j = idx % N;
        if (i > 0 && j > 0 && i < N - 1 && j < N - 1) {
            float lap = u[idx - N] + u[idx + N] + u[idx - 1] + u[idx + 1] - 4.0f * u[idx];
            out[idx] = u[idx] + dt * kappa[idx] * lap;
        }
    }
}
