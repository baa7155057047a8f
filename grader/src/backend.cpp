// backend.cpp - choosing a backend (MODE=cpu|gpu|auto) and where the course's root is: the one
// place that knows both backends (cpu_backend.cpp, gpu_backend.cpp), which share only the worker
// process helpers (worker_process.cpp).
#include "grader/backend.hpp"

#include <cstdio>
#include <cstdlib>

#include "grader/sandbox.hpp"

#ifndef COURSE_SOURCE_DIR
#error "COURSE_SOURCE_DIR must be set by CMake"
#endif

namespace grader {
namespace fs = std::filesystem;

fs::path course_root() {
  if (const char* env = std::getenv("COURSE_ROOT"); env != nullptr && *env != '\0') return env;
  return COURSE_SOURCE_DIR;
}

std::unique_ptr<Backend> make_backend(const std::string& mode, const BackendOptions& options,
                                      std::string* why) {
  if (options.sandbox && !sandbox_available(why)) {
    *why = "no sandbox for student code: " + *why;
    return nullptr;
  }
  const bool gpu_present = std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
  if (mode == "cpu" || (mode == "auto" && !gpu_present)) return make_cpu_backend(options);
  if (mode == "gpu" || mode == "auto") {
    if (!gpu_present) {
      *why =
          "MODE=gpu: no NVIDIA GPU found (nvidia-smi -L failed); grade on the CPU with "
          "MODE=cpu, or run on a machine with a GPU";
      return nullptr;
    }
    auto gpu = make_gpu_backend(options, why);
    if (!gpu && mode == "auto") {
      std::fprintf(stderr, "grade: %s\ngrade: using the CPU model instead\n", why->c_str());
      return make_cpu_backend(options);
    }
    return gpu;
  }
  *why = "unknown MODE '" + mode + "': use cpu, gpu or auto";
  return nullptr;
}

}  // namespace grader
