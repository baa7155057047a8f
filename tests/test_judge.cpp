// The judge and its gate table (grader/judge.hpp), linked directly with a fake backend: each
// gate's verdict follows from the reports a backend returns, whatever the backend is.
// Over 600 lines on purpose: one test program for the judge, its cases sharing the synthetic
// exercise and the fake GPU backends.
#include "course_catch.hpp"

#include <cmath>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <string>

#include "course/registry.hpp"
#include "grader/judge.hpp"
#include "grader/report.hpp"
#include "grader/skeleton.hpp"

namespace fs = std::filesystem;
namespace proto = grader::protocol;
using grader::WorkerJob;
using grader::WorkerOutcome;

namespace {

/// A backend whose worker is a function of the job.
class FakeBackend : public grader::Backend {
 public:
  FakeBackend(grader::Capabilities caps, std::function<WorkerOutcome(const WorkerJob&)> f,
              std::string gpu_name = "NVIDIA H200")
      : caps_(std::move(caps)), f_(std::move(f)), gpu_(std::move(gpu_name)) {}
  grader::Capabilities capabilities() const override { return caps_; }
  std::string describe() const override { return "fake"; }
  nlohmann::json facts() const override {
    return caps_.can_time ? nlohmann::json{{"gpu", gpu_}} : nlohmann::json{{"gpu", nullptr}};
  }
  WorkerOutcome run(const WorkerJob& job, const fs::path&, const grader::Limits&) const override {
    return f_(job);
  }

 private:
  grader::Capabilities caps_;
  std::function<WorkerOutcome(const WorkerJob&)> f_;
  std::string gpu_;
};

/// Exercise 04 as the registry has it (its real sizes: for tests that need them).
const course::ExerciseSpec& ex04() {
  return *course::find_exercise("04");
}

course::Size n_size(long long n) {
  return course::Size{"n=" + std::to_string(n), n, 0, 0};
}

/// The exercise the judge grades here: exercise 04 (its files, kernels, workload, gates and
/// thresholds) at tiny sizes, so that inputs and the CPU reference take microseconds, not the
/// seconds of the real timing size (4096 x 4096). The judge does not depend on the sizes.
const course::ExerciseSpec& tiny() {
  static const course::ExerciseSpec spec = [] {
    course::ExerciseSpec e = ex04();
    e.sizes = {n_size(64), n_size(45), n_size(33)};
    e.random_size = [](std::mt19937_64& rng) {
      return n_size(std::uniform_int_distribution<long long>(1, 80)(rng));
    };
    e.random_sizes = 2;
    e.gpu_timing_size = n_size(96);
    e.bench_size = n_size(96);
    return e;
  }();
  return spec;
}

/// Bytes of one n x n float buffer at sizes[0] (the first, measured size).
std::size_t sizes0_bytes() {
  const long long n = tiny().sizes[0].n;
  return static_cast<std::size_t>(4 * n * n);
}

proto::Site site(int line, std::uint64_t requests, std::uint64_t wavefronts, const char* op) {
  proto::Site s;
  s.file = "transpose.cu";
  s.line = line;
  s.source = "tile[threadIdx.x][threadIdx.y + j]";
  REQUIRE(bankmodel::parse_op(op, &s.op));
  s.requests = requests;
  s.wavefronts = wavefronts;
  s.ideal = requests;
  return s;
}

/// A worker whose kernel computes the reference and makes the given shared accesses; the
/// baseline (a file under lessons/) makes 32-way loads.
WorkerOutcome worker(const WorkerJob& job, std::vector<proto::Site> student_sites,
                     double student_ms = 1.0) {
  WorkerOutcome w;
  w.started = true;
  w.report.compile = {true, true, "", ""};
  const bool baseline = job.request.file.find("/lessons/") != std::string::npos;
  for (std::size_t k = 0; k < job.request.runs.size(); ++k) {
    proto::RunReport r;
    r.completed = true;
    r.buffers = job.inputs[k];
    // The size is not in the job: n x n floats (the judge also draws sizes with its seed).
    const auto n = std::llround(std::sqrt(static_cast<double>(r.buffers[0].size()) / 4.0));
    tiny().workload.reference(course::Size{"", n, 0, 0}, r.buffers);
    r.sites = baseline ? std::vector<proto::Site>{site(32, 128, 4096, "load"),
                                                  site(25, 128, 128, "store")}
                       : student_sites;
    r.median_ms = baseline ? 2.0 : student_ms;
    w.report.runs.push_back(r);
    w.report.run_received.push_back(true);
  }
  return w;
}

grader::Capabilities cpu() {
  grader::Capabilities c;
  c.name = "cpu";
  return c;
}

grader::Capabilities gpu() {
  grader::Capabilities c;
  c.name = "gpu";
  c.can_time = c.can_profile = c.can_sanitize = true;
  c.conflict_tolerance = 1.05;
  return c;
}

grader::ExerciseResult judge(const grader::Backend& b, const course::ExerciseSpec& spec = tiny()) {
  grader::JudgeOptions o;
  o.seed = 5;
  o.work_dir = fs::temp_directory_path() / "test-judge";
  return grader::grade_exercise(spec, "solutions", b, o);
}

}  // namespace

