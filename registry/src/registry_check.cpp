// registry_check.cpp - the CONTRIBUTING.md checklist, checked for every registry entry.
#include "course/registry_check.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "course/registry.hpp"

namespace course {
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The kernel's name without template arguments: "transpose_padded_tuned<64, 8>" -> "...tuned".
std::string base_name(const std::string& kernel) {
  return kernel.substr(0, kernel.find('<'));
}

/// Whether `source` defines a __global__ function called `name`.
bool defines_kernel(const std::string& source, const std::string& name) {
  const std::regex re("__global__[^;{]*\\b" + name + "\\s*\\(");
  return std::regex_search(source, re);
}

}  // namespace

std::vector<std::string> check_registry(const fs::path& root) {
  std::vector<std::string> problems;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  };
  auto check_kernel = [&](const std::string& who, const KernelRef& k) {
    const fs::path p = root / k.file;
    if (!fs::exists(p)) {
      problems.push_back(who + ": " + k.file + " does not exist");
      return;
    }
    need(defines_kernel(read(p), base_name(k.kernel)),
         who + ": " + k.file + " defines no __global__ " + base_name(k.kernel) + "()");
  };
  const std::string readme = read(root / "README.md");
  std::vector<std::string> ids;
  for (const ExerciseSpec& e : exercises()) {
    const std::string who = "exercise " + e.id;
    need(std::find(ids.begin(), ids.end(), e.id) == ids.end(), who + ": id used twice");
    ids.push_back(e.id);
    need(e.slug.rfind(e.id + "-", 0) == 0,
         who + ": slug '" + e.slug + "' must start with '" + e.id + "-'");
    need(e.points.total() == 100,
         who + ": points add up to " + std::to_string(e.points.total()) + ", not 100");
    // 1. the lesson
    const fs::path lesson = root / "lessons" / e.slug / "README.md";
    need(fs::exists(lesson), who + ": step 1: lessons/" + e.slug + "/README.md is missing");
    need(readme.find("lessons/" + e.slug + "/README.md") != std::string::npos,
         who + ": step 4: README.md's course table has no row linking lessons/" + e.slug +
             "/README.md: run `make skeletons`");
    // 2. the solution, with its markers
    const fs::path solution = root / "solutions" / e.slug / e.file;
    if (!fs::exists(solution)) {
      problems.push_back(who + ": step 2: solutions/" + e.slug + "/" + e.file + " is missing");
    } else {
      const std::string src = read(solution);
      need(src.find("BEGIN SOLUTION ex" + e.id + ".") != std::string::npos,
           who + ": step 2: solutions/" + e.slug + "/" + e.file + " has no 'BEGIN SOLUTION ex" +
               e.id + ".1' block");
      if (e.kind == ExerciseSpec::Kind::kKernel) check_kernel(who + ": step 2", e.solution());
    }
    // 3. the generated skeleton
    need(fs::exists(root / e.skeleton_file()),
         who + ": step 4: " + e.skeleton_file() + " is missing: run `make skeletons`");
    need(e.hints.size() == 3,
         who +
             ": step 3: give three hints, each saying more (a nudge, the bank arithmetic, the "
             "fix's shape)");
    if (e.kind != ExerciseSpec::Kind::kKernel) continue;
    // 4. the registry entry: baseline, workload, sizes
    check_kernel(who + ": step 3 (baseline)", e.baseline);
    for (const Variant& v : e.variants) check_kernel(who + ": variant " + v.name, v.kernel);
    const Workload& w = e.workload;
    need(!w.buffers.empty() && !w.args.empty() && w.launch && w.make_inputs && w.reference,
         who + ": step 3: the workload needs buffers, args, launch, make_inputs and reference");
    need(e.sizes.size() >= 2, who + ": step 3: give at least two correctness sizes");
    need(e.thresholds.cpu_min_cost_ratio > 0, who + ": step 3: thresholds must be positive");
    need(!e.thresholds.gpu.empty(),
         who +
             ": step 3: give the GPU gate table at least one measured row (a GPU and its "
             "threshold); other GPUs fall back to the cost model on their counters");
    for (const GpuGate& g : e.thresholds.gpu) {
      need(!g.gpu.empty() && g.min_ratio > 0 && !g.source.empty(),
           who +
               ": step 3: each GPU gate row needs a GPU name, a positive threshold and its "
               "source (the measurement it comes from)");
      need(g.measured >= 0 && (g.measured == 0 || g.min_ratio <= g.measured),
           who +
               ": step 3: a GPU gate row's measured ratio (the reference's, on that GPU) must "
               "reach its threshold, or be 0 when not given");
    }
    need(!e.conflict_hint.empty(), who + ": step 3: conflict_hint is empty");
    need(!e.gpu_timing_size.label.empty() && !e.bench_size.label.empty(),
         who + ": step 3: gpu_timing_size and bench_size need values");
    for (const Size& s : e.sizes) {
      const std::string why = w.precondition ? w.precondition(s) : "";
      need(why.empty(), who + ": size " + s.label + " breaks the kernel's precondition: " + why);
    }
    if (e.random_size) {
      std::mt19937_64 rng(1);
      for (int i = 0; i < 200; ++i) {
        const Size s = e.random_size(rng);
        const std::string why = w.precondition ? w.precondition(s) : "";
        need(why.empty(), who + ": random size " + s.label + " breaks the precondition: " + why);
        if (!why.empty()) break;
      }
    }
    for (const Size* s : {&e.gpu_timing_size, &e.bench_size}) {
      const std::string why = w.precondition ? w.precondition(*s) : "";
      need(why.empty(), who + ": size " + s->label + " breaks the kernel's precondition: " + why);
    }
  }
  for (const Demo& d : demos()) {
    need(fs::exists(root / "lessons" / d.lesson / "README.md"),
         "demo " + d.name + ": lessons/" + d.lesson + " does not exist");
    for (const Variant& v : d.kernels) check_kernel("demo " + d.name, v.kernel);
  }
  return problems;
}

}  // namespace course
