// grader/policy.hpp - the submission policy, checked before anything of a student's file runs.
// A submission may define kernels, device functions, constants and types. It may not contain
// inline assembly, code that runs outside a kernel (constructors, destructors), sanitizer or
// tracer attributes, symbols of the tracer's or runtime's namespaces, tests of the compiler's
// identity, includes outside an allowlist, or calls to anything outside an allowlist (math, CUDA
// intrinsics, printf). Checked twice: on the source text (named by line, before compiling) and on
// the compiled object (init/fini arrays and undefined symbols), so that macros cannot hide it.
// Plain C++17, no dependencies: the sandboxed worker links it too.
/// \file
/// The submission policy, checked before anything of a student's file runs.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace grader {

/// One violation: where, and what to do instead.
struct PolicyViolation {
  int line = 0;         ///< 1-based; 0 for the compiled object
  std::string message;  ///< "inline assembly is not allowed: ..."
};

/// The headers a submission may include (`#include <...>` or `"..."`): course_todo.h, the CUDA
/// headers banksim provides, the toolkit's libcu++ basics and standard math/utility headers.
const std::set<std::string>& allowed_includes();

/// Checks a source file's text (comments and string literals are ignored).
std::vector<PolicyViolation> check_source_policy(const std::string& text);

/// Checks a compiled shared object (ELF64): its init/fini arrays hold only the toolchain's own
/// entries, and every undefined symbol is on the allowlist. `host`: a host exercise's object
/// (no tracer runtime). An unreadable or malformed object is a violation.
std::vector<PolicyViolation> check_object_policy(const std::filesystem::path& so, bool host);

/// GPU mode: checks the student's translation unit compiled by nvcc into a relocatable object
/// (`nvcc -c`), before it is linked to the timing harness (`harness`, also a relocatable
/// object). Its init array may hold only nvcc's kernel registration, its fini array nothing; its
/// host code may call only the allowlist and nvcc's launch and registration entry points; and it
/// may define nothing the harness references or defines strongly (a submission that defines
/// `cudaEventElapsedTime` would otherwise replace the CUDA runtime's, and the timing with it).
std::vector<PolicyViolation> check_gpu_object_policy(const std::filesystem::path& student,
                                                     const std::filesystem::path& harness);

}  // namespace grader
