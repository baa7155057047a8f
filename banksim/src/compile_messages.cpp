// compile_messages.cpp - Module::compile's view of what it built and what failed, in the
// student's terms: kernel and variable names, the module's ELF symbols, stubs for what nothing
// defines, kernels in included headers, and clang's errors shown as the file has its lines
// (a CUDA toolkit header without a stand-in named). Declared in toolchain.hpp.
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

#include "course/registry.hpp"
#include "toolchain.hpp"

#ifndef BANKSIM_COURSE_INCLUDE_DIR
#define BANKSIM_COURSE_INCLUDE_DIR "."
#endif

namespace banksim::detail {
/// The kernel's name as the file declares it: `ns::k<T, 4>` -> `k` (the namespace is the
/// declaration's, which find_kernels does not record).
std::string base_name(const std::string& kernel) {
  const auto lt = kernel.find('<');
  std::string b = lt == std::string::npos ? kernel : kernel.substr(0, lt);
  while (!b.empty() && b.back() == ' ') b.pop_back();
  const auto colons = b.rfind("::");
  return colons == std::string::npos ? b : b.substr(colons + 2);
}

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || d == nullptr) return name;
  std::string out = d;
  std::free(d);
  return out;
}

std::string short_var_name(const std::string& qualified) {
  const auto pos = qualified.rfind("::");
  return pos == std::string::npos ? qualified : qualified.substr(pos + 2);
}

std::vector<ElfSymbol> shared_section_symbols(const std::string& image) {
  std::vector<ElfSymbol> out;
  if (image.size() < sizeof(Elf64_Ehdr)) return out;
  const auto* base = reinterpret_cast<const unsigned char*>(image.data());
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
  const char* shstr = reinterpret_cast<const char*>(base + sh[eh->e_shstrndx].sh_offset);
  int shared_index = -1;
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (std::string(shstr + sh[i].sh_name) == "banksim_shared") shared_index = i;
  }
  if (shared_index < 0) return out;
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB) continue;
    const auto* syms = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
    const char* strtab = reinterpret_cast<const char*>(base + sh[sh[i].sh_link].sh_offset);
    const std::size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    for (std::size_t k = 0; k < n; ++k) {
      if (syms[k].st_shndx != shared_index || ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT) {
        continue;
      }
      out.push_back(ElfSymbol{strtab + syms[k].st_name, syms[k].st_value, syms[k].st_size});
    }
  }
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

/// The dynamic symbols `so` needs that nothing loaded here defines (not the runtime, not the C
/// and C++ libraries): functions a file declares and its host code calls, defined in another
/// source file or a library banksim does not link (cuBLAS). Weak references are left out.
std::vector<std::string> unresolved_symbols(const fs::path& so) {
  std::vector<std::string> out;
  const std::string objdump = find_in_path("objdump");
  if (objdump.empty()) return out;
  const auto [status, listing] =
      run_command(shell_quote(objdump) + " -T " + shell_quote(so.string()));
  if (status != 0) return out;
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("*UND*") == std::string::npos) continue;
    const std::string flags = line.substr(0, line.find("*UND*"));
    if (flags.find(" w ") != std::string::npos) continue;  // weak: may stay undefined
    std::istringstream words(line);
    std::string name;
    for (std::string w; words >> w;) name = w;
    if (name.empty() || name == "*UND*") continue;
    if (!std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' ||
                 c == '$';
        })) {
      continue;
    }
    if (dlsym(RTLD_DEFAULT, name.c_str()) == nullptr) out.push_back(name);
  }
  return out;
}

/// The functions `so` defines (dynamic symbols, mangled), for the template instances it holds.
std::vector<std::string> defined_functions(const fs::path& so) {
  std::vector<std::string> out;
  const auto [status, text] =
      run_command("nm -D --defined-only " + shell_quote(so.string()) + " 2>/dev/null");
  if (status != 0) return out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string addr, type, name;
    if (f >> addr >> type >> name && (type == "T" || type == "W")) out.push_back(name);
  }
  return out;
}

/// C++ source defining each of `names` as a function that stops the run with a message naming
/// it and the file: the module then loads, and a kernel that really calls one is told why.
std::string stub_definitions(const std::vector<std::string>& names, const std::string& display) {
  auto quoted = [](const std::string& t) {
    std::string q;
    for (char c : t) {
      if (c == '"' || c == '\\') q += '\\';
      q += c;
    }
    return q;
  };
  std::string out = "\n// banksim: functions this file declares and nothing here defines\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    int status = 0;
    char* d = abi::__cxa_demangle(names[i].c_str(), nullptr, nullptr, &status);
    const std::string shown = status == 0 && d != nullptr ? d : names[i];
    std::free(d);
    out += fmt::format(
        "extern \"C\" void banksim_undefined_{0}() __asm__(\"{1}\");\n"
        "extern \"C\" __attribute__((used)) void banksim_undefined_{0}() {{\n"
        "  banksim_stop(\"{2} was called, and {3} does not define it: banksim compiles this one "
        "file (a function defined in another source file, or in a library such as cuBLAS, is not "
        "there); it runs kernels, not the program's main\");\n}}\n",
        i, names[i], quoted(shown), quoted(display));
  }
  return out;
}

