// judge.cpp - the gates of DESIGN.md "How an exercise is graded", judged from raw outcomes.
#include "grader/judge.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "bankmodel/diagram.hpp"

namespace grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Gate make_gate(const std::string& name, int max_score) {
  Gate g;
  g.name = name;
  g.max_score = max_score;
  return g;
}

void pass(Gate& g, const std::string& reason) {
  g.passed = true;
  g.score = g.max_score;
  g.reason = reason;
}

void fail(Gate& g, const std::string& reason, const std::string& detail = "") {
  g.passed = false;
  g.score = 0;
  g.reason = reason;
  g.detail = detail;
}

void skip(Gate& g, const std::string& reason) {
  g.skipped = true;
  g.score = 0;
  g.reason = reason;
}

/// The last line of the child's output that names a TODO, a banksim message, or any text.
std::string child_message(const WorkerOutcome& w) {
  std::istringstream in(w.output_tail);
  std::string line;
  std::string todo;
  std::string banksim;
  while (std::getline(in, line)) {
    if (line.find("is not done yet") != std::string::npos) todo = line;
    if (line.rfind("banksim: ", 0) == 0) banksim = line.substr(9);
  }
  if (!todo.empty()) return todo;
  return banksim;
}

/// Why run `k` produced no result.
std::string run_failure(const WorkerOutcome& w, std::size_t k, const Size& size,
                        const fs::path& file) {
  const std::string todo = child_message(w);
  if (todo.find("is not done yet") != std::string::npos) {
    return fmt::format("{}: {} (the skeleton's TODO block still runs)", size.label, todo);
  }
  if (k < w.runs.size() && w.runs[k].report.is_object()) {
    const json& rep = w.runs[k].report;
    for (const auto& issue : rep.value("issues", json::array())) {
      const std::string kind = issue.value("kind", "");
      if (kind == "timeout" || kind == "crash" || kind == "usage" ||
          (kind == "out_of_bounds" && !rep.value("completed", true))) {
        const int line = issue.value("line", 0);
        return fmt::format(
            "{}: {}{}", size.label, issue.value("message", kind),
            line > 0 ? fmt::format(" (near {}:{})", file.filename().string(), line) : "");
      }
    }
    if (!rep.value("completed", true)) {
      return fmt::format("{}: the launch stopped early: {}", size.label,
                         rep.value("abort_reason", "unknown reason"));
    }
  }
  if (w.timed_out) {
    return fmt::format(
        "{}: the kernel ran past the grader's time limit ({:.0f} s) and was "
        "stopped: an infinite loop?",
        size.label, w.seconds);
  }
  if (w.exit_status != 0) {
    const std::string msg = child_message(w);
    return fmt::format("{}: the program stopped (exit status {}){}{}", size.label, w.exit_status,
                       msg.empty() ? "" : ": ", msg.empty() ? std::string() : msg);
  }
  return fmt::format("{}: the kernel produced no output", size.label);
}

/// Poison for output buffers: all bits set (a NaN for floats and doubles, -1 for ints).
void poison(std::vector<unsigned char>& b) {
  std::memset(b.data(), 0xff, b.size());
}

double value_at(const std::vector<unsigned char>& b, Elem e, std::size_t i) {
  switch (e) {
    case Elem::kF32: {
      float f;
      std::memcpy(&f, b.data() + i * 4, 4);
      return f;
    }
    case Elem::kF64: {
      double d;
      std::memcpy(&d, b.data() + i * 8, 8);
      return d;
    }
    case Elem::kI32: {
      std::int32_t v;
      std::memcpy(&v, b.data() + i * 4, 4);
      return v;
    }
  }
  return 0;
}

struct Totals {
  std::uint64_t wavefronts = 0;
  std::uint64_t ideal = 0;
  std::uint64_t load_requests = 0;
  std::uint64_t store_requests = 0;
};

Totals totals(const json& report) {
  Totals t;
  for (const auto& s : report.value("sites", json::array())) {
    t.wavefronts += s.value("wavefronts", std::uint64_t{0});
    t.ideal += s.value("ideal", std::uint64_t{0});
    (s.value("op", "") == "load" ? t.load_requests : t.store_requests) +=
        s.value("requests", std::uint64_t{0});
  }
  return t;
}