TEST_CASE("judge: a right, conflict-free kernel passes every gate (CPU capabilities)", "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) {
    return worker(j, {site(21, 128, 128, "load"), site(14, 128, 128, "store")});
  });
  const auto r = judge(b);
  for (const auto& g : r.gates) INFO(g.name << ": " << g.reason);
  CHECK(r.score() == 100);
  // No global accesses in these fake reports: the cost is the wavefronts, 4224 / 256.
  CHECK(r.gate("speed")->reason.find("judged by the cost model (no GPU here; a GPU run times "
                                     "it): 16.50x cheaper") != std::string::npos);
  CHECK(r.gate("speed")->reason.find("needs 1.90x") != std::string::npos);
  CHECK_FALSE(r.timed);
}

TEST_CASE("judge: a build failure fails builds and skips the rest", "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob&) {
    WorkerOutcome w;
    w.report.compile = {true, false, "transpose.cu:9: error: use of undeclared identifier", ""};
    w.report.runs.resize(1);
    w.report.run_received = {false};
    return w;
  });
  const auto r = judge(b);
  CHECK(r.score() == 0);
  CHECK(r.gate("builds")->reason == "transpose.cu:9: error: use of undeclared identifier");
  for (const char* g : {"correct", "no_problems", "conflicts", "speed", "uses_shared"}) {
    CHECK(r.gate(g)->skipped);
  }
}

TEST_CASE("judge: a conflicting access names its line and ways", "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) {
    return worker(
        j, {site(21, 128, 256, "load"), site(21, 128, 128, "load"), site(14, 128, 128, "store")});
  });
  const auto r = judge(b);
  CHECK_FALSE(r.gate("conflicts")->passed);
  CHECK(r.gate("conflicts")->reason.find("transpose.cu:21:") == 0);
  CHECK(r.gate("conflicts")->reason.find("is 2-way") != std::string::npos);
  CHECK(r.gate("correct")->passed);
}

TEST_CASE("judge: wrong output fails correct, and the later gates wait for it", "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(21, 128, 128, "load")});
    for (auto& r : w.report.runs) r.buffers[0][4] ^= 0x40;  // one element wrong
    return w;
  });
  const auto r = judge(b);
  CHECK_FALSE(r.gate("correct")->passed);
  CHECK(r.gate("correct")->reason.find("1 of 4096 elements of `out` are wrong; the first is "
                                       "out[1]") != std::string::npos);
  CHECK(r.gate("conflicts")->skipped);
  CHECK(r.gate("speed")->skipped);
}

TEST_CASE("judge: a race fails no_problems with its lines", "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(21, 128, 128, "load"), site(14, 128, 128, "store")});
    w.report.runs[0].issues.push_back(
        {"race", proto::Severity::kError, "transpose.cu", 21, 14, "read after write"});
    return w;
  });
  const auto r = judge(b);
  CHECK_FALSE(r.gate("no_problems")->passed);
  CHECK(r.gate("no_problems")
            ->reason.find(
                "n=64: transpose.cu:21: race: read after write (other access: line 14)") == 0);
  // Wrong code fails the exercise past its build points, even with the right output.
  CHECK_FALSE(r.gate("correct")->passed);
  CHECK(r.gate("correct")->reason.find("race: read after write") != std::string::npos);
  CHECK(r.score() == tiny().points.builds);
}

TEST_CASE("judge: the first cause is named first (a divergent barrier before its races)",
          "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(21, 128, 128, "load"), site(14, 128, 128, "store")});
    auto& issues = w.report.runs[0].issues;
    issues.push_back({"race", proto::Severity::kError, "transpose.cu", 21, 14, "read after write"});
    issues.push_back(
        {"uninitialized_read", proto::Severity::kError, "transpose.cu", 22, 0, "never written"});
    issues.push_back(
        {"barrier_divergence", proto::Severity::kError, "transpose.cu", 18, 0, "some threads"});
    issues.push_back(
        {"misaligned", proto::Severity::kError, "transpose.cu", 30, 0, "8-byte access"});
    return w;
  });
  const auto r = judge(b);
  const std::string& reason = r.gate("no_problems")->reason;
  CHECK(reason.find("transpose.cu:18: barrier_divergence") != std::string::npos);
  CHECK(reason.find(" more)") != std::string::npos);
  const std::string& detail = r.gate("no_problems")->detail;
  CHECK(detail.find("barrier_divergence") < detail.find("misaligned"));
  CHECK(detail.find("misaligned") < detail.find("race"));
  CHECK(detail.find("race") < detail.find("uninitialized_read"));
  CHECK(r.gate("correct")->reason.find("barrier_divergence") != std::string::npos);
}

