// module_build.hpp - the steps of Module::compile before loading (module_build.cpp; not an API):
// the student's file made into a translation unit, the toolchain that compiles it (clang, its
// flags, the regions pass, banksim's headers) and the cache of built modules with their index.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "banksim/banksim.hpp"
#include "banksim/rewrite.hpp"

namespace banksim::detail {
namespace fs = std::filesystem;

/// The student's file made ready to compile: read, its kernels checked against those asked
/// for, and rewritten for the host (throws UsageError for a missing file or kernel).
struct PreparedSource {
  std::string text;                      ///< the file as read
  std::vector<std::string> lines;        ///< its lines, for reports
  std::vector<KernelDecl> declared;      ///< its kernels, and those asked for from its headers
  std::vector<std::string> source_dirs;  ///< its folder and its -I folders, absolute, with '/'
  std::string rewritten;                 ///< rewrite_for_host's
  /// Every kernel with a fiber per thread (CompileOptions::regions false, or BANKSIM_FIBERS=1).
  bool fibers_only = false;
  /// The translation unit: the rewritten source, the stub that places the dynamic shared
  /// memory and exports the arena's bounds, and one entry per kernel in `names`
  /// (banksim_kernel_<i>, in order).
  std::string translation_unit(const std::vector<std::string>& names) const;
};
PreparedSource prepare_source(const fs::path& cu_file, const std::string& display,
                              const CompileOptions& options);

/// What compiles a module and what its content depends on besides its translation unit.
struct Toolchain {
  std::string clang;
  std::string include_dir;         ///< banksim/include
  std::vector<std::string> flags;  ///< clang's, for the module (-shared ...)
  std::string plugin;              ///< the regions pass, or "" (then no region kernels)
  std::string headers_text;        ///< banksim's headers, names and contents (keys the PCH)
  std::string key_text;            ///< all a module is keyed by besides its translation unit
};
/// Finds clang and the regions pass and sets the flags (throws CompileError for a GPU
/// architecture that is not a compute capability).
Toolchain discover_toolchain(const fs::path& cu_file, const CompileOptions& options,
                             bool fibers_only);

/// The folder of built modules (CompileOptions::cache_dir, $BANKSIM_CACHE or
/// /tmp/banksim-cache-$UID), created.
fs::path cache_folder(const CompileOptions& options);

/// A built module in the cache: its shared object and its entries' kernels, in order.
struct CachedModule {
  fs::path so;
  std::vector<std::string> entry_names;
};
/// The module of the file that covers every kernel asked for: the one its index names, else
/// one built now (every kernel of the file and every instance it instantiates, where they
/// compile) and indexed. Throws CompileError with the student's errors.
CachedModule cached_module(const fs::path& cu_file, const std::string& display,
                           const PreparedSource& src, const Toolchain& tc,
                           const CompileOptions& options, const fs::path& cache);

}  // namespace banksim::detail
