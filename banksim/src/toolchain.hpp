// toolchain.hpp - what Module::compile (module.cpp) runs and reads besides the student's file
// (not an API): files and processes, the tools found on the PATH (clang, nvcc, nvdisasm,
// llvm-symbolizer, the regions pass), nvcc's access widths for a file, the module's line table
// (toolchain.cpp); and the module's names, symbols and compile errors in the student's terms
// (compile_messages.cpp).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "banksim/rewrite.hpp"

namespace banksim::detail {
namespace fs = std::filesystem;

// ---- toolchain.cpp ---------------------------------------------------------------------------
std::string read_file(const fs::path& p);
/// $name, or `fallback` where it is unset or empty.
std::string env_or(const char* name, const std::string& fallback);
std::string shell_quote(const std::string& s);
/// Runs a shell command, returning its exit status and combined output.
std::pair<int, std::string> run_command(const std::string& command);
/// The executable `name` as found on the PATH (a name with a slash is checked as it is), or "".
std::string find_in_path(const std::string& name);
bool tool_exists(const std::string& name);
std::string find_symbolizer();
/// Marks a call site whose line was borrowed from the instructions around it (write_line_table).
inline constexpr const char* kBorrowedLine = "# line of the surrounding instructions";
/// Lists the module's call sites into banksim and names them (`so`.lines, beside it).
void write_line_table(const fs::path& so, const std::string& symbolizer);
/// The table write_line_table kept: offset (pc - load base - 1) -> llvm-symbolizer's frames.
std::map<std::uint64_t, std::string> read_line_table(const fs::path& so);

/// nvcc and nvdisasm for reading nvcc's access widths, or why not (`why`).
struct NvccTools {
  std::string nvcc;
  std::string nvdisasm;
  std::string why;
};
NvccTools find_nvcc_tools();
/// The CUDA toolkit's own libcu++ headers (its include/cccl folder), or "".
std::string cccl_include_dir();
/// banksim's pass plugin when `clang` can load it, else "".
std::string regions_plugin(const std::string& clang);
/// "nvcc 13.0" from `nvcc --version`.
std::string nvcc_release(const std::string& nvcc);
/// A kernel's name as written and as demangled, made comparable (no spaces, no integer-literal
/// suffixes).
std::string instance_key(const std::string& name);
/// nvcc's widths for `cu_file` (with `instances` instantiated) into `out`: see toolchain.cpp.
void write_sass_widths(const fs::path& cu_file, const std::vector<std::string>& include_flags,
                       const NvccTools& tools, const std::string& arch,
                       const std::vector<std::string>& instances, const fs::path& out);
/// The kernels a widths file says nvcc compiled (instance_key form).
std::set<std::string> sass_kernels(const std::string& text);

// ---- compile_messages.cpp --------------------------------------------------------------------
/// The kernel's name as the file declares it: `ns::k<T, 4>` -> `k`.
std::string base_name(const std::string& kernel);
std::string demangle(const char* name);
/// `ns::f()::tile` -> `tile`.
std::string short_var_name(const std::string& qualified);
/// Symbols of the section "banksim_shared" in an ELF shared object: name, address, size.
struct ElfSymbol {
  std::string name;
  std::uint64_t value;
  std::uint64_t size;
};
std::vector<ElfSymbol> shared_section_symbols(const std::string& image);
std::string trim(const std::string& s);
/// The dynamic symbols `so` needs that nothing loaded here defines.
std::vector<std::string> unresolved_symbols(const fs::path& so);
/// The functions `so` defines (dynamic symbols, mangled).
std::vector<std::string> defined_functions(const fs::path& so);
/// C++ source defining each of `names` as a function that stops the run with a message.
std::string stub_definitions(const std::vector<std::string>& names, const std::string& display);
/// The kernels declared in the headers `source` (the file `file`) includes by path.
std::vector<KernelDecl> kernels_in_local_headers(const fs::path& file, const std::string& source,
                                                 const std::vector<std::string>& flags);
/// clang's output with the snippets of `display`'s lines shown as the student wrote them.
std::string restore_source_lines(const std::string& output, const std::string& display,
                                 const std::string& source);
/// The first clang diagnostic "file:line: error: message" of `output`.
std::string first_error(const std::string& output);
/// A message for an error inside a CUDA toolkit header banksim has no stand-in for, or "".
std::string toolkit_header_error(const std::string& output, const std::string& display);

}  // namespace banksim::detail
