// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: cols=300 rows=220 q0sqr=0.05
// expect: stencil-tile
// Rodinia SRAD (v2) kernel 1 without shared memory: directional derivatives and diffusion coefficient, clamped borders
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_SIZE 16

__global__ void
srad_cuda_1(
		  float *E_C,
		  float *W_C,
		  float *N_C,
		  float *S_C,
		  float * J_cuda,
		  float * C_cuda,
		  int cols,
		  int rows,
		  float q0sqr
)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= rows || j >= cols) return;

	int index = i * cols + j;
	int iN = (i == 0) ? 0 : i - 1;
	int iS = (i == rows - 1) ? rows - 1 : i + 1;
	int jW = (j == 0) ? 0 : j - 1;
	int jE = (j == cols - 1) ? cols - 1 : j + 1;

	float Jc = J_cuda[index];
	float n = J_cuda[iN * cols + j] - Jc;
	float s = J_cuda[iS * cols + j] - Jc;
	float w = J_cuda[i * cols + jW] - Jc;
	float e = J_cuda[i * cols + jE] - Jc;

	float g2 = (n * n + s * s + w * w + e * e) / (Jc * Jc);
	float l = (n + s + w + e) / Jc;

	float num  = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
	float den  = 1 + (.25f * l);
	float qsqr = num / (den * den);

	// diffusion coefficent (equ 33)
	den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
	float c = 1.0f / (1.0f + den);

	// saturate diffusion coefficent
	if (c < 0) c = 0;
	else if (c > 1) c = 1;

	C_cuda[index] = c;
	N_C[index] = n;
	S_C[index] = s;
	W_C[index] = w;
	E_C[index] = e;
}

int main(int argc, char* argv[])
{
	int rows = argc > 2 ? atoi(argv[1]) : 220;
	int cols = argc > 2 ? atoi(argv[2]) : 300;
	int size_I = cols * rows;
	float q0sqr = 0.05f;

	float *J = (float *)malloc(size_I * sizeof(float));
	for (int k = 0; k < size_I; k++) J[k] = 1.0f + (float)rand() / RAND_MAX;

	float *J_cuda, *C_cuda, *E_C, *W_C, *N_C, *S_C;
	cudaMalloc((void**)& J_cuda, sizeof(float)* size_I);
	cudaMalloc((void**)& C_cuda, sizeof(float)* size_I);
	cudaMalloc((void**)& E_C, sizeof(float)* size_I);
	cudaMalloc((void**)& W_C, sizeof(float)* size_I);
	cudaMalloc((void**)& S_C, sizeof(float)* size_I);
	cudaMalloc((void**)& N_C, sizeof(float)* size_I);
	cudaMemcpy(J_cuda, J, sizeof(float) * size_I, cudaMemcpyHostToDevice);

	dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
	dim3 dimGrid((cols + BLOCK_SIZE - 1) / BLOCK_SIZE, (rows + BLOCK_SIZE - 1) / BLOCK_SIZE);
	srad_cuda_1<<<dimGrid, dimBlock>>>(E_C, W_C, N_C, S_C, J_cuda, C_cuda, cols, rows, q0sqr);
	cudaDeviceSynchronize();

	cudaFree(C_cuda); cudaFree(J_cuda); cudaFree(E_C);
	cudaFree(W_C); cudaFree(N_C); cudaFree(S_C);
	free(J);
	return 0;
}
