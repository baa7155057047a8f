// toolchain.cpp - the tools Module::compile runs (clang, nvcc, nvdisasm, llvm-symbolizer, nm),
// found on the PATH; nvcc's access widths for a file (with the template instances asked for);
// the module's line table. Declared in toolchain.hpp.
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <sys/stat.h>

#include "banksim/tools.hpp"
#include "course/registry.hpp"
#include "toolchain.hpp"

#ifndef BANKSIM_COURSE_INCLUDE_DIR
#define BANKSIM_COURSE_INCLUDE_DIR "."
#endif
#ifndef BANKSIM_INCLUDE_DIR
#error "BANKSIM_INCLUDE_DIR must name banksim/include (set by CMake)"
#endif

#include "banksim/sass_widths.hpp"

namespace banksim::detail {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

/// Runs a shell command, returning its exit status and combined output.
std::pair<int, std::string> run_command(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "cannot run: " + command};
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe) != nullptr) output += buf.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

/// The executable `name` as found on the PATH (a name with a slash is checked as it is), or ""
/// (no shell: this runs for every launch).
std::string find_in_path(const std::string& name) {
  auto executable = [](const std::string& f) {
    struct stat st {};
    return stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(f.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return executable(name) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr && *path != '\0' ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string f = dir + "/" + name;
    if (executable(f)) return f;
  }
  return {};
}

bool tool_exists(const std::string& name) {
  return !find_in_path(name).empty();
}

std::string find_symbolizer() {
  for (const char* name : kSymbolizerNames) {
    if (tool_exists(name)) return name;
  }
  return {};
}

// ---- Source lines of the module's call sites, found once per compiled module ----------------
// Every pc a report names is the return address of a call from the module into banksim (a hook,
// a barrier, an atomic). They are all known once the module is built: objdump lists the calls,
// llvm-symbolizer names their lines (innermost frame first), and the answer is kept beside the
// module (`<module>.lines`) by the step that compiles it, where no student code runs; a launch
// then starts no symbolizer unless it meets a pc the table lacks.
constexpr const char* kLinesHeader = "# banksim call-site lines 1";

/// Whether every frame of one llvm-symbolizer answer is on line 0 ("file.cu:0:5").
bool all_line_zero(const std::string& frames) {
  static const std::regex loc(R"(.*:(\d+):(\d+)$)");
  std::istringstream in(frames);
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, loc)) continue;
    if (m[1].str() != "0") return false;
    any = true;
  }
  return any;
}

