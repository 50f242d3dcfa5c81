#pragma once
__device__ inline float twice(float x) {
    return x * not_declared;
}
