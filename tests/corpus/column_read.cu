// Corpus: the column read of a 32x32 float tile, unpadded (32-way) and padded (conflict-free).
constexpr int kTile = 32;

__global__ void column_read_naive(float* out) {
  __shared__ float tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty][tx] = static_cast<float>(ty * kTile + tx);  // row write: bank tx, conflict-free
  __syncthreads();
  out[ty * kTile + tx] = tile[tx][ty];  // lane tx reads word 32*tx+ty: all in bank ty, 32-way
}

__global__ void column_read_padded(float* out) {
  __shared__ float tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty][tx] = static_cast<float>(ty * kTile + tx);
  __syncthreads();
  out[ty * kTile + tx] = tile[tx][ty];  // word 33*tx+ty: bank (tx+ty)%32, 32 distinct banks
}
