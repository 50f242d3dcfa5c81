// style: torchaudio MelScale forward (fb is (n_freqs, n_mels), specgram is (batch, n_freqs, time)) as a raw kernel: mel = fb^T @ specgram per batch on blockIdx.z, k loop over frequency bins walks two pointers with `w += n_mels; s += n_time;`, optional log-mel epilogue behind a bool flag with an amin clamp
// launch: grid cdiv(n_time, 32), cdiv(n_mels, 8), batch block 32, 8
// sizes: batch=3 n_freqs=129 n_mels=41 n_time=75 log_mel=1
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <cstddef>

__global__ void melscale_forward_kernel(const float* __restrict__ specgram,  // (batch, n_freqs, n_time)
                                        const float* __restrict__ fb,        // (n_freqs, n_mels)
                                        float* __restrict__ mel_specgram,    // (batch, n_mels, n_time)
                                        int batch, int n_freqs, int n_mels, int n_time,
                                        bool log_mel)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int m = blockIdx.y * blockDim.y + threadIdx.y;
    const int b = blockIdx.z;
    if (b >= batch || m >= n_mels || t >= n_time) return;

    const float* s = specgram + (size_t)b * n_freqs * n_time + t;
    const float* w = fb + m;
    float acc = 0.0f;
    for (int f = 0; f < n_freqs; ++f) {
        acc += (*w) * (*s);
        w += n_mels;
        s += n_time;
    }
    if (log_mel) {
        acc = logf(fmaxf(acc, 1e-10f));
    }
    mel_specgram[(size_t)b * n_mels * n_time + (size_t)m * n_time + t] = acc;
}

void melscale_forward(const float* specgram, const float* fb, float* mel_specgram,
                      int batch, int n_freqs, int n_mels, int n_time, bool log_mel)
{
    dim3 block(32, 8, 1);
    dim3 grid((n_time + 31) / 32, (n_mels + 7) / 8, batch);
    melscale_forward_kernel<<<grid, block>>>(specgram, fb, mel_specgram, batch, n_freqs, n_mels, n_time, log_mel);
}