TEST_CASE("judge: with GPU capabilities the speed gate times and counters get their slack",
          "[judge]") {
  SECTION("2x faster passes 04's 1.8x gate; a 1.03x counter reading is conflict-free") {
    const FakeBackend b(gpu(), [](const WorkerJob& j) {
      return worker(j, {site(0, 1000, 1030, "load"), site(0, 128, 128, "store")}, 1.0);
    });
    const auto r = judge(b);
    CHECK(r.gate("conflicts")->passed);
    CHECK(r.gate("speed")->passed);
    CHECK(r.gate("speed")->reason.find("timed on the GPU at n=96: 2.00x faster") == 0);
    CHECK(r.gate("correct")->reason.find("and n=96 timed") != std::string::npos);
    CHECK(r.timed);
  }
  SECTION("1.33x faster fails it, and says what it needs") {
    const FakeBackend b(gpu(), [](const WorkerJob& j) {
      return worker(j, {site(0, 1000, 1000, "load"), site(0, 128, 128, "store")}, 1.5);
    });
    const auto r = judge(b);
    CHECK_FALSE(r.gate("speed")->passed);
    CHECK(r.gate("speed")->reason.find("needs 1.80x") != std::string::npos);
  }
}

TEST_CASE("judge: on a GPU, a kernel that skips work at the timed size is not correct", "[judge]") {
  const FakeBackend b(gpu(), [](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(0, 1000, 1000, "load"), site(0, 128, 128, "store")}, 1.0);
    const bool student = j.request.file.find("/lessons/") == std::string::npos;
    if (student && j.request.timed)
      w.report.runs[0].buffers[0].assign(w.report.runs[0].buffers[0].size(), 0);
    return w;
  });
  const auto r = judge(b);
  CHECK_FALSE(r.gate("correct")->passed);
  CHECK(r.gate("correct")->reason.find("n=96: ") == 0);
  CHECK(r.gate("correct")->reason.find("compared with the baseline's output on the GPU") !=
        std::string::npos);
}

TEST_CASE("judge: on a GPU, counters are read at every size, so a pad for one size fails",
          "[judge]") {
  // The student's kernel conflicts 32-way except at the first (measured) size. As with ncu,
  // only a profiled job reports sites: one job runs every size under the profiler, and launch
  // k's counters belong to size k.
  std::size_t profile_jobs = 0, profiled_runs = 0;
  const FakeBackend b(gpu(), [&](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {}, 1.0);
    if (j.request.file.find("/lessons/") == std::string::npos && j.profile) {
      ++profile_jobs;
      profiled_runs = j.request.runs.size();
      for (std::size_t k = 0; k < w.report.runs.size(); ++k) {
        w.report.runs[k].sites = {site(21, 128, k == 0 ? 128 : 4096, "load"),
                                  site(14, 128, 128, "store")};
      }
    }
    return w;
  });
  const auto r = judge(b);
  CHECK(profile_jobs == 1);
  CHECK(profiled_runs == tiny().sizes.size() + static_cast<std::size_t>(tiny().random_sizes));
  CHECK_FALSE(r.gate("conflicts")->passed);
  CHECK(r.gate("conflicts")->reason.find("32-way") != std::string::npos);
}

TEST_CASE("judge: on a GPU, the sanitizers see every size in one job and keep their findings",
          "[judge]") {
  std::size_t sanitize_jobs = 0, sizes_seen = 0;
  const FakeBackend b(gpu(), [&](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 1.0);
    if (j.sanitize) {
      ++sanitize_jobs;
      sizes_seen = j.request.runs.size();
      // racecheck finds the race only at one size (say an edge tile): the last run here.
      w.report.runs.back().issues.push_back({"race", proto::Severity::kError, "transpose.cu", 30, 0,
                                             "compute-sanitizer racecheck: hazard"});
    }
    return w;
  });
  const auto r = judge(b);
  CHECK(sanitize_jobs == 1);
  CHECK(sizes_seen == tiny().sizes.size() + static_cast<std::size_t>(tiny().random_sizes));
  CHECK_FALSE(r.gate("no_problems")->passed);
  CHECK(r.gate("no_problems")->reason.find("racecheck") != std::string::npos);
  CHECK(r.score() == tiny().points.builds);
}

