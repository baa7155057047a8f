// module_build.cpp - Module::compile's steps before loading (module.cpp loads): the student's
// file prepared (read, its kernels checked, rewritten for the host, the stub and entries that
// make a translation unit), the toolchain (clang, its flags, the regions pass, the key of what
// a module depends on), building a module with its precompiled header, and the cache of modules
// with the index that lets a request the cached module covers load without compiling.
#include "module_build.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "banksim/runtime.hpp"
#include "course/registry.hpp"
#include "toolchain.hpp"

#ifndef BANKSIM_COURSE_INCLUDE_DIR
#define BANKSIM_COURSE_INCLUDE_DIR "."
#endif
#ifndef BANKSIM_INCLUDE_DIR
#error "BANKSIM_INCLUDE_DIR must name banksim/include (set by CMake)"
#endif

namespace banksim::detail {

namespace {

// The translation unit: the rewritten source, then a stub that places the dynamic shared
// memory, exports the arena's bounds and one entry per kernel made launchable (`names`).
const std::string kStub =
    "\n#line 1 \"<banksim stub>\"\n"
    "BANKSIM_REDZONE(__COUNTER__)\n"
    "extern \"C\" {\n__attribute__((section(\"banksim_shared\"), used, aligned(1024))) "
    "unsigned char banksim_dynamic_smem[" +
    std::to_string(rt::kMaxDynamicSmem) +
    "];\n}\n"
    "BANKSIM_REDZONE(__COUNTER__)\n"
    "extern \"C\" char __start_banksim_shared[];\n"
    "extern \"C\" char __stop_banksim_shared[];\n"
    "extern \"C\" __attribute__((no_sanitize(\"address\"))) void banksim_module_arena("
    "std::uintptr_t* lo, std::uintptr_t* hi) {\n"
    "  *lo = reinterpret_cast<std::uintptr_t>(__start_banksim_shared);\n"
    "  *hi = reinterpret_cast<std::uintptr_t>(__stop_banksim_shared);\n}\n";

// Builds the module of `tu` into `so` (throws CompileError).
void build_module(const Toolchain& tc, const fs::path& cu_file, const std::string& display,
                  const std::string& source, const std::string& tu, const fs::path& so,
                  const fs::path& cache) {
  const std::string& clang = tc.clang;
  const std::string& include_dir = tc.include_dir;
  const std::vector<std::string>& flags = tc.flags;
  const std::string& headers_text = tc.headers_text;
  if (!tool_exists(clang)) {
    throw CompileError("banksim needs clang++ to compile " + display + " for the CPU, and '" +
                           clang + "' was not found: apt-get install clang (or set BANKSIM_CLANG)",
                       "");
  }
  // A random suffix, not the pid: processes in different pid namespaces (the grader's
  // sandboxes) share the cache and can have the same pid.
  const std::string unique =
      fmt::format("{:08x}{:08x}", std::random_device{}(), std::random_device{}());
  const fs::path tu_path = cache / (so.stem().string() + "." + unique + ".cpp");
  std::ofstream(tu_path) << tu;
  const fs::path tmp_so = so.string() + "." + unique + ".tmp";
  // cuda_host.hpp (force-included: the CUDA emulation and the standard headers it needs) is
  // most of a compile: it is precompiled once per cache, clang and flags, named by their hash
  // (which covers the headers' contents, so -fno-validate-pch only skips the mtime check).
  const std::string host = include_dir + "/banksim/cuda_host.hpp";
  const std::string student_inc = "-I" + fs::absolute(cu_file).parent_path().string();
  std::vector<std::string> pch_flags;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == "-include") {
      ++i;
    } else if (flags[i] != "-shared" && flags[i] != student_inc && flags[i].rfind("-Wl,", 0) != 0) {
      // (a linker option is an input of the link: "cannot specify -o when generating
      // multiple output files", and no PCH: every compile then took 1.6x as long)
      pch_flags.push_back(flags[i]);
    }
  }
  std::string pch_key = clang;
  for (const auto& f : pch_flags) pch_key += "\x1f" + f;
  pch_key += headers_text;
  const fs::path pch =
      cache / fmt::format("banksim-host-{:016x}.pch", std::hash<std::string>{}(pch_key));
  if (!fs::exists(pch)) {
    const fs::path tmp_pch = pch.string() + "." + unique + ".tmp";
    std::string pcmd = shell_quote(clang);
    for (const auto& f : pch_flags) {
      pcmd += " " + shell_quote(f == "c++" ? std::string("c++-header") : f);
    }
    pcmd += " " + shell_quote(host) + " -o " + shell_quote(tmp_pch.string());
    if (run_command(pcmd).first == 0) {
      std::error_code ec;
      fs::rename(tmp_pch, pch, ec);
    }
    std::error_code ec;
    fs::remove(tmp_pch, ec);
  }
  auto compile_cmd = [&](bool use_pch) {
    std::string cmd = shell_quote(clang);
    for (std::size_t i = 0; i < flags.size(); ++i) {
      if (use_pch && flags[i] == "-include") {
        cmd += " -include-pch " + shell_quote(pch.string()) + " -Xclang -fno-validate-pch";
        ++i;
        continue;
      }
      cmd += " " + shell_quote(flags[i]);
    }
    return cmd + " " + shell_quote(tu_path.string()) + " -o " + shell_quote(tmp_so.string());
  };
  bool use_pch = fs::exists(pch);
  auto [status, output] = run_command(compile_cmd(use_pch));
  if (status != 0 && output.find("precompiled header") != std::string::npos) {
    use_pch = false;
    std::tie(status, output) = run_command(compile_cmd(false));  // a PCH clang refuses
  }
  if (status != 0) {
    fs::remove(tu_path);
    std::string summary = first_error(output);
    if (const std::string t = toolkit_header_error(output, display); !t.empty()) {
      summary = t;
    }
    // A launch of something that is not a kernel: banksim's launch helper says so in a
    // static_assert; the error is the launch's line, with none of banksim's templates.
    static const std::regex not_kernel(
        R"re(static_assert failed[^"]*"(the expression before <<< [^"]*)")re");
    static const std::regex requested(
        R"(([^\s:][^:\n]*):(\d+):\d+: note: in instantiation of [^\n]* requested here\n([^\n]*))");
    std::smatch nk;
    std::smatch rq;
    if (std::regex_search(output, nk, not_kernel) && std::regex_search(output, rq, requested)) {
      summary = display + ":" + rq[2].str() + ": error: " + nk[1].str();
      output = summary + "\n" + rq[3].str() + "\n";
    }
    if (summary.find("<banksim stub>") != std::string::npos) {
      summary = "a requested kernel could not be instantiated (" + summary +
                "); check the kernel name and its template arguments";
    }
    if (summary.find("'cuda/std/") != std::string::npos &&
        summary.find("file not found") != std::string::npos) {
      summary += cccl_include_dir().empty()
                     ? " (banksim compiles the CUDA toolkit's own <cuda/std/...> headers and "
                       "found none: install the CUDA toolkit, or set BANKSIM_CCCL to its "
                       "include/cccl folder)"
                     : " (the CUDA toolkit's libcu++ has no such header)";
    }
    // The rewritten copy's path means nothing to the student: it is their file.
    for (std::size_t at = output.find(tu_path.string()); at != std::string::npos;
         at = output.find(tu_path.string(), at)) {
      output.replace(at, tu_path.string().size(), display);
      at += display.size();
    }
    throw CompileError(summary, restore_source_lines(output, display, source));
  }
  // Host code calling what nothing here defines (cuBLAS, a function of the program's other
  // source file): defined as stubs that say so, else the module would not load.
  if (const std::vector<std::string> missing = unresolved_symbols(tmp_so); !missing.empty()) {
    std::ofstream(tu_path) << tu << stub_definitions(missing, display);
    std::tie(status, output) = run_command(compile_cmd(use_pch));
    if (status != 0) {
      fs::remove(tu_path);
      throw CompileError(first_error(output), output);
    }
  }
  fs::remove(tu_path);
  write_line_table(tmp_so, find_symbolizer());
  std::error_code ec;
  if (fs::exists(tmp_so.string() + ".lines")) {
    fs::rename(tmp_so.string() + ".lines", so.string() + ".lines", ec);
  }
  fs::rename(tmp_so, so);
}

}  // namespace