bankmodel::Request request_from(const json& worst) {
  bankmodel::Request r(
      worst.value("op", "load") == "load" ? bankmodel::Op::kLoad : bankmodel::Op::kStore,
      worst.value("width", 4));
  const auto& offsets = worst.at("offsets");
  for (int t = 0; t < bankmodel::kWarpSize && t < static_cast<int>(offsets.size()); ++t) {
    if (!offsets[static_cast<std::size_t>(t)].is_null()) {
      r.set_lane(t, offsets[static_cast<std::size_t>(t)].get<std::uint64_t>());
    }
  }
  return r;
}

std::string lane_list(const std::vector<int>& lanes) {
  std::string out;
  for (std::size_t i = 0; i < lanes.size();) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(lanes[i]);
    if (j > i) out += "-" + std::to_string(lanes[j]);
    i = j + 1;
  }
  return out;
}

RunRequest make_run(const ExerciseSpec& spec, const Size& size, std::mt19937_64& rng,
                    Buffers* expected, Buffers* inputs, bool with_reference = true) {
  RunRequest run;
  run.launch = spec.launch(size);
  run.args = spec.args;
  for (const ArgSpec& a : spec.args) {
    if (a.buffer < 0) run.ints.push_back(a.scalar(size));
  }
  for (const BufferSpec& b : spec.buffers) {
    run.buffers.emplace_back(b.count(size) * elem_bytes(b.elem));
  }
  spec.make_inputs(size, run.buffers, rng);
  for (std::size_t j = 0; j < spec.buffers.size(); ++j) {
    if (spec.buffers[j].output) poison(run.buffers[j]);
  }
  *inputs = run.buffers;
  *expected = run.buffers;
  if (with_reference) spec.reference(size, *expected);
  return run;
}

/// Checks one run's buffers: outputs against the reference, inputs unchanged.
std::string check_buffers(const ExerciseSpec& spec, const Size& size, const Buffers& got,
                          const Buffers& expected, const Buffers& inputs) {
  for (std::size_t j = 0; j < spec.buffers.size(); ++j) {
    const BufferSpec& b = spec.buffers[j];
    if (got[j].size() != expected[j].size()) return size.label + ": buffer size changed";
    if (!b.output) {
      if (got[j] != inputs[j]) {
        return fmt::format(
            "{}: the kernel modified its input `{}`: inputs are read-only "
            "(write only to the output)",
            size.label, b.name);
      }
      continue;
    }
    const std::size_t n = got[j].size() / elem_bytes(b.elem);
    std::size_t wrong = 0;
    std::size_t unwritten = 0;
    std::size_t first = n;
    for (std::size_t i = 0; i < n; ++i) {
      const double g = value_at(got[j], b.elem, i);
      const double w = value_at(expected[j], b.elem, i);
      const bool poisoned = std::memcmp(got[j].data() + i * elem_bytes(b.elem),
                                        std::vector<unsigned char>(elem_bytes(b.elem), 0xff).data(),
                                        elem_bytes(b.elem)) == 0;
      const bool ok = !poisoned && std::isfinite(g) &&
                      std::abs(g - w) <= spec.tolerance_abs + spec.tolerance_rel * std::abs(w);
      if (!ok) {
        ++wrong;
        unwritten += poisoned ? 1 : 0;
        if (first == n) first = i;
      }
    }
    if (wrong > 0) {
      const double g = value_at(got[j], b.elem, first);
      const double w = value_at(expected[j], b.elem, first);
      const bool first_poisoned = !std::isfinite(g);
      return fmt::format(
          "{}: {} of {} elements of `{}` are wrong{}; the first is {}[{}] = {}, expected {:.6g}{}",
          size.label, wrong, n, b.name,
          unwritten > 0 ? fmt::format(" ({} never written)", unwritten) : "", b.name, first,
          first_poisoned ? std::string("(never written)") : fmt::format("{:.6g}", g), w,
          unwritten == wrong && unwritten > 0
              ? " -- does every element get a thread that writes it, for every size?"
              : "");
    }
  }
  return "";
}