TEST_CASE("judge: on a GPU, a kernel that stops the GPU gets memcheck to name the access",
          "[judge]") {
  int diagnose_jobs = 0, profiled = 0;
  const FakeBackend b(gpu(), [&](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 1.0);
    const bool edge = j.request.runs.size() == 1 && j.inputs[0][0].size() != sizes0_bytes();
    if (j.sanitize || edge) {
      // The GPU stopped ("an illegal memory access"): the runs carry no result.
      w.exit_status = 1;
      for (auto& run : w.report.runs) run.completed = false;
    }
    if (j.sanitize) {
      ++diagnose_jobs;
      profiled += j.profile ? 1 : 0;
      w.report.runs.back().issues.push_back(
          {"out_of_bounds", proto::Severity::kError, "transpose.cu", 24, 0,
           "compute-sanitizer memcheck: Invalid __shared__ write of size 4 bytes"});
    }
    return w;
  });
  const auto r = judge(b);
  CHECK(diagnose_jobs == 1);
  CHECK(profiled == 0);  // the counters of a kernel that faults are not wanted
  CHECK_FALSE(r.gate("no_problems")->passed);
  CHECK(r.gate("no_problems")
            ->reason.find("transpose.cu:24: out_of_bounds: compute-sanitizer memcheck") !=
        std::string::npos);
  CHECK(r.gate("correct")->reason.find("memcheck") != std::string::npos);
  CHECK(r.score() == tiny().points.builds);
}

TEST_CASE("judge: on a GPU, a hang gets no sanitizer run", "[judge]") {
  int sanitize_jobs = 0;
  const FakeBackend b(gpu(), [&](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 1.0);
    sanitize_jobs += j.sanitize ? 1 : 0;
    if (j.request.runs.size() == 1 && j.inputs[0][0].size() != sizes0_bytes()) {
      w.exit_status = 137;
      w.timed_out = true;
      for (auto& run : w.report.runs) run.completed = false;
    }
    return w;
  });
  const auto r = judge(b);
  CHECK(sanitize_jobs == 0);
  CHECK_FALSE(r.gate("correct")->passed);
}

TEST_CASE("judge: a GPU without a row in the gate table is judged by the cost model, and told so",
          "[judge]") {
  const FakeBackend b(
      gpu(),
      [](const WorkerJob& j) {
        return worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 0.1);
      },
      "NVIDIA GeForce RTX 4090");
  const auto r = judge(b);
  const auto* speed = r.gate("speed");
  CHECK(speed->reason.find("no measured gate for this GPU (NVIDIA GeForce RTX 4090)") == 0);
  CHECK(speed->reason.find("cost model") != std::string::npos);
  CHECK(speed->passed);  // 256 wavefronts against the baseline's 4224: 16.5x cheaper
}

TEST_CASE("judge: the cost model charges uncoalesced global accesses (a strided transpose fails)",
          "[judge]") {
  // Conflict-free shared accesses, but the store to global memory is strided: 32 sectors per
  // request where 4 would do. The baseline stores coalesced (4 sectors per request).
  const auto add_globals = [](WorkerOutcome w, bool strided) {
    for (auto& run : w.report.runs) {
      proto::GlobalSite ld{
          "transpose.cu", 14, 0, "in[...]", bankmodel::Op::kLoad, 4, 128, 512, 512};
      proto::GlobalSite st{"transpose.cu",         33, 0, "out[...]", bankmodel::Op::kStore, 4, 128,
                           strided ? 4096u : 512u, 512};
      run.global_sites = {ld, st};
    }
    return w;
  };
  const FakeBackend b(cpu(), [&](const WorkerJob& j) {
    const bool baseline = j.request.file.find("/lessons/") != std::string::npos;
    return add_globals(worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}),
                       !baseline);
  });
  // Exercise 04's tile exists to make the stores coalesced: writing the transpose straight to
  // global memory bypasses it, so uses_shared fails and conflicts and speed are not judged.
  auto r = judge(b);
  CHECK_FALSE(r.gate("uses_shared")->passed);
  CHECK(r.gate("uses_shared")->reason.find("global stores touch 8.0x the 32-byte sectors") !=
        std::string::npos);
  CHECK(r.gate("conflicts")->skipped);
  CHECK(r.gate("speed")->skipped);
  CHECK(r.score() == 0);
  // Without that check (an instructor's policy: max_store_sectors_per_ideal = 0) the cost model
  // still charges the strided stores.
  course::ExerciseSpec spec = tiny();
  spec.thresholds.max_store_sectors_per_ideal = 0;
  r = judge(b, spec);
  const auto* speed = r.gate("speed");
  CHECK(r.gate("uses_shared")->passed);
  CHECK(r.gate("conflicts")->passed);
  CHECK_FALSE(speed->passed);
  CHECK(speed->reason.find("the global store at transpose.cu:33 touches 32.0 32-byte sectors "
                           "per warp request where 4.0 would do") != std::string::npos);
}