void write_line_table(const fs::path& so, const std::string& symbolizer) {
  const std::string objdump = find_in_path("objdump");
  if (symbolizer.empty() || objdump.empty()) return;
  const auto [status, listing] =
      run_command(shell_quote(objdump) + " -d --no-show-raw-insn " + shell_quote(so.string()));
  if (status != 0) return;
  // "  450d:\tcall   4890 <__asan_load4@plt>" (ASan's callbacks), or through the GOT (-fno-plt:
  // the file's own declarations, banksim's functions among them)
  // "  4959:\tcall   *0x17b1(%rip)   # 6110 <banksim_syncthreads@Base>": the call's return
  // address is the next instruction's address.
  static const std::regex insn(R"(^\s*([0-9a-f]+):\s+(\S+)(.*)$)");
  static const std::regex into(R"(<(__asan_|banksim_)[^>]*@(plt|Base)>)");
  static const std::regex function(R"(^[0-9a-f]+ <.*>:$)");
  // Every instruction of the listing (its address and function), and which are calls into banksim.
  std::vector<std::uint64_t> addresses;
  std::vector<int> functions;
  std::vector<std::size_t> calls;
  int current = 0;
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line)) {
    if (std::regex_match(line, function)) {
      ++current;
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, insn)) continue;
    if (m[2].str().rfind("call", 0) == 0 && std::regex_search(m[3].str(), into)) {
      calls.push_back(addresses.size());
    }
    addresses.push_back(std::stoull(m[1].str(), nullptr, 16));
    functions.push_back(current);
  }
  std::vector<std::uint64_t> offsets;
  // A load clang builds from several source accesses (a `?:` of two members, a vector load of
  // a struct) may carry line 0; it belongs to the statement around it: the nearest instruction
  // of the same function with a line, within kNear instructions either side.
  constexpr std::size_t kNear = 12;
  std::vector<std::vector<std::uint64_t>> near(calls.size());
  std::set<std::uint64_t> asked;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const std::size_t i = calls[c];
    if (i + 1 >= addresses.size()) continue;
    offsets.push_back(addresses[i + 1] - 1);
    asked.insert(addresses[i + 1] - 1);
    for (std::size_t d = 1; d <= kNear; ++d) {
      for (const std::size_t j : {i - std::min(i, d), i + d}) {
        if (j == i || j >= addresses.size() || functions[j] != functions[i]) continue;
        near[offsets.size() - 1].push_back(addresses[j]);
        asked.insert(addresses[j]);
      }
    }
  }
  near.resize(offsets.size());
  std::string input;
  for (std::uint64_t o : asked) input += fmt::format("0x{:x}\n", o);
  const fs::path pcs = so.string() + ".pcs";
  std::ofstream(pcs) << input;
  const auto [sym_status, frames] =
      run_command(symbolizer + " --functions=none --inlining --obj=" + shell_quote(so.string()) +
                  " < " + shell_quote(pcs.string()));
  fs::remove(pcs);
  if (sym_status != 0) return;
  // One block of frames per address asked, in the order asked.
  std::map<std::uint64_t, std::string> answer;
  {
    auto next = asked.begin();
    std::istringstream out(frames);
    std::string block;
    while (std::getline(out, line) && next != asked.end()) {
      if (line.empty()) {
        if (!block.empty()) answer[*next++] = block;
        block.clear();
      } else {
        block += line + "\n";
      }
    }
    if (!block.empty() && next != asked.end()) answer[*next] = block;
  }
  std::string head = kLinesHeader;
  head += "\n";
  std::string body;
  for (std::size_t c = 0; c < offsets.size(); ++c) {
    std::string block = answer[offsets[c]];
    if (all_line_zero(block)) {
      // The nearest lined instruction before and the one after; borrowed only when they agree
      // (or one side has none): an access clang merged from two statements (a store after an
      // if/else) stays on line 0 rather than on whichever neighbour the layout put first.
      std::string before;
      std::string after;
      for (std::size_t k = 0; k < near[c].size(); ++k) {
        const std::string& other = answer[near[c][k]];
        if (other.empty() || all_line_zero(other)) continue;
        std::string& side = near[c][k] < offsets[c] + 1 ? before : after;
        if (side.empty()) side = other;
      }
      const auto first_frame = [](const std::string& stack) {
        return stack.substr(0, stack.find('\n'));
      };
      const auto file_line = [&](const std::string& stack) {
        const std::string f = first_frame(stack);
        const auto colon = f.rfind(':');
        return colon == std::string::npos ? f : f.substr(0, colon);  // drop the column
      };
      if (!before.empty() && (after.empty() || file_line(before) == file_line(after))) {
        block = before + kBorrowedLine + "\n";  // read_frames: clang built this access itself
      } else if (before.empty() && !after.empty()) {
        block = after + kBorrowedLine + "\n";
      }
    }
    head += fmt::format("{:x} ", offsets[c]);
    body += block + "\n";
  }
  // Unique per writer (random, not the pid: sandboxes in other pid namespaces share the cache).
  const fs::path tmp =
      so.string() + ".lines." + fmt::format("{:08x}", std::random_device{}()) + ".tmp";
  std::ofstream(tmp, std::ios::binary) << head << "\n" << body;
  std::error_code ec;
  fs::rename(tmp, so.string() + ".lines", ec);
}

/// The table write_line_table kept: offset (pc - load base - 1) -> llvm-symbolizer's frames.
std::map<std::uint64_t, std::string> read_line_table(const fs::path& so) {
  std::map<std::uint64_t, std::string> table;
  std::ifstream in(so.string() + ".lines", std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line != kLinesHeader || !std::getline(in, line)) return table;
  std::vector<std::uint64_t> offsets;
  std::istringstream heads(line);
  std::string hex;
  while (heads >> hex) offsets.push_back(std::stoull(hex, nullptr, 16));
  std::size_t index = 0;
  std::string block;
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (!block.empty() && index < offsets.size()) table[offsets[index++]] = block;
      block.clear();
    } else {
      block += line + "\n";
    }
  }
  if (!block.empty() && index < offsets.size()) table[offsets[index]] = block;
  return table;
}

