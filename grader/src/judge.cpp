// judge.cpp - grading one exercise: runs the student's file (one worker per size, so a crash or
// hang on one size does not hide the others), the baseline at sizes[0] and, where the backend can
// time, both at the timing size; then judges each gate of the table in gates.cpp.
// Over 600 lines on purpose: one exercise judged from build to points, in the order a
// submission meets the steps (banksim at every size, the GPU's steps, the merge).
#include "grader/judge.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>

#include "gates_internal.hpp"
#include "grader/policy.hpp"

namespace grader {
namespace fs = std::filesystem;
using internal::Evidence;
using internal::Verdict;

namespace {

std::string internal_read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// A run of `spec` at `size`: inputs from `rng`, outputs poisoned; `expected` gets the reference.
protocol::RunSpec make_run(const ExerciseSpec& spec, const Size& size, std::mt19937_64& rng,
                           Buffers* inputs, Buffers* expected) {
  const course::Workload& w = spec.workload;
  const course::Launch l = w.launch(size);
  protocol::RunSpec run;
  run.grid = {l.grid[0], l.grid[1], l.grid[2]};
  run.block = {l.block[0], l.block[1], l.block[2]};
  run.smem = l.smem;
  Buffers buffers;
  for (const course::BufferSpec& b : w.buffers) {
    buffers.emplace_back(b.count(size) * course::elem_bytes(b.elem));
    run.buffer_bytes.push_back(buffers.back().size());
  }
  w.make_inputs(size, buffers, rng);
  for (std::size_t j = 0; j < w.buffers.size(); ++j) {
    if (w.buffers[j].output) std::memset(buffers[j].data(), 0xff, buffers[j].size());
  }
  for (const course::ArgSpec& a : w.args) {
    run.args.push_back(a.buffer >= 0 ? protocol::Arg{a.buffer, 0}
                                     : protocol::Arg{-1, a.scalar(size)});
  }
  if (expected != nullptr) {
    *expected = buffers;
    w.reference(size, *expected);
  }
  *inputs = std::move(buffers);
  return run;
}

WorkerJob job_for(const fs::path& file, const std::string& shown, const std::string& kernel,
                  protocol::RequestKind kind) {
  WorkerJob job;
  job.request.kind = kind;
  job.request.file = fs::absolute(file).string();
  job.shown_file = shown;
  job.request.kernel = kernel;
  job.request.include_dirs = {(course_root() / "gpu/include").string()};
  return job;
}

/// Removes the large input files (runK_bufJ.in of 8 MiB and over) that an exercise's steps left
/// in their folders (work_dir/SLUG-...): they can be made again from the seed.
void drop_large_inputs(const JudgeOptions& o, const std::string& slug) {
  if (o.keep_inputs || o.work_dir.empty()) return;
  static const std::regex input(R"(run\d+_buf\d+\.in)");
  constexpr std::uintmax_t kLarge = std::uintmax_t{8} << 20;
  std::error_code ec;
  for (fs::directory_iterator d(o.work_dir, ec), end; !ec && d != end; d.increment(ec)) {
    if (d->path().filename().string().rfind(slug + "-", 0) != 0 || !d->is_directory(ec)) continue;
    std::error_code e2;
    for (fs::directory_iterator f(d->path(), e2); !e2 && f != end; f.increment(e2)) {
      std::error_code e3;
      if (std::regex_match(f->path().filename().string(), input) && f->is_regular_file(e3) &&
          f->file_size(e3) >= kLarge) {
        fs::remove(f->path(), e3);
      }
    }
  }
}

fs::path fresh_dir(const JudgeOptions& o, const std::string& name) {
  const fs::path d = o.work_dir / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// The edge cases every host-exercise run checks first: no active lane, one lane, all lanes on
/// one word, all on one bank, the first and last lane alone, two words of one bank.
std::vector<std::array<long long, 32>> edge_cases() {
  std::vector<std::array<long long, 32>> cases;
  auto make = [&](auto address_of) {
    std::array<long long, 32> c{};
    for (int t = 0; t < 32; ++t) c[static_cast<std::size_t>(t)] = address_of(t);
    cases.push_back(c);
  };
  make([](int) { return -1LL; });                                    // no active lane: 0
  make([](int t) { return t == 17 ? 4LL * 5 : -1LL; });              // one lane: 1
  make([](int) { return 128LL; });                                   // all on one word: 1
  make([](int t) { return 128LL * t; });                             // all on bank 0: 32
  make([](int t) { return t == 0 || t == 31 ? 128LL * t : -1LL; });  // lanes 0 and 31, bank 0: 2
  make([](int t) { return t < 2 ? 128LL * t + 8 : -1LL; });          // two words of bank 2: 2
  make([](int t) { return 4LL * t; });                               // conflict-free: 1
  // Words far apart in one bank (a row index taken mod 32 would merge them): bytes 0 and 4096
  // are words 0 and 1024, both bank 0: 2; words 32 k for k = 0, 32, 64, ...: 32.
  make([](int t) { return t < 2 ? 4096LL * t : -1LL; });
  make([](int t) { return 4096LL * t; });
  make([](int t) { return t % 2 == 0 ? 4096LL * (t / 2) : 4LL * t; });  // 16 words of bank 0: 16
  return cases;
}

std::vector<std::array<long long, 32>> host_cases(int count, std::mt19937_64& rng) {
  std::vector<std::array<long long, 32>> cases = edge_cases();
  std::uniform_int_distribution<int> kind(0, 5);
  std::uniform_int_distribution<long long> unit(0, 64);
  for (int i = 0; i < count; ++i) {
    std::array<long long, 32> c{};
    const int k = kind(rng);
    const long long base = unit(rng) * 128;
    const long long stride = unit(rng) % 40;
    const bool some_inactive = kind(rng) == 0;
    for (int t = 0; t < 32; ++t) {
      long long word = 0;
      switch (k) {
        case 0:
          word = stride * t;
          break;
        case 1:
          word = stride * (t % (1 + unit(rng) % 8));
          break;
        case 2:
          word = unit(rng);
          break;
        case 3:
          word = 0;
          break;
        case 4:
          word = (t ^ unit(rng) % 32) + 32 * (t % 4);
          break;
        default:
          word = 32 * t + (t % 2);
          break;
      }
      c[static_cast<std::size_t>(t)] = base + 4 * word;
      if (some_inactive && ((rng() >> 7) & 1U) != 0) c[static_cast<std::size_t>(t)] = -1;
    }
    cases.push_back(c);
  }
  return cases;
}

/// Runs the student's file at every size of `runs` on `backend` into ev.student: in one process
/// first where the backend batches sizes, else (or when that process died) one process per size.
void run_sizes(Evidence& ev, const Backend& backend, const std::vector<protocol::RunSpec>& runs,
               const std::string& tag) {
  const ExerciseSpec& spec = *ev.spec;
  if (backend.capabilities().batch_sizes && runs.size() > 1) {
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, protocol::RequestKind::kKernel);
    job.request.runs = runs;
    job.inputs = ev.inputs;
    job.nvcc_widths_expected = spec.nvcc_widths_expected;
    WorkerOutcome all = backend.run(job, fresh_dir(ev.options, spec.slug + tag + "-student-all"),
                                    Limits{60.0 * static_cast<double>(runs.size())});
    // The process ended normally and reported every size (a size may have stopped inside
    // banksim: a timeout, a wild pointer): each size's report stands as if it had run alone.
    // A process that died (a crash, the grader's limit) runs the sizes again one by one.
    bool every = all.exit_status == 0 && !all.timed_out && all.report.runs.size() == runs.size();
    for (std::size_t k = 0; every && k < runs.size(); ++k) every = all.report.run_received[k];
    if (!all.report.compile.ok) {
      ev.student.push_back(std::move(all));  // it will not compile for any size
      return;
    }
    if (every) {
      // One outcome per size, as if each had run alone.
      for (std::size_t k = 0; k < runs.size(); ++k) {
        WorkerOutcome o;
        o.started = all.started;
        o.exit_status = 0;
        o.seconds = all.seconds / static_cast<double>(runs.size());
        o.report.compile = all.report.compile;
        o.report.runs = {std::move(all.report.runs[k])};
        o.report.run_received = {true};
        o.report.rejected = all.report.rejected;
        if (k + 1 == runs.size()) o.output_tail = all.output_tail;
        ev.student.push_back(std::move(o));
      }
    }
  }
  for (std::size_t k = 0; k < runs.size() && ev.student.size() < runs.size(); ++k) {
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, protocol::RequestKind::kKernel);
    job.request.runs = {runs[k]};
    job.inputs = {ev.inputs[k]};
    job.nvcc_widths_expected = spec.nvcc_widths_expected;
    // banksim reports its counts with every run; a GPU's counters come from one profiled job.
    ev.student.push_back(
        backend.run(job, fresh_dir(ev.options, fmt::format("{}{}-student-{}", spec.slug, tag, k)),
                    Limits{60.0}));
    if (!ev.student.back().report.compile.ok) break;  // it will not compile for the next size
  }
}

/// Adds what a profiled job's launch k counted (ncu's sites) to size k's report, and its
/// findings (the sanitizers') to the last size's, as problems: a crash shows in the runs
/// themselves, except where `crashes_too` (hybrid mode: the runs are banksim's, and a fault
/// only the GPU saw must still fail the exercise).
void merge_gpu_job(Evidence& ev, const WorkerOutcome& s, bool crashes_too) {
  if (!s.counters_error.empty()) ev.student[0].counters_error = s.counters_error;
  for (std::size_t k = 0; k < s.report.runs.size() && k < ev.student.size(); ++k) {
    const auto& from = s.report.runs[k];
    if (!ev.student[k].report.runs.empty()) {
      auto& run = ev.student[k].report.runs[0];
      run.sites.insert(run.sites.end(), from.sites.begin(), from.sites.end());
      run.global_sites.insert(run.global_sites.end(), from.global_sites.begin(),
                              from.global_sites.end());
      run.warp_shuffles += from.warp_shuffles;
    }
    for (auto i : from.issues) {
      auto& last = ev.student.back().report;
      if (last.runs.empty()) {
        last.runs.resize(1);
        last.run_received.assign(1, false);
      }
      if (i.kind == "crash") {
        if (!crashes_too) continue;
        i.kind = "gpu_fault";
        i.message = "on the GPU at " + ev.sizes[std::min(k, ev.sizes.size() - 1)].label +
                    " (banksim saw no fault): " + i.message;
      }
      last.runs.back().issues.push_back(i);
    }
  }
}

/// The key of a baseline's evidence: everything it depends on (the baseline's file, the backend
/// and its GPU, driver, toolkit and timing harness, the size, the inputs' seed).
std::string baseline_key(const Evidence& ev, const Backend& backend, const std::string& inputs) {
  const ExerciseSpec& spec = *ev.spec;
  const std::string text = internal_read(course_root() / spec.baseline.file);
  return fmt::format("{}|{}|{}|{}|{}|{}|{:016x}|{:016x}", spec.id, backend.describe(),
                     backend.facts().dump(), ev.sizes[0].label, spec.gpu_timing_size.label,
                     spec.baseline.kernel, std::hash<std::string>{}(text),
                     std::hash<std::string>{}(inputs));
}

/// The baseline at sizes[0] (its counts: its access pattern does not depend on the values, so
/// one run serves a whole class) and, where the backend times, at the timed size: from the cache
/// when there, else run and cached.
void collect_baseline(Evidence& ev, const Backend& backend, const protocol::RunSpec& first,
                      const protocol::RunSpec* timing, const Buffers& timing_inputs) {
  const ExerciseSpec& spec = *ev.spec;
  const std::string inputs_text(timing_inputs.empty() ? std::string()
                                                      : fmt::format("{}", timing_inputs.size()));
  std::string seed_text;
  for (const auto& b : timing_inputs)
    seed_text.append(b.begin(), b.begin() + std::min<std::size_t>(b.size(), 4096));
  const std::string key = baseline_key(ev, backend, inputs_text + seed_text);
  BaselineCache* cache = ev.options.baselines;
  if (cache != nullptr) {
    // Students graded at the same time wait for the one who runs the baseline.
    if (const auto hit = cache->find_or_claim(key)) {
      ev.baseline = hit->counted;
      ev.have_baseline = ev.baseline.ran(0);
      ev.baseline_ms = hit->timed_ms;
      ev.timing_baseline = hit->timed_output;
      return;
    }
  }
  // This caller's claim ends with its entry (put) or, whatever happens, without one.
  struct Claim {
    BaselineCache* cache;
    const std::string& key;
    ~Claim() {
      if (cache != nullptr) cache->release(key);
    }
  } claim{cache, key};
  WorkerJob base = job_for(course_root() / spec.baseline.file, spec.baseline.file,
                           spec.baseline.kernel, protocol::RequestKind::kKernel);
  base.request.runs = {first};
  base.inputs = {ev.inputs[0]};
  base.profile = ev.caps.can_profile;
  base.nvcc_widths_expected = spec.nvcc_widths_expected;
  ev.baseline = backend.run(base, fresh_dir(ev.options, spec.slug + "-baseline"), Limits{90.0});
  ev.have_baseline = ev.baseline.ran(0);
  bool complete = ev.have_baseline && ev.baseline.counters_error.empty();
  if (timing != nullptr && ev.have_baseline) {
    WorkerJob job = job_for(course_root() / spec.baseline.file, spec.baseline.file,
                            spec.baseline.kernel, protocol::RequestKind::kKernel);
    job.request.runs = {*timing};
    job.request.timed = true;
    job.inputs = {timing_inputs};
    const WorkerOutcome t =
        backend.run(job, fresh_dir(ev.options, spec.slug + "-timing-baseline"), Limits{120.0});
    ev.baseline_ms = t.ran(0) ? t.report.runs[0].median_ms : -1.0;
    ev.timing_baseline = t.ran(0) ? t.report.runs[0].buffers : Buffers{};
    complete = complete && ev.baseline_ms > 0;
  }
  if (cache != nullptr && complete) {
    cache->put(key, BaselineEvidence{ev.baseline, ev.baseline_ms, ev.timing_baseline});
  }
}

/// The student's job at the timed size: its output and time (and the exercise's ceiling, timed
/// in the same process), and in hybrid mode memcheck's run at that size.
WorkerOutcome time_student(Evidence& ev, const Backend& backend, const protocol::RunSpec& timing,
                           const Buffers& inputs, bool memcheck) {
  const ExerciseSpec& spec = *ev.spec;
  WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, protocol::RequestKind::kKernel);
  job.request.runs = {timing};
  job.request.timed = true;
  job.inputs = {inputs};
  if (memcheck && ev.caps.can_sanitize) {
    job.sanitize = true;
    job.sanitizer_tools = {"memcheck"};
  }
  if (spec.thresholds.reference == course::SpeedReference::kMemcpy) {
    // A copy of the outputs' bytes reads and writes what an ideal kernel would.
    job.request.ceiling = "memcpy";
    for (const course::BufferSpec& b : spec.workload.buffers) {
      if (b.output)
        job.request.ceiling_bytes += b.count(spec.gpu_timing_size) * course::elem_bytes(b.elem);
    }
  } else if (spec.thresholds.reference == course::SpeedReference::kSgemm) {
    const Size& z = spec.gpu_timing_size;
    job.request.ceiling = "sgemm";
    job.request.ceiling_mnk = {z.m, z.n, z.k};
  }
  WorkerOutcome t =
      backend.run(job, fresh_dir(ev.options, spec.slug + "-timing-student"), Limits{120.0});
  ev.student_ms = t.report.run_received.empty() || !t.report.run_received[0]
                      ? -1.0
                      : t.report.runs[0].median_ms;
  if (t.ran(0)) ev.ceiling_ms = t.report.runs[0].ceiling_ms;
  ev.timing_student = t.ran(0) ? t.report.runs[0].buffers : Buffers{};
  return t;
}

