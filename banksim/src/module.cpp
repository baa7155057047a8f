// module.cpp - a .cu file as a traced shared object: Module::compile (its steps before loading,
// source, toolchain and cache, are module_build.cpp's), loading it, running kernels and turning
// raw results (program counters, arena offsets) into source lines and variable names.
// Over 600 lines: load -> widths -> find the shared variables -> launch -> aggregate is one
// pipeline over one Module::Impl; the tools it runs and its messages are in toolchain.hpp.
// The report's presentation (table, JSON) is in report.cpp.
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fmt/format.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <sys/stat.h>

#include "banksim/banksim.hpp"

#include "advice.hpp"
#include "banksim/runtime.hpp"
#include "banksim/sass_widths.hpp"
#include "course/registry.hpp"
#include "module_build.hpp"
#include "toolchain.hpp"

#ifndef BANKSIM_COURSE_INCLUDE_DIR
#define BANKSIM_COURSE_INCLUDE_DIR "."
#endif

namespace banksim {
namespace fs = std::filesystem;
using namespace detail;  // toolchain.hpp: the tools and messages compile() uses

namespace {
const rt::ModuleLayout* g_last_layout = nullptr;
void note_host_layout(const rt::ModuleLayout* layout) {
  g_last_layout = layout;
}

}  // namespace

// ---- DeviceBuffer / Arg ---------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(std::size_t bytes) : data_(rt::device_alloc(bytes)), bytes_(bytes) {}
DeviceBuffer::~DeviceBuffer() {
  rt::device_free(data_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    rt::device_free(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Arg::Arg(const DeviceBuffer& buffer) : size_(sizeof(void*)), is_buffer_(true) {
  void* p = buffer.data();
  std::memcpy(bytes_, &p, sizeof p);
}

Arg Arg::pointer(void* p) {
  Arg a;
  std::memcpy(a.bytes_, &p, sizeof p);
  a.size_ = sizeof p;
  a.is_buffer_ = true;
  return a;
}

// ---- Module ---------------------------------------------------------------------------------

struct Module::Impl : rt::WidthPlan {
  fs::path file;
  std::string display;        // the path as the student gave it (used in #line and reports)
  fs::path absolute_display;  // the same, absolute: debug info names files that way
  std::vector<std::string> source_lines;
  std::vector<KernelDecl> declared;
  std::string so_path;
  void* handle = nullptr;
  std::uintptr_t load_base = 0;
  rt::ModuleLayout layout;
  std::map<std::string, const KernelEntry*> entries;
  std::string symbolizer;
  std::map<std::uint64_t, std::string> line_table;  ///< read_line_table's, by offset
  mutable std::map<std::uint64_t, std::pair<std::string, int>> locations;
  mutable std::map<std::uint64_t, int> columns;  ///< the column of each location (0: unknown)
  SassWidths sass;          ///< nvcc's widths per line of the file (when use_sass)
  bool use_sass = false;    ///< launches regroup into nvcc's widths
  std::string widths_note;  ///< whose widths, in words (LaunchReport::widths)

  void read_widths(const fs::path& cu_file, const CompileOptions& options, const fs::path& cache);
  void load(const std::string& source, const std::string& plugin,
            const std::vector<std::string>& entry_names, const CompileOptions& options,
            const fs::path& so);

  /// WidthPlan: a traced access at a line of the file where nvcc emitted shared instructions
  /// takes that line's widths; others (a header's code) keep clang's.
  std::vector<std::uint64_t> call_sites() const override {
    std::vector<std::uint64_t> pcs;
    pcs.reserve(line_table.size());
    for (const auto& entry : line_table) pcs.push_back(load_base + entry.first + 1);
    return pcs;
  }

  /// nvcc's widths by statement: each line of a statement written over several lines maps to
  /// the statement's first line (statement_of), whose widths are the union of its lines'
  /// (statement_widths). nvcc gives an access the statement's last line, clang often another.
  std::map<int, int> statement_of;
  std::map<int, LineWidths> statement_widths;

  /// Fills statement_of and statement_widths from the source and `sass` (after both are read).
  void index_statements() {
    std::string text;
    for (const auto& l : source_lines) text += l + "\n";
    const std::string masked = mask_comments_and_strings(text);
    std::istringstream in(masked);
    std::string line;
    int n = 0;
    int start = 1;
    while (std::getline(in, line)) {
      ++n;
      statement_of[n] = start;
      std::size_t b = line.find_first_not_of(" \t\r");
      std::size_t e = line.find_last_not_of(" \t\r");
      const bool ends = b == std::string::npos || line[b] == '#' ||
                        std::string(";{}:").find(line[e]) != std::string::npos ||
                        n - start >= 7;  // a statement of more lines: something else
      if (ends) start = n + 1;
    }
    for (const auto& [l, w] : sass.lines) {
      const auto st = statement_of.find(l);
      LineWidths& u = statement_widths[st == statement_of.end() ? l : st->second];
      u.load |= w.load;
      u.store |= w.store;
      u.atomic |= w.atomic;
      u.global_load |= w.global_load;
      u.global_store |= w.global_store;
      u.atomic_add |= w.atomic_add;
    }
  }

  /// The statement (its first line) whose nvcc widths apply to `line`, 0 for none: its own, else
  /// an adjacent statement's where nvcc made an access wider than 4 bytes (two 4-byte accesses
  /// on consecutive lines that nvcc merged into one 8-byte instruction at one of the lines).
  int width_statement(int line) const {
    const auto st = statement_of.find(line);
    const int own = st == statement_of.end() ? line : st->second;
    if (statement_widths.count(own) != 0) return own;
    auto wide = [](std::uint8_t mask) {
      return (mask & ~(width_bit(1) | width_bit(2) | width_bit(4))) != 0;
    };
    for (int d : {-1, 1}) {
      const auto nb = statement_of.find(line + d);
      if (nb == statement_of.end()) continue;
      const auto w = statement_widths.find(nb->second);
      if (w != statement_widths.end() && (wide(w->second.load) || wide(w->second.store))) {
        return nb->second;
      }
    }
    return 0;
  }

  std::vector<rt::WidthRule> rules(const std::vector<std::uint64_t>& pcs) const override {
    symbolize(pcs);
    std::vector<rt::WidthRule> out(pcs.size());
    for (std::size_t i = 0; i < pcs.size(); ++i) {
      const auto it = locations.find(pcs[i]);
      if (it == locations.end() || it->second.first != display) continue;
      const int group = width_statement(it->second.second);
      const auto w = statement_widths.find(group);
      if (group == 0 || w == statement_widths.end()) continue;
      out[i].group = static_cast<std::uint32_t>(group);
      out[i].load = w->second.load;
      out[i].store = w->second.store;
      out[i].global_load = w->second.global_load;
      out[i].global_store = w->second.global_store;
      out[i].atomic_add = w->second.atomic_add;
      // The statement that starts after this one's lines, when nvcc put shared accesses there.
      int after = group + 1;
      while (statement_of.count(after) != 0 && statement_of.at(after) == group) ++after;
      const auto next = statement_of.find(after);
      if (next != statement_of.end()) {
        const auto nw = statement_widths.find(next->second);
        if (nw != statement_widths.end()) {
          out[i].next_group = static_cast<std::uint32_t>(next->second);
          out[i].next_load = nw->second.load;
          out[i].next_store = nw->second.store;
        }
      }
    }
    return out;
  }

  ~Impl() {
    if (g_last_layout == &layout) g_last_layout = nullptr;
    if (handle != nullptr) dlclose(handle);
  }

  void symbolize(const std::vector<std::uint64_t>& pcs) const {
    std::vector<std::uint64_t> todo;
    for (std::uint64_t pc : pcs) {
      if (pc == 0 || locations.count(pc) != 0) continue;
      const auto known = line_table.find(pc - load_base - 1);
      if (known != line_table.end()) {
        read_frames(known->second, {pc});
      } else {
        todo.push_back(pc);
      }
    }
    if (todo.empty()) return;
    if (symbolizer.empty()) {
      // Said once per process: every line would read 0 otherwise, without a word why.
      static bool told = false;
      if (!told) {
        std::fprintf(stderr,
                     "banksim: llvm-symbolizer not found: no source lines in reports "
                     "(apt-get install llvm)\n");
        told = true;
      }
      for (std::uint64_t pc : todo) locations[pc] = {display, 0};
      return;
    }
    std::string input;
    for (std::uint64_t pc : todo) input += fmt::format("0x{:x}\n", pc - load_base - 1);
    // In the temporary folder, not beside the module: the cache may be read-only (the grader
    // mounts it so where student code runs).
    const fs::path in_file =
        fs::temp_directory_path() / ("banksim-" + std::to_string(getpid()) + "-" +
                                     fs::path(so_path).filename().string() + ".pcs");
    std::ofstream(in_file) << input;
    const auto [status, out] =
        run_command(symbolizer + " --functions=none --inlining --obj=" + shell_quote(so_path) +
                    " < " + shell_quote(in_file.string()));
    fs::remove(in_file);
    read_frames(out, todo);
    for (std::uint64_t pc : todo) {
      if (locations.count(pc) == 0) locations[pc] = {display, 0};
    }
  }

  /// llvm-symbolizer's answer for `pcs`: one group of frames per address, separated by blank
  /// lines, innermost frame first. Each pc gets the innermost frame in the student's file (a
  /// helper inlined from a header is skipped).
  void read_frames(const std::string& out, const std::vector<std::uint64_t>& pcs) const {
    std::istringstream lines(out);
    std::string line;
    std::size_t index = 0;
    std::pair<std::string, int> chosen{display, 0};
    int chosen_column = 0;
    bool have_student = false;
    bool any = false;
    bool borrowed_line = false;
    auto finish = [&]() {
      if (any && index < pcs.size()) {
        columns[pcs[index]] = chosen_column;
        if (borrowed_line) borrowed.insert(pcs[index]);
        locations[pcs[index++]] = chosen;
      }
      borrowed_line = false;
      chosen = {display, 0};
      chosen_column = 0;
      have_student = false;
      any = false;
    };
    static const std::regex loc(R"((.*):(\d+):(\d+)$)");
    while (std::getline(lines, line)) {
      if (line.empty()) {
        finish();
        continue;
      }
      if (line == kBorrowedLine) borrowed_line = true;
      std::smatch m;
      if (!std::regex_match(line, m, loc)) continue;
      std::string f = m[1].str();
      if (f != display && fs::path(f).lexically_normal() == absolute_display) f = display;
      const int ln = std::stoi(m[2].str());
      const int col = std::stoi(m[3].str());
      if (!any) {
        chosen = {f, ln};
        chosen_column = col;
      }
      if (!have_student && f == display) {
        chosen = {f, ln};
        chosen_column = col;
        have_student = true;
      }
      any = true;
    }
    finish();
  }

  /// Call sites clang gave no line (a vector load it built from member selects, a `?:`, a
  /// memcpy), named by the line of the instructions around them.
  mutable std::set<std::uint64_t> borrowed;

  std::string line_text(int line) const {
    if (line <= 0 || static_cast<std::size_t>(line) > source_lines.size()) return {};
    return trim(source_lines[static_cast<std::size_t>(line - 1)]);
  }
  /// A line of another file the kernel's code comes from (a header it includes by path), read
  /// once; "" for the toolkit's and banksim's own headers, and files that cannot be read.
  mutable std::map<std::string, std::vector<std::string>> other_files;
  std::vector<std::string> source_dirs;  ///< the file's folder and its -I folders, absolute
  std::string line_text(const std::string& path, int line) const {
    if (path == display) return line_text(line);
    // Only the file's own headers (beside it, or in its -I folders) are quoted.
    const std::string where = fs::absolute(path).lexically_normal().string();
    if (path.empty() ||
        std::none_of(source_dirs.begin(), source_dirs.end(),
                     [&](const std::string& d) { return where.rfind(d, 0) == 0; })) {
      return {};
    }
    auto it = other_files.find(path);
    if (it == other_files.end()) {
      std::vector<std::string> lines;
      std::istringstream in(read_file(path));
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      it = other_files.emplace(path, std::move(lines)).first;
    }
    if (line <= 0 || static_cast<std::size_t>(line) > it->second.size()) return {};
    return trim(it->second[static_cast<std::size_t>(line - 1)]);
  }
};

Module::Module(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Module::~Module() = default;
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;

const std::vector<KernelDecl>& Module::declared_kernels() const {
  return impl_->declared;
}
fs::path Module::shared_object() const {
  return impl_->so_path;
}

const fs::path& Module::file() const {
  return impl_->file;
}

std::pair<std::string, int> Module::locate(std::uint64_t pc) const {
  impl_->symbolize({pc});
  auto it = impl_->locations.find(pc);
  return it == impl_->locations.end() ? std::make_pair(impl_->display, 0) : it->second;
}

const KernelEntry& Module::entry(const std::string& kernel) const {
  auto it = impl_->entries.find(kernel);
  if (it == impl_->entries.end()) {
    throw UsageError("kernel '" + kernel + "' was not compiled into " + impl_->display +
                     ": name it in CompileOptions::kernels (--kernel)");
  }
  return *it->second;
}

/// nvcc's access widths for the module's file (built once into the cache, read by every
/// launch), or clang's with the reason why: sass, use_sass, widths_note.
void Module::Impl::read_widths(const fs::path& cu_file, const CompileOptions& options,
                               const fs::path& cache) {
  Impl* impl = this;
  // Keyed by what nvcc reads (the file, its folder, the include and define flags), not by the
  // module: every kernel set asked of one file shares one nvcc run (a libcu++ file's costs 3 s).
  // The name carries the format's version (v2: global widths too; v3: the kernels nvcc compiled,
  // "# kernel NAME"; v4: ATOMS.ADD lines), so a cache an older banksim
  // wrote is never misread.
  std::string wkey_text = read_file(cu_file) + "\x1f" +
                          fs::absolute(cu_file).parent_path().string() +
                          "\x1f" BANKSIM_COURSE_INCLUDE_DIR;
  for (const auto& f : options.extra_flags) wkey_text += "\x1f" + f;
  const fs::path wpath = cache / fmt::format("{}-{:016x}.sass-widths-v4", cu_file.stem().string(),
                                             std::hash<std::string>{}(wkey_text));
  if (options.widths == Widths::kClang ||
      (options.widths == Widths::kCachedOrClang && !fs::exists(wpath))) {
    impl->widths_note = "clang's (as compiled for the CPU; asked for)";
  } else {
    // nvcc's widths, cached beside the module: built once (in the grader's compile step, which
    // may write the cache), read by every launch.
    std::string why;
    const std::string gpu_arch =
        options.gpu_arch.empty() ? std::string(course::kDefaultGpuArch) : options.gpu_arch;
    std::vector<std::string> incs = {"-I" + fs::absolute(cu_file).parent_path().string()};
    for (const auto& f : options.extra_flags) {
      if (f.rfind("-I", 0) == 0 || f.rfind("-D", 0) == 0) incs.push_back(f);
    }
    std::optional<NvccTools> tools;
    auto tools_why = [&]() {
      if (!tools) tools = find_nvcc_tools();
      return tools->why;
    };
    if (!fs::exists(wpath)) {
      why = tools_why();
      if (why.empty()) write_sass_widths(cu_file, incs, *tools, gpu_arch, {}, wpath);
    }
    fs::path used = wpath;
    if (why.empty() && read_file(wpath).rfind("# none ", 0) != 0) {
      // Template instances asked for that nvcc's object has no code for (a header of templates
      // compiled alone): nvcc compiles a file that instantiates them; its widths are used only
      // if it has them all, else clang's count (never nvcc's for lines it did not compile).
      const std::set<std::string> have = sass_kernels(read_file(wpath));
      std::vector<std::string> missing;
      for (const std::string& k : options.kernels) {
        if (k.find('<') != std::string::npos && have.count(instance_key(k)) == 0) {
          missing.push_back(k);
        }
      }
      std::sort(missing.begin(), missing.end());
      if (!missing.empty()) {
        std::string ikey = wkey_text;
        for (const auto& k : missing) ikey += "\x1finstance " + instance_key(k);
        const fs::path ipath =
            cache / fmt::format("{}-{:016x}.sass-widths-v4", cu_file.stem().string(),
                                std::hash<std::string>{}(ikey));
        if (!fs::exists(ipath)) {
          why = tools_why();
          if (why.empty()) write_sass_widths(cu_file, incs, *tools, gpu_arch, missing, ipath);
        }
        const std::set<std::string> now = sass_kernels(read_file(ipath));
        for (const auto& k : missing) {
          if (why.empty() && now.count(instance_key(k)) == 0) {
            why = "nvcc's object has no code for " + k + " (nvcc could not instantiate it: " +
                  read_file(ipath).substr(0, read_file(ipath).find('\n')) + ")";
          }
        }
        if (why.empty()) used = ipath;
      }
    }
    if (why.empty()) {
      const std::string text = read_file(used);
      const std::string head = text.substr(0, text.find('\n'));
      if (head.rfind("# none ", 0) == 0) {
        why = head.substr(7);
      } else if (head.rfind("# ", 0) == 0) {
        impl->sass = sass_widths_from_text(text);
        impl->use_sass = true;
        impl->index_statements();
        std::istringstream h(head.substr(2));
        std::string nv, release, arch;
        h >> nv >> release >> arch;
        const auto shared_lines =
            std::count_if(impl->sass.lines.begin(), impl->sass.lines.end(), [](const auto& l) {
              return l.second.load != 0 || l.second.store != 0 || l.second.atomic != 0;
            });
        impl->widths_note = fmt::format("{} {} SASS for {} ({} lines with shared accesses)", nv,
                                        release, arch, shared_lines);
      } else {
        why = "the cached nvcc widths could not be read";
      }
    }
    if (!impl->use_sass) {
      if (options.widths == Widths::kNvcc) {
        throw UsageError("nvcc's access widths were asked for and cannot be had: " + why);
      }
      impl->widths_note = "clang's (as compiled for the CPU): " + why;
    }
  }
}

/// Loads the built module `so`: its arena and shared variables, the kernels the regions pass
/// cut, and the entries of the kernels asked for (`entry_names`: the module's, in order).
void Module::Impl::load(const std::string& source, const std::string& plugin,
                        const std::vector<std::string>& entry_names, const CompileOptions& options,
                        const fs::path& so) {
  Impl* impl = this;
  impl->handle = dlopen(impl->so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (impl->handle == nullptr) {
    throw CompileError(std::string("cannot load the compiled kernel: ") + dlerror() +
                           " (a CUDA function banksim does not provide?)",
                       "");
  }
  link_map* lm = nullptr;
  dlinfo(impl->handle, RTLD_DI_LINKMAP, &lm);
  impl->load_base = lm->l_addr;
  using ArenaFn = void (*)(std::uintptr_t*, std::uintptr_t*);
  auto arena = reinterpret_cast<ArenaFn>(dlsym(impl->handle, "banksim_module_arena"));
  std::uintptr_t lo = 0;
  std::uintptr_t hi = 0;
  arena(&lo, &hi);
  impl->layout.arena_lo = lo;
  impl->layout.arena_size = static_cast<std::uint32_t>(hi - lo);
  const std::vector<std::string> dyn_names = find_dynamic_shared(source);
  for (const ElfSymbol& s : shared_section_symbols(read_file(so))) {
    if (s.name.rfind("banksim_redzone_", 0) == 0 ||
        s.name.find("banksim_redzone_") != std::string::npos) {
      continue;
    }
    rt::SharedVar v;
    v.offset = static_cast<std::uint32_t>(impl->load_base + s.value - lo);
    v.size = static_cast<std::uint32_t>(s.size);
    if (s.name == "banksim_dynamic_smem") {
      v.dynamic = true;
      std::string names;
      for (const auto& n : dyn_names) names += (names.empty() ? "" : "/") + n;
      v.name = names.empty() ? "dynamic shared memory" : names;
      v.qualified = "extern __shared__ (dynamic shared memory)";
    } else {
      v.qualified = demangle(s.name.c_str());
      v.name = short_var_name(v.qualified);
    }
    impl->layout.vars.push_back(v);
  }
  // Kernels banksim's pass cut into regions (none without the pass).
  struct RegionEntry {
    const void* function;
    std::uint64_t frame_bytes;
    std::uint64_t loop_epochs;  // 0: no thread stops inside a loop that keeps an epoch
  };
  // Only a table the pass wrote (it refuses a file that defines one), for the module's own
  // kernels, with a frame of sane size.
  const auto* table =
      plugin.empty()
          ? nullptr
          : static_cast<const RegionEntry*>(dlsym(impl->handle, "__banksim_region_kernels"));
  Dl_info own{};
  if (table != nullptr && dladdr(table, &own) == 0) table = nullptr;
  for (; table != nullptr && table->function != nullptr; ++table) {
    Dl_info info{};
    if (dladdr(table->function, &info) == 0 || info.dli_fbase != own.dli_fbase ||
        table->frame_bytes > (std::uint64_t{1} << 20)) {
      continue;  // not a function of this module, or a frame past what the pass accepts
    }
    impl->layout.region_kernels.push_back(
        rt::RegionKernel{table->function, table->frame_bytes, table->loop_epochs != 0});
  }
  for (const std::string& k : options.kernels) {
    for (std::size_t i = 0; i < entry_names.size(); ++i) {
      if (instance_key(entry_names[i]) != instance_key(k)) continue;
      using EntryFn = const KernelEntry* (*)();
      auto fn = reinterpret_cast<EntryFn>(
          dlsym(impl->handle, ("banksim_kernel_" + std::to_string(i)).c_str()));
      if (fn != nullptr) impl->entries[k] = fn();
      break;
    }
  }
  impl->symbolizer = find_symbolizer();
  impl->line_table = read_line_table(so);
  note_host_layout(&impl->layout);
}
Module Module::compile(const fs::path& cu_file, const CompileOptions& options) {
  // The steps before loading are module_build.cpp's: the source prepared, the toolchain found,
  // the module looked up in the cache's index or built there.
  auto impl = std::make_unique<Impl>();
  impl->file = cu_file;
  impl->display = cu_file.string();
  impl->absolute_display = fs::absolute(cu_file).lexically_normal();
  PreparedSource src = prepare_source(cu_file, impl->display, options);
  impl->source_lines = std::move(src.lines);
  impl->declared = src.declared;
  impl->source_dirs = src.source_dirs;
  const Toolchain tc = discover_toolchain(cu_file, options, src.fibers_only);
  const fs::path cache = cache_folder(options);
  const CachedModule built = cached_module(cu_file, impl->display, src, tc, options, cache);
  impl->so_path = built.so.string();
  impl->read_widths(cu_file, options, cache);
  if (!options.load) return Module(std::move(impl));
  impl->load(src.text, tc.plugin, built.entry_names, options, built.so);
  return Module(std::move(impl));
}

LaunchReport Module::launch(const std::string& kernel, const LaunchConfig& config,
                            std::vector<Arg> args) const {
  const KernelEntry& e = entry(kernel);
  const auto decl = std::find_if(impl_->declared.begin(), impl_->declared.end(),
                                 [&](const KernelDecl& d) { return d.name == base_name(kernel); });
  const std::string where = impl_->display + ":" + std::to_string(decl->line);
  if (static_cast<int>(args.size()) != e.num_params) {
    throw UsageError(fmt::format("kernel {} ({}) takes {} argument{} {}; {} given", kernel, where,
                                 e.num_params, e.num_params == 1 ? "" : "s", decl->params,
                                 args.size()));
  }
  for (int i = 0; i < e.num_params; ++i) {
    const ParamInfo& p = e.params[i];
    const Arg& a = args[static_cast<std::size_t>(i)];
    if (p.kind == ParamKind::kPointer && !a.is_buffer()) {
      throw UsageError(
          fmt::format("argument {} of {} ({}) is a pointer: give a buffer", i + 1, kernel, where));
    }
    if (p.kind != ParamKind::kPointer && (a.is_buffer() || a.size() != p.size)) {
      throw UsageError(
          fmt::format("argument {} of {} ({}) is a {}-byte scalar; the value given "
                      "is {}",
                      i + 1, kernel, where, p.size,
                      a.is_buffer() ? "a buffer" : std::to_string(a.size()) + " bytes"));
    }
  }
  const dim3 b = config.block;
  const dim3 g = config.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) {
    throw UsageError("grid and block dimensions must be at least 1");
  }
  if (static_cast<unsigned long long>(b.x) * b.y * b.z > rt::kMaxThreadsPerBlock || b.z > 64) {
    throw UsageError(
        fmt::format("a block of {}x{}x{} threads is more than a GPU allows (1024 "
                    "threads, z <= 64)",
                    b.x, b.y, b.z));
  }
  if (config.dynamic_smem > rt::kMaxDynamicSmem) {
    throw UsageError(fmt::format("{} bytes of dynamic shared memory is more than sm_90 allows ({})",
                                 config.dynamic_smem, rt::kMaxDynamicSmem));
  }
  std::vector<void*> arg_ptrs;
  for (Arg& a : args) arg_ptrs.push_back(a.storage());
  arg_ptrs.push_back(nullptr);
  rt::RunOptions ro{config.grid, config.block, config.dynamic_smem, config.timeout_s};
  if (impl_->use_sass) ro.widths = impl_.get();
  rt::RunResult raw = rt::run_kernel(impl_->layout, e, arg_ptrs.data(), ro);

  // Source locations for every program counter seen.
  std::vector<std::uint64_t> pcs;
  for (const auto& s : raw.sites) pcs.push_back(s.pc);
  for (const auto& s : raw.global_sites) pcs.push_back(s.pc);
  for (const auto& p : raw.problems) {
    pcs.push_back(p.pc);
    pcs.push_back(p.other_pc);
  }
  impl_->symbolize(pcs);

  LaunchReport report;
  report.kernel = kernel;
  report.config = config;
  report.completed = raw.completed;
  report.abort_reason = raw.abort_reason;
  report.traced_shared_accesses = raw.traced_shared;
  report.widths = impl_->widths_note;
  report.nvcc_widths = impl_->use_sass;
  report.regrouped = raw.regrouped;
  report.warp_shuffles = raw.warp_shuffles;
  report.mergeable = raw.mergeable;
  // An access wider than 4 bytes that clang built without a line of its own (a `?:` of two
  // members of a float4 read as one 16-byte load) may be narrower in nvcc's code: its widths
  // could change the counts, as with two accesses nvcc could merge.
  for (const auto& s : raw.sites) {
    if (s.bytes > 4 && impl_->borrowed.count(s.pc) != 0) report.mergeable = true;
  }
  report.regions = raw.regions;
  report.threads = raw.threads;
  report.seconds = raw.seconds;
  // One row per access: its line and column (two loads on one line are two rows, each with its
  // own conflict degree), its kind and width. Copies of one access (an unrolled loop) share the
  // line and column and so one row.
  std::map<std::tuple<std::string, int, int, int, int>, std::size_t> by_line;
  for (const rt::SiteStats& s : raw.sites) {
    const auto& [file, line] = impl_->locations[s.pc];
    const int column = impl_->columns.count(s.pc) != 0 ? impl_->columns.at(s.pc) : 0;
    const auto key = std::make_tuple(file, line, column, static_cast<int>(s.op), s.bytes);
    auto it = by_line.find(key);
    if (it == by_line.end()) {
      it = by_line.emplace(key, report.lines.size()).first;
      LineStats l;
      l.file = file;
      l.line = line;
      l.column = column;
      l.source = impl_->line_text(file, line);
      l.op = s.op;
      l.bytes = s.bytes;
      l.variable = s.var >= 0 ? impl_->layout.vars[static_cast<std::size_t>(s.var)].name : "";
      l.variable_offset =
          s.var >= 0 ? impl_->layout.vars[static_cast<std::size_t>(s.var)].offset : 0;
      report.lines.push_back(l);
    }
    LineStats& l = report.lines[it->second];
    const bankmodel::Summary worst_now = bankmodel::count_wavefronts(l.worst);
    l.requests += s.requests;
    l.wavefronts += s.wavefronts;
    l.ideal += s.ideal;
    if (l.requests == s.requests || s.worst_excess > worst_now.excess()) l.worst = s.worst;
  }
  std::sort(report.lines.begin(), report.lines.end(), [](const LineStats& x, const LineStats& y) {
    return std::tie(x.file, x.line, x.column, x.op, x.bytes) <
           std::tie(y.file, y.line, y.column, y.op, y.bytes);
  });
  // nvcc's widths go by source line: an access still without one (no instruction around it had
  // a line either) kept clang's width, and the report must not say otherwise.
  const auto lineless =
      std::count_if(report.lines.begin(), report.lines.end(),
                    [&](const LineStats& l) { return l.line == 0 && l.file == impl_->display; });
  if (lineless > 0) {
    report.widths += fmt::format(
        "; line 0: {} access{} without a source line kept clang's width{} (nvcc's could not be "
        "applied)",
        lineless, lineless == 1 ? "" : "es", lineless == 1 ? "" : "s");
    report.mergeable = report.mergeable || !report.nvcc_widths;
  }
  report.global_sectors_partial = raw.global_sectors_partial;
  std::map<std::tuple<std::string, int, int, int, int>, std::size_t> global_by_line;
  for (const rt::GlobalSiteStats& s : raw.global_sites) {
    const auto& [file, line] = impl_->locations[s.pc];
    const int column = impl_->columns.count(s.pc) != 0 ? impl_->columns.at(s.pc) : 0;
    const auto key = std::make_tuple(file, line, column, static_cast<int>(s.op), s.bytes);
    auto it = global_by_line.find(key);
    if (it == global_by_line.end()) {
      it = global_by_line.emplace(key, report.global_lines.size()).first;
      GlobalLineStats l;
      l.file = file;
      l.line = line;
      l.column = column;
      l.source = impl_->line_text(file, line);
      l.op = s.op;
      l.bytes = s.bytes;
      report.global_lines.push_back(l);
    }
    GlobalLineStats& l = report.global_lines[it->second];
    l.requests += s.requests;
    l.sectors += s.sectors;
    l.ideal += s.ideal;
    l.lines += s.lines;
    l.fresh += s.fresh;
  }
  std::sort(report.global_lines.begin(), report.global_lines.end(),
            [](const GlobalLineStats& x, const GlobalLineStats& y) {
              return std::tie(x.file, x.line, x.column, x.op, x.bytes) <
                     std::tie(y.file, y.line, y.column, y.op, y.bytes);
            });
  for (const rt::RawProblem& p : raw.problems) {
    // Two threads "at different barriers" whose barriers are on one source line are at one
    // __syncthreads() that the compiler duplicated into both sides of a branch: not a problem.
    if (p.kind == "barrier_divergence" && p.other_pc != 0 &&
        impl_->locations[p.pc] == impl_->locations[p.other_pc]) {
      continue;
    }
    Problem q;
    q.kind = p.kind;
    q.warning = p.warning;
    std::tie(q.file, q.line) = impl_->locations[p.pc];
    if (p.other_pc != 0) q.other_line = impl_->locations[p.other_pc].second;
    q.variable = p.var >= 0 ? impl_->layout.vars[static_cast<std::size_t>(p.var)].name : "";
    q.block = p.block;
    q.thread = p.thread;
    q.has_other_thread = p.has_other_thread;
    q.other_thread = p.other_thread;
    q.message = p.message;
    // With the lines known: the accesses of a race in the order they happened, and advice that
    // fits the code around a barrier (the file's own lines only: a header's are not read here).
    if (q.file == impl_->display) {
      std::string worded;
      if (p.access != rt::Access::kNone) {
        worded = advice::race(p, q.line, q.other_line, impl_->source_lines);
      } else if (p.others_finished) {
        worded = advice::finished_barrier(p, q.line, impl_->source_lines);
      } else if (p.two_barriers && q.line > 0 && q.other_line > 0) {
        worded = advice::different_barriers(q.line, q.other_line);
      }
      if (!worded.empty()) q.message = worded;
    }
    q.count = p.count;
    report.problems.push_back(q);
  }
  if (!raw.completed && raw.abort_reason.rfind("timeout", 0) == 0) {
    Problem q;
    q.kind = "timeout";
    std::tie(q.file, q.line) = locate(rt::last_pc());
    q.message = raw.abort_reason;
    report.problems.push_back(q);
  }
  return report;
}

}  // namespace banksim

// ---- Launches from the student's own host code (`kernel<<<g, b>>>(...)` in a .cu file) ------

extern "C" void banksim_launch(const banksim::KernelEntry* entry, dim3 grid, dim3 block,
                               std::size_t dynamic_smem, void** args) {
  const banksim::rt::ModuleLayout* layout = banksim::g_last_layout;
  if (layout == nullptr) {
    std::fprintf(stderr, "banksim: a kernel launch from host code needs a loaded module\n");
    return;
  }
  const banksim::rt::RunResult r =
      banksim::rt::run_kernel(*layout, *entry, args, {grid, block, dynamic_smem, 5.0});
  for (const auto& p : r.problems) {
    std::fprintf(stderr, "banksim: %s in a launch from host code: %s\n", p.kind.c_str(),
                 p.message.c_str());
  }
}