TEST_CASE("judge: counters that could not be read are the machine's problem, not a pass",
          "[judge]") {
  const FakeBackend b(gpu(), [](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {}, 1.0);
    w.counters_error = "==ERROR== ERR_NVGPUCTRPERM";
    return w;
  });
  const auto r = judge(b);
  CHECK(r.gate("correct")->passed);
  CHECK_FALSE(r.gate("uses_shared")->passed);
  CHECK(r.gate("uses_shared")->reason.find("grading-machine problem, not your code") !=
        std::string::npos);
  CHECK(r.gate("uses_shared")->reason.find("ERR_NVGPUCTRPERM") != std::string::npos);
  CHECK_FALSE(r.gate("conflicts")->passed);  // not judged: no pass without counters
}

TEST_CASE("judge: a kernel that bypasses shared memory loses the anti-bypass and conflict gates",
          "[judge]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) { return worker(j, {}); });
  const auto r = judge(b);
  CHECK(r.gate("correct")->passed);
  CHECK_FALSE(r.gate("uses_shared")->passed);
  CHECK_FALSE(r.gate("conflicts")->passed);
  CHECK(r.gate("conflicts")->skipped);
  CHECK(r.score() == 0);
}

TEST_CASE("reports: Gradescope and JUnit carry every gate", "[judge][report]") {
  const FakeBackend b(cpu(), [](const WorkerJob& j) {
    return worker(j, {site(21, 128, 256, "load"), site(14, 128, 128, "store")});
  });
  grader::SubmissionResult s;
  s.name = "alice";
  s.mode_description = "fake";
  s.exercises = {judge(b)};
  s.exercises[0].steps = {{"banksim (CPU), every size", 2.04}, {"GPU: nvcc and ncu", 31.5}};
  const nlohmann::json g = grader::to_gradescope(s);
  CHECK(g.at("score") == s.score());
  CHECK(g.at("tests").size() == 6);  // one per gate, all visible (local grading)
  // Where each exercise's time went, for the instructor: by exercise id, in order.
  const auto& steps = g.at("extra_data").at("steps").at(s.exercises[0].spec->id);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].at("step") == "banksim (CPU), every size");
  CHECK(steps[1].at("seconds") == 31.5);
  // On a platform: and the secret sizes' test (exercise 04 draws two sizes from the seed).
  const nlohmann::json p = grader::to_gradescope(s, true);
  REQUIRE(p.at("tests").size() == 7);
  CHECK(p.at("tests")[6].at("visibility") == "after_due_date");
  CHECK(g.at("output_format") == "md");
  CHECK_FALSE(g.contains("leaderboard"));  // nothing was timed
  const std::string junit = grader::to_junit(s);
  CHECK(junit.find("<failure") != std::string::npos);
  CHECK(grader::render_table(s, false).find("transpose.cu:21:") != std::string::npos);
}

TEST_CASE("reports: Gradescope hides the secret sizes until the due date", "[judge][report]") {
  grader::ExerciseResult e;
  e.spec = &tiny();
  e.secret_sizes = {"n=19", "n=7"};
  e.kernel_ms = 0.25;
  grader::Gate g;
  g.name = "correct";
  g.max_score = 40;
  g.reason = "n=19: 3 of 361 elements of `out` are wrong; n=1 and n=70 are right, n=7.5 too";
  e.gates = {g};
  grader::SubmissionResult s;
  s.exercises = {e};
  CHECK(grader::to_gradescope(s).at("tests")[0].at("output").get<std::string>().find("n=19") !=
        std::string::npos);  // local grading shows every size
  const nlohmann::json j = grader::to_gradescope(s, true);
  REQUIRE(j.at("tests").size() == 2);
  const std::string shown = j.at("tests")[0].at("output");
  CHECK(shown.find("n=19") == std::string::npos);
  CHECK(shown.find("a secret size: 3 of 361") != std::string::npos);
  CHECK(shown.find("n=1 and n=70") != std::string::npos);  // not a secret label
  CHECK(shown.find("n=7.5") != std::string::npos);         // "n=7" only as a whole label
  CHECK(j.at("tests")[0].at("visibility") == "visible");
  const auto& secret = j.at("tests")[1];
  CHECK(secret.at("visibility") == "after_due_date");
  CHECK(secret.at("max_score") == 0);
  CHECK(secret.at("output").get<std::string>().find("n=19: 3 of 361") != std::string::npos);
  REQUIRE(j.contains("leaderboard"));
  CHECK(j.at("leaderboard")[0].at("value") == 0.25);
  CHECK(j.at("leaderboard")[0].at("order") == "asc");
}

