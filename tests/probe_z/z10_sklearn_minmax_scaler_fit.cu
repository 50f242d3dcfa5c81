// style: scikit-learn MinMaxScaler.fit port (cuML-ish naming with trailing underscores) - one thread per feature of a row-major n_samples x n_features float matrix, unsigned int indices, NaN-ignoring running min/max (np.nanmin/np.nanmax via isnan + continue) seeded with +/-INFINITY, _handle_zeros_in_scale (range < 10*FLT_EPSILON -> 1), four per-feature outputs data_min_, data_max_, scale_, min_ from the feature_range_min/max float scalars
// launch: grid cdiv(n_features, 64) block 64
// sizes: n_samples=97 n_features=45 feature_range_min=0.0 feature_range_max=1.0
// expect: column
#include <cuda_runtime.h>
#include <cfloat>
#include <math.h>

__global__ void minmax_scaler_fit_kernel(const float *X,
                                         unsigned int n_samples,
                                         unsigned int n_features,
                                         float feature_range_min,
                                         float feature_range_max,
                                         float *data_min_,
                                         float *data_max_,
                                         float *scale_,
                                         float *min_)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_features) return;

    float lo = INFINITY;
    float hi = -INFINITY;
    for (unsigned int i = 0; i < n_samples; ++i) {
        float v = X[i * n_features + j];
        if (isnan(v)) continue;
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }

    float data_range = hi - lo;
    // _handle_zeros_in_scale: constant (or empty) features get a unit range
    if (!(data_range >= 10.0f * FLT_EPSILON)) data_range = 1.0f;

    float s = (feature_range_max - feature_range_min) / data_range;
    data_min_[j] = lo;
    data_max_[j] = hi;
    scale_[j] = s;
    min_[j] = feature_range_min - lo * s;
}
