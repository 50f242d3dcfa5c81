// b_int_divmod.cu -- add a per-channel bias to an NCHW tensor (grid-stride loop).
// Defect: the channel of element i is computed as (i / hw) % channels inside the loop,
// with hw and channels known only at run time: every iteration runs two ~20-instruction
// integer-division sequences (I2F.U32.RP, MUFU.RCP, IMAD.HI, fix-ups).
// Found by: int-div-mod-index (kernelpro.profilers.rules.unroll).
// Fixed twin: b_int_divmod_fixed.cu (one plane per blockIdx.y; the channel is computed
// once per thread, outside the loop).

__global__ void add_channel_bias(const float* __restrict__ in, const float* __restrict__ bias,
                                 float* __restrict__ out, int planes, int channels, int hw) {
  int total = planes * hw;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {
    out[i] = in[i] + bias[(i / hw) % channels];
  }
}

void launch_add_channel_bias(const float* in, const float* bias, float* out, int planes, int channels, int hw) {
  add_channel_bias<<<1024, 256>>>(in, bias, out, planes, channels, hw);
}