/// The kernels declared in the headers `source` (the file `file`) includes by path ("x.cuh"),
/// found beside the file or in its -I folders, and in the headers those include (to 4 levels).
std::vector<KernelDecl> kernels_in_local_headers(const fs::path& file, const std::string& source,
                                                 const std::vector<std::string>& flags) {
  std::vector<fs::path> dirs;
  for (const auto& f : flags) {
    if (f.rfind("-I", 0) == 0 && f.size() > 2) dirs.emplace_back(f.substr(2));
  }
  std::vector<KernelDecl> out;
  std::set<std::string> seen;
  static const std::regex include_re(R"re(#[ \t]*include[ \t]*"([^"]+)")re");
  std::function<void(const fs::path&, const std::string&, int)> scan =
      [&](const fs::path& at, const std::string& text, int depth) {
        if (depth > 4) return;
        // Includes outside comments: found in the text with comments blanked (strings kept).
        const std::string masked = mask_comments_and_strings(text);
        for (auto it = std::sregex_iterator(text.begin(), text.end(), include_re);
             it != std::sregex_iterator(); ++it) {
          const auto pos = static_cast<std::size_t>(it->position(0));
          if (masked.compare(pos, 1, "#") != 0) continue;  // inside a comment
          std::vector<fs::path> candidates = {at.parent_path() / (*it)[1].str()};
          for (const auto& d : dirs) candidates.push_back(d / (*it)[1].str());
          for (const auto& c : candidates) {
            std::error_code ec;
            if (!fs::is_regular_file(c, ec)) continue;
            const std::string key = fs::weakly_canonical(c, ec).string();
            if (!seen.insert(key).second) break;
            const std::string header = read_file(c);
            for (KernelDecl d : find_kernels(header)) out.push_back(d);
            scan(c, header, depth + 1);
            break;
          }
        }
      };
  scan(file, source, 0);
  return out;
}

/// clang's output with the snippets of `display`'s lines shown as the student wrote them: clang
/// quotes the line it compiled, and banksim's rewrite changed some (a launch, a `__shared__`
/// declaration). Where a quoted line differs from the file's, the file's line is shown and the
/// caret line under it (whose columns are the rewritten line's) is left out.
std::string restore_source_lines(const std::string& output, const std::string& display,
                                 const std::string& source) {
  std::vector<std::string> original;
  {
    std::istringstream in(source);
    for (std::string l; std::getline(in, l);) original.push_back(l);
  }
  std::istringstream in(output);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::string prefix = display + ":";
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& head = lines[i];
    if (head.rfind(prefix, 0) != 0 || i + 1 >= lines.size()) {
      out += head + "\n";
      continue;
    }
    // "FILE:LINE:COL: ..." with the quoted line after it.
    const std::size_t colon = head.find(':', prefix.size());
    const std::size_t colon2 = colon == std::string::npos ? colon : head.find(':', colon + 1);
    const std::string number =
        colon == std::string::npos ? "" : head.substr(prefix.size(), colon - prefix.size());
    const std::string column =
        colon2 == std::string::npos ? "" : head.substr(colon + 1, colon2 - colon - 1);
    const auto digits = [](const std::string& t) {  // and small enough for stoul
      return !t.empty() && t.size() <= 9 && std::all_of(t.begin(), t.end(), ::isdigit);
    };
    const std::size_t n = digits(number) ? std::stoul(number) : 0;
    const std::string& quoted = lines[i + 1];
    if (n == 0 || n > original.size() || quoted == original[n - 1] ||
        (quoted.find("banksim") == std::string::npos &&
         quoted.find("BANKSIM") == std::string::npos)) {
      out += head + "\n";  // not a line banksim's rewrite changed
      continue;
    }
    const std::string& mine = original[n - 1];
    // The column in the student's line: the rewrite changed one stretch of it; a column after
    // that stretch moves by the length difference, one inside it points at the stretch's start.
    std::string fixed = head;
    if (digits(column)) {
      std::size_t p = 0;
      while (p < mine.size() && p < quoted.size() && mine[p] == quoted[p]) ++p;
      std::size_t q = 0;
      while (q < mine.size() - p && q < quoted.size() - p &&
             mine[mine.size() - 1 - q] == quoted[quoted.size() - 1 - q]) {
        ++q;
      }
      const std::size_t c = std::stoul(column);
      std::size_t to = p + 1;
      if (c - 1 < p) {
        to = c;
      } else if (quoted.size() - (c - 1) <= q) {
        to = c - (quoted.size() - mine.size());
      }
      fixed = head.substr(0, colon + 1) + std::to_string(to) + head.substr(colon2);
    }
    out += fixed + "\n" + mine + "\n";
    ++i;  // the rewritten line; then its caret and fix-it lines (indented), whose columns are
    // the rewritten line's
    while (i + 1 < lines.size() && !lines[i + 1].empty() && lines[i + 1][0] == ' ') ++i;
  }
  return out;
}

/// The first clang diagnostic "file:line:col: error: message" of `output`.
std::string first_error(const std::string& output) {
  static const std::regex err(R"(([^\s:][^:\n]*):(\d+):(\d+): (fatal )?error: ([^\n]*))");
  std::smatch m;
  if (std::regex_search(output, m, err)) {
    return m[1].str() + ":" + m[2].str() + ": error: " + m[5].str();
  }
  return trim(output.substr(0, output.find('\n')));
}

/// Where the first error of `output` is in a header of the CUDA toolkit (one banksim has no
/// stand-in for, so clang read the toolkit's own, written for nvcc): a message naming the header,
/// the line of `display` that includes it, and what to do. "" otherwise.
std::string toolkit_header_error(const std::string& output, const std::string& display) {
  static const std::regex err(R"(([^\s:][^:\n]*):(\d+):(\d+): (fatal )?error: )");
  std::smatch m;
  if (!std::regex_search(output, m, err)) return "";
  // A toolkit header that is not there at all (no CUDA toolkit installed).
  static const std::regex missing(
      R"(^[^\n]*:(\d+):\d+: fatal error: '((cu[A-Za-z0-9_]*|nvtx[A-Za-z0-9_/]*|npp[A-Za-z0-9_]*|nvrtc|)"
      R"(mma|math_constants|sm_[0-9]+_[a-z_]+|device_[a-z_]+|crt/[a-z_]+|thrust/[a-z_/]+|)"
      R"(cub/[a-z_/]+)\.(h|hpp|cuh))' file not found)");
  std::smatch nf;
  const std::string first_line =
      output.substr(m.position(0), output.find('\n', m.position(0)) - m.position(0));
  if (std::regex_search(first_line, nf, missing)) {
    return display + ":" + nf[1].str() + ": <" + nf[2].str() +
           "> is a CUDA toolkit header banksim has no stand-in for, and no CUDA toolkit was found "
           "to read it from; banksim runs kernels on the CPU with its own CUDA headers "
           "(cuda_runtime.h, cooperative_groups.h, cuda_fp16.h, cuda_profiler_api.h...): give "
           "banksim the kernel without that include, or put the include and the code that needs "
           "it under #ifndef __BANKSIM__";
  }
  const std::string file = m[1].str();
  std::error_code ec;
  const std::string real = fs::weakly_canonical(file, ec).string();
  // The toolkit's include folder: .../cuda-13.0/include/, .../cuda/include/, targets/*/include/.
  static const std::regex toolkit(R"(/cuda(-[0-9.]+)?/(targets/[^/]+/)?include/)");
  if (!std::regex_search(real, toolkit) && !std::regex_search(file, toolkit)) return "";
  // The line of the student's file that brings it in, and the header it names there (clang
  // lists the includers outermost first; the error's own file ends the chain).
  std::string header = fs::path(file).filename().string();
  std::string where = display;
  static const std::regex inc(R"(In file included from ([^:\n]+):(\d+):)");
  std::vector<std::pair<std::string, std::string>> chain;
  for (auto it = std::sregex_iterator(output.begin(), output.begin() + m.position(0), inc);
       it != std::sregex_iterator(); ++it) {
    chain.emplace_back((*it)[1].str(), (*it)[2].str());
  }
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (fs::path(chain[i].first).filename() == fs::path(display).filename()) {
      where = display + ":" + chain[i].second;
      if (i + 1 < chain.size()) header = fs::path(chain[i + 1].first).filename().string();
      break;
    }
  }
  return where + ": <" + header + "> is a CUDA toolkit header banksim has no stand-in for (" +
         "clang read the toolkit's copy, written for nvcc, and failed at " + file + ":" +
         m[2].str() + "); banksim runs kernels on the CPU with its own CUDA headers " +
         "(cuda_runtime.h, cooperative_groups.h, cuda_fp16.h, cuda_profiler_api.h...): give "
         "banksim " +
         "the kernel without that include, or put the include and the code that needs it under " +
         "#ifndef __BANKSIM__";
}

}  // namespace banksim::detail
