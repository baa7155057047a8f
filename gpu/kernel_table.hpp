// gpu/kernel_table.hpp - pointers to every kernel the registry names (baselines, solutions,
// variants, demos), for the GPU programs. The table itself is generated from the registry by
// `course-registry kernel-table OUT ROOT` (CMake and scripts/gpu-measure.sh run it): each kernel
// file is compiled as its own translation unit, in its own namespace, so no file's constants or
// macros reach another.
/// \file
/// Pointers to every kernel the registry names, for the GPU programs (generated table).
#pragma once

#include <cstring>
#include <string>

namespace course::gpu {

/// One kernel: where it is, and a function returning its host-side handle for cudaLaunchKernel.
struct KernelEntry {
  const char* file;         ///< relative to the repository root
  const char* kernel;       ///< its name as the registry writes it
  const void* (*handle)();  ///< the kernel's address
};

/// Every kernel the registry names (the generated table).
extern const KernelEntry kKernelTable[];
/// Number of entries of kKernelTable.
extern const int kKernelTableSize;

/// The handle of `kernel` in `file`, or nullptr when the registry names no such kernel.
inline const void* find_kernel(const std::string& file, const std::string& kernel) {
  for (int i = 0; i < kKernelTableSize; ++i) {
    if (file == kKernelTable[i].file && kernel == kKernelTable[i].kernel) {
      return kKernelTable[i].handle();
    }
  }
  return nullptr;
}

}  // namespace course::gpu