TEST_CASE("skeletons: a solution block becomes its SKELETON lines", "[judge][skeleton]") {
  const std::string sol =
      "int f() {\n"
      "  // BEGIN SOLUTION ex09.1: return the answer (~1 line)\n"
      "  return 42;\n"
      "  // SKELETON: course_todo(\"TODO(ex09.1)\");\n"
      "  // END SOLUTION\n"
      "}\n";
  const grader::SkeletonResult r = grader::make_skeleton(sol, "f.cu");
  CHECK(r.errors.empty());
  CHECK(r.blocks == 1);
  CHECK(r.text.find("return 42") == std::string::npos);
  CHECK(r.text.find("course_todo(\"TODO(ex09.1)\");") != std::string::npos);
  const grader::SkeletonResult bad = grader::make_skeleton("// BEGIN SOLUTION ex09.1: x\n", "g.cu");
  CHECK_FALSE(bad.errors.empty());
  // A marker whose line budget was cut (clang-format once reflowed "(~16 lines)" to "(~16").
  const grader::SkeletonResult cut = grader::make_skeleton(
      "  // BEGIN SOLUTION ex09.2: sum the tile (~16\n  // lines)\n  x();\n  // END SOLUTION\n",
      "h.cu");
  REQUIRE(cut.errors.size() == 1);
  CHECK(cut.errors[0] ==
        "h.cu:1: BEGIN SOLUTION ex09.2 has no line budget: end the marker line "
        "with \"(~N lines)\"");
}

namespace {

/// A submission folder holding `file` as exercise 04's transpose.cu.
fs::path submission_with(const fs::path& file, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "test-judge-hybrid" / name;
  fs::remove_all(dir);
  fs::create_directories(dir / ex04().slug);
  fs::copy_file(file, dir / ex04().slug / ex04().file);
  return dir;
}

grader::ExerciseResult judge_hybrid(const grader::Backend& gpu_backend,
                                    const grader::Backend* checker, const fs::path& submission,
                                    grader::BaselineCache* cache = nullptr) {
  grader::JudgeOptions o;
  o.seed = 5;
  o.work_dir = fs::temp_directory_path() / "test-judge-hybrid" / "work";
  o.checker = checker;
  o.baselines = cache;
  return grader::grade_exercise(ex04(), submission, gpu_backend, o);
}

/// The real CPU backend (banksim), unsandboxed: the tests' own files only.
std::unique_ptr<grader::Backend> banksim() {
  grader::BackendOptions bo;
  bo.sandbox = false;
  bo.cache_dir = fs::temp_directory_path() / "test-judge-hybrid" / "cache";
  bo.widths = "clang";
  return grader::make_cpu_backend(bo);
}

}  // namespace

TEST_CASE("judge, hybrid GPU mode: what only banksim sees fails the gate, named with its source",
          "[judge][hybrid]") {
  // tests/students/04/tile_not_transposed.cu reads tile entries no thread wrote in its edge
  // blocks: compute-sanitizer's initcheck does not track shared memory, so the GPU's tools see
  // nothing (a corpus known_gap). This GPU reports every output right and no problem at all.
  const FakeBackend gpu_backend(gpu(), [](const WorkerJob& j) {
    return worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 1.0);
  });
  const fs::path sub = submission_with(
      fs::path(COURSE_SOURCE_DIR) / "tests/students/04/tile_not_transposed.cu", "uninit");
  const auto cpu_backend = banksim();
  const auto r = judge_hybrid(gpu_backend, cpu_backend.get(), sub);
  CHECK(r.gate("builds")->passed);
  CHECK_FALSE(r.gate("correct")->passed);
  CHECK_FALSE(r.gate("no_problems")->passed);
  CHECK(r.gate("no_problems")->reason.find("uninitialized_read") != std::string::npos);
  CHECK(r.gate("no_problems")->reason.find("banksim (CPU)") != std::string::npos);
  CHECK(r.score() == ex04().points.builds);
}

