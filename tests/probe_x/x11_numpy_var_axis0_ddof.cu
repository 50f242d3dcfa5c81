// style: NumPy-port spelling of np.var(a, axis=0, ddof=ddof) - two passes per column inside one thread (mean, then sum of squared deviations), `ddof` int parameter with NaN when nrows - ddof <= 0, both the column mean and the variance written out, float data with float accumulators, row-major a[i * ncols + j]
// launch: grid cdiv(ncols, 64) block 64
// sizes: nrows=91 ncols=45 ddof=1
// expect: column
#include <math.h>
#include <cuda_runtime.h>

__global__ void var_axis0_kernel(const float* __restrict__ a,
                                 float* __restrict__ mean_out,
                                 float* __restrict__ var_out,
                                 int nrows, int ncols, int ddof)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ncols) {
        // pass 1: mean
        float s = 0.0f;
        for (int i = 0; i < nrows; i++) {
            s += a[i * ncols + j];
        }
        float mean = s / (float)nrows;

        // pass 2: sum of squared deviations
        float ss = 0.0f;
        for (int i = 0; i < nrows; i++) {
            float d = a[i * ncols + j] - mean;
            ss += d * d;
        }

        int dof = nrows - ddof;
        mean_out[j] = mean;
        var_out[j] = (dof > 0) ? ss / (float)dof : NAN;
    }
}
