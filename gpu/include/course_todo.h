// course_todo.h - what an unfilled TODO block of an exercise runs: it fails loudly, on the GPU
// (a trap: the launch fails), under banksim and in host code (a message, then abort()).
// Included by every exercise and solution file; compiles with nvcc, clang and g++. banksim
// defines __CUDA_ARCH__ as nvcc's device pass does, and __BANKSIM__: under it the message and
// abort() of the host branch name the TODO in the report.
#pragma once

#include <cstdio>
#include <cstdlib>

#if !defined(__CUDACC__) && !defined(__global__)
#define __host__
#define __device__
#endif

__host__ __device__ inline void course_todo(const char* id) {
#if defined(__CUDA_ARCH__) && !defined(__BANKSIM__)
  if (threadIdx.x == 0 && threadIdx.y == 0 && blockIdx.x == 0 && blockIdx.y == 0) {
    printf("%s is not done yet: write its block, then delete its course_todo line\n", id);
  }
  __trap();
#else
  std::fprintf(stderr, "%s is not done yet: write its block, then delete its course_todo line\n",
               id);
  std::fflush(stderr);
  std::abort();
#endif
}

/// Stops the kernel when a launch precondition does not hold: on the GPU a trap (the launch
/// fails), under banksim and in host code a message naming the precondition, then abort().
///   COURSE_EXPECT(blockDim.x == 256 && m % 128 == 0, "block 256, m a multiple of 128");
#define COURSE_EXPECT(cond, what)                   \
  do {                                              \
    if (!(cond)) course_expect_failed(#cond, what); \
  } while (0)

__host__ __device__ inline void course_expect_failed(const char* cond, const char* what) {
#if defined(__CUDA_ARCH__) && !defined(__BANKSIM__)
  printf("launch precondition failed: %s (%s)\n", what, cond);
  __trap();
#else
  std::fprintf(stderr, "launch precondition failed: %s (%s)\n", what, cond);
  std::fflush(stderr);
  std::abort();
#endif
}
