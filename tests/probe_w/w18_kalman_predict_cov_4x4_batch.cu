// style: multi-target tracker Kalman predict step on the GPU: one thread per track over an array of 4x4 state covariances, P = F * P * F^T + Q done as two fully unrolled small products in registers (FP temp, then FP * F^T with Q as the initial value), STATE_DIM macro, per-track F and shared Q
// launch: grid cdiv(num_tracks, 128) block 128
// sizes: num_tracks=157
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define STATE_DIM 4
#define KF_THREADS 128

// F: [num_tracks][4][4] constant-velocity transition (dt differs per track)
// P: [num_tracks][4][4] covariance, updated in place
// Q: [4][4] process noise shared by all tracks
__global__ void kf_predict_covariance_kernel(const float* __restrict__ F,
                                             float* __restrict__ P,
                                             const float* __restrict__ Q,
                                             int num_tracks)
{
    const int track = blockIdx.x * blockDim.x + threadIdx.x;
    if (track >= num_tracks) return;

    const float* Ft = F + track * STATE_DIM * STATE_DIM;
    float* Pt = P + track * STATE_DIM * STATE_DIM;

    // FP = F * P
    float FP[STATE_DIM][STATE_DIM];
#pragma unroll
    for (int r = 0; r < STATE_DIM; ++r) {
#pragma unroll
        for (int c = 0; c < STATE_DIM; ++c) {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < STATE_DIM; ++k)
                s += Ft[r * STATE_DIM + k] * Pt[k * STATE_DIM + c];
            FP[r][c] = s;
        }
    }

    // P' = FP * F^T + Q
    float Pn[STATE_DIM][STATE_DIM];
#pragma unroll
    for (int r = 0; r < STATE_DIM; ++r) {
#pragma unroll
        for (int c = 0; c < STATE_DIM; ++c) {
            float s = Q[r * STATE_DIM + c];
#pragma unroll
            for (int k = 0; k < STATE_DIM; ++k)
                s += FP[r][k] * Ft[c * STATE_DIM + k];
            Pn[r][c] = s;
        }
    }

#pragma unroll
    for (int r = 0; r < STATE_DIM; ++r)
#pragma unroll
        for (int c = 0; c < STATE_DIM; ++c)
            Pt[r * STATE_DIM + c] = Pn[r][c];
}

void kf_predict_covariance(const float* d_F, float* d_P, const float* d_Q, int num_tracks, cudaStream_t stream)
{
    const int blocks = (num_tracks + KF_THREADS - 1) / KF_THREADS;
    kf_predict_covariance_kernel<<<blocks, KF_THREADS, 0, stream>>>(d_F, d_P, d_Q, num_tracks);
}
