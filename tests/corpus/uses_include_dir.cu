// uses_include_dir.cu - a header from another folder (-I) and a -D choosing the padding: with
// PAD=1 the column read of the tile is conflict-free, without it 32-way.
#include "tile_config.h"

__global__ void column_read(float* out) {
  __shared__ float tile[kTile][kTile + PAD];
  tile[threadIdx.x][0] = static_cast<float>(threadIdx.x);
  for (int c = 1; c < kTile; ++c) tile[threadIdx.x][c] = 0.0f;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][0];  // @column
}
