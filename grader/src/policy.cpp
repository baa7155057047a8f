// policy.cpp - see grader/policy.hpp.
#include "grader/policy.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace grader {
namespace {

/// The text with comments and string/char literals blanked (newlines kept, so lines still count).
std::string strip(const std::string& s) {
  std::string out = s;
  enum { kCode, kLine, kBlock, kString, kChar } st = kCode;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = s[i];
    const char n = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (st) {
      case kCode:
        if (c == '/' && n == '/') {
          st = kLine;
          out[i] = ' ';
        } else if (c == '/' && n == '*') {
          st = kBlock;
          out[i] = ' ';
        } else if (c == '"') {
          st = kString;
        } else if (c == '\'') {
          st = kChar;
        }
        break;
      case kLine:
        if (c == '\n') {
          st = kCode;
        } else {
          out[i] = ' ';
        }
        break;
      case kBlock:
        if (c == '*' && n == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          st = kCode;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case kString:
      case kChar:
        if (c == '\\') {
          out[i] = ' ';
          if (i + 1 < out.size() && s[i + 1] != '\n') out[++i] = ' ';
        } else if ((st == kString && c == '"') || (st == kChar && c == '\'')) {
          st = kCode;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

bool allowed_symbol(const std::string& name, bool host) {
  static const std::set<std::string> exact = {"threadIdx",
                                              "blockIdx",
                                              "blockDim",
                                              "gridDim",
                                              "__cxa_finalize",
                                              "__gmon_start__",
                                              "__cxa_guard_acquire",
                                              "__cxa_guard_release",
                                              "__cxa_guard_abort",
                                              "__gxx_personality_v0",
                                              "__stack_chk_fail",
                                              "abort",
                                              "printf",
                                              "puts",
                                              "putchar",
                                              "fprintf",
                                              "fputs",
                                              "fputc",
                                              "fwrite",
                                              "fflush",
                                              "stderr",
                                              "stdout",
                                              "vprintf",
                                              "vfprintf",
                                              "memcpy",
                                              "memset",
                                              "memmove",
                                              "__assert_fail",
                                              "_ZSt9terminatev",
                                              "__cxa_begin_catch",
                                              "__cxa_end_catch",
                                              "_Unwind_Resume"};
  static const std::regex math(
      "(sqrt|exp|exp2|expm1|exp10|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|atan2|"
      "sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|fabs|floor|ceil|round|lround|llround|trunc|"
      "fmod|remainder|fmin|fmax|fma|hypot|cbrt|ldexp|frexp|sincos|nan|rint|lrint|nearbyint|"
      "copysign|fdim|tgamma|lgamma|modf|scalbn|ilogb|logb)[fl]?");
  if (exact.count(name) != 0 || std::regex_match(name, math)) return true;
  if (name.rfind("_ITM_", 0) == 0) return true;
  if (!host && (name.rfind("__asan_", 0) == 0 || name.rfind("banksim_", 0) == 0)) return true;
  return false;
}

}  // namespace

const std::set<std::string>& allowed_includes() {
  static const std::set<std::string> s = {
      "course_todo.h", "cuda_runtime.h", "cuda.h", "cuda_fp16.h", "cuda_bf16.h", "mma.h",
      "cooperative_groups.h", "cooperative_groups/reduce.h", "cooperative_groups/memcpy_async.h",
      "cstdio", "cstdint", "cstddef", "cmath", "cstring", "climits", "cfloat", "cstdlib", "memory",
      "type_traits", "limits", "utility", "algorithm", "array", "stdio.h", "stdint.h", "math.h",
      "string.h", "float.h",
      // The CUDA toolkit's libcu++ basics (banksim compiles
      // the toolkit's own; its atomics and waits are not here).
      "cuda/std/array", "cuda/std/bit", "cuda/std/cmath", "cuda/std/complex", "cuda/std/cstddef",
      "cuda/std/cstdint", "cuda/std/climits", "cuda/std/functional", "cuda/std/limits",
      "cuda/std/optional", "cuda/std/span", "cuda/std/tuple", "cuda/std/type_traits",
      "cuda/std/utility"};
  return s;
}

std::vector<PolicyViolation> check_source_policy(const std::string& text) {
  std::vector<PolicyViolation> v;
  const std::string code = strip(text);
  static const std::regex include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  static const std::regex identity(
      R"(^\s*#\s*(if|ifdef|ifndef|elif)\b.*\b(__clang__|__clang_major__|__NVCC__|__CUDACC__|__CUDA_ARCH__|__CUDA_ARCH_LIST__|__GNUC__|__GNUG__|__llvm__|__INTEL_COMPILER|_MSC_VER|BANKSIM\w*|__BANKSIM\w*|__SANITIZE_ADDRESS__|__has_feature)\b)");
  static const std::regex assembly(R"(\b(asm|__asm__|__asm)\b)");
  static const std::regex attribute(
      R"(\b(constructor|destructor|no_sanitize\w*|no_instrument_function|disable_sanitizer_instrumentation|init_priority|section|naked|ifunc|alias|weak|visibility|used|retain)\b)");
  static const std::regex attr_context(R"(__attribute__|\[\[|__declspec)");
  static const std::regex reserved(
      R"(\b(__asan_\w*|__sanitizer\w*|__sancov\w*|banksim\w*|__banksim\w*|__ubsan\w*|__msan\w*|__tsan\w*)\b)");
  static const std::regex runtime(R"(\b(cuda[A-Z]\w*|__cuda\w*|course_student_kernel)\s*\()");
  static const std::regex process(
      R"(\b(main|_init|_fini|atexit|at_quick_exit|dlopen|dlsym|syscall)\b\s*\()");
  // The raw text keeps the #include targets (they are string-like).
  std::istringstream raw(text);
  std::istringstream in(code);
  std::string line;
  std::string raw_line;
  int n = 0;
  while (std::getline(in, line)) {
    std::getline(raw, raw_line);
    ++n;
    std::smatch m;
    if (std::regex_search(raw_line, m, include) && line.find('#') != std::string::npos) {
      if (allowed_includes().count(m[1].str()) == 0) {
        v.push_back({n, "#include " + m[1].str() +
                            " is not allowed: a submission may include only course_todo.h, the "
                            "CUDA headers, <cuda/std/...> basics and standard math/utility "
                            "headers"});
      }
      continue;
    }
    if (std::regex_search(line, m, identity)) {
      v.push_back({n, "testing the compiler's identity (" + m[2].str() +
                          ") is not allowed: the same code must run under banksim and on the GPU"});
    }
    if (std::regex_search(line, m, assembly)) {
      v.push_back({n, "inline assembly is not allowed: write the access in CUDA C++"});
    }
    if (std::regex_search(line, attr_context) && std::regex_search(line, m, attribute)) {
      v.push_back({n, "the attribute '" + m[1].str() +
                          "' is not allowed: it changes what runs or what is traced"});
    }
    if (std::regex_search(line, m, runtime)) {
      v.push_back({n, "the CUDA runtime function " + m[1].str() +
                          " is the grader's: a submission defines kernels and device functions, "
                          "no host code (the grader allocates, launches and times)"});
    }
    if (std::regex_search(line, m, reserved)) {
      v.push_back(
          {n, "the name " + m[1].str() + " is reserved for the grader's tracer and runtime"});
    }
    if (std::regex_search(line, m, process)) {
      v.push_back({n, "'" + m[1].str() +
                          "' is not allowed: a submission defines kernels, device functions, "
                          "constants and types only"});
    }
  }
  return v;
}

std::vector<PolicyViolation> check_object_policy(const std::filesystem::path& so, bool host) {
  std::vector<PolicyViolation> v;
  std::ifstream in(so, std::ios::binary);
  const std::string b((std::istreambuf_iterator<char>(in)), {});
  auto bad = [&](const std::string& why) {
    v.push_back({0, "the compiled object " + why});
    return v;
  };
  if (b.size() < sizeof(Elf64_Ehdr) || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0) {
    return bad("is not an ELF file");
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + std::size_t{eh.e_shnum} * sizeof(Elf64_Shdr) > b.size() ||
      eh.e_shstrndx >= eh.e_shnum) {
    return bad("has no readable section table");
  }
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), b.data() + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  auto in_file = [&](const Elf64_Shdr& s) { return s.sh_offset + s.sh_size <= b.size(); };
  auto str = [&](const Elf64_Shdr& tab, std::size_t off) -> std::string {
    if (!in_file(tab) || off >= tab.sh_size) return "";
    const char* p = b.data() + tab.sh_offset + off;
    return std::string(p, strnlen(p, tab.sh_size - off));
  };
  const Elf64_Shdr& names = sh[eh.e_shstrndx];
  struct Range {
    std::uint64_t lo = 0, hi = 0;
  };
  Range init, fini;
  const Elf64_Shdr* symtab = nullptr;
  const Elf64_Shdr* dynsym = nullptr;
  std::vector<const Elf64_Shdr*> relas;
  for (const Elf64_Shdr& s : sh) {
    if (!in_file(s) && s.sh_type != SHT_NOBITS) return bad("has a section outside the file");
    const std::string name = str(names, s.sh_name);
    if (s.sh_type == SHT_PREINIT_ARRAY || name == ".ctors" || name == ".dtors") {
      v.push_back({0, "has a " + name + " section: code that runs before any kernel"});
    }
    if (s.sh_type == SHT_INIT_ARRAY) init = {s.sh_addr, s.sh_addr + s.sh_size};
    if (s.sh_type == SHT_FINI_ARRAY) fini = {s.sh_addr, s.sh_addr + s.sh_size};
    if (s.sh_type == SHT_SYMTAB) symtab = &s;
    if (s.sh_type == SHT_DYNSYM) dynsym = &s;
    if (s.sh_type == SHT_RELA) relas.push_back(&s);
  }
  if (symtab == nullptr || dynsym == nullptr) return bad("has no symbol tables");
  auto symbols = [&](const Elf64_Shdr* t) {
    std::vector<Elf64_Sym> syms(t->sh_size / sizeof(Elf64_Sym));
    std::memcpy(syms.data(), b.data() + t->sh_offset, syms.size() * sizeof(Elf64_Sym));
    return syms;
  };
  if (symtab->sh_link >= sh.size() || dynsym->sh_link >= sh.size()) return bad("is malformed");
  // Which functions the init and fini arrays call.
  const auto local = symbols(symtab);
  auto name_at = [&](std::uint64_t addr) -> std::string {
    for (const Elf64_Sym& s : local) {
      if (s.st_value == addr && ELF64_ST_TYPE(s.st_info) != STT_SECTION && s.st_name != 0) {
        return str(sh[symtab->sh_link], s.st_name);
      }
    }
    return "";
  };
  static const std::set<std::string> ok_init = {"asan.module_ctor", "frame_dummy"};
  static const std::set<std::string> ok_fini = {"asan.module_dtor", "__do_global_dtors_aux"};
  for (const Elf64_Shdr* r : relas) {
    std::vector<Elf64_Rela> rel(r->sh_size / sizeof(Elf64_Rela));
    std::memcpy(rel.data(), b.data() + r->sh_offset, rel.size() * sizeof(Elf64_Rela));
    for (const Elf64_Rela& x : rel) {
      const bool is_init = x.r_offset >= init.lo && x.r_offset < init.hi;
      const bool is_fini = x.r_offset >= fini.lo && x.r_offset < fini.hi;
      if (!is_init && !is_fini) continue;
      const std::string fn = name_at(static_cast<std::uint64_t>(x.r_addend));
      if ((is_init ? ok_init : ok_fini).count(fn) == 0) {
        v.push_back({0, std::string("runs code ") + (is_init ? "before" : "after") +
                            " the kernels (" + (fn.empty() ? "an unnamed function" : fn) +
                            "): static constructors, destructors and global initialisers that "
                            "call functions are not allowed"});
      }
    }
  }
  for (const Elf64_Sym& s : symbols(dynsym)) {
    if (s.st_shndx != SHN_UNDEF || s.st_name == 0) continue;
    const std::string name = str(sh[dynsym->sh_link], s.st_name);
    if (!allowed_symbol(name, host)) {
      v.push_back({0, "calls " + name +
                          ", which a submission may not use (allowed: math functions, printf, "
                          "the CUDA intrinsics banksim provides)"});
    }
  }
  return v;
}

namespace {

/// The symbols of a relocatable ELF64 object, and what its init/fini arrays point at.
struct RelocatableObject {
  struct Symbol {
    std::string name;
    bool defined = false;
    bool weak = false;
    bool global = false;
  };
  std::vector<Symbol> symbols;
  std::vector<std::string> init, fini;  ///< functions the arrays call ("" when unnamed)
  std::string error;                    ///< why the object could not be read
};

RelocatableObject read_relocatable(const std::filesystem::path& path) {
  RelocatableObject o;
  std::ifstream in(path, std::ios::binary);
  const std::string b((std::istreambuf_iterator<char>(in)), {});
  if (b.size() < sizeof(Elf64_Ehdr) || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0) {
    o.error = "is not an ELF file";
    return o;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  if (eh.e_type != ET_REL || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + std::size_t{eh.e_shnum} * sizeof(Elf64_Shdr) > b.size() ||
      eh.e_shstrndx >= eh.e_shnum) {
    o.error = "is not a readable relocatable object";
    return o;
  }
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), b.data() + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type != SHT_NOBITS && s.sh_offset + s.sh_size > b.size()) {
      o.error = "has a section outside the file";
      return o;
    }
  }
  auto str = [&](const Elf64_Shdr& tab, std::size_t off) -> std::string {
    if (off >= tab.sh_size) return "";
    const char* p = b.data() + tab.sh_offset + off;
    return std::string(p, strnlen(p, tab.sh_size - off));
  };
  const Elf64_Shdr* symtab = nullptr;
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type == SHT_SYMTAB) symtab = &s;
  }
  if (symtab == nullptr || symtab->sh_link >= sh.size()) {
    o.error = "has no symbol table";
    return o;
  }
  std::vector<Elf64_Sym> syms(symtab->sh_size / sizeof(Elf64_Sym));
  std::memcpy(syms.data(), b.data() + symtab->sh_offset, syms.size() * sizeof(Elf64_Sym));
  const Elf64_Shdr& strtab = sh[symtab->sh_link];
  for (const Elf64_Sym& s : syms) {
    const int bind = ELF64_ST_BIND(s.st_info);
    RelocatableObject::Symbol sym;
    sym.name = str(strtab, s.st_name);
    sym.defined = s.st_shndx != SHN_UNDEF;
    sym.weak = bind == STB_WEAK;
    sym.global = bind == STB_GLOBAL || bind == STB_WEAK;
    o.symbols.push_back(sym);
  }
  // The function a relocation points at: a named symbol, or a section symbol plus an addend
  // (the function of that section at that offset).
  auto target = [&](const Elf64_Rela& r) -> std::string {
    const std::size_t i = ELF64_R_SYM(r.r_info);
    if (i >= syms.size()) return "";
    const Elf64_Sym& s = syms[i];
    if (ELF64_ST_TYPE(s.st_info) != STT_SECTION) return str(strtab, s.st_name);
    for (const Elf64_Sym& f : syms) {
      if (ELF64_ST_TYPE(f.st_info) == STT_FUNC && f.st_shndx == s.st_shndx &&
          f.st_value == static_cast<std::uint64_t>(r.r_addend)) {
        return str(strtab, f.st_name);
      }
    }
    return "";
  };
  for (const Elf64_Shdr& r : sh) {
    if (r.sh_type != SHT_RELA || r.sh_info >= sh.size()) continue;
    const Elf64_Shdr& into = sh[r.sh_info];
    const bool is_init = into.sh_type == SHT_INIT_ARRAY || into.sh_type == SHT_PREINIT_ARRAY;
    const bool is_fini = into.sh_type == SHT_FINI_ARRAY;
    if (!is_init && !is_fini) continue;
    std::vector<Elf64_Rela> rel(r.sh_size / sizeof(Elf64_Rela));
    std::memcpy(rel.data(), b.data() + r.sh_offset, rel.size() * sizeof(Elf64_Rela));
    for (const Elf64_Rela& x : rel) (is_init ? o.init : o.fini).push_back(target(x));
  }
  const Elf64_Shdr& names = sh[eh.e_shstrndx];
  for (const Elf64_Shdr& s : sh) {
    const std::string name = str(names, s.sh_name);
    if (name == ".ctors" || name == ".dtors") o.init.push_back(name);
  }
  return o;
}

}  // namespace

