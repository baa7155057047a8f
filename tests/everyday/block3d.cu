// block3d.cu - a 3-D 7-point stencil with a 3-D thread block (8, 8, 4), each block staging its
// 8 x 8 x 4 tile of the volume in a shared cube indexed [z][y][x] from threadIdx.z/y/x. Tile-local
// smoother: a neighbour outside the tile is replaced by the nearest tile value (clamped indices),
// so no halo (and no guard that would leave some warps out) is needed.
//
// Exercises: a warp is 32 consecutive linear thread ids, i.e. x = 0..7, y = 4 consecutive values,
// one z. With the padded cube `float cube[4][8][8 + 1]` lane (x, y) is at word 72 z + 9 y + x:
// rows 9 words apart wrap around the 32 banks within a warp, so the row store and the centre,
// x +- 1 and z +- 1 reads are 2-way conflicts (the clamped y +- 1 reads in half of the warps),
// where the unpadded cube `float cube[4][8][8]` (word 64 z + 8 y + x: 32 consecutive words) is
// conflict-free: padding that helps a column read hurts this row access. Clamped neighbours of
// edge lanes share words with their neighbours (broadcast).
// nvcc (sm_90): one STS and seven LDS of 4 bytes per thread (no merging: the x +- 1 reads are not
// aligned pairs).
//
// Every warp executes every shared instruction with all 32 lanes active. The volume is
// (8 gridDim.x) x (8 gridDim.y) x (4 gridDim.z), x fastest.

constexpr int kX = 8, kY = 8, kZ = 4;

__device__ __forceinline__ int global_index() {
  const int nx = kX * static_cast<int>(gridDim.x), ny = kY * static_cast<int>(gridDim.y);
  const int gx = static_cast<int>(blockIdx.x) * kX + static_cast<int>(threadIdx.x);
  const int gy = static_cast<int>(blockIdx.y) * kY + static_cast<int>(threadIdx.y);
  const int gz = static_cast<int>(blockIdx.z) * kZ + static_cast<int>(threadIdx.z);
  return (gz * ny + gy) * nx + gx;
}

__device__ __forceinline__ int lower(int i) {
  return i > 0 ? i - 1 : 0;
}
__device__ __forceinline__ int upper(int i, int n) {
  return i < n - 1 ? i + 1 : n - 1;
}

// out = 0.4 centre + 0.1 (sum of the six neighbours), padded cube.
__global__ void stencil7_padded(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float cube[kZ][kY][kX + 1];
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y),
            z = static_cast<int>(threadIdx.z);
  const int g = global_index();
  cube[z][y][x] = in[g];
  __syncthreads();
  float v = 0.4f * cube[z][y][x];
  v += 0.1f * (cube[z][y][lower(x)] + cube[z][y][upper(x, kX)]);
  v += 0.1f * (cube[z][lower(y)][x] + cube[z][upper(y, kY)][x]);
  v += 0.1f * (cube[lower(z)][y][x] + cube[upper(z, kZ)][y][x]);
  out[g] = v;
}

// The same stencil on the unpadded cube.
__global__ void stencil7_unpadded(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float cube[kZ][kY][kX];
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y),
            z = static_cast<int>(threadIdx.z);
  const int g = global_index();
  cube[z][y][x] = in[g];
  __syncthreads();
  float v = 0.4f * cube[z][y][x];
  v += 0.1f * (cube[z][y][lower(x)] + cube[z][y][upper(x, kX)]);
  v += 0.1f * (cube[z][lower(y)][x] + cube[z][upper(y, kY)][x]);
  v += 0.1f * (cube[lower(z)][y][x] + cube[upper(z, kZ)][y][x]);
  out[g] = v;
}
