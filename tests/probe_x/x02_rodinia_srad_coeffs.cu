// style: Rodinia srad_v2 spelling - index = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx, J_cuda/C_cuda/E_C/W_C/N_C/S_C arrays, q0sqr scalar, double literals (0.5, .25, 1.0/16.0) in float math, five outputs per cell; naive global-memory srad_cuda_1 whose image-edge neighbours fall back to the centre index through ternaries (clamped), row/col tail guard added
// kernel: srad_cuda_1
// launch: grid cdiv(cols, 16), cdiv(rows, 16) block 16, 16
// sizes: cols=83 rows=71 q0sqr=0.05
// expect: stencil-tile|stencil-window|stencil-march
#include <cuda_runtime.h>

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
  //block id
  int bx = blockIdx.x;
  int by = blockIdx.y;

  //thread id
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int row = BLOCK_SIZE * by + ty;
  int col = BLOCK_SIZE * bx + tx;
  if (row >= rows || col >= cols) return;

  //indices
  int index   = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx;
  int index_n = (row == 0)        ? index : index - cols;
  int index_s = (row == rows - 1) ? index : index + cols;
  int index_w = (col == 0)        ? index : index - 1;
  int index_e = (col == cols - 1) ? index : index + 1;

  float n, w, e, s, jc, g2, l, num, den, qsqr, c;

  jc = J_cuda[index];

  n = J_cuda[index_n] - jc;
  s = J_cuda[index_s] - jc;
  w = J_cuda[index_w] - jc;
  e = J_cuda[index_e] - jc;

  g2 = ( n * n + s * s + w * w + e * e ) / (jc * jc);

  l = ( n + s + w + e ) / jc;

  num  = (0.5*g2) - ((1.0/16.0)*(l*l)) ;
  den  = 1 + (.25*l);
  qsqr = num/(den*den);

  // diffusion coefficent (equ 33)
  den = (qsqr-q0sqr) / (q0sqr * (1+q0sqr)) ;
  c = 1.0 / (1.0+den) ;

  // saturate diffusion coefficent
  if (c < 0){c = 0;}
  else if (c > 1) {c = 1;}

  C_cuda[index] = c;
  E_C[index] = e;
  W_C[index] = w;
  S_C[index] = s;
  N_C[index] = n;
}

__global__ void
srad_cuda_2(
		  float *E_C,
		  float *W_C,
		  float *N_C,
		  float *S_C,
		  float * J_cuda,
		  float * C_cuda,
		  int cols,
		  int rows,
		  float lambda,
		  float q0sqr
)
{
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int row = BLOCK_SIZE * by + ty;
  int col = BLOCK_SIZE * bx + tx;
  if (row >= rows || col >= cols) return;

  int index   = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx;
  int index_s = (row == rows - 1) ? index : index + cols;
  int index_e = (col == cols - 1) ? index : index + 1;

  float cc, cn, cs, ce, cw, d_sum;

  cc = C_cuda[index];
  cn = cc;
  cw = cc;
  cs = C_cuda[index_s];
  ce = C_cuda[index_e];

  // divergence (equ 58)
  d_sum = cn * N_C[index] + cs * S_C[index] + cw * W_C[index] + ce * E_C[index];

  // image update (equ 61)
  J_cuda[index] = J_cuda[index] + 0.25 * lambda * d_sum;
}