std::vector<PolicyViolation> check_gpu_object_policy(const std::filesystem::path& student,
                                                     const std::filesystem::path& harness) {
  std::vector<PolicyViolation> v;
  const RelocatableObject s = read_relocatable(student);
  if (!s.error.empty()) return {{0, "the compiled object " + s.error}};
  const RelocatableObject h = read_relocatable(harness);
  if (!h.error.empty()) return {{0, "the grader's harness object " + h.error}};
  // nvcc's registration of the file's kernels, and nothing else, runs before main.
  for (const std::string& fn : s.init) {
    if (fn != "_ZL24__sti____cudaRegisterAllv") {
      v.push_back({0, "the compiled object runs code before the kernels (" +
                          (fn.empty() ? std::string("an unnamed function") : fn) +
                          "): static constructors and global initialisers that call functions "
                          "are not allowed"});
    }
  }
  for (const std::string& fn : s.fini) {
    v.push_back({0, "the compiled object runs code after the kernels (" +
                        (fn.empty() ? std::string("an unnamed function") : fn) +
                        "): destructors are not allowed"});
  }
  // What nvcc's own code calls. exit: nvcc's host stub for every non-inline __device__ function
  // calls it. No host code of a submission runs (constructors and destructors are refused above,
  // the entry point only returns an address), and a worker that exits early reports no result,
  // which scores nothing. _exit, _Exit and quick_exit stay refused.
  static const std::set<std::string> nvcc_entry = {
      "__cudaRegisterFatBinary",    "__cudaRegisterFatBinaryEnd",
      "__cudaUnregisterFatBinary",  "__cudaRegisterFunction",
      "__cudaRegisterVar",          "__cudaRegisterManagedVar",
      "__cudaPopCallConfiguration", "__cudaPushCallConfiguration",
      "__cudaLaunchKernel",         "__cudaGetKernel",
      "__cudaRegisterLinkedBinary", "atexit",
      "cudaLaunchKernel",           "exit"};
  std::set<std::string> harness_uses, harness_strong;
  for (const auto& sym : h.symbols) {
    if (sym.name.empty() || !sym.global) continue;
    if (!sym.defined) harness_uses.insert(sym.name);
    if (sym.defined && !sym.weak) harness_strong.insert(sym.name);
  }
  std::set<std::string> seen;
  for (const auto& sym : s.symbols) {
    if (sym.name.empty() || !sym.global || !seen.insert(sym.name).second) continue;
    if (!sym.defined) {
      if (nvcc_entry.count(sym.name) == 0 && !allowed_symbol(sym.name, true)) {
        v.push_back({0, "calls " + sym.name +
                            ", which a submission may not use (allowed: math functions, printf, "
                            "the CUDA intrinsics)"});
      }
      continue;
    }
    if (sym.name == "course_student_kernel") continue;  // the grader's own entry point
    if (harness_uses.count(sym.name) != 0 || harness_strong.count(sym.name) != 0) {
      v.push_back({0, "defines " + sym.name +
                          ", which the grader's timing harness uses: a submission may define "
                          "only its own kernels, device functions, constants and types"});
    }
  }
  return v;
}

}  // namespace grader
