// judge.cpp - grading one exercise: runs the student's file (one worker per size, so a crash or
// hang on one size does not hide the others), the baseline at sizes[0] and, where the backend can
// time, both at the timing size; then judges each gate of the table in gates.cpp.
#include "grader/judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>

#include "gates_internal.hpp"
#include "grader/policy.hpp"

namespace grader {
namespace fs = std::filesystem;
using internal::Evidence;
using internal::Verdict;

namespace {

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
                  const std::string& kind) {
  WorkerJob job;
  job.request.kind = kind;
  job.request.file = fs::absolute(file).string();
  job.shown_file = shown;
  job.request.kernel = kernel;
  job.request.include_dirs = {(course_root() / "gpu/include").string()};
  return job;
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
  if (ev.caps.batch_sizes && runs.size() > 1) {
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, "kernel");
    job.request.runs = runs;
    job.inputs = ev.inputs;
    job.nvcc_widths_expected = spec.nvcc_widths_expected;
    WorkerOutcome all = backend.run(job, fresh_dir(ev.options, spec.slug + "-student-all"),
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
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, "kernel");
    job.request.runs = {runs[k]};
    job.inputs = {ev.inputs[k]};
    job.nvcc_widths_expected = spec.nvcc_widths_expected;
    // banksim reports its counts with every run; a GPU's counters come from one profiled job.
    ev.student.push_back(backend.run(
        job, fresh_dir(ev.options, fmt::format("{}-student-{}", spec.slug, k)), Limits{60.0}));
    if (!ev.student.back().report.compile.ok) break;  // it will not compile for the next size
  }
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
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, "kernel");
    job.request.runs = runs;
    job.inputs = ev.inputs;
    job.profile = ev.caps.can_profile && !diagnose;
    job.sanitize = ev.caps.can_sanitize;
    const WorkerOutcome s =
        backend.run(job, fresh_dir(ev.options, spec.slug + "-profile"), Limits{300.0});
    ev.student[0].counters_error = s.counters_error;
    for (std::size_t k = 0; k < s.report.runs.size() && k < ev.student.size(); ++k) {
      const auto& from = s.report.runs[k];
      if (!ev.student[k].report.runs.empty()) {
        auto& run = ev.student[k].report.runs[0];
        run.sites.insert(run.sites.end(), from.sites.begin(), from.sites.end());
        run.global_sites.insert(run.global_sites.end(), from.global_sites.begin(),
                                from.global_sites.end());
        run.warp_shuffles += from.warp_shuffles;
      }
      for (const auto& i : from.issues) {
        // A crash shows in the runs themselves.
        auto& last = ev.student.back().report;
        if (last.runs.empty()) {
          last.runs.resize(1);
          last.run_received.assign(1, false);
        }
        if (i.kind != "crash") last.runs.back().issues.push_back(i);
      }
    }
  }
  // The baseline at sizes[0], same inputs. Only its counters are read (its access pattern does
  // not depend on the values), so one profile serves a whole class run: on a GPU ncu is the
  // slowest step of grading, and it holds the GPU alone; on the CPU it saves a run per student.
  const std::string key = spec.id + "|" + ev.sizes[0].label;
  static std::mutex cache_mutex;
  static std::map<std::string, WorkerOutcome> cache;
  bool cached = false;
  {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    if (const auto it = cache.find(key); it != cache.end()) {
      ev.baseline = it->second;
      cached = true;
    }
  }
  if (!cached) {
    WorkerJob base = job_for(course_root() / spec.baseline.file, spec.baseline.file,
                             spec.baseline.kernel, "kernel");
    base.request.runs = {runs[0]};
    base.inputs = {ev.inputs[0]};
    base.profile = ev.caps.can_profile;
    base.nvcc_widths_expected = spec.nvcc_widths_expected;
    ev.baseline = backend.run(base, fresh_dir(ev.options, spec.slug + "-baseline"), Limits{90.0});
    if (ev.baseline.ran(0) && ev.baseline.counters_error.empty()) {
      const std::lock_guard<std::mutex> lock(cache_mutex);
      cache.emplace(key, ev.baseline);
    }
  }
  ev.have_baseline = ev.baseline.ran(0);
  if (!ev.caps.can_time || !ev.have_baseline) return;
  // Time student and baseline against each other at a size that fills the GPU, same inputs.
  Buffers inputs;
  const protocol::RunSpec timing = make_run(spec, spec.gpu_timing_size, rng, &inputs, nullptr);
  for (int who = 0; who < 2; ++who) {
    WorkerJob job = who == 0 ? job_for(ev.file, ev.shown, spec.kernel, "kernel")
                             : job_for(course_root() / spec.baseline.file, spec.baseline.file,
                                       spec.baseline.kernel, "kernel");
    job.request.runs = {timing};
    job.request.timed = true;
    job.inputs = {inputs};
    if (who == 0 && spec.thresholds.reference == course::SpeedReference::kMemcpy) {
      // A copy of the outputs' bytes reads and writes what an ideal kernel would.
      job.request.ceiling = "memcpy";
      for (const course::BufferSpec& b : spec.workload.buffers) {
        if (b.output)
          job.request.ceiling_bytes += b.count(spec.gpu_timing_size) * course::elem_bytes(b.elem);
      }
    } else if (who == 0 && spec.thresholds.reference == course::SpeedReference::kSgemm) {
      const Size& z = spec.gpu_timing_size;
      job.request.ceiling = "sgemm";
      job.request.ceiling_mnk = {z.m, z.n, z.k};
    }
    const WorkerOutcome t = backend.run(
        job, fresh_dir(ev.options, fmt::format("{}-timing-{}", spec.slug, who)), Limits{120.0});
    const double ms = t.report.run_received.empty() || !t.report.run_received[0]
                          ? -1.0
                          : t.report.runs[0].median_ms;
    (who == 0 ? ev.student_ms : ev.baseline_ms) = ms;
    if (who == 0 && t.ran(0)) ev.ceiling_ms = t.report.runs[0].ceiling_ms;
    (who == 0 ? ev.timing_student : ev.timing_baseline) =
        t.ran(0) ? t.report.runs[0].buffers : Buffers{};
  }
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
  if (const auto facts = backend.facts(); facts.contains("gpu") && facts["gpu"].is_string()) {
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
    WorkerJob job = job_for(ev.file, ev.shown, spec.kernel, "host");
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
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace grader
