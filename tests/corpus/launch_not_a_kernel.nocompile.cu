// launch_not_a_kernel.nocompile.cu - a launch of something that is not a kernel (a function
// object): the error must say so in the file's terms, without banksim's launch helpers.
struct Scale {
  void operator()(float* out) const { out[0] *= 2.0f; }
};

__global__ void twice(float* out) {
  out[threadIdx.x] *= 2.0f;
}

void run(float* out) {
  Scale scale;
  scale<<<1, 32>>>(out);
}