NvccTools find_nvcc_tools() {
  NvccTools t;
  t.nvcc = find_in_path(env_or("BANKSIM_NVCC", "nvcc"));
  if (t.nvcc.empty()) {
    t.why = "nvcc not found (install the CUDA toolkit, or set BANKSIM_NVCC)";
    return t;
  }
  t.nvdisasm = find_in_path(env_or("BANKSIM_NVDISASM", "nvdisasm"));
  if (t.nvdisasm.empty()) {
    std::error_code ec;
    const fs::path beside = fs::canonical(t.nvcc, ec).parent_path() / "nvdisasm";
    if (!ec) t.nvdisasm = find_in_path(beside.string());
  }
  if (t.nvdisasm.empty()) {
    t.why =
        "nvdisasm not found beside nvcc or on the PATH (the CUDA toolkit has it; scripts/deps.sh "
        "installs NVIDIA's nvidia-cuda-nvdisasm from PyPI; or set BANKSIM_NVDISASM)";
  }
  return t;
}

/// The CUDA toolkit's own libcu++ headers (`<cuda/std/...>`: its include/cccl folder), or "":
/// $BANKSIM_CCCL ("none" for none), else beside the nvcc on the PATH ($BANKSIM_NVCC), else
/// /usr/local/cuda's. banksim compiles them as host C++ (no __CUDACC__), which they support.
std::string cccl_include_dir() {
  const std::string set = env_or("BANKSIM_CCCL", "");
  if (set == "none") return {};
  auto has_std = [](const fs::path& dir) {
    std::error_code ec;
    return fs::exists(dir / "cuda" / "std" / "type_traits", ec);
  };
  if (!set.empty()) return has_std(set) ? set : std::string();
  std::vector<fs::path> candidates;
  const std::string nvcc = find_in_path(env_or("BANKSIM_NVCC", "nvcc"));
  std::error_code ec;
  if (!nvcc.empty()) {
    const fs::path real = fs::canonical(nvcc, ec);
    if (!ec) candidates.push_back(real.parent_path().parent_path() / "include" / "cccl");
  }
  candidates.emplace_back("/usr/local/cuda/include/cccl");
  for (const auto& c : candidates) {
    if (has_std(c)) return fs::canonical(c, ec).string();
  }
  return {};
}

/// banksim's pass plugin (banksim/pass/regions.cpp) when `clang` can load it: built for the
/// same LLVM major version (a plugin of another version does not load). Empty otherwise.
std::string regions_plugin(const std::string& clang) {
  const std::string plugin = BANKSIM_REGIONS_PLUGIN;
  if (plugin.empty()) return {};
  std::error_code ec;
  if (!fs::is_regular_file(plugin, ec)) return {};
  static std::map<std::string, bool> known;
  auto it = known.find(clang);
  if (it != known.end()) return it->second ? plugin : std::string();
  const std::string major = std::to_string(BANKSIM_REGIONS_LLVM_MAJOR);
  const std::string path = clang.find('/') == std::string::npos ? find_in_path(clang) : clang;
  bool ok = false;
  if (!path.empty()) {
    const std::string real = fs::canonical(path, ec).string();
    if (real.find("/llvm-" + major + "/") != std::string::npos) {
      ok = true;  // Debian's layout: /usr/lib/llvm-14/bin/clang
    } else {
      const auto [status, out] = run_command(shell_quote(path) + " --version 2>/dev/null");
      ok = status == 0 && out.find("clang version " + major + ".") != std::string::npos;
    }
  }
  known[clang] = ok;
  return ok ? plugin : std::string();
}

/// "nvcc 13.0" from `nvcc --version` (once per process and nvcc).
std::string nvcc_release(const std::string& nvcc) {
  static std::map<std::string, std::string> known;
  auto it = known.find(nvcc);
  if (it != known.end()) return it->second;
  const auto [status, out] = run_command(shell_quote(nvcc) + " --version");
  static const std::regex rel(R"(release ([0-9.]+))");
  std::smatch m;
  std::string r = "nvcc";
  if (status == 0 && std::regex_search(out, m, rel)) r += " " + m[1].str();
  return known[nvcc] = r;
}

/// A kernel's name as written and as demangled, made comparable: no spaces, no integer-literal
/// suffixes (`reduce6<float, 256u, true>` and `reduce6<float,256,true>` are one instance).
std::string instance_key(const std::string& name) {
  static const std::regex suffix(R"(\b([0-9]+)[uUlL]+\b)");
  std::string k = std::regex_replace(name, suffix, "$1");
  k.erase(std::remove_if(k.begin(), k.end(), [](unsigned char c) { return std::isspace(c) != 0; }),
          k.end());
  if (k.rfind("::", 0) == 0) k = k.substr(2);
  return k;
}

