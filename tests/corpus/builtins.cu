// The built-in variables: threadIdx and blockIdx are read without a traced load (x86-64), once
// per function, and must still be each thread's own after a barrier and in a helper; blockDim
// and gridDim stay variables, so host code may name its own.

__device__ unsigned linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

__device__ unsigned linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// out[block * threads + thread] = block * 1000 + thread, computed before and after a barrier
// (the second time through the helpers); -1 where the two disagree.
__global__ void builtin_ids(int* out) {
  __shared__ unsigned seen[1024];
  const unsigned t = linear_thread();
  const unsigned b = linear_block();
  seen[t] = b * 1000 + t;
  __syncthreads();
  const unsigned again = linear_block() * 1000 + linear_thread();
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  out[b * threads + t] =
      seen[threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)] == again
          ? static_cast<int>(again)
          : -1;
}

// Host code that names its own launch shape, as CUDA programs do.
void launch_shape(unsigned* x) {
  dim3 blockDim(16, 16);
  dim3 gridDim(2, 3);
  *x = blockDim.x * blockDim.y * gridDim.x * gridDim.y;
}
