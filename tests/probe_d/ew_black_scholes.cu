// launch: grid cdiv(optN, 128) block 128
// sizes: Riskfree=0.02 Volatility=0.30 optN=200000
// expect:
// NVIDIA CUDA samples BlackScholes: call/put prices per option with the polynomial CND approximation, grid-stride loop
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

///////////////////////////////////////////////////////////////////////////////
// Polynomial approximation of cumulative normal distribution function
///////////////////////////////////////////////////////////////////////////////
__device__ inline float cndGPU(float d)
{
    const float       A1 = 0.31938153f;
    const float       A2 = -0.356563782f;
    const float       A3 = 1.781477937f;
    const float       A4 = -1.821255978f;
    const float       A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;

    float
    K = __fdividef(1.0f, (1.0f + 0.2316419f * fabsf(d)));

    float
    cnd = RSQRT2PI * __expf(- 0.5f * d * d) *
          (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));

    if (d > 0)
        cnd = 1.0f - cnd;

    return cnd;
}

///////////////////////////////////////////////////////////////////////////////
// Black-Scholes formula for both call and put
///////////////////////////////////////////////////////////////////////////////
__device__ inline void BlackScholesBodyGPU(
    float &CallResult,
    float &PutResult,
    float S, //Stock price
    float X, //Option strike
    float T, //Option years
    float R, //Riskless rate
    float V  //Volatility rate
)
{
    float sqrtT, expRT;
    float d1, d2, CNDD1, CNDD2;

    sqrtT = __fdividef(1.0F, rsqrtf(T));
    d1 = __fdividef(__logf(S / X) + (R + 0.5f * V * V) * T, V * sqrtT);
    d2 = d1 - V * sqrtT;

    CNDD1 = cndGPU(d1);
    CNDD2 = cndGPU(d2);

    //Calculate Call and Put simultaneously
    expRT = __expf(- R * T);
    CallResult = S * CNDD1 - X * expRT * CNDD2;
    PutResult  = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
}

////////////////////////////////////////////////////////////////////////////////
//Process an array of optN options on GPU
////////////////////////////////////////////////////////////////////////////////
__global__ void BlackScholesGPU(
    float *d_CallResult,
    float *d_PutResult,
    float *d_StockPrice,
    float *d_OptionStrike,
    float *d_OptionYears,
    float Riskfree,
    float Volatility,
    int optN
)
{
    const int opt = blockDim.x * blockIdx.x + threadIdx.x;

    for (int i = opt; i < optN; i += blockDim.x * gridDim.x)
    {
        float callResult, putResult;
        BlackScholesBodyGPU(
            callResult,
            putResult,
            d_StockPrice[i],
            d_OptionStrike[i],
            d_OptionYears[i],
            Riskfree,
            Volatility
        );
        d_CallResult[i] = callResult;
        d_PutResult[i]  = putResult;
    }
}

float RandFloat(float low, float high)
{
    float t = (float)rand() / (float)RAND_MAX;
    return (1.0f - t) * low + t * high;
}

const int OPT_N = 200000;
const float RISKFREE = 0.02f;
const float VOLATILITY = 0.30f;

int main(int argc, char **argv)
{
    float *h_StockPrice = (float *)malloc(OPT_N * sizeof(float));
    float *h_OptionStrike = (float *)malloc(OPT_N * sizeof(float));
    float *h_OptionYears = (float *)malloc(OPT_N * sizeof(float));
    for (int i = 0; i < OPT_N; i++)
    {
        h_StockPrice[i]   = RandFloat(5.0f, 30.0f);
        h_OptionStrike[i] = RandFloat(1.0f, 100.0f);
        h_OptionYears[i]  = RandFloat(0.25f, 10.0f);
    }

    float *d_CallResult, *d_PutResult, *d_StockPrice, *d_OptionStrike, *d_OptionYears;
    cudaMalloc((void **)&d_CallResult,   OPT_N * sizeof(float));
    cudaMalloc((void **)&d_PutResult,    OPT_N * sizeof(float));
    cudaMalloc((void **)&d_StockPrice,   OPT_N * sizeof(float));
    cudaMalloc((void **)&d_OptionStrike, OPT_N * sizeof(float));
    cudaMalloc((void **)&d_OptionYears,  OPT_N * sizeof(float));

    cudaMemcpy(d_StockPrice,  h_StockPrice,   OPT_N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_OptionStrike, h_OptionStrike,  OPT_N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_OptionYears,  h_OptionYears,   OPT_N * sizeof(float), cudaMemcpyHostToDevice);

    BlackScholesGPU<<<(OPT_N + 127) / 128, 128>>>(
        d_CallResult, d_PutResult, d_StockPrice, d_OptionStrike, d_OptionYears,
        RISKFREE, VOLATILITY, OPT_N);
    cudaDeviceSynchronize();

    cudaFree(d_OptionYears); cudaFree(d_OptionStrike); cudaFree(d_StockPrice);
    cudaFree(d_PutResult); cudaFree(d_CallResult);
    free(h_OptionYears); free(h_OptionStrike); free(h_StockPrice);
    return 0;
}