/// Compiles `cu_file` with nvcc (the course's flags for `arch`, course::nvcc_flags: what the GPU
/// grader runs) and reads the shared-memory widths per line from nvdisasm; writes them to `out`
/// (atomically). The file's first line says what happened: "# nvcc 13.0 sm_90 N" (N
/// instructions) or "# none WHY"; a line "# kernel NAME" names each kernel nvcc compiled. Where
/// `instances` (template kernels as asked for, `k<float, 4>`) is not empty, nvcc compiles a
/// generated file that includes `cu_file` and takes each instance's address, so that a header of
/// templates nothing instantiates has code for what is launched.
void write_sass_widths(const fs::path& cu_file, const std::vector<std::string>& include_flags,
                       const NvccTools& tools, const std::string& arch,
                       const std::vector<std::string>& instances, const fs::path& out) {
  const std::string unique =
      fmt::format("{:08x}{:08x}", std::random_device{}(), std::random_device{}());
  const fs::path cubin = out.string() + "." + unique + ".cubin";
  const fs::path tmp = out.string() + "." + unique + ".tmp";
  const fs::path generated = out.string() + "." + unique + ".cu";
  std::string text;
  const std::string abs = fs::absolute(cu_file).lexically_normal().string();
  std::string input = abs;
  if (!instances.empty()) {
    std::string tu = "#include \"" + abs +
                     "\"\n// The template instances banksim was asked for.\n" +
                     "__attribute__((used)) static void* const banksim_instances[] = {\n";
    for (const auto& k : instances) tu += "    (void*)&" + k + ",\n";
    std::ofstream(generated) << tu << "};\n";
    input = generated.string();
  }
  std::string cmd = shell_quote(tools.nvcc);
  for (const auto& f : course::nvcc_flags(arch)) cmd += " " + shell_quote(f);
  cmd += " -cubin -w -x cu -I" + shell_quote(BANKSIM_COURSE_INCLUDE_DIR);
  for (const auto& f : include_flags) cmd += " " + shell_quote(f);
  cmd += " -o " + shell_quote(cubin.string()) + " " + shell_quote(input);
  const auto [status, output] = run_command(cmd);
  if (status != 0) {
    std::string first = output.substr(0, output.find('\n'));
    text = "# none nvcc could not compile the file for sm_" + arch + ": " + first + "\n";
  } else {
    // -ndf: no dataflow analysis, 30% of nvdisasm's time (0.70 -> 0.50 s a file); the
    // listing is the same (103 course files: 102 byte-identical, one differs only in an indirect
    // branch's target annotation; measurements/fidelity/2026-12-01-nvdisasm-ndf/ndf-check.sh).
    const auto [dstatus, sass] =
        run_command(shell_quote(tools.nvdisasm) + " -c -gi -ndf " + shell_quote(cubin.string()));
    if (dstatus != 0) {
      text = "# none nvdisasm failed: " + sass.substr(0, sass.find('\n')) + "\n";
    } else {
      const SassWidths w = parse_sass_widths(sass, abs);
      text = fmt::format("# {} sm_{} {}\n", nvcc_release(tools.nvcc), arch, w.instructions);
      // The kernels nvcc compiled: a function section per kernel (".text.<mangled>").
      static const std::regex section(R"(\.text\.([A-Za-z_$][A-Za-z0-9_$]*))");
      std::set<std::string> kernels;
      for (auto it = std::sregex_iterator(sass.begin(), sass.end(), section);
           it != std::sregex_iterator(); ++it) {
        std::string d = demangle((*it)[1].str().c_str());
        d = d.substr(0, d.find('('));
        if (d.rfind("void ", 0) == 0) d = d.substr(5);
        kernels.insert(instance_key(d));
      }
      for (const auto& k : kernels) text += "# kernel " + k + "\n";
      text += to_text(w);
    }
  }
  fs::remove(cubin);
  std::error_code ec;
  fs::remove(generated, ec);
  std::ofstream(tmp) << text;
  fs::rename(tmp, out, ec);
  if (ec) fs::remove(tmp, ec);
}

/// The kernels a widths file says nvcc compiled (instance_key form).
std::set<std::string> sass_kernels(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(text);
  std::string s;
  while (std::getline(in, s)) {
    if (s.rfind("# kernel ", 0) == 0) out.insert(s.substr(9));
  }
  return out;
}

}  // namespace banksim::detail
