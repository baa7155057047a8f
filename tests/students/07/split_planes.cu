// Student: splits each double into its two 32-bit halves, kept in two padded int tiles, so that
// every shared access is 4 bytes wide.
#include "course_todo.h"

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_double(double* out, const double* in, int n) {
  __shared__ int lo[kTile][kTile + 1];
  __shared__ int hi[kTile][kTile + 1];
  const int2* in2 = reinterpret_cast<const int2*>(in);
  int2* out2 = reinterpret_cast<int2*>(out);
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) {
      const int2 v = in2[(y + j) * n + x];
      lo[threadIdx.y + j][threadIdx.x] = v.x;
      hi[threadIdx.y + j][threadIdx.x] = v.y;
    }
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) {
      out2[(oy + j) * n + ox] =
          make_int2(lo[threadIdx.x][threadIdx.y + j], hi[threadIdx.x][threadIdx.y + j]);
    }
  }
}