TEST_CASE("judge, hybrid GPU mode: the GPU's steps are ncu alone, then one timed job with memcheck",
          "[judge][hybrid]") {
  std::vector<WorkerJob> jobs;
  std::mutex m;
  const FakeBackend gpu_backend(gpu(), [&](const WorkerJob& j) {
    {
      const std::lock_guard<std::mutex> lock(m);
      jobs.push_back(j);
    }
    WorkerOutcome w = worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 1.0);
    const bool student = j.request.file.find("/lessons/") == std::string::npos;
    w.gpu_wait_seconds = 0.25;  // another student's timing held the GPU
    if (student && j.sanitize) {
      // memcheck at the timed size: an edge block's store past the end that no smaller size
      // reaches.
      w.report.runs.back().issues.push_back(
          {"out_of_bounds", proto::Severity::kError, "transpose.cu", 31, 0,
           "compute-sanitizer memcheck: Invalid __global__ write of size 4 bytes"});
    }
    return w;
  });
  // A checker that finds nothing (banksim on a right kernel).
  const FakeBackend clean(cpu(), [](const WorkerJob& j) {
    return worker(j, {site(21, 128, 128, "load"), site(14, 128, 128, "store")});
  });
  const fs::path sub = submission_with(
      fs::path(COURSE_SOURCE_DIR) / "solutions" / ex04().slug / ex04().file, "steps");
  grader::BaselineCache cache;
  const auto r = judge_hybrid(gpu_backend, &clean, sub, &cache);
  CHECK_FALSE(r.gate("no_problems")->passed);
  CHECK(r.gate("no_problems")->reason.find("compute-sanitizer memcheck") != std::string::npos);
  std::size_t student_jobs = 0, baseline_jobs = 0;
  for (const WorkerJob& j : jobs) {
    const bool student = j.request.file.find("/lessons/") == std::string::npos;
    (student ? student_jobs : baseline_jobs) += 1;
    if (!student) continue;
    if (j.profile) {
      CHECK(j.profile_only);  // no plain run before the profiled one: banksim checked outputs
      CHECK(j.request.runs.size() == 1);  // the graded size; banksim counted the others
      CHECK_FALSE(j.sanitize);
    } else {
      CHECK(j.request.timed);
      CHECK(j.sanitize);
      CHECK(j.sanitizer_tools == std::vector<std::string>{"memcheck"});
      CHECK(j.request.runs.size() == 1);
    }
  }
  CHECK(student_jobs == 2);   // ncu at the graded size; the timed size with memcheck
  CHECK(baseline_jobs == 2);  // profiled at sizes[0], timed at the timed size
  // Where the time went, in order, with the GPU steps' waits (results.json: extra_data.steps).
  std::vector<std::string> names;
  for (const auto& [name, seconds] : r.steps) {
    names.push_back(name);
    CHECK(seconds >= 0.0);
    if (name.find("waiting for the GPU") != std::string::npos) CHECK(seconds == 0.25);
  }
  CHECK(names == std::vector<std::string>{
                     "banksim (CPU), every size", "GPU: nvcc and ncu",
                     "GPU: nvcc and ncu waiting for the GPU", "GPU: baseline (or its cache)",
                     "GPU: timing and memcheck", "GPU: timing and memcheck waiting for the GPU"});
  // A second student: the baseline comes from the cache passed in.
  jobs.clear();
  const auto again = judge_hybrid(gpu_backend, &clean, sub, &cache);
  CHECK(cache.size() == 1);
  for (const WorkerJob& j : jobs) CHECK(j.request.file.find("/lessons/") == std::string::npos);
  CHECK(again.gate("no_problems")->reason == r.gate("no_problems")->reason);
}

TEST_CASE("judge, hybrid GPU mode: banksim's counts judge the sizes ncu does not profile",
          "[judge][hybrid]") {
  // ncu profiles the graded size only, where the kernel is conflict-free; banksim counts a
  // 32-way access at another size (a pad that fixes one size).
  const FakeBackend gpu_backend(gpu(), [](const WorkerJob& j) {
    return worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")}, 1.0);
  });
  const FakeBackend checker(cpu(), [](const WorkerJob& j) {
    WorkerOutcome w = worker(j, {});
    for (std::size_t k = 0; k < w.report.runs.size(); ++k) {
      const bool graded = j.inputs[k][0].size() == 4u * 512 * 512;  // sizes[0]: n=512
      w.report.runs[k].sites = {site(21, 128, graded ? 128 : 4096, "load"),
                                site(14, 128, 128, "store")};
    }
    return w;
  });
  const fs::path sub =
      submission_with(fs::path(COURSE_SOURCE_DIR) / "solutions" / ex04().slug / ex04().file, "pad");
  const auto r = judge_hybrid(gpu_backend, &checker, sub);
  CHECK(r.gate("correct")->passed);
  CHECK_FALSE(r.gate("conflicts")->passed);
  CHECK(r.gate("conflicts")->reason.find("32-way") != std::string::npos);
  CHECK(r.gate("conflicts")->reason.find("transpose.cu:21") != std::string::npos);
}