// ---- source preparation ---------------------------------------------------------------------

PreparedSource prepare_source(const fs::path& cu_file, const std::string& display,
                              const CompileOptions& options) {
  PreparedSource p;
  p.text = read_file(cu_file);
  const std::string& source = p.text;
  if (source.empty() && !fs::exists(cu_file)) {
    throw UsageError("cannot read " + cu_file.string() + ": no such file (check the path)");
  }
  {
    std::istringstream in(source);
    std::string line;
    while (std::getline(in, line)) p.lines.push_back(line);
  }
  p.declared = find_kernels(source);
  p.source_dirs.push_back(fs::absolute(cu_file).parent_path().lexically_normal().string() + "/");
  for (const auto& f : options.extra_flags) {
    if (f.rfind("-I", 0) == 0 && f.size() > 2) {
      p.source_dirs.push_back(fs::absolute(f.substr(2)).lexically_normal().string() + "/");
    }
  }
  for (const std::string& k : options.kernels) {
    const std::string base = base_name(k);
    bool found = std::any_of(p.declared.begin(), p.declared.end(),
                             [&](const KernelDecl& d) { return d.name == base; });
    if (!found) {
      // Defined in a header the file includes by path (`#include "scan.cuh"`, as cuda-samples
      // do): the kernel is compiled with the file; its lines are the header's.
      for (const KernelDecl& d : kernels_in_local_headers(cu_file, source, options.extra_flags)) {
        if (d.name == base) {
          p.declared.push_back(d);
          found = true;
          break;
        }
      }
    }
    if (!found) {
      std::string list;
      for (const KernelDecl& d : p.declared) {
        list += (list.empty() ? "" : ", ") + d.name + " (line " + std::to_string(d.line) + ")";
      }
      throw UsageError("kernel '" + k + "' not found in " + display + "; " +
                       (list.empty() ? std::string("the file declares no __global__ function")
                                     : "it declares: " + list));
    }
    const auto decl = std::find_if(p.declared.begin(), p.declared.end(),
                                   [&](const KernelDecl& d) { return d.name == base; });
    if (decl->is_template && k.find('<') == std::string::npos) {
      throw UsageError("kernel '" + k + "' (" + display + ":" + std::to_string(decl->line) +
                       ") is a template: name an instance, e.g. --kernel '" + k + "<32>'");
    }
  }

  p.rewritten = rewrite_for_host(source, display);
  // Every kernel with a fiber per thread (asked for, or BANKSIM_FIBERS=1): the pass still
  // keeps the loop epochs (the same requests), but cuts no kernel into regions.
  p.fibers_only = !options.regions || env_or("BANKSIM_FIBERS", "") == "1";
  return p;
}

