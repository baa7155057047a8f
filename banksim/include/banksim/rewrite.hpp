// banksim/rewrite.hpp - the small source rewrite that lets clang compile a .cu file as host C++.
// It changes only what macros cannot: `extern __shared__ T x[];` (dynamic shared memory),
// `static __shared__`, a red zone before every `__shared__` variable, and `k<<<g, b, s>>>(...)`.
// Every replacement stays on its line, and a `#line 1 "FILE"` keeps the student's line numbers.
/// \file
/// The small source rewrite that lets clang compile a .cu file as host C++.
#pragma once

#include <string>
#include <vector>

namespace banksim {

/// A `__global__` function found in a source file.
struct KernelDecl {
  std::string name;          ///< "transpose_padded"
  int line = 0;              ///< 1-based line of the name
  bool is_template = false;  ///< declared as a template (`template <...> __global__ ...`)
  std::string params;  ///< the parameter list as written, "(float* out, const float* in, int n)"
};

/// The source with comments and string/char literals blanked out (same length, newlines kept),
/// so that searches do not match inside them.
std::string mask_comments_and_strings(const std::string& source);

/// The kernels declared or defined in `source`.
std::vector<KernelDecl> find_kernels(const std::string& source);

/// Names declared `extern __shared__` (the dynamic shared-memory arrays).
std::vector<std::string> find_dynamic_shared(const std::string& source);

/// The rewritten source, starting with `#line 1 "display_path"`.
std::string rewrite_for_host(const std::string& source, const std::string& display_path);

}  // namespace banksim