TEST_CASE(
    "judge, hybrid GPU mode: the corpus rows the GPU's tools cannot see get CPU mode's verdict",
    "[judge][hybrid]") {
  // Every tests/students row marked gpu_tools_alone (initcheck does not track shared memory;
  // synccheck is silent when the skipping threads exit): graded with real banksim as the checker
  // and a GPU whose tools find nothing and whose outputs are the inputs, each must fail exactly
  // as its CPU expectation says, with its reason.
  std::ifstream in(fs::path(COURSE_SOURCE_DIR) / "tests/students/students.json");
  const nlohmann::json corpus = nlohmann::json::parse(in);
  const FakeBackend blind(gpu(), [](const WorkerJob& j) {
    WorkerOutcome w;
    w.started = true;
    w.report.compile = {true, true, "", ""};
    for (std::size_t k = 0; k < j.request.runs.size(); ++k) {
      proto::RunReport r;
      r.completed = true;
      r.buffers = j.inputs[k];
      r.sites = {site(0, 128, 128, "load"), site(0, 128, 128, "store")};
      r.median_ms = 1.0;
      w.report.runs.push_back(r);
      w.report.run_received.push_back(true);
    }
    return w;
  });
  const auto cpu_backend = banksim();
  int rows = 0;
  for (const auto& row : corpus.at("students")) {
    if (!row.contains("gpu_tools_alone")) continue;
    ++rows;
    const std::string name = row.at("name");
    const auto* spec = course::find_exercise(row.at("exercise").get<std::string>());
    REQUIRE(spec != nullptr);
    const fs::path dir = fs::temp_directory_path() / "test-judge-hybrid" / name;
    fs::remove_all(dir);
    fs::create_directories(dir / spec->slug);
    fs::copy_file(
        fs::path(COURSE_SOURCE_DIR) / "tests/students" / row.at("file").get<std::string>(),
        dir / spec->slug / spec->file);
    grader::JudgeOptions o;
    o.seed = 1;
    o.work_dir = fs::temp_directory_path() / "test-judge-hybrid" / "work";
    o.checker = cpu_backend.get();
    const auto r = grader::grade_exercise(*spec, dir, blind, o);
    const auto& expect = row.at("expect");
    INFO(name);
    CHECK(r.gate("correct")->passed == expect.at("correct").get<bool>());
    for (const auto& g : expect.at("fails")) CHECK_FALSE(r.gate(g.get<std::string>())->passed);
    CHECK(r.score() >= expect.at("min_score").get<int>());
    CHECK(r.score() <= expect.at("max_score").get<int>());
    if (expect.contains("reason")) {
      const std::string reason = expect.at("reason");
      CHECK(r.gate("no_problems")->reason.find(reason) != std::string::npos);
    }
    CHECK(r.gate("no_problems")->reason.find("banksim (CPU)") != std::string::npos);
  }
  CHECK(rows == 6);
}

TEST_CASE("judge: the large inputs go from the work folders once the exercise is graded",
          "[judge]") {
  // A class's work folders would otherwise keep the timed size's inputs of every student
  // (about 1.6 GB each for exercises 01-08, measured by the registry's timed sizes).
  class WritingBackend : public FakeBackend {
   public:
    using FakeBackend::FakeBackend;
    WorkerOutcome run(const WorkerJob& job, const fs::path& dir,
                      const grader::Limits& limits) const override {
      std::ofstream(dir / "run0_buf0.in", std::ios::binary) << std::string(9u << 20, 'x');
      std::ofstream(dir / "run1_buf0.in", std::ios::binary) << std::string(1024, 'x');
      std::ofstream(dir / "build.log") << std::string(9u << 20, 'x');
      return FakeBackend::run(job, dir, limits);
    }
  };
  const WritingBackend b(gpu(), [](const WorkerJob& j) {
    return worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")});
  });
  for (const bool keep : {false, true}) {
    grader::JudgeOptions o;
    o.seed = 5;
    o.work_dir = fs::temp_directory_path() / "test-judge-inputs";
    o.keep_inputs = keep;
    fs::remove_all(o.work_dir);
    const auto r = grader::grade_exercise(tiny(), "solutions", b, o);
    CHECK(r.gate("correct")->passed);
    int folders = 0;
    for (const auto& d : fs::directory_iterator(o.work_dir)) {
      if (d.path().filename().string().rfind(tiny().slug + "-", 0) != 0) continue;
      ++folders;
      CHECK(fs::exists(d.path() / "run0_buf0.in") == keep);  // 9 MiB: the timed size's
      CHECK(fs::exists(d.path() / "run1_buf0.in"));          // a graded size's: kept
      CHECK(fs::exists(d.path() / "build.log"));             // not an input
    }
    CHECK(folders >= 2);
  }
}

TEST_CASE("judge: a baseline warmed into the cache is the one every student's grading finds",
          "[judge]") {
  // A class on a GPU warms each exercise's baseline when it starts; a student's grading then
  // runs no baseline job of its own (a different key, from other sizes or inputs, would).
  std::mutex m;
  int baseline_jobs = 0;
  const FakeBackend b(gpu(), [&](const WorkerJob& j) {
    if (j.request.file.find("/lessons/") != std::string::npos) {
      const std::lock_guard<std::mutex> lock(m);
      ++baseline_jobs;
    }
    return worker(j, {site(0, 128, 128, "load"), site(0, 128, 128, "store")});
  });
  grader::BaselineCache cache;
  grader::JudgeOptions o;
  o.seed = 5;
  o.work_dir = fs::temp_directory_path() / "test-judge-warm";
  o.baselines = &cache;
  grader::warm_baseline(tiny(), b, o);
  CHECK(baseline_jobs == 2);  // profiled at sizes[0], timed at the timed size
  CHECK(cache.size() == 1);
  o.seed = 6;  // another student's seed: other inputs at sizes[0], the same baseline
  const auto r = grader::grade_exercise(tiny(), "solutions", b, o);
  CHECK(r.gate("speed")->passed);
  CHECK(baseline_jobs == 2);
  CHECK(cache.size() == 1);
}
