// Does not compile, on purpose (tests/test_banksim.cpp): a kernel that writes a built-in
// variable. nvcc refuses it ("expression must be a modifiable lvalue"), and so does banksim.
__global__ void resize(float* out) {
  blockDim.x = 64;
  out[threadIdx.x] = 1.0f;
}
