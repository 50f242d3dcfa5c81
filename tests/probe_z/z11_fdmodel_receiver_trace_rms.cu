// style: finite-difference modelling code post-processing its receiver recording - the shot gather is stored time-major as written during time stepping (rec[it*nrec + irec]), one thread per receiver trace walks its column with a `const float *tr = rec + ir` pointer and `tr[it * nrec]`, accumulating energy and peak |a| for trace QC, writes rms[ir] = sqrtf(s2 / nt) and peak[ir]; whole body inside `if (ir < nrec)`; host main with CPU check
// launch: grid cdiv(nrec, 64) block 64
// sizes: nt=301 nrec=67
// expect: column
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

__global__ void trace_rms_peak(const float *rec, int nt, int nrec, float *rms, float *peak)
{
    int ir = threadIdx.x + blockIdx.x * blockDim.x;
    if (ir < nrec) {
        const float *tr = rec + ir;
        float s2 = 0.0f, amax = 0.0f;
        for (int it = 0; it < nt; it++) {
            float a = tr[it * nrec];
            s2 += a * a;
            amax = fmaxf(amax, fabsf(a));
        }
        rms[ir] = sqrtf(s2 / (float)nt);
        peak[ir] = amax;
    }
}

int main(void)
{
    const int nt = 301, nrec = 67;
    const float dt = 0.002f, f0 = 15.0f;
    float *rec = (float *)malloc(sizeof(float) * nt * nrec);
    float *rms = (float *)malloc(sizeof(float) * nrec);
    float *peak = (float *)malloc(sizeof(float) * nrec);

    /* Ricker wavelets with a linear moveout across the spread */
    for (int it = 0; it < nt; it++)
        for (int ir = 0; ir < nrec; ir++) {
            float t = it * dt - 0.1f - 0.002f * ir;
            float a = (float)(M_PI * f0 * t);
            rec[it * nrec + ir] = (1.0f - 2.0f * a * a) * expf(-a * a) / (1.0f + 0.05f * ir);
        }

    float *d_rec, *d_rms, *d_peak;
    cudaMalloc((void **)&d_rec, sizeof(float) * nt * nrec);
    cudaMalloc((void **)&d_rms, sizeof(float) * nrec);
    cudaMalloc((void **)&d_peak, sizeof(float) * nrec);
    cudaMemcpy(d_rec, rec, sizeof(float) * nt * nrec, cudaMemcpyHostToDevice);

    trace_rms_peak<<<(nrec + 63) / 64, 64>>>(d_rec, nt, nrec, d_rms, d_peak);
    cudaMemcpy(rms, d_rms, sizeof(float) * nrec, cudaMemcpyDeviceToHost);
    cudaMemcpy(peak, d_peak, sizeof(float) * nrec, cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int ir = 0; ir < nrec; ir++) {
        double s2 = 0.0, amax = 0.0;
        for (int it = 0; it < nt; it++) {
            double a = rec[it * nrec + ir];
            s2 += a * a;
            if (fabs(a) > amax) amax = fabs(a);
        }
        if (fabs(sqrt(s2 / nt) - rms[ir]) > 1e-5 || fabs(amax - peak[ir]) > 1e-6) bad++;
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    cudaFree(d_rec); cudaFree(d_rms); cudaFree(d_peak);
    free(rec); free(rms); free(peak);
    return bad != 0;
}
