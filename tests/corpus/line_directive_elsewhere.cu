// line_directive_elsewhere.cu - a #line naming a file outside the kernel's folder: banksim's
// report must not quote that file's lines (a submission could name any readable file).
#line 1 "/etc/passwd"
__global__ void copy_quoted(float* out, const float* in) {
  out[threadIdx.x] = in[threadIdx.x];
}
