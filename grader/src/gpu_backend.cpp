// gpu_backend.cpp - the GPU backend: builds the student's kernel with nvcc for the detected
// architecture into a worker that times it with CUDA events and reads the shared-memory
// wavefront counters with Nsight Compute.
//
// Status: the GPU worker is developed and calibrated on the H200 (see the GPU issue); until it
// lands, MODE=gpu says so and MODE=auto falls back to the CPU model with that reason.
#include "grader/backend.hpp"

namespace grader {

std::unique_ptr<Backend> make_gpu_backend(std::string* why) {
  *why =
      "MODE=gpu: a GPU is present, but this version of the grader has no GPU worker yet; "
      "grade with MODE=cpu (the bank model), which judges the same gates";
  return nullptr;
}

}  // namespace grader
