// Inclusive scan, scan_striped (the look-back round of two votes and one redux; warp-striped coalesced
// int4 loads and stores, each warp's 512 values scanned as 4 chunks of 128) with scan_8k's tiles of 8192
// values: blocks of 512 threads, half the tiles and look-back rounds per value; __launch_bounds__(512,
// 3), 3 blocks per SM. The state buffer (cdiv(n, 4096) + 1 words) is used up to cdiv(n, 8192) + 1.
#define TPB 512
#define IPT 16               // values per thread
#define TILE (TPB * IPT)     // 8192 values per tile
#define FLAG_AGG 1ull        // the tile's own total is published
#define FLAG_PREFIX 2ull     // its inclusive prefix (everything up to its end) is published

__device__ __forceinline__ void scan_publish(unsigned long long* word, unsigned long long flag, int value) {
  *reinterpret_cast<volatile unsigned long long*>(word) = (flag << 32) | (unsigned)value;
}

__global__ void __launch_bounds__(TPB, 3) scan(int* __restrict__ out, const int* __restrict__ inp,
                                            unsigned long long* state, int n) {
  __shared__ int warp_tot[TPB / 32];
  __shared__ int tile_s, prefix_s;
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
  if (tid == 0) tile_s = (int)atomicAdd(state, 1ull);
  __syncthreads();
  const int t = tile_s;
  unsigned long long* tiles = state + 1;
  const int wbase = t * TILE + w * (32 * IPT);  // this warp's first value

  int4 q[IPT / 4];  // chunk k: values wbase + 128 k + 4 lane .. + 3
#pragma unroll
  for (int k = 0; k < IPT / 4; ++k) {
    const int pos = wbase + 128 * k + 4 * lane;
    if (pos + 4 <= n) {
      q[k] = __ldcs(reinterpret_cast<const int4*>(inp + pos));
    } else {
      q[k].x = pos < n ? inp[pos] : 0;
      q[k].y = pos + 1 < n ? inp[pos + 1] : 0;
      q[k].z = pos + 2 < n ? inp[pos + 2] : 0;
      q[k].w = pos + 3 < n ? inp[pos + 3] : 0;
    }
  }
  int own[IPT / 4], x[IPT / 4];  // each chunk: this lane's 4 values' total; the warp's inclusive scan of them
#pragma unroll
  for (int k = 0; k < IPT / 4; ++k) {
    q[k].y += q[k].x;
    q[k].z += q[k].y;
    q[k].w += q[k].z;
    own[k] = x[k] = q[k].w;
  }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
#pragma unroll
    for (int k = 0; k < IPT / 4; ++k) {
      const int y = __shfl_up_sync(0xffffffffu, x[k], o);
      if (lane >= o) x[k] += y;
    }
  }
  int run[IPT / 4];  // the chunks before chunk k, within the warp
  int wsum = 0;
#pragma unroll
  for (int k = 0; k < IPT / 4; ++k) {
    run[k] = wsum;
    wsum += __shfl_sync(0xffffffffu, x[k], 31);
  }
  if (lane == 0) warp_tot[w] = wsum;
  __syncthreads();
  int before = 0, agg = 0;  // the warps before this one; the whole tile
#pragma unroll
  for (int k = 0; k < TPB / 32; ++k) {
    const int s = warp_tot[k];
    if (k < w) before += s;
    agg += s;
  }

  if (w == 0) {
    int excl = 0;  // the sum of every tile before t
    if (t == 0) {
      if (lane == 0) scan_publish(tiles, FLAG_PREFIX, agg);
    } else {
      if (lane == 0) scan_publish(tiles + t, FLAG_AGG, agg);
      int nearest = t - 1;  // the window: tiles nearest - 31 .. nearest, lane 0 the nearest
      while (true) {
        const int j = nearest - lane;
        const unsigned long long word =
            j >= 0 ? *reinterpret_cast<volatile unsigned long long*>(tiles + j) : (FLAG_PREFIX << 32);
        const unsigned flag = (unsigned)(word >> 32);
        const unsigned pre = __ballot_sync(0xffffffffu, flag == (unsigned)FLAG_PREFIX);  // inclusive prefixes
        const unsigned none = __ballot_sync(0xffffffffu, flag == 0u);                    // nothing published
        const unsigned upto = pre ? pre ^ (pre - 1) : 0xffffffffu;  // lanes up to the nearest prefix (or all)
        if (none & upto) continue;  // a tile nearer than the nearest prefix has published nothing yet: again
        excl += __reduce_add_sync(0xffffffffu, (upto >> lane) & 1u ? (int)(unsigned)word : 0);
        if (pre) break;
        nearest -= 32;
      }
      if (lane == 0) scan_publish(tiles + t, FLAG_PREFIX, excl + agg);
    }
    if (lane == 0) prefix_s = excl;
  }
  __syncthreads();
  const int base = prefix_s + before;  // everything before this warp's first value
#pragma unroll
  for (int k = 0; k < IPT / 4; ++k) {
    const int add = base + run[k] + x[k] - own[k];  // everything before this lane's values of chunk k
    const int pos = wbase + 128 * k + 4 * lane;
    const int4 o = make_int4(q[k].x + add, q[k].y + add, q[k].z + add, q[k].w + add);
    if (pos + 4 <= n) {
      *reinterpret_cast<int4*>(out + pos) = o;
    } else {
      if (pos < n) out[pos] = o.x;
      if (pos + 1 < n) out[pos + 1] = o.y;
      if (pos + 2 < n) out[pos + 2] = o.z;
      if (pos + 3 < n) out[pos + 3] = o.w;
    }
  }
}
