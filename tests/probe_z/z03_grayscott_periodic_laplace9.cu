// style: generative-art / shader-port Gray-Scott reaction-diffusion step (Karl Sims tutorial weights: -1 centre, 0.2 edges, 0.05 corners) on a torus - periodic wrap through (x - 1 + width) % width style neighbour coordinates, AT(f, x, y) macro, two species u/v read and two outputs written per cell, Du/Dv/feed/kill/dt float scalars; host main runs a few steps from a seeded square and checks against a CPU loop
// launch: grid cdiv(width, 16), cdiv(height, 16) block 16, 16
// sizes: width=77 height=53 Du=1.0 Dv=0.5 feed=0.055 kill=0.062 dt=1.0
// expect: stencil-tile|stencil-march|stencil-window
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define AT(f, x, y) (f)[(y) * width + (x)]

__global__ void gray_scott_step(const float *u, const float *v,
                                float *u_out, float *v_out,
                                int width, int height,
                                float Du, float Dv, float feed, float kill, float dt)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    // wrap around the edges (torus)
    int xm = (x - 1 + width) % width;
    int xp = (x + 1) % width;
    int ym = (y - 1 + height) % height;
    int yp = (y + 1) % height;

    float uc = AT(u, x, y);
    float vc = AT(v, x, y);

    float lapU = -1.0f * uc
               + 0.2f  * (AT(u, xm, y) + AT(u, xp, y) + AT(u, x, ym) + AT(u, x, yp))
               + 0.05f * (AT(u, xm, ym) + AT(u, xp, ym) + AT(u, xm, yp) + AT(u, xp, yp));
    float lapV = -1.0f * vc
               + 0.2f  * (AT(v, xm, y) + AT(v, xp, y) + AT(v, x, ym) + AT(v, x, yp))
               + 0.05f * (AT(v, xm, ym) + AT(v, xp, ym) + AT(v, xm, yp) + AT(v, xp, yp));

    float uvv = uc * vc * vc;
    AT(u_out, x, y) = uc + (Du * lapU - uvv + feed * (1.0f - uc)) * dt;
    AT(v_out, x, y) = vc + (Dv * lapV + uvv - (feed + kill) * vc) * dt;
}

static void gray_scott_cpu(const float *u, const float *v, float *u_out, float *v_out,
                           int width, int height, float Du, float Dv, float feed, float kill, float dt)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            int xm = (x - 1 + width) % width, xp = (x + 1) % width;
            int ym = (y - 1 + height) % height, yp = (y + 1) % height;
            float uc = AT(u, x, y), vc = AT(v, x, y);
            float lapU = -uc + 0.2f * (AT(u, xm, y) + AT(u, xp, y) + AT(u, x, ym) + AT(u, x, yp))
                       + 0.05f * (AT(u, xm, ym) + AT(u, xp, ym) + AT(u, xm, yp) + AT(u, xp, yp));
            float lapV = -vc + 0.2f * (AT(v, xm, y) + AT(v, xp, y) + AT(v, x, ym) + AT(v, x, yp))
                       + 0.05f * (AT(v, xm, ym) + AT(v, xp, ym) + AT(v, xm, yp) + AT(v, xp, yp));
            float uvv = uc * vc * vc;
            AT(u_out, x, y) = uc + (Du * lapU - uvv + feed * (1.0f - uc)) * dt;
            AT(v_out, x, y) = vc + (Dv * lapV + uvv - (feed + kill) * vc) * dt;
        }
}

int main()
{
    const int width = 77, height = 53, steps = 20;
    const float Du = 1.0f, Dv = 0.5f, feed = 0.055f, kill = 0.062f, dt = 1.0f;
    const size_t n = (size_t)width * height;

    std::vector<float> hu(n, 1.0f), hv(n, 0.0f);
    for (int y = height / 2 - 5; y < height / 2 + 5; y++)
        for (int x = width / 2 - 5; x < width / 2 + 5; x++) {
            hu[y * width + x] = 0.5f;
            hv[y * width + x] = 0.25f + 0.01f * (rand() % 10);
        }
    std::vector<float> ru[2] = {hu, hu}, rv[2] = {hv, hv};

    float *du[2], *dv[2];
    for (int b = 0; b < 2; b++) {
        cudaMalloc(&du[b], n * sizeof(float));
        cudaMalloc(&dv[b], n * sizeof(float));
    }
    cudaMemcpy(du[0], hu.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dv[0], hv.data(), n * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    int cur = 0;
    for (int s = 0; s < steps; s++) {
        gray_scott_step<<<grid, block>>>(du[cur], dv[cur], du[1 - cur], dv[1 - cur],
                                         width, height, Du, Dv, feed, kill, dt);
        gray_scott_cpu(ru[cur].data(), rv[cur].data(), ru[1 - cur].data(), rv[1 - cur].data(),
                       width, height, Du, Dv, feed, kill, dt);
        cur = 1 - cur;
    }
    std::vector<float> ou(n), ov(n);
    cudaMemcpy(ou.data(), du[cur], n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(ov.data(), dv[cur], n * sizeof(float), cudaMemcpyDeviceToHost);

    double err = 0.0;
    for (size_t i = 0; i < n; i++) {
        err = fmax(err, fabs(ou[i] - ru[cur][i]));
        err = fmax(err, fabs(ov[i] - rv[cur][i]));
    }
    printf("max err %g %s\n", err, err < 1e-4 ? "PASS" : "FAIL");
    for (int b = 0; b < 2; b++) { cudaFree(du[b]); cudaFree(dv[b]); }
    return err < 1e-4 ? 0 : 1;
}