std::string PreparedSource::translation_unit(const std::vector<std::string>& names) const {
  std::string tu = rewritten + kStub;
  if (fibers_only) tu += "extern \"C\" __attribute__((used)) const char banksim_fibers_only = 1;\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& k = names[i];
    tu +=
        "extern \"C\" __attribute__((no_sanitize(\"address\"))) const ::banksim::KernelEntry* "
        "banksim_kernel_" +
        std::to_string(i) +
        "() {\n  static const ::banksim::KernelEntry e = " + "::banksim::make_kernel_entry(\"" + k +
        "\", &" + k + ");\n  return &e;\n}\n";
  }
  return tu;
}

// ---- toolchain discovery --------------------------------------------------------------------

Toolchain discover_toolchain(const fs::path& cu_file, const CompileOptions& options,
                             bool fibers_only) {
  Toolchain tc;
  tc.clang = !options.clang.empty() ? options.clang : env_or("BANKSIM_CLANG", "clang++");
  tc.include_dir = BANKSIM_INCLUDE_DIR;
  const std::string& clang = tc.clang;
  const std::string& include_dir = tc.include_dir;
  std::vector<std::string>& flags = tc.flags;
  flags = {
      "-std=c++17", "-O1", "-gdwarf-4", "-fPIC", "-shared", "-w", "-x", "c++",
      // banksim's functions, declared in the file, are called through the GOT, and every symbol
      // is bound at load (ASan's callbacks, which clang declares itself, through PLT stubs:
      // faster there, regions.cpp says why).
      "-fno-plt", "-Wl,-z,now",
      // AddressSanitizer as a tracer: every load/store calls our hook (no ASan runtime).
      "-fsanitize=address", "-fno-sanitize-address-use-after-scope",
      "-fsanitize-address-use-after-return=never", "-mllvm",
      "-asan-instrumentation-with-call-threshold=0", "-mllvm", "-asan-opt=0", "-mllvm",
      "-asan-globals=0", "-mllvm", "-asan-stack=0", "-mllvm", "-asan-use-private-alias=0",
      // A 16-byte granule: clang calls a fixed-width hook only for an access it knows is
      // aligned to its size, and the sized hook for the others (abi.cpp checks both).
      "-mllvm", "-asan-mapping-scale=4",
      // No VectorCombine: it turns a vector load whose elements are used apart (a char2's x and
      // y) into scalar loads at the line that uses them, where nvcc keeps one LDS.U16 at the
      // line that loads (tests/everyday/libcuxx_vectors.cu, short4_stride and wide_structs).
      "-mllvm", "-disable-vector-combine", "-mllvm", "-inline-threshold=2000", "-I" + include_dir,
      "-I" + include_dir + "/banksim/cuda", "-include", include_dir + "/banksim/cuda_host.hpp",
      // The course's shared headers (course_todo.h), so exercise files compile as they are.
      "-I" BANKSIM_COURSE_INCLUDE_DIR, "-I" + fs::absolute(cu_file).parent_path().string()};
  // __CUDA_ARCH__ of the GPU whose widths count (cuda_host.hpp): "90" -> 900, "90a" -> 900.
  {
    const std::string arch =
        options.gpu_arch.empty() ? std::string(course::kDefaultGpuArch) : options.gpu_arch;
    std::string digits;
    for (char c : arch) {
      if (c >= '0' && c <= '9') digits += c;
    }
    if (digits.empty() || digits.size() > 3) {
      throw CompileError("banksim: GPU architecture '" + arch +
                             "' is not a compute capability like \"90\" (sm_90)",
                         "");
    }
    flags.push_back("-DBANKSIM_CUDA_ARCH=" + digits + "0");
  }
  // lld links the module in two thirds of ld.bfd's time, where installed.
  if (!find_in_path("ld.lld").empty()) flags.push_back("-fuse-ld=lld");
  // `<cuda/std/...>`: the toolkit's own headers, after banksim's (which shadow the parts it
  // cannot run: banksim/cuda/cuda/). Their half, bfloat16 and fp8 support is off: it needs more
  // of cuda_fp16.h than banksim's provides, and banksim has no fp8.
  if (const std::string cccl = cccl_include_dir(); !cccl.empty()) {
    for (const char* f : {"-isystem", cccl.c_str(), "-DCCCL_DISABLE_FP16_SUPPORT",
                          "-DCCCL_DISABLE_BF16_SUPPORT", "-DCCCL_DISABLE_NVFP8_SUPPORT",
                          "-DCCCL_DISABLE_NVFP6_SUPPORT", "-DCCCL_DISABLE_NVFP4_SUPPORT"}) {
      flags.emplace_back(f);
    }
  }
  for (const auto& f : options.extra_flags) flags.push_back(f);
  // Kernels whose barriers a thread passes at most once run without fibers (regions.cpp).
  std::string plugin_text;
  tc.plugin = regions_plugin(clang);
  const std::string& plugin = tc.plugin;
  if (!plugin.empty()) {
    flags.push_back("-fpass-plugin=" + plugin);
    plugin_text = read_file(plugin);
  }

  // Cache by content: the TU, the flags and the headers it force-includes.
  // Every banksim header a module may include (cuda_host.hpp and the headers it includes: a
  // change to any must rebuild both the module and the precompiled cuda_host.hpp).
  std::string& headers_text = tc.headers_text;
  std::vector<fs::path> own_headers;
  for (const auto& e : fs::directory_iterator(fs::path(include_dir) / "banksim")) {
    if (e.is_regular_file() && e.path().extension() == ".hpp") own_headers.push_back(e.path());
  }
  std::sort(own_headers.begin(), own_headers.end());
  for (const auto& h : own_headers) headers_text += h.filename().string() + read_file(h);
  // The CUDA headers banksim provides (cooperative_groups.h...): a change rebuilds.
  std::vector<fs::path> cuda_headers;
  for (const auto& e :
       fs::recursive_directory_iterator(fs::path(include_dir) / "banksim" / "cuda")) {
    if (e.is_regular_file()) cuda_headers.push_back(e.path());
  }
  std::sort(cuda_headers.begin(), cuda_headers.end());
  for (const auto& h : cuda_headers) headers_text += h.string() + read_file(h);
  std::string& key_text = tc.key_text;
  key_text = clang;  // all but the TU: a module is keyed by its TU and this
  for (const auto& f : flags) key_text += "\x1f" + f;
  key_text += headers_text;
  key_text += plugin_text;
  key_text += "\x1fundefined-stubs-v2";  // modules built before the stubs were had none
  key_text += "\x1fgot-call-sites";      // line tables that missed calls through the GOT
  key_text +=
      "\x1f"
      "borrowed-lines-v2";  // line 0 accesses take a line only when both sides agree
  if (fibers_only)
    key_text +=
        "\x1f"
        "fibers-only";  // its own module and kernel index
  key_text +=
      "\x1f"
      "loop-epochs-v3";  // modules built before loop epochs
  return tc;
}