std::vector<std::array<long long, 32>> host_cases(int count, std::mt19937_64& rng) {
  std::vector<std::array<long long, 32>> cases;
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

ExerciseResult grade_host(const ExerciseSpec& spec, const fs::path& file, const Backend& backend,
                          const JudgeOptions& options, std::mt19937_64& rng) {
  ExerciseResult result;
  result.spec = &spec;
  result.mode = backend.mode();
  Gate builds = make_gate("builds", spec.points.builds);
  Gate correct = make_gate("correct", spec.points.correct);
  WorkerRequest req;
  req.kind = ExerciseSpec::Kind::kHost;
  req.file = file;
  req.kernel = spec.kernel;
  req.host_cases = host_cases(spec.host_cases, rng);
  const fs::path dir = options.work_dir / (spec.slug + "-student");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const WorkerOutcome w = backend.run(req, dir, Limits{60.0});
  if (!w.compiled) {
    fail(builds, w.compile_message.empty() ? "the file could not be compiled" : w.compile_message,
         w.diagnostics);
    skip(correct, "needs a file that builds");
  } else {
    pass(builds, "compiles");
    if (w.host_results.size() != req.host_cases.size()) {
      std::string msg = child_message(w);
      fail(correct, msg.empty() ? fmt::format("the function stopped the program (exit status {})",
                                              w.exit_status)
                                : msg);
    } else {
      std::size_t wrong = 0;
      std::string first;
      for (std::size_t i = 0; i < req.host_cases.size(); ++i) {
        bankmodel::Request r(bankmodel::Op::kLoad, 4);
        for (int t = 0; t < 32; ++t) {
          const long long a = req.host_cases[i][static_cast<std::size_t>(t)];
          if (a >= 0) r.set_lane(t, static_cast<std::uint64_t>(a));
        }
        const int want = bankmodel::count_wavefronts(r).wavefronts;
        if (w.host_results[i] != want) {
          if (++wrong == 1) {
            std::string lanes;
            for (int t = 0; t < 32; ++t) {
              const long long a = req.host_cases[i][static_cast<std::size_t>(t)];
              lanes += (t ? "," : "") + (a < 0 ? std::string("-") : std::to_string(a));
            }
            first = fmt::format(
                "for byte addresses [{}] the answer is {} wavefronts, yours "
                "returned {}",
                lanes, want, w.host_results[i]);
          }
        }
      }
      if (wrong == 0) {
        pass(correct, fmt::format("{} random requests, all right", req.host_cases.size()));
      } else {
        fail(correct,
             fmt::format("{} of {} requests wrong; {}", wrong, req.host_cases.size(), first));
      }
    }
  }
  result.gates = {builds, correct};
  result.conflicts_summary = "-";
  result.speedup_summary = "-";
  result.seconds = w.seconds;
  return result;
}

}  // namespace

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
  const fs::path file = submission / spec.slug / spec.file;
  auto finish = [&](ExerciseResult r) {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  };

  ExerciseResult result;
  result.spec = &spec;
  result.mode = backend.mode();
  if (!fs::exists(file)) {
    Gate b = make_gate("builds", spec.points.builds);
    fail(b, fmt::format("{} is missing: copy exercises/{}/{} into your submission", file.string(),
                        spec.slug, spec.file));
    result.gates.push_back(b);
    for (const char* name : {"correct", "no_problems", "conflicts", "speed", "uses_shared"}) {
      if (spec.kind == ExerciseSpec::Kind::kHost && std::string(name) != "correct") continue;
      Gate g = make_gate(name, name == std::string("correct")       ? spec.points.correct
                               : name == std::string("no_problems") ? spec.points.no_problems
                               : name == std::string("conflicts")   ? spec.points.conflicts
                               : name == std::string("speed")       ? spec.points.speed
                                                                    : spec.points.uses_shared);
      skip(g, "needs the file");
      result.gates.push_back(g);
    }
    result.conflicts_summary = result.speedup_summary = "-";
    return finish(result);
  }
  if (spec.kind == ExerciseSpec::Kind::kHost) {
    return finish(grade_host(spec, file, backend, options, rng));
  }

  Gate builds = make_gate("builds", spec.points.builds);
  Gate correct = make_gate("correct", spec.points.correct);
  Gate problems = make_gate("no_problems", spec.points.no_problems);
  Gate conflicts = make_gate("conflicts", spec.points.conflicts);
  Gate speed = make_gate("speed", spec.points.speed);
  Gate shared = make_gate("uses_shared", spec.points.uses_shared);
  result.conflicts_summary = "-";
  result.speedup_summary = "-";

  // The student's kernel on every size; the baseline on sizes[0], with the same inputs.
  WorkerRequest student;
  student.file = file;
  student.kernel = spec.kernel;
  const bool gpu = backend.mode() == "gpu";
  std::vector<Buffers> expected(spec.sizes.size());
  std::vector<Buffers> inputs(spec.sizes.size());
  for (std::size_t k = 0; k < spec.sizes.size(); ++k) {
    student.runs.push_back(make_run(spec, spec.sizes[k], rng, &expected[k], &inputs[k]));
  }
  // One child process per size: a crash or hang on one size does not hide the others.
  std::vector<WorkerOutcome> per_run;
  WorkerOutcome w;
  for (std::size_t k = 0; k < student.runs.size(); ++k) {
    WorkerRequest one = student;
    one.runs = {student.runs[k]};
    one.profile = gpu && k == 0;                         // counters at the measured size
    one.sanitize = gpu && k + 1 == student.runs.size();  // sanitizers at the smallest
    const fs::path sdir = options.work_dir / fmt::format("{}-student-{}", spec.slug, k);
    fs::remove_all(sdir);
    fs::create_directories(sdir);
    per_run.push_back(backend.run(one, sdir, Limits{60.0}));
    const WorkerOutcome& o = per_run.back();
    if (k == 0) {
      w.compiled = o.compiled;
      w.compile_message = o.compile_message;
      w.diagnostics = o.diagnostics;
      w.exit_status = o.exit_status;
      w.timed_out = o.timed_out;
      w.output_tail = o.output_tail;
    }
    w.seconds += o.seconds;
    w.runs.push_back(o.runs.empty() ? RunOutcome{} : o.runs[0]);
    if (!o.compiled) break;  // the same file will not compile for the next size either
  }

  auto finish_all = [&]() {
    result.gates = {builds, correct, problems, conflicts, speed, shared};
    return finish(result);
  };
  if (!w.compiled) {
    std::string why = w.compile_message;
    if (why.empty()) {
      if (w.timed_out) {
        why = "building and loading the file took longer than the time limit";
      } else if (w.exit_status == 0) {
        why =
            "the program exited (status 0) while loading your file, before any kernel ran: "
            "does it call exit() at start-up, e.g. in a global initialiser?";
      } else {
        const std::string msg = child_message(w);
        why = fmt::format(
            "the program stopped (exit status {}) while loading your file, before "
            "any kernel ran{}{}",
            w.exit_status, msg.empty() ? "" : ": ", msg);
      }
    }
    fail(builds, why, w.diagnostics);
    for (Gate* g : {&correct, &problems, &conflicts, &speed, &shared})
      skip(*g, "needs a kernel that builds");
    return finish_all();
  }
  pass(builds, "compiles");

  std::vector<std::string> wrong;
  for (std::size_t k = 0; k < spec.sizes.size(); ++k) {
    const RunOutcome* r = k < w.runs.size() ? &w.runs[k] : nullptr;
    if (r == nullptr || !r->ran) {
      wrong.push_back(k < per_run.size() ? run_failure(per_run[k], 0, spec.sizes[k], file)
                                         : spec.sizes[k].label + ": not run");
      continue;
    }
    const std::string msg = check_buffers(spec, spec.sizes[k], r->buffers, expected[k], inputs[k]);
    if (!msg.empty()) wrong.push_back(msg);
  }
  if (wrong.empty()) {
    std::string sizes;
    for (const Size& s : spec.sizes) sizes += (sizes.empty() ? "" : ", ") + s.label;
    pass(correct, "right on every size (" + sizes + ")");
  } else {
    std::string detail;
    for (const auto& m : wrong) detail += m + "\n";
    fail(correct, wrong.front(), detail);
  }

  // Problems: every error banksim (or compute-sanitizer) reported, on any size.
  std::vector<std::string> found;
  bool all_ran = true;
  for (std::size_t k = 0; k < w.runs.size(); ++k) {
    all_ran = all_ran && w.runs[k].ran;
    for (const auto& issue : w.runs[k].report.value("issues", json::array())) {
      if (issue.value("severity", "error") != "error") continue;
      const std::string kind = issue.value("kind", "");
      if (kind == "timeout" || kind == "crash" || kind == "usage") continue;
      std::string line = fmt::format("{}: line {}: {}: {}", spec.sizes[k].label,
                                     issue.value("line", 0), kind, issue.value("message", ""));
      if (issue.contains("other_line"))
        line += fmt::format(" (other access: line {})", issue["other_line"].get<int>());
      if (std::find(found.begin(), found.end(), line) == found.end()) found.push_back(line);
    }
  }
  if (!found.empty()) {
    std::string detail;
    for (const auto& f : found) detail += f + "\n";
    fail(problems,
         found.front() + (found.size() > 1 ? fmt::format(" (+{} more)", found.size() - 1) : ""),
         detail);
  } else if (!all_ran) {
    fail(problems, "the kernel did not finish on every size (see correct)");
  } else {
    pass(problems, "no race, out-of-bounds access, uninitialised read or divergent barrier");
  }

  if (!correct.passed) {
    for (Gate* g : {&conflicts, &speed, &shared}) skip(*g, "needs a correct kernel first");
    return finish_all();
  }

  // Baseline at sizes[0] with the same inputs.
  WorkerRequest base;
  base.file = course_root() / spec.baseline_file;
  base.kernel = spec.baseline_kernel;
  base.profile = gpu;
  base.runs.push_back(student.runs[0]);
  const fs::path bdir = options.work_dir / (spec.slug + "-baseline");
  fs::remove_all(bdir);
  fs::create_directories(bdir);
  const WorkerOutcome bw = backend.run(base, bdir, Limits{90.0});
  const bool have_base = bw.compiled && !bw.runs.empty() && bw.runs[0].ran;

  // GPU: time student and baseline against each other at a size that fills the GPU, same inputs.
  double student_ms = -1.0;
  double base_ms = -1.0;
  if (gpu && have_base) {
    Buffers unused_expected;
    Buffers unused_inputs;
    WorkerRequest timing;
    timing.timed = true;
    timing.runs.push_back(make_run(spec, spec.gpu_timing_size, rng, &unused_expected,
                                   &unused_inputs, /*with_reference=*/false));
    for (int who = 0; who < 2; ++who) {
      timing.file = who == 0 ? file : course_root() / spec.baseline_file;
      timing.kernel = who == 0 ? spec.kernel : spec.baseline_kernel;
      const fs::path tdir = options.work_dir / fmt::format("{}-timing-{}", spec.slug, who);
      fs::remove_all(tdir);
      fs::create_directories(tdir);
      const WorkerOutcome tw = backend.run(timing, tdir, Limits{120.0});
      (who == 0 ? student_ms : base_ms) = tw.runs.empty() ? -1.0 : tw.runs[0].median_ms;
    }
  }

  const json& rep = w.runs[0].report;
  const Totals st = totals(rep);
  const Totals bt = have_base ? totals(bw.runs[0].report) : Totals{};
  const double student_ways = st.ideal == 0 ? 1.0 : static_cast<double>(st.wavefronts) / st.ideal;
  const double base_ways = bt.ideal == 0 ? 1.0 : static_cast<double>(bt.wavefronts) / bt.ideal;
  result.conflicts_summary = fmt::format("{:.2f}x (baseline {:.2f}x)", student_ways, base_ways);

  // Conflicts: every shared access of the kernel at its ideal wavefronts.
  // On a GPU the counters include arbitration noise (a conflict-free kernel can read 1.01x its
  // ideal): allow 5% there; banksim's counts are exact.
  const double allowed_ways = backend.mode() == "gpu" ? 1.05 : 1.0;
  const json* worst = nullptr;
  double worst_ways = allowed_ways;
  static const json kNoSites = json::array();
  const json& sites = rep.contains("sites") ? rep.at("sites") : kNoSites;
  for (const auto& s : sites) {
    const double ideal = s.value("ideal", 0.0);
    const double ways = ideal == 0 ? 1.0 : s.value("wavefronts", 0.0) / ideal;
    if (ways > worst_ways) {
      worst_ways = ways;
      worst = &s;
    }
  }
  if (st.load_requests + st.store_requests == 0) {
    fail(conflicts,
         "the kernel makes no shared-memory access, so there is no conflict to fix: "
         "stage the data through shared memory as the exercise asks");
  } else if (worst == nullptr) {
    pass(conflicts, fmt::format("every shared access at its ideal: {} wavefronts for {} requests "
                                "(the baseline needs {:.2f}x its ideal)",
                                st.wavefronts, st.load_requests + st.store_requests, base_ways));
  } else {
    const bool has_request = worst->contains("worst");
    const bankmodel::Analysis a =
        has_request ? bankmodel::analyze(request_from(worst->at("worst")))
                    : bankmodel::analyze(bankmodel::Request(bankmodel::Op::kLoad, 4));
    std::string bank_text;
    for (const auto& phase : a.phases) {
      const int b = phase.worst_bank();
      if (b >= 0 && phase.wavefronts > 1) {
        const auto& bank = phase.banks[static_cast<std::size_t>(b)];
        bank_text = fmt::format("; bank {} serves {} distinct words for lanes {}", b,
                                bank.words.size(), lane_list(bank.lanes));
        break;
      }
    }
    const std::string src = worst->value("source", "");
    const int wline = worst->value("line", 0);
    fail(conflicts,
         fmt::format("{}: `{}` ({} of {} bytes) is {:.2g}-way: {:.2f} wavefronts per request, "
                     "ideal {:.2f}{}; try: {}",
                     wline > 0 ? "line " + std::to_string(wline)
                               : std::string("instruction (Nsight Compute)"),
                     src.size() > 60 ? src.substr(0, 57) + "..." : src, worst->value("op", ""),
                     worst->value("bytes", 0), worst_ways,
                     worst->value("wavefronts_per_request", 0.0),
                     worst->value("ideal", 0.0) / std::max(1.0, worst->value("requests", 1.0)),
                     bank_text, spec.conflict_hint),
         options.verbose && has_request
             ? bankmodel::render_text(a, fmt::format("{}:{}: {}", spec.file, wline, src))
             : "");
  }
  if (options.verbose && conflicts.passed) {
    // The bank picture of the access the exercise is about: the baseline's worst line.
    const json& base_sites =
        have_base && bw.runs[0].report.contains("sites") ? bw.runs[0].report.at("sites") : kNoSites;
    for (const auto& s : base_sites) {
      if (s.value("wavefronts", 0.0) > s.value("ideal", 0.0) && s.contains("worst")) {
        conflicts.detail =
            "The baseline's conflicting access, now fixed:\n" +
            bankmodel::render_text(bankmodel::analyze(request_from(s.at("worst"))),
                                   fmt::format("{}:{}: {}", spec.baseline_file, s.value("line", 0),
                                               s.value("source", "")));
        break;
      }
    }
  }

  // Speed: GPU: timed ratio; CPU: the model's wavefront ratio (said so in the reason).
  if (!have_base) {
    fail(speed, "the baseline kernel could not be run: " +
                    (bw.compile_message.empty() ? child_message(bw) : bw.compile_message));
  } else if (gpu) {
    const double ratio = student_ms > 0 && base_ms > 0 ? base_ms / student_ms : 0.0;
    result.speedup_summary = fmt::format("{:.2f}x", ratio);
    const std::string m = fmt::format(
        "timed on the GPU at {}: {:.2f}x faster than the baseline ({:.4f} ms vs {:.4f} ms, "
        "median of 15, L2 flushed), needs {:.2f}x",
        spec.gpu_timing_size.label, ratio, base_ms, student_ms, spec.gpu_min_speedup);
    if (ratio >= spec.gpu_min_speedup)
      pass(speed, m);
    else
      fail(speed, m);
  } else {
    const double ratio =
        st.wavefronts == 0 ? 0.0 : static_cast<double>(bt.wavefronts) / st.wavefronts;
    result.speedup_summary = fmt::format("{:.2f}x (model)", ratio);
    const std::string m = fmt::format(
        "CPU mode, judged by the bank model: {:.2f}x fewer shared-memory wavefronts than the "
        "baseline ({} vs {}), needs {:.1f}x; a GPU run times it instead",
        ratio, st.wavefronts, bt.wavefronts, spec.cpu_min_wavefront_ratio);
    if (ratio >= spec.cpu_min_wavefront_ratio)
      pass(speed, m);
    else
      fail(speed, m);
  }

  // Anti-bypass: data must still go through shared memory.
  if (!have_base) {
    fail(shared, "the baseline kernel could not be run to compare with");
  } else {
    const auto need_loads = static_cast<std::uint64_t>(spec.min_shared_fraction * bt.load_requests);
    const auto need_stores =
        static_cast<std::uint64_t>(spec.min_shared_fraction * bt.store_requests);
    const std::string m = fmt::format(
        "{} shared load and {} store requests (at least {} and {} "
        "needed)",
        st.load_requests, st.store_requests, need_loads, need_stores);
    if (st.load_requests >= need_loads && st.store_requests >= need_stores &&
        st.load_requests > 0) {
      pass(shared, m);
    } else {
      fail(shared, m + ": the exercise is about staging data through shared memory; a kernel that "
                       "bypasses it does not count");
    }
  }
  return finish_all();
}

}  // namespace grader