/// The inputs of the timed size: from the grading's seed, or (when baselines are cached, so that
/// every student meets the one baseline run) from a seed fixed by the exercise.
protocol::RunSpec timing_run(const Evidence& ev, std::mt19937_64& rng, Buffers* inputs) {
  const ExerciseSpec& spec = *ev.spec;
  if (ev.options.baselines == nullptr) {
    return make_run(spec, spec.gpu_timing_size, rng, inputs, nullptr);
  }
  std::mt19937_64 fixed(std::hash<std::string>{}("timed inputs of exercise " + spec.id));
  return make_run(spec, spec.gpu_timing_size, fixed, inputs, nullptr);
}

/// Hybrid GPU mode: banksim on the CPU at every size, then the GPU's steps. The sources are
/// named in every problem: banksim's as "banksim (CPU)", the GPU's tools by their names.
void collect_hybrid(Evidence& ev, const Backend& gpu, const Backend& cpu,
                    const std::vector<protocol::RunSpec>& runs, std::mt19937_64& rng) {
  auto since = std::chrono::steady_clock::now();
  run_sizes(ev, cpu, runs, "-cpu");
  ev.step("banksim (CPU), every size", since);
  if (!ev.compiled()) return;
  for (std::size_t k = 0; k < ev.student.size(); ++k) {
    for (protocol::RunReport& r : ev.student[k].report.runs) {
      if (k == 0 && ev.caps.can_profile) {
        // At the graded size the GPU's counters replace the model's: the conflicts, anti-bypass
        // and cost-model gates compare them with the baseline's counters there. The other
        // sizes keep banksim's counts (a pad that fixes one size still shows).
        r.sites.clear();
        r.global_sites.clear();
        r.warp_shuffles = 0;
      }
      for (protocol::Issue& i : r.issues) {
        if (i.message.rfind("banksim", 0) != 0) i.message = "banksim (CPU): " + i.message;
      }
    }
  }
  // ncu at the graded size, the counters alone: one process, one launch.
  const bool all_ran = ev.student.size() == runs.size() &&
                       std::all_of(ev.student.begin(), ev.student.end(),
                                   [](const WorkerOutcome& w) { return w.exit_status == 0; });
  const ExerciseSpec& spec = *ev.spec;
  if (ev.caps.can_profile && all_ran) {
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, protocol::RequestKind::kKernel);
    job.request.runs = {runs[0]};
    job.inputs = {ev.inputs[0]};
    job.profile = job.profile_only = true;
    since = std::chrono::steady_clock::now();
    const WorkerOutcome s =
        gpu.run(job, fresh_dir(ev.options, spec.slug + "-profile"), Limits{300.0});
    ev.step("GPU: nvcc and ncu", since, s.gpu_wait_seconds);
    if (!s.report.compile.ok) {
      // nvcc refused what clang took: the GPU's build is the one that counts.
      ev.student = {s};
      return;
    }
    merge_gpu_job(ev, s, true);
  }
  Buffers inputs;
  const protocol::RunSpec timing = timing_run(ev, rng, &inputs);
  since = std::chrono::steady_clock::now();
  collect_baseline(ev, gpu, runs[0], &timing, inputs);
  ev.step("GPU: baseline (or its cache)", since);
  if (!ev.have_baseline) return;
  since = std::chrono::steady_clock::now();
  const WorkerOutcome t = time_student(ev, gpu, timing, inputs, true);
  ev.step("GPU: timing and memcheck", since, t.gpu_wait_seconds);
  if (!t.report.compile.ok) {
    ev.student = {t};
    return;
  }
  // memcheck's findings (and a fault at the timed size) with the last size's problems.
  for (const auto& run : t.report.runs) {
    for (const protocol::Issue& i : run.issues) {
      if (i.kind == "crash") continue;  // the correct gate says the timed size failed
      ev.student.back().report.runs.back().issues.push_back(i);
    }
  }
  ev.timing_inputs = std::move(inputs);
}

