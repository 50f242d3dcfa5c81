// style: Rodinia hotspot (CUDA) spelling - BLOCK_SIZE 16, bx/by/tx/ty locals, Cap/Rx/Ry/Rz/step scalars with step_div_Cap and Rx_1.. reciprocals, amb_temp as a kernel local, double literals (2.0) promote the update; naive one-cell-per-thread rewrite of calculate_temp (no pyramid) whose chip-edge neighbours are clamped with Rodinia's MIN/MAX macros; host main ping-pongs temp buffers
// launch: grid cdiv(grid_cols, 16), cdiv(grid_rows, 16) block 16, 16
// sizes: grid_cols=77 grid_rows=59 Cap=0.5 Rx=0.2 Ry=0.3 Rz=4.0 step=0.01
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 16
/* maximum power density possible (say 300W for a 10mm x 10mm chip)	*/
#define MAX_PD	(3.0e6)
/* required precision in degrees	*/
#define PRECISION	0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
/* capacitance fitting factor	*/
#define FACTOR_CHIP	0.5

#define MIN(a, b) ((a)<=(b) ? (a) : (b))
#define MAX(a, b) ((a)>=(b) ? (a) : (b))

/* chip parameters	*/
float t_chip = 0.0005;
float chip_height = 0.016;
float chip_width = 0.016;
/* ambient temperature, assuming no package at all	*/
float amb_temp = 80.0;

__global__ void calculate_temp_naive(float *power,   //power input
                                     float *temp_src,    //temperature input/output
                                     float *temp_dst,    //temperature input/output
                                     int grid_cols,  //Col of grid
                                     int grid_rows,  //Row of grid
                                     float Cap,      //Capacitance
                                     float Rx,
                                     float Ry,
                                     float Rz,
                                     float step)
{
	float amb_temp = 80.0;
	float step_div_Cap;
	float Rx_1, Ry_1, Rz_1;

	int bx = blockIdx.x;
	int by = blockIdx.y;

	int tx = threadIdx.x;
	int ty = threadIdx.y;

	step_div_Cap = step/Cap;

	Rx_1 = 1/Rx;
	Ry_1 = 1/Ry;
	Rz_1 = 1/Rz;

	// global position of this cell
	int xidx = BLOCK_SIZE*bx + tx;
	int yidx = BLOCK_SIZE*by + ty;

	if (xidx >= grid_cols || yidx >= grid_rows)
		return;

	int index = grid_cols*yidx + xidx;

	// neighbours, clamped at the chip edge
	int N = grid_cols*MAX(yidx-1, 0) + xidx;
	int S = grid_cols*MIN(yidx+1, grid_rows-1) + xidx;
	int W = grid_cols*yidx + MAX(xidx-1, 0);
	int E = grid_cols*yidx + MIN(xidx+1, grid_cols-1);

	temp_dst[index] = temp_src[index] + step_div_Cap * (power[index] +
		(temp_src[S] + temp_src[N] - 2.0*temp_src[index]) * Ry_1 +
		(temp_src[E] + temp_src[W] - 2.0*temp_src[index]) * Rx_1 +
		(amb_temp - temp_src[index]) * Rz_1);
}

static void single_iteration_cpu(float *result, float *temp, float *power, int row, int col,
                                 float Cap, float Rx, float Ry, float Rz, float step)
{
	for (int r = 0; r < row; r++) {
		for (int c = 0; c < col; c++) {
			int idx = r*col + c;
			int N = MAX(r-1, 0)*col + c;
			int S = MIN(r+1, row-1)*col + c;
			int W = r*col + MAX(c-1, 0);
			int E = r*col + MIN(c+1, col-1);
			result[idx] = temp[idx] + (step/Cap) * (power[idx] +
				(temp[S] + temp[N] - 2.0*temp[idx]) * (1/Ry) +
				(temp[E] + temp[W] - 2.0*temp[idx]) * (1/Rx) +
				(amb_temp - temp[idx]) * (1/Rz));
		}
	}
}

