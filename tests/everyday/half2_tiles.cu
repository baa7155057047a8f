// half2_tiles.cu - half-precision tiles as mixed-precision kernels write them (<cuda_fp16.h>):
// pairs of floats packed with __floats2half2_rn, staged in shared memory as half2 (4 bytes),
// combined with __hadd2 / __hmul2 and unpacked with __low2float / __high2float; and a tile of
// single __half values (2-byte accesses) read down a column.
//
// Exercises:
//   half2_transpose: `half2 t[32][33]` (block 32x8, 4 rows per thread): row stores t[ty + j][tx]
//     and row reads t[ty + j][tx ^ 1] (conflict-free), column reads t[tx][ty + j] (padded:
//     conflict-free). nvcc (sm_90): STS / LDS of 4 bytes.
//   half_columns: `__half h[32][32]` and `__half hp[32][34]`, row stores of 2 bytes (two lanes
//     per word), column reads h[tx][c] (lane tx at word 16 tx: banks 0 and 16 only, 16-way) and
//     hp[tx][c] (word 17 tx: conflict-free). nvcc (sm_90): STS.U16 / LDS.U16.
//
// Every warp executes every shared instruction with all 32 lanes active; shared indices depend
// only on thread and block indices.
#include <cuda_fp16.h>

constexpr int kTile = 32;
constexpr int kRows = 8;  // blockDim.y

// in: height x (2 width) floats, read as width x height pairs; out[x][y] (width x height floats)
// gets lo + hi of (in[y][x] * 0.5 + in[y][x ^ 1]) * in^T, all in half2 arithmetic.
__global__ void half2_transpose(const float* __restrict__ in, float* __restrict__ out, int width,
                                int height) {
  __shared__ half2 t[kTile][kTile + 1];
  const int x = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.y);
  for (int j = 0; j < kTile; j += kRows) {
    const int p = 2 * ((y + j) * width + x);
    t[threadIdx.y + j][threadIdx.x] = __floats2half2_rn(in[p], in[p + 1]);
  }
  __syncthreads();
  const half2 half_scale = __floats2half2_rn(0.5f, 0.5f);
  const int ox = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.x);
  const int oy = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.y);
  for (int j = 0; j < kTile; j += kRows) {
    const half2 own = t[threadIdx.y + j][threadIdx.x];       // a row read
    const half2 next = t[threadIdx.y + j][threadIdx.x ^ 1];  // a row read, lanes swapped in pairs
    const half2 col = t[threadIdx.x][threadIdx.y + j];       // a column read
    const half2 v = __hmul2(__hadd2(__hmul2(own, half_scale), next), col);
    out[(oy + j) * height + ox] = __low2float(v) + __high2float(v);
  }
}

// A tile of halves read down a column, unpadded and padded by two halves (one word).
// out has 2 * 32 * 32 floats per block.
__global__ void half_columns(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ __half h[kTile][kTile];
  __shared__ __half hp[kTile][kTile + 2];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const float* src = in + blockIdx.x * kTile * kTile;
  for (int j = 0; j < kTile; j += kRows) {
    const __half v = __float2half(src[(ty + j) * kTile + tx]);
    h[ty + j][tx] = v;
    hp[ty + j][tx] = v;
  }
  __syncthreads();
  float* dst = out + blockIdx.x * 2 * kTile * kTile;
  for (int j = 0; j < kTile; j += kRows) {
    dst[(ty + j) * kTile + tx] = __half2float(h[tx][ty + j]);  // 16-way: banks 0 and 16
    dst[kTile * kTile + (ty + j) * kTile + tx] = __half2float(hp[tx][ty + j]);  // conflict-free
  }
}