/// Collects the evidence of a kernel exercise.
void collect_kernel(Evidence& ev, const Backend& backend, std::mt19937_64& rng) {
  const ExerciseSpec& spec = *ev.spec;
  std::vector<protocol::RunSpec> runs;
  ev.sizes = spec.sizes;
  for (int i = 0; i < spec.random_sizes && spec.random_size; ++i) {
    ev.sizes.push_back(spec.random_size(rng));
  }
  ev.inputs.resize(ev.sizes.size());
  ev.expected.resize(ev.sizes.size());
  for (std::size_t k = 0; k < ev.sizes.size(); ++k) {
    runs.push_back(make_run(spec, ev.sizes[k], rng, &ev.inputs[k], &ev.expected[k]));
  }
  if (ev.caps.can_time && ev.options.checker != nullptr) {
    collect_hybrid(ev, backend, *ev.options.checker, runs, rng);
    return;
  }
  run_sizes(ev, backend, runs, "");
  if (!ev.compiled()) return;
  const bool all_ran = ev.student.size() == runs.size() &&
                       std::all_of(ev.student.begin(), ev.student.end(),
                                   [](const WorkerOutcome& w) { return w.exit_status == 0; });
  // A kernel that stopped the GPU at some size (not a hang) gets the sanitizers' job too, without
  // the profiler: memcheck names the access ("illegal memory access" alone does not).
  const bool faulted = std::any_of(
      ev.student.begin(), ev.student.end(),
      [](const WorkerOutcome& w) { return w.started && w.exit_status != 0 && !w.timed_out; });
  const bool diagnose = ev.caps.can_sanitize && !all_ran && faulted;
  if (((ev.caps.can_profile || ev.caps.can_sanitize) && all_ran) || diagnose) {
    // One process runs every size under the profiler, then under each sanitizer: counters at
    // every size (a pad for one size shows), and a missing barrier between two tiles or an edge
    // tile's bad guard that shows only at some sizes. Launch k's counters go with size k; the
    // sanitizers' findings with the last size.
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, protocol::RequestKind::kKernel);
    job.request.runs = runs;
    job.inputs = ev.inputs;
    job.profile = ev.caps.can_profile && !diagnose;
    job.sanitize = ev.caps.can_sanitize;
    const WorkerOutcome s =
        backend.run(job, fresh_dir(ev.options, spec.slug + "-profile"), Limits{300.0});
    merge_gpu_job(ev, s, false);
  }
  if (!ev.caps.can_time) {
    collect_baseline(ev, backend, runs[0], nullptr, {});
    return;
  }
  // Time student and baseline at a size that fills the GPU, same inputs.
  Buffers inputs;
  const protocol::RunSpec timing = timing_run(ev, rng, &inputs);
  collect_baseline(ev, backend, runs[0], &timing, inputs);
  if (!ev.have_baseline) return;
  time_student(ev, backend, timing, inputs, false);
  ev.timing_inputs = std::move(inputs);
}