// ---- the cache of modules and its index -----------------------------------------------------

fs::path cache_folder(const CompileOptions& options) {
  const fs::path cache =

      !options.cache_dir.empty()
          ? options.cache_dir
          : fs::path(env_or("BANKSIM_CACHE", "/tmp/banksim-cache-" + std::to_string(getuid())));
  fs::create_directories(cache);
  return cache;
}

CachedModule cached_module(const fs::path& cu_file, const std::string& display,
                           const PreparedSource& src, const Toolchain& tc,
                           const CompileOptions& options, const fs::path& cache) {
  const std::string& source = src.text;
  const std::string& rewritten = src.rewritten;
  const std::string& key_text = tc.key_text;
  auto make_tu = [&](const std::vector<std::string>& names) { return src.translation_unit(names); };
  auto build = [&](const std::string& tu, const fs::path& so) {
    build_module(tc, cu_file, display, source, tu, so, cache);
  };
  auto module_path = [&](const std::string& tu) {
    return cache / (cu_file.stem().string() + "-" +
                    fmt::format("{:016x}", std::hash<std::string>{}(tu + key_text)) + ".so");
  };

  // One module per file, content and flags, whatever kernel is asked for: it has an entry for
  // every kernel of the file (not templates), every template instance the file itself
  // instantiates, and every instance asked for so far. Its index (`.kernels`, beside it) names
  // the module and its entries in order; a request it covers loads that module, without
  // compiling.
  const fs::path index_path =
      cache / (cu_file.stem().string() + "-" +
               fmt::format("{:016x}", std::hash<std::string>{}(rewritten + key_text)) + ".kernels");
  std::vector<std::string> entry_names;
  fs::path so;
  {
    std::istringstream in(read_file(index_path));
    std::string line;
    if (std::getline(in, line) && !line.empty() && fs::exists(cache / line)) {
      so = cache / line;
      while (std::getline(in, line)) entry_names.push_back(line);
    }
  }
  auto covered = [&](const std::vector<std::string>& have) {
    std::set<std::string> keys;
    for (const auto& n : have) keys.insert(instance_key(n));
    return std::all_of(options.kernels.begin(), options.kernels.end(),
                       [&](const std::string& k) { return keys.count(instance_key(k)) != 0; });
  };
  if (so.empty() || !covered(entry_names)) {
    std::vector<std::string> want = entry_names;
    auto add = [&](const std::string& k) {
      for (const auto& n : want) {
        if (instance_key(n) == instance_key(k)) return;
      }
      want.push_back(k);
    };
    for (const auto& k : options.kernels) add(k);
    for (const KernelDecl& d : find_kernels(source)) {
      if (!d.is_template) add(d.name);
    }
    fs::path built = module_path(make_tu(want));
    try {
      if (!fs::exists(built)) build(make_tu(want), built);
    } catch (const CompileError&) {
      // An entry of the whole file's that does not compile (a kernel in a namespace, an
      // overload set): the kernels asked for alone, whose errors are the student's.
      if (want.size() == options.kernels.size()) throw;
      want = options.kernels;
      built = module_path(make_tu(want));
      if (!fs::exists(built)) build(make_tu(want), built);
    }
    // The template instances the file instantiates itself (its own launches, explicit
    // instantiations): entries for them too, once, so that asking for another costs no compile.
    std::set<std::string> templates;
    for (const KernelDecl& d : find_kernels(source)) {
      if (d.is_template) templates.insert(d.name);
    }
    std::vector<std::string> more = want;
    if (!templates.empty()) {
      std::set<std::string> have;
      for (const auto& n : want) have.insert(instance_key(n));
      for (const std::string& f : defined_functions(built)) {
        const std::string d = demangle(f.c_str());
        const std::string name = d.substr(0, d.find('('));
        const auto lt = name.find('<');
        if (lt == std::string::npos || name.rfind("void ", 0) != 0) continue;
        const std::string inst = name.substr(5);
        if (inst.find_first_of("({'") != std::string::npos) continue;  // not nameable here
        const std::string base = base_name(inst);
        if (templates.count(base) != 0 && have.insert(instance_key(inst)).second) {
          more.push_back(inst);
        }
      }
    }
    if (more.size() > want.size()) {
      const fs::path wider = module_path(make_tu(more));
      try {
        if (!fs::exists(wider)) build(make_tu(more), wider);
        built = wider;
        want = more;
      } catch (const CompileError&) {
        // keep the module without them: an instance asked for later compiles then
      }
    }
    so = built;
    entry_names = want;
    const std::string unique =
        fmt::format("{:08x}{:08x}", std::random_device{}(), std::random_device{}());
    const fs::path tmp_index = index_path.string() + "." + unique + ".tmp";
    {
      std::ofstream out(tmp_index);
      out << so.filename().string() << "\n";
      for (const auto& n : entry_names) out << n << "\n";
    }
    std::error_code ec;
    fs::rename(tmp_index, index_path, ec);
    if (ec) fs::remove(tmp_index, ec);
  }
  return {so, entry_names};
}

}  // namespace banksim::detail
