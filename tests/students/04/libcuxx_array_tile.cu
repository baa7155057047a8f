// Student: writes the padded tile with the CUDA toolkit's libcu++ (cuda::std::array rows of 33
// floats) and cuda::std::uint32_t indices, as code written against CCCL does.
#include <cuda/std/array>
#include <cuda/std/cstdint>

#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;
using Row = cuda::std::array<float, kTile + 1>;  // 33 floats: bank (r + c) % 32

__global__ void transpose_tiled(float* out, const float* in, int n) {
  __shared__ cuda::std::array<Row, kTile> tile;
  const cuda::std::uint32_t tx = threadIdx.x;
  const cuda::std::uint32_t ty = threadIdx.y;
  const int x = static_cast<int>(blockIdx.x * kTile + tx);
  const int y = static_cast<int>(blockIdx.y * kTile + ty);
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[ty + j][tx] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = static_cast<int>(blockIdx.y * kTile + tx);
  const int oy = static_cast<int>(blockIdx.x * kTile + ty);
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[tx][ty + j];
  }
}