/*
   compute N time steps
*/
int compute_tran_temp(float *MatrixPower, float *MatrixTemp[2], int col, int row,
                      int total_iterations)
{
	dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
	dim3 dimGrid((col + BLOCK_SIZE - 1)/BLOCK_SIZE, (row + BLOCK_SIZE - 1)/BLOCK_SIZE);

	float grid_height = chip_height / row;
	float grid_width = chip_width / col;

	float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
	float Rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
	float Ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
	float Rz = t_chip / (K_SI * grid_height * grid_width);

	float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
	float step = PRECISION / max_slope;

	int src = 1, dst = 0;
	for (int t = 0; t < total_iterations; t++) {
		int temp = src;
		src = dst;
		dst = temp;
		calculate_temp_naive<<<dimGrid, dimBlock>>>(MatrixPower, MatrixTemp[src], MatrixTemp[dst],
			col, row, Cap, Rx, Ry, Rz, step);
	}
	return dst;
}

int main(int argc, char **argv)
{
	int grid_rows = 59, grid_cols = 77, total_iterations = 5;
	int size = grid_rows*grid_cols;

	float *FilesavingTemp = (float *) malloc(size*sizeof(float));
	float *FilesavingPower = (float *) malloc(size*sizeof(float));
	float *MatrixOut = (float *) calloc(size, sizeof(float));
	float *ref[2];
	ref[0] = (float *) malloc(size*sizeof(float));
	ref[1] = (float *) malloc(size*sizeof(float));

	srand(7);
	for (int i = 0; i < size; i++) {
		FilesavingTemp[i] = 323.0f + (rand() % 1000) * 0.01f;
		FilesavingPower[i] = (rand() % 1000) * 1.0e-6f;
	}

	float *MatrixTemp[2], *MatrixPower;
	cudaMalloc((void**)&MatrixTemp[0], sizeof(float)*size);
	cudaMalloc((void**)&MatrixTemp[1], sizeof(float)*size);
	cudaMemcpy(MatrixTemp[0], FilesavingTemp, sizeof(float)*size, cudaMemcpyHostToDevice);
	cudaMalloc((void**)&MatrixPower, sizeof(float)*size);
	cudaMemcpy(MatrixPower, FilesavingPower, sizeof(float)*size, cudaMemcpyHostToDevice);

	int ret = compute_tran_temp(MatrixPower, MatrixTemp, grid_cols, grid_rows, total_iterations);
	cudaMemcpy(MatrixOut, MatrixTemp[ret], sizeof(float)*size, cudaMemcpyDeviceToHost);

	/* CPU reference with the same parameters */
	float grid_height = chip_height / grid_rows;
	float grid_width = chip_width / grid_cols;
	float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
	float Rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
	float Ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
	float Rz = t_chip / (K_SI * grid_height * grid_width);
	float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
	float step = PRECISION / max_slope;
	for (int i = 0; i < size; i++) ref[0][i] = FilesavingTemp[i];
	int cur = 0;
	for (int t = 0; t < total_iterations; t++) {
		single_iteration_cpu(ref[1-cur], ref[cur], FilesavingPower, grid_rows, grid_cols,
			Cap, Rx, Ry, Rz, step);
		cur = 1 - cur;
	}
	double max_err = 0.0;
	for (int i = 0; i < size; i++) {
		double d = fabs((double)MatrixOut[i] - (double)ref[cur][i]);
		if (d > max_err) max_err = d;
	}
	printf("max abs err = %g -> %s\n", max_err, max_err < 1e-2 ? "PASS" : "FAIL");

	cudaFree(MatrixPower);
	cudaFree(MatrixTemp[0]);
	cudaFree(MatrixTemp[1]);
	free(MatrixOut); free(FilesavingTemp); free(FilesavingPower); free(ref[0]); free(ref[1]);
	return 0;
}