/// Why the submission's file is refused before anything of it runs, or "": a link that leaves the
/// submission, a file that is too large or not a regular file, or a policy violation (by line).
std::string screen(const fs::path& file, const std::string& shown, const fs::path& submission) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(file, ec);
  const fs::path root = fs::weakly_canonical(submission, ec);
  if (ec) return shown + " cannot be resolved (" + ec.message() + ")";
  const auto rel = real.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") {
    return shown + " is a symbolic link that leaves your submission: submit the file itself";
  }
  if (!fs::is_regular_file(real, ec)) return shown + " is not a regular file";
  constexpr std::uintmax_t kMaxBytes = 1 << 20;
  if (fs::file_size(real, ec) > kMaxBytes) {
    return shown + " is larger than 1 MiB: submit the exercise's file only";
  }
  std::ifstream in(real, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto bad = check_source_policy(text);
  if (bad.empty()) return "";
  return fmt::format("{}:{}: policy: {}{}", shown, bad.front().line, bad.front().message,
                     bad.size() > 1 ? fmt::format(" (+{} more)", bad.size() - 1) : "");
}

/// The exercise's file as the student knows it (JudgeOptions::shown_submission).
std::string shown_path(const JudgeOptions& o, const ExerciseSpec& spec) {
  const fs::path inside = fs::path(spec.slug) / spec.file;
  if (o.shown_submission.empty()) return inside.string();
  return (o.shown_submission / inside).lexically_normal().string();
}

}  // namespace

const char* gate_name(GateId id) {
  switch (id) {
    case GateId::kBuilds:
      return "builds";
    case GateId::kCorrect:
      return "correct";
    case GateId::kNoProblems:
      return "no_problems";
    case GateId::kConflicts:
      return "conflicts";
    case GateId::kSpeed:
      return "speed";
    case GateId::kUsesShared:
      return "uses_shared";
  }
  return "?";
}

int gate_points(const ExerciseSpec& spec, GateId id) {
  switch (id) {
    case GateId::kBuilds:
      return spec.points.builds;
    case GateId::kCorrect:
      return spec.points.correct;
    case GateId::kNoProblems:
      return spec.points.no_problems;
    case GateId::kConflicts:
      return spec.points.conflicts;
    case GateId::kSpeed:
      return spec.points.speed;
    case GateId::kUsesShared:
      return spec.points.uses_shared;
  }
  return 0;
}

int ExerciseResult::score() const {
  int s = 0;
  for (const Gate& g : gates) s += g.score;
  return s;
}

int ExerciseResult::max_score() const {
  int s = 0;
  for (const Gate& g : gates) s += g.max_score;
  return s;
}

const Gate* ExerciseResult::gate(const std::string& name) const {
  for (const Gate& g : gates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

KernelTiming time_at_timed_size(const ExerciseSpec& spec, const fs::path& file,
                                const std::string& kernel, const Backend& backend,
                                const fs::path& dir) {
  std::mt19937_64 fixed(std::hash<std::string>{}("timed inputs of exercise " + spec.id));
  Buffers inputs;
  WorkerJob job = job_for(file, file.filename().string(), kernel, protocol::RequestKind::kKernel);
  job.request.runs = {make_run(spec, spec.gpu_timing_size, fixed, &inputs, nullptr)};
  job.request.timed = true;
  job.inputs = {inputs};
  if (spec.thresholds.reference == course::SpeedReference::kMemcpy) {
    job.request.ceiling = "memcpy";
    for (const course::BufferSpec& b : spec.workload.buffers) {
      if (b.output)
        job.request.ceiling_bytes += b.count(spec.gpu_timing_size) * course::elem_bytes(b.elem);
    }
  } else if (spec.thresholds.reference == course::SpeedReference::kSgemm) {
    const Size& z = spec.gpu_timing_size;
    job.request.ceiling = "sgemm";
    job.request.ceiling_mnk = {z.m, z.n, z.k};
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  const WorkerOutcome t = backend.run(job, dir, Limits{120.0});
  KernelTiming out;
  if (!t.report.compile.ok) {
    out.error = t.report.compile.message;
  } else if (!t.ran(0)) {
    out.error =
        t.report.runs.empty() || t.report.runs[0].abort_reason.empty()
            ? t.output_tail.substr(t.output_tail.size() > 400 ? t.output_tail.size() - 400 : 0)
            : t.report.runs[0].abort_reason;
  } else {
    out.ms = t.report.runs[0].median_ms;
    out.ceiling_ms = t.report.runs[0].ceiling_ms;
  }
  return out;
}

void warm_baseline(const ExerciseSpec& spec, const Backend& backend, const JudgeOptions& options) {
  if (options.baselines == nullptr || spec.kind == ExerciseSpec::Kind::kHost) return;
  Evidence ev;
  ev.spec = &spec;
  ev.caps = backend.capabilities();
  ev.options = options;
  ev.sizes = {spec.sizes[0]};
  ev.inputs.resize(1);
  ev.expected.resize(1);
  // The key of a cached baseline holds the sizes' labels and the timed inputs (from a seed
  // fixed by the exercise when baselines are cached), not the inputs at sizes[0]: any serve.
  std::mt19937_64 rng(std::hash<std::string>{}("baseline of exercise " + spec.id));
  const protocol::RunSpec first =
      make_run(spec, spec.sizes[0], rng, &ev.inputs[0], &ev.expected[0]);
  if (!ev.caps.can_time) {
    collect_baseline(ev, backend, first, nullptr, {});
    return;
  }
  Buffers inputs;
  const protocol::RunSpec timing = timing_run(ev, rng, &inputs);
  collect_baseline(ev, backend, first, &timing, inputs);
  drop_large_inputs(options, spec.slug);
}

ExerciseResult grade_exercise(const ExerciseSpec& spec, const fs::path& submission,
                              const Backend& backend, const JudgeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t seed =
      options.seed != 0
          ? options.seed
          : (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  std::mt19937_64 rng(seed);
  Evidence ev;
  ev.spec = &spec;
  ev.caps = backend.capabilities();
  ev.gpu_name = ev.caps.gpu_name;
  if (const auto facts = backend.facts();
      ev.gpu_name.empty() && facts.contains("gpu") && facts["gpu"].is_string()) {
    ev.gpu_name = facts["gpu"].get<std::string>();
  }
  ev.options = options;
  ev.file = submission / spec.slug / spec.file;
  ev.shown = shown_path(options, spec);
  const bool host = spec.kind == ExerciseSpec::Kind::kHost;
  const auto& rules = host ? internal::host_gates() : internal::kernel_gates();

  ExerciseResult result;
  result.spec = &spec;
  result.mode = ev.caps.name;
  result.timed = ev.caps.can_time;
  result.conflicts_summary = result.speedup_summary = "-";
  std::error_code ec;
  const bool present = fs::exists(fs::symlink_status(ev.file, ec)) && !ec;
  const std::string refused = present ? screen(ev.file, ev.shown, submission) : "";
  if (!refused.empty()) {
    // Nothing of the file runs.
  } else if (present && host) {
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, protocol::RequestKind::kHost);
    ev.host_cases = host_cases(spec.host_cases, rng);
    job.host_cases = ev.host_cases;
    job.request.host_cases = ev.host_cases.size();
    ev.student.push_back(
        backend.run(job, fresh_dir(options, spec.slug + "-student"), Limits{60.0}));
  } else if (present) {
    collect_kernel(ev, backend, rng);
  }
  for (const internal::GateRule& rule : rules) {
    Gate g;
    g.id = rule.id;
    g.name = gate_name(rule.id);
    g.max_score = gate_points(spec, rule.id);
    Verdict v;
    if (!refused.empty()) {
      v = rule.id == GateId::kBuilds ? Verdict::fail(refused)
                                     : Verdict::skip("needs a file the submission policy accepts");
    } else if (!present) {
      v = rule.id == GateId::kBuilds
              ? Verdict::fail(
                    fmt::format("{} is missing: copy exercises/{}/{} into your submission",
                                ev.shown, spec.slug, spec.file))
              : Verdict::skip("needs the file");
    } else {
      v = rule.judge(ev, result.gates);
    }
    g.passed = v.state == Verdict::State::kPass;
    g.skipped = v.state == Verdict::State::kSkip;
    g.score = g.passed ? g.max_score : 0;
    g.reason = v.reason;
    g.detail = v.detail;
    if (rule.id == GateId::kConflicts && !v.summary.empty()) result.conflicts_summary = v.summary;
    if (rule.id == GateId::kSpeed && !v.summary.empty()) result.speedup_summary = v.summary;
    result.gates.push_back(g);
  }
  for (std::size_t k = spec.sizes.size(); k < ev.sizes.size(); ++k) {
    result.secret_sizes.push_back(ev.sizes[k].label);
  }
  if (ev.caps.can_time && ev.student_ms > 0) result.kernel_ms = ev.student_ms;
  result.steps = ev.steps;
  drop_large_inputs(options, spec.slug);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace grader
