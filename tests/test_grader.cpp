// The grader, end to end, through its command line (build/bin/grade): solutions get full marks,
// the untouched skeletons get no correctness points, every known-bad submission of
// tests/submissions/ gets the right verdict with a clear reason, and the report formats and class
// mode work. Each case runs the real grader in CPU mode with a fixed seed.
// Over 600 lines on purpose: one program for the grader end to end, its cases sharing the helpers
// that lay out submissions and run the grade command.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include "course_catch.hpp"

#include "course/registry.hpp"
#include "grader/report.hpp"
#include "grader/skeleton.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path build_dir() {
  const char* b = std::getenv("COURSE_BUILD_DIR");
  return b != nullptr ? fs::path(b) : fs::path("build");
}

struct GradeRun {
  int status = 0;
  std::string output;
  json results;
};

GradeRun grade(const std::string& args, const std::string& out_name) {
  const fs::path out = build_dir() / "test-grade" / out_name;
  fs::remove_all(out);
  const fs::path log = build_dir() / "test-grade" / (out_name + ".log");
  fs::create_directories(log.parent_path());
  const std::string cmd = (build_dir() / "bin" / "grade").string() + " --mode cpu --seed 7 " +
                          args + " --out " + out.string() + " > " + log.string() + " 2>&1";
  GradeRun r;
  r.status = WEXITSTATUS(std::system(cmd.c_str()));
  std::ifstream lin(log);
  r.output.assign(std::istreambuf_iterator<char>(lin), {});
  std::ifstream rin(out / "results.json");
  r.results = json::parse(rin, nullptr, false);
  return r;
}

/// The result of gate `gate` of exercise `id` in a Gradescope results.json.
const json& test_of(const json& results, const std::string& id, const std::string& gate) {
  for (const auto& t : results.at("tests")) {
    const std::string name = t.value("name", "");
    if (name.rfind(id + " ", 0) == 0 && name.size() > gate.size() &&
        name.compare(name.size() - gate.size() - 2, gate.size() + 2, ": " + gate) == 0) {
      return t;
    }
  }
  FAIL("no test " << id << " " << gate << " in results.json");
  throw std::logic_error("unreachable");
}

int exercise_score(const json& results, const std::string& id) {
  int s = 0;
  for (const auto& t : results.at("tests")) {
    if (t.value("name", "").rfind(id + " ", 0) == 0) s += t.value("score", 0);
  }
  return s;
}

/// One known-bad submission of exercise 04 (or 02): gate `gate` fails, its output matches `why`.
void expect_failure(const std::string& submission, const std::string& exercise,
                    const std::string& gate, const std::string& why) {
  INFO("submission " << submission);
  const GradeRun r =
      grade("--submission tests/submissions/" + submission + " --exercise " + exercise, submission);
  CHECK(r.status == 0);
  REQUIRE(r.results.is_object());
  const json& t = test_of(r.results, exercise, gate);
  CHECK(t.value("status", "") == "failed");
  CHECK(t.value("score", -1) == 0);
  INFO("reason: " << t.value("output", ""));
  CHECK(std::regex_search(t.value("output", ""), std::regex(why)));
  CHECK(exercise_score(r.results, exercise) < 100);
}

/// The line of `file` that carries the comment marker `@tag`.
int line_of(const fs::path& file, const std::string& tag) {
  std::ifstream in(file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find("// @" + tag) != std::string::npos) return n;
  }
  FAIL("no marker @" << tag << " in " << file);
  return 0;
}

/// `pattern` with every {tag} replaced by the line of its marker in `file`.
std::string with_lines(std::string pattern, const fs::path& file) {
  static const std::regex tag(R"(\{([a-z_]+)\})");
  std::smatch m;
  while (std::regex_search(pattern, m, tag)) {
    pattern.replace(static_cast<std::size_t>(m.position(0)), static_cast<std::size_t>(m.length(0)),
                    std::to_string(line_of(file, m[1].str())));
  }
  return pattern;
}

/// A mistake students make, graded through the real grader (no VERBOSE): the words the failing
/// gate's output must have (`says`, regexes in which {tag} is the line of `// @tag`), the words
/// the terminal table must show (`shows`), and words that must appear nowhere (`never`: what
/// misleads, or the grader's own paths and model details).
struct Mistake {
  std::string name;      ///< the submission folder
  std::string exercise;  ///< NN
  std::string file;      ///< the file under the submission folder
  std::string gate;      ///< the gate whose output is checked
  std::vector<std::string> says;
  std::vector<std::string> shows;
  std::vector<std::string> never;
};

}  // namespace

TEST_CASE("grader: feedback names the real mistake", "[grader][feedback]") {
  const std::string t04 = "04-padding-transpose/transpose.cu";
  // What no student should read, whatever the mistake: a cache or temporary path instead of
  // their file, or the model's working (access widths, the cost model's sector and line counts)
  // without VERBOSE.
  const std::vector<std::string> nowhere = {"banksim-cache", "/tmp/",   "sources/[0-9a-f]{16}",
                                            "access widths", "clang's", "fetched, \\d+ lines"};
  const std::vector<Mistake> table = {
      {"copy_not_transpose",
       "04",
       t04,
       "correct",
       // How many, the first one with its coordinates, yours and expected, which inputs they
       // are, and the size: the output, first.
       {"^n=512: \\d+ of 262144 elements of `out` are wrong; the first is out\\[1\\] \\(row 0, "
        "column 1\\) = \\S+, expected \\S+; your value is in\\[1\\] \\(row 0, column 1\\), the "
        "expected one is in\\[512\\] \\(row 1, column 0\\)"},
       {"04 correct: n=512: \\d+ of 262144 elements of `out` are wrong; the first is out\\[1\\]"},
       {"uninitialized_read", "edge tile"}},
      {"tiles_not_transposed",
       "04",
       t04,
       "correct",
       // Wrong at every size; the read of unwritten tile entries (edge blocks only) comes after.
       {"^n=512: \\d+ of 262144 elements of `out` are wrong; the first is out\\[1\\] \\(row 0, "
        "column 1\\)",
        "Also found at n=\\d+: tests/submissions/tiles_not_transposed/" + t04 +
            ":{row}: uninitialized_read"},
       {"04 correct: n=512: \\d+ of 262144 elements of `out` are wrong"},
       {"^n=\\d+: [^ ]*: uninitialized_read"}},
      {"missing_sync",
       "04",
       t04,
       "no_problems",
       // The two accesses in the order they happened, each with its line.
       {"transpose.cu:{write}: race: thread \\(\\d+,\\d+,\\d+\\) read `tile` at line {read}, then "
        "thread \\(\\d+,\\d+,\\d+\\) wrote it at line {write}, with no __syncthreads\\(\\) in "
        "between: a write-after-read race",
        "put a __syncthreads\\(\\) between line {write} and line {read}"},
       {"04 correct: n=512: \\d+ of 262144 elements of `out` are wrong.*Probable cause: "
        "tests/submissions/missing_sync/" +
        t04 + ":{write}: race"},
       {"between the read and the write", "between the write and the read"}},
      {"return_before_barrier",
       "04",
       t04,
       "no_problems",
       {"transpose.cu:{barrier}: barrier_divergence: __syncthreads\\(\\) reached by \\d+ of 256 "
        "threads",
        "the `return` at line {return} comes before the barrier", "inside the `if` at line {if}",
        "move that `return` after the barrier"},
       {"04 no_problems: n=\\d+: tests/submissions/return_before_barrier/" + t04 +
        ":{barrier}: barrier_divergence"},
       {}},
      {"barrier_in_if",
       "04",
       t04,
       "no_problems",
       {"transpose.cu:{barrier}: barrier_divergence: __syncthreads\\(\\) reached by \\d+ of 256 "
        "threads of the block; the others \\(e.g. thread \\(\\d+,\\d+,\\d+\\)\\) skipped it: the "
        "barrier is inside the `if` at line {if}",
        "close the `if` before the barrier"},
       {"04 no_problems: .*inside the `if` at line {if}"},
       {"return", "had returned", "left the kernel"}},
      {"syntax_error.nocompile",
       "04",
       t04,
       "builds",
       {"^tests/submissions/syntax_error.nocompile/" + t04 +
            ":{missing_semicolon}: error: expected ';' after expression",
        "\n```\ntests/submissions/syntax_error.nocompile/" + t04 +
            ":{missing_semicolon}:\\d+: "
            "error"},
       {"04 builds: tests/submissions/syntax_error.nocompile/" + t04 +
        ":{missing_semicolon}: error"},
       {}},
      {"pad_wrong_dimension",
       "04",
       t04,
       "conflicts",
       // The worst access's ways at its line, in the table and the reason alike.
       {"^tests/submissions/pad_wrong_dimension/" + t04 +
        ":{column}:\\d+: `.*` \\(load of 4 bytes\\) is 32-way: 32.00 wavefronts per request, "
        "ideal 1.00; bank \\d+ serves 32 distinct words for lanes 0-31; try: "},
       {"04-padding-transpose +yes +yes +32-way at line {column} "},
       {"16.50x", "\\dx \\(baseline"}},
      {"oob_shared",
       "02",
       "02-column-read/transpose_rows.cu",
       "no_problems",
       {"^n=256: tests/submissions/oob_shared/02-column-read/transpose_rows.cu:\\d+: "
        "out_of_bounds: "
        "4-byte access \\d+ bytes past the end of `tile`"},
       {},
       {}},
  };
  for (const Mistake& m : table) {
    INFO("submission " << m.name);
    const fs::path file = fs::path("tests/submissions") / m.name / m.file;
    const GradeRun r =
        grade("--submission tests/submissions/" + m.name + " --exercise " + m.exercise,
              "feedback-" + m.name);
    REQUIRE(r.results.is_object());
    const json& t = test_of(r.results, m.exercise, m.gate);
    CHECK(t.value("status", "") == "failed");
    const std::string output = t.value("output", "");
    INFO(m.gate << " says: " << output);
    INFO("the terminal shows:\n" << r.output);
    for (const std::string& want : m.says) {
      const std::string re = with_lines(want, file);
      INFO("must say /" << re << "/");
      CHECK(std::regex_search(output, std::regex(re)));
    }
    for (const std::string& want : m.shows) {
      const std::string re = with_lines(want, file);
      INFO("the table must show /" << re << "/");
      CHECK(std::regex_search(r.output, std::regex(re)));
    }
    std::vector<std::string> never = m.never;
    never.insert(never.end(), nowhere.begin(), nowhere.end());
    // The course's own folder may lie anywhere (a CI clone under /tmp): the grader names it when
    // it says where the results are, which is not a leak of the sandbox's or banksim's paths.
    const auto without_root = [root = fs::current_path().string()](std::string text) {
      for (std::size_t at; (at = text.find(root)) != std::string::npos;)
        text.replace(at, root.size(), "ROOT");
      return text;
    };
    for (const std::string& bad : never) {
      const std::string re = with_lines(bad, file);
      INFO("must not say /" << re << "/ (in the gate's output or the terminal)");
      CHECK_FALSE(std::regex_search(without_root(output), std::regex(re)));
      CHECK_FALSE(std::regex_search(without_root(r.output), std::regex(re)));
      CHECK_FALSE(std::regex_search(without_root(r.results.dump()), std::regex(re)));
    }
  }
  // A correct kernel: the table names the baseline's worst access, not an average.
  const GradeRun ok = grade("--submission solutions --exercise 04", "feedback-solution");
  CHECK(std::regex_search(ok.output, std::regex("04-padding-transpose +yes +yes +none \\(baseline "
                                                "32-way\\)")));
}

TEST_CASE("grader: the solutions get full marks in CPU mode", "[grader]") {
  const GradeRun r = grade("--submission solutions", "solutions");
  CHECK(r.status == 0);
  REQUIRE(r.results.is_object());
  CHECK(r.results.value("score", 0) == 100 * static_cast<int>(course::exercises().size()));
  CHECK(r.output.find("Every gate passed.") != std::string::npos);
  CHECK(r.results["extra_data"].value("mode", "") == "cpu");
  for (const auto& t : r.results["tests"]) {
    INFO(t.value("name", "") << ": " << t.value("output", ""));
    CHECK(t.value("status", "") == "passed");
    CHECK(t.value("visibility", "") == "visible");
    CHECK(t.contains("max_score"));
  }
}

TEST_CASE("grader: the untouched skeletons score 0", "[grader]") {
  const GradeRun r = grade("", "skeletons");
  CHECK(r.status == 0);
  REQUIRE(r.results.is_object());
  for (const auto& e : course::exercises()) {
    INFO(e.slug);
    CHECK(exercise_score(r.results, e.id) == 0);
    CHECK(test_of(r.results, e.id, "correct").value("status", "") == "failed");
    // A gate worth 0 points still says whether it passed (Gradescope's per-test status).
    CHECK(test_of(r.results, e.id, "builds").value("max_score", -1) == 0);
    CHECK(test_of(r.results, e.id, "builds").value("status", "") == "passed");
    CHECK(std::regex_search(test_of(r.results, e.id, "correct").value("output", ""),
                            std::regex("TODO\\(ex" + e.id + "\\.1\\) is not done yet")));
  }
  CHECK(r.results.value("score", -1) == 0);
}

namespace {

/// A submission folder under build/test-grade/NAME: for each exercise id, the file at the path
/// given (relative to the repository), or the skeleton with its course_todo() lines deleted and
/// nothing else when the path is "todo-deleted".
fs::path make_submission(const std::string& name, const std::map<std::string, std::string>& files) {
  const fs::path dir = build_dir() / "test-grade" / (name + "-input");
  fs::remove_all(dir);
  for (const auto& e : course::exercises()) {
    const auto it = files.find(e.id);
    if (it == files.end()) continue;
    fs::create_directories(dir / e.slug);
    if (it->second != "todo-deleted") {
      fs::copy_file(it->second, dir / e.slug / e.file);
      continue;
    }
    std::ifstream in(e.skeleton_file());
    std::ofstream out(dir / e.slug / e.file);
    for (std::string line; std::getline(in, line);) {
      if (line.find("course_todo(") == std::string::npos) out << line << "\n";
    }
  }
  return dir;
}

}  // namespace

TEST_CASE("grader: points measure the fix under the default policy (CPU mode)",
          "[grader][points]") {
  // The registry's default points on every exercise: the untouched skeleton 0 (the test above),
  // the skeleton with its TODO line(s) deleted and nothing else (the conflicting baseline it
  // hands over) at most 10, a correct kernel that keeps the conflict at most 40, a correct
  // conflict-free kernel below the speed gate 70-90, the solution 100 (the first test case).
  std::map<std::string, std::string> baseline;
  for (const auto& e : course::exercises()) baseline[e.id] = "todo-deleted";
  GradeRun r = grade("--submission " + make_submission("points-baseline", baseline).string(),
                     "points-baseline");
  REQUIRE(r.results.is_object());
  for (const auto& e : course::exercises()) {
    INFO("exercise " << e.id << ", TODO lines deleted");
    CHECK(exercise_score(r.results, e.id) <= 10);
  }
  // Correct kernels that keep a conflict (exercise 01, a host function, has none: a count that
  // is almost right scores nothing either).
  const std::map<std::string, std::string> conflicting = {
      {"01", "tests/students/01/bitmask_rows.cpp"},
      {"02", "tests/students/02/pad_by_2.cu"},
      {"03", "tests/students/03/padded_interleaved.cu"},
      {"04", "tests/students/04/pad_by_2.cu"},
      {"05", "tests/students/05/padded_wrong_tile.cu"},
      {"06", "tests/students/06/swizzle_mod4.cu"},
      {"07", "tests/students/07/pad_by_2.cu"},
      {"08", "tests/students/08/pad_by_8.cu"},
      {"09", "tests/students/09/pad_every_16.cu"},
      {"10", "tests/students/10/merge_without_rotation.cu"},
      {"11", "tests/students/11/pad_two_chunks.cu"}};
  r = grade("--submission " + make_submission("points-conflicting", conflicting).string(),
            "points-conflicting");
  REQUIRE(r.results.is_object());
  for (const auto& e : course::exercises()) {
    INFO("exercise " << e.id << ": " << conflicting.at(e.id));
    CHECK(exercise_score(r.results, e.id) <= 40);
    if (e.id == "01") continue;
    CHECK(test_of(r.results, e.id, "correct").value("status", "") == "passed");
    CHECK(test_of(r.results, e.id, "conflicts").value("status", "") == "failed");
  }
  // A correct, conflict-free kernel below the speed gate keeps uses_shared and conflicts, and
  // only those (speed is judged after them), on every kernel exercise: 70-90; graded below where
  // the student corpus has one in CPU mode, exercise 05 staging B with uncoalesced loads
  // (tests/students/05/strided_b_load.cu).
  for (const auto& e : course::exercises()) {
    INFO("exercise " << e.id);
    CHECK(e.points.total() == 100);
    if (e.kind != course::ExerciseSpec::Kind::kKernel) continue;
    CHECK(e.points.builds + e.points.correct + e.points.no_problems + e.points.uses_shared +
              e.points.conflicts >=
          70);
    CHECK(e.points.builds + e.points.correct + e.points.no_problems + e.points.uses_shared +
              e.points.conflicts <=
          90);
  }
  r = grade(
      "--submission " +
          make_submission("points-slow", {{"05", "tests/students/05/strided_b_load.cu"}}).string() +
          " --exercise 05",
      "points-slow");
  REQUIRE(r.results.is_object());
  CHECK(test_of(r.results, "05", "speed").value("status", "") == "failed");
  CHECK(exercise_score(r.results, "05") >= 70);
  CHECK(exercise_score(r.results, "05") <= 90);
}

TEST_CASE("grader: the cost model prices warp shuffles as the H200 times them", "[grader]") {
  // Exercise 03's shared reads traded for one __shfl_sync per tap: the H200 times it at 1.07x
  // the baseline against a 1.3x gate. With the shared-request floor lifted (so that speed is
  // judged at all), CPU mode must fail it too; with shuffles free it would pass (1.71x).
  const fs::path dir = build_dir() / "test-grade" / "shuffles-policy";
  fs::create_directories(dir);
  std::ofstream(dir / "floor-off.toml") << "[exercises.03.thresholds]\nmin_shared_fraction = 0\n";
  const GradeRun r = grade(
      "--submission " +
          make_submission("shuffles", {{"03", "tests/students/03/shuffle_window.cu"}}).string() +
          " --exercise 03 --verbose --policy " + (dir / "floor-off.toml").string(),
      "shuffles");
  REQUIRE(r.results.is_object());
  const json& speed = test_of(r.results, "03", "speed");
  INFO(speed.value("output", ""));
  CHECK(speed.value("status", "") == "failed");
  CHECK(std::regex_search(speed.value("output", ""), std::regex("8192 warp shuffles")));
  CHECK(test_of(r.results, "03", "conflicts").value("status", "") == "passed");
}

TEST_CASE("grader: an instructor's policy file sets points and thresholds", "[grader][policy]") {
  const fs::path dir = build_dir() / "test-grade" / "policy";
  fs::create_directories(dir);
  const fs::path good = dir / "good.toml";
  std::ofstream(good) << "# heavier on correctness, an impossible CPU speed gate for 04\n"
                         "[kernels.weights]\n"
                         "correct = 40\n"
                         "[exercises.04.weights]\n"
                         "speed = 50\n"
                         "[exercises.04.thresholds]\n"
                         "cpu_min_cost_ratio = 100.0\n"
                         "gpu = { \"NVIDIA H200\" = 100.0 }\n";
  GradeRun r = grade("--submission solutions --exercise 04 --exercise 05 --policy " + good.string(),
                     "policy-good");
  REQUIRE(r.results.is_object());
  CHECK(test_of(r.results, "04", "correct").value("max_score", -1) == 40);
  CHECK(test_of(r.results, "04", "speed").value("max_score", -1) == 50);
  CHECK(test_of(r.results, "04", "speed").value("status", "") == "failed");
  CHECK(exercise_score(r.results, "04") == 40 + 10 + 70);
  CHECK(exercise_score(r.results, "05") == 140);  // 05 keeps its thresholds: full marks
  CHECK(r.results["extra_data"].value("max_score", 0) == 170 + 140);
  const json& policy = r.results["extra_data"]["policy"];
  CHECK(policy.value("source", "") == good.string());
  CHECK(policy["exercises"]["04"]["weights"].value("speed", 0) == 50);
  CHECK(policy["exercises"]["04"]["thresholds"].value("cpu_min_cost_ratio", 0.0) == 100.0);
  CHECK(policy["exercises"]["04"]["thresholds"]["gpu"].value("NVIDIA H200", 0.0) == 100.0);
  CHECK_FALSE(policy["exercises"].contains("02"));  // only the exercises graded

  // Malformed files: the key and the line named, exit status 2, nothing graded.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"[exercises.04.weights]\nconflicts = 70\nspeed = -3\n",
       ":3: exercises.04.weights.speed must be a non-negative integer"},
      {"[exercises.04.weights]\nspeed = 2.5\n",
       ":2: exercises.04.weights.speed must be a non-negative integer"},
      {"\n[exercises.04.weights]\nsped = 30\n",
       ":3: exercises.04.weights.sped is not a gate: the gates are builds, correct, no_problems, "
       "uses_shared, conflicts, speed"},
      {"[exercises.99.weights]\nspeed = 1\n", ":1: exercises.99 is not an exercise"},
      {"[exercises.04.thresholds]\ncpu_min_cost_ratio = \"fast\"\n",
       ":2: exercises.04.thresholds.cpu_min_cost_ratio must be a non-negative number"},
      {"[exercises.01.weights]\nspeed = 10\n",
       ":2: exercises.01.weights.speed is not a gate of a host-code exercise"},
      {"[exercises.04.weights\nspeed = 1\n", ":1: not valid TOML"},
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    const fs::path f = dir / ("bad" + std::to_string(i) + ".toml");
    std::ofstream(f) << bad[i].first;
    r = grade("--submission solutions --exercise 04 --policy " + f.string(),
              "policy-bad" + std::to_string(i));
    INFO(bad[i].first << "\n---\n" << r.output);
    CHECK(r.status == 2);
    CHECK(r.output.find(f.string() + bad[i].second) != std::string::npos);
    CHECK(r.output.find("nothing was graded") != std::string::npos);
    CHECK_FALSE(r.results.is_object());  // no results.json: grading never started
  }
  r = grade("--submission solutions --exercise 04 --policy " + (dir / "absent.toml").string(),
            "policy-absent");
  CHECK(r.status == 2);
  CHECK(r.output.find("cannot read the grading policy") != std::string::npos);

  // Without --policy, grading-policy.toml at the course's root is read (what the platform
  // bundles copy), and the site's grading page shows the points in force.
  const fs::path root = dir / "course";
  fs::remove_all(root);
  fs::create_directories(root);
  for (const char* d : {"exercises", "solutions", "lessons", "gpu"}) {
    fs::create_directory_symlink(fs::absolute(d), root / d);
  }
  std::ofstream(root / "grading-policy.toml") << "[exercises.03.weights]\nspeed = 35\n";
  const fs::path pages = dir / "pages";
  const std::string cmd = "COURSE_ROOT=" + root.string() + " " +
                          (build_dir() / "bin" / "grade").string() + " docs-pages " +
                          pages.string() + " > " + (dir / "pages.log").string() + " 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  std::ifstream page(pages / "grading.md");
  const std::string text((std::istreambuf_iterator<char>(page)), {});
  CHECK(text.find("`grading-policy.toml` over the registry's defaults") != std::string::npos);
  CHECK(text.find("| \\ref exercise-03 \"03\" | 0 | 0 | 0 | 10 | 70 | 35 | 115 |") !=
        std::string::npos);
  CHECK(text.find("| \\ref exercise-04 \"04\" | 0 | 0 | 0 | 10 | 70 | 20 | 100 |") !=
        std::string::npos);
}

TEST_CASE("grader: exercises/ is generated from solutions/ and in sync", "[grader][skeleton]") {
  const auto lines = grader::sync_skeletons(fs::current_path(), false);
  for (const auto& l : lines) FAIL_CHECK(l);
  CHECK(lines.empty());
  // The generator itself: markers become a TODO with its hint and the SKELETON lines.
  const std::string sol =
      "int f() {\n"
      "  // BEGIN SOLUTION ex09.1: return the answer (~1 line)\n"
      "  return 42;\n"
      "  // SKELETON: return 0;\n"
      "  // END SOLUTION\n"
      "}\n"
      "void g() {\n"
      "  // BEGIN SOLUTION ex09.2: nothing (~0 lines)\n"
      "  // END SOLUTION\n"
      "}\n";
  const auto s = grader::make_skeleton(sol, "x.cu");
  CHECK(s.blocks == 2);
  CHECK(s.errors.empty());
  CHECK(s.text ==
        "int f() {\n  // TODO(ex09.1): return the answer (~1 line)\n  return 0;\n}\n"
        "void g() {\n  // TODO(ex09.2): nothing (~0 lines)\n  course_todo(\"TODO(ex09.2)\");\n}\n");
  CHECK(s.text.find("42") == std::string::npos);
  const auto bad = grader::make_skeleton("// BEGIN SOLUTION ex01.1: x (~1 line)\nint a;\n", "y.cu");
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0] == "y.cu:1: BEGIN SOLUTION without END SOLUTION");
}

TEST_CASE("grader: known-bad submissions get the right verdict and reason", "[grader][bad]") {
  SECTION("compile error") {
    expect_failure("compile_error.nocompile", "04", "builds",
                   "transpose.cu:29: error: use of undeclared identifier 'tyle'");
  }
  SECTION("wrong answer") {
    expect_failure("wrong_answer", "04", "correct",
                   "n=512: \\d+ of 262144 elements of `out` are wrong");
  }
  SECTION("correct only for multiples of 32") {
    expect_failure("multiple_of_32_only", "04", "correct",
                   "n=70: .*past the end of a 19600-byte device buffer");
    expect_failure("multiple_of_32_only", "04", "no_problems", "out_of_bounds");
  }
  SECTION("exercise 01: a request with no active lane is not free") {
    expect_failure("empty_warp_costs_one", "01", "correct",
                   "for byte addresses \\[-(,-){31}\\] the answer is 0 wavefronts, yours "
                   "returned 1");
  }
  SECTION("writes only part of the output") {
    expect_failure("partial_output", "04", "correct", "131072 never written");
  }
  SECTION("missing __syncthreads") {
    expect_failure("missing_sync", "04", "no_problems", "uninitialized_read|race");
  }
  SECTION("out-of-bounds shared write") {
    expect_failure("oob_shared", "02", "no_problems",
                   "transpose_rows.cu:\\d+: out_of_bounds: 4-byte access \\d+ bytes past the end "
                   "of `tile`");
  }
  SECTION("still conflicting") {
    expect_failure(
        "still_conflicting", "04", "conflicts",
        "transpose.cu:29:\\d+: .* is 32-way: 32.00 wavefronts per request, ideal 1.00; bank \\d+ "
        "serves 32 distinct words for lanes 0-31; try: ");
    expect_failure("still_conflicting", "04", "speed", "1.00x cheaper than the baseline");
  }
  SECTION("conflict-free by not using shared memory") {
    expect_failure("bypass_shared", "04", "uses_shared", "0 shared load and 0 store requests");
    // Its conflict-freedom comes from not doing the exercise: the gate is not judged.
    const GradeRun r = grade("--submission tests/submissions/bypass_shared --exercise 04",
                             "bypass_shared_conflicts");
    REQUIRE(r.results.is_object());
    CHECK(test_of(r.results, "04", "conflicts").value("score", -1) == 0);
    CHECK(std::regex_search(test_of(r.results, "04", "conflicts").value("output", ""),
                            std::regex("^needs the data to flow through shared memory")));
  }
  SECTION("infinite loop") {
    expect_failure("infinite_loop", "04", "correct", "timeout: the kernel did not finish");
  }
  SECTION("segfault (wild pointer)") {
    expect_failure("wild_pointer", "04", "correct",
                   "global-memory write at 0x10, which is in no device buffer");
  }
  SECTION("exit(0) during start-up") {
    expect_failure("exit_at_startup", "04", "builds", "policy: runs code before the kernels");
  }
  SECTION("prints fake pass lines") {
    expect_failure("fake_pass_output", "04", "correct", "never written");
  }
  SECTION("modifies its input") {
    expect_failure("modifies_input", "04", "correct", "modified its input `in`");
  }
}

TEST_CASE("grader: where the solution has accesses nvcc merges, nvcc's widths are read at once",
          "[grader]") {
  // Exercise 05 (ExerciseSpec::nvcc_widths_expected): with the default widths the submission is
  // compiled with nvcc's at once, not first with clang's and then again (no "-nvcc" job folder).
  if (std::system("command -v nvcc >/dev/null 2>&1") != 0) {
    WARN("nvcc is not installed here: the default widths are clang's, nothing to check");
    return;
  }
  // The widths counted are the model's working: shown with --verbose (VERBOSE=1) only.
  const GradeRun r =
      grade("--submission solutions --exercise 05 --widths auto --verbose", "nvcc-at-once");
  REQUIRE(r.results.is_object());
  CHECK(exercise_score(r.results, "05") == 100);
  CHECK(test_of(r.results, "05", "conflicts").value("output", "").find("access widths: nvcc") !=
        std::string::npos);
  int jobs = 0;
  for (const auto& e :
       fs::recursive_directory_iterator(build_dir() / "test-grade" / "nvcc-at-once" / "work")) {
    if (!e.is_directory() || e.path().filename().string().rfind("05-", 0) != 0) continue;
    ++jobs;
    INFO(e.path().string());
    CHECK(e.path().filename().string().find("-nvcc") == std::string::npos);
  }
  CHECK(jobs > 0);
}

TEST_CASE("grader: an alternative solution (XOR swizzle instead of padding) passes", "[grader]") {
  const GradeRun r = grade("--submission tests/submissions/swizzled_alternative --exercise 04",
                           "swizzled_alternative");
  REQUIRE(r.results.is_object());
  CHECK(exercise_score(r.results, "04") == 100);
}

TEST_CASE("grader: formats, a missing file, and a class with resume", "[grader][class]") {
  GradeRun r = grade("--submission solutions --exercise 02 --format gradescope,prairielearn,junit",
                     "formats");
  const fs::path out = build_dir() / "test-grade" / "formats";
  std::ifstream pl(out / "prairielearn.json");
  const json p = json::parse(pl, nullptr, false);
  REQUIRE(p.is_object());
  CHECK(p.value("score", 0.0) == 1.0);
  CHECK(p.value("gradable", false));
  std::ifstream ju(out / "junit.xml");
  const std::string junit((std::istreambuf_iterator<char>(ju)), {});
  CHECK(junit.find("<testsuite name=\"02-column-read\" tests=\"6\"") != std::string::npos);
  CHECK(junit.find("<failure") == std::string::npos);

  r = grade("--submission tests/submissions/bypass_shared --exercise 02", "missing");
  CHECK(r.status == 0);
  CHECK(std::regex_search(test_of(r.results, "02", "builds").value("output", ""),
                          std::regex("02-column-read/transpose_rows.cu is missing: copy "
                                     "exercises/02-column-read/transpose_rows.cu")));

  // A class of two: one copy of the solutions, one of the bad "still conflicting" kernel.
  const fs::path klass = build_dir() / "test-grade" / "class-input";
  fs::remove_all(klass);
  fs::create_directories(klass / "alice");
  fs::create_directories(klass / "bob");
  fs::copy("solutions/04-padding-transpose", klass / "alice" / "04-padding-transpose");
  fs::copy("tests/submissions/still_conflicting/04-padding-transpose",
           klass / "bob" / "04-padding-transpose");
  r = grade("--submissions " + klass.string() + " --exercise 04 --jobs 2", "class");
  CHECK(r.status == 0);
  // In a log, a line per exercise graded (how far a long class run has got) and per student.
  CHECK(std::regex_search(
      r.output,
      std::regex(
          R"(  alice · 04-padding-transpose: 100/100 \([0-9.]+ s, [0-9]+ s into the class\))")));
  CHECK(std::regex_search(r.output, std::regex(R"(  bob · 04-padding-transpose: 10/100 \()")));
  CHECK(std::regex_search(r.output, std::regex(R"(\[[12]/2\] graded alice in [0-9.]+ s)")));
  // The last line: the class's wall time (what the next class run is sized by).
  CHECK(
      std::regex_search(r.output, std::regex(R"(graded 2 submissions in [0-9]+\.[0-9] s into )")));
  const fs::path cout_dir = build_dir() / "test-grade" / "class";
  std::ifstream csv(cout_dir / "gradebook.csv");
  const std::string book((std::istreambuf_iterator<char>(csv)), {});
  CHECK(book == "student,total,max,04-padding-transpose\r\nalice,100,100,100\r\nbob,10,100,10\r\n");
  CHECK(fs::exists(cout_dir / "alice" / "results.json"));
  // Resume: nothing changed, nothing regraded.
  const auto stamp = fs::last_write_time(cout_dir / "alice" / "results.json");
  const std::string again = "--submissions " + klass.string() + " --exercise 04";
  const std::string cmd = (build_dir() / "bin" / "grade").string() + " --mode cpu " + again +
                          " --out " + cout_dir.string() + " > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(fs::last_write_time(cout_dir / "alice" / "results.json") == stamp);
}

TEST_CASE("grader: a class starts its students on different exercises, and reports in order",
          "[grader][class]") {
  // One student at a time: alice (the first folder) starts with 01, bob with 03, the next
  // exercise; their builds and GPU steps would otherwise queue for the same step at once.
  const fs::path klass = build_dir() / "test-grade" / "rotate-input";
  fs::remove_all(klass);
  for (const char* who : {"alice", "bob"}) {
    for (const char* ex : {"01-banks-and-words", "03-strides"}) {
      fs::create_directories(klass / who);
      fs::copy(fs::path("solutions") / ex, klass / who / ex);
    }
  }
  const GradeRun r =
      grade("--submissions " + klass.string() + " --exercise 01 03 --jobs 1", "rotate");
  CHECK(r.status == 0);
  auto at = [&](const std::string& line) { return r.output.find(line); };
  const auto a01 = at("  alice · 01-banks-and-words: 100/100"),
             a03 = at("  alice · 03-strides: 100/100"),
             b01 = at("  bob · 01-banks-and-words: 100/100"),
             b03 = at("  bob · 03-strides: 100/100");
  REQUIRE(a01 != std::string::npos);
  REQUIRE(a03 != std::string::npos);
  REQUIRE(b01 != std::string::npos);
  REQUIRE(b03 != std::string::npos);
  CHECK(a01 < a03);
  CHECK(b03 < b01);
  // results.json keeps the registry's order whatever the order of grading.
  std::ifstream in(build_dir() / "test-grade" / "rotate" / "bob" / "results.json");
  const json res = json::parse(in, nullptr, false);
  REQUIRE(res.is_object());
  CHECK(res["tests"][0]["name"].get<std::string>().rfind("01 ", 0) == 0);
  const std::string book = [&] {
    std::ifstream csv(build_dir() / "test-grade" / "rotate" / "gradebook.csv");
    return std::string((std::istreambuf_iterator<char>(csv)), {});
  }();
  CHECK(book ==
        "student,total,max,01-banks-and-words,03-strides\r\nalice,200,200,100,100\r\n"
        "bob,200,200,100,100\r\n");
}

TEST_CASE("grader: a class's gradebook comes from the grader's typed records, kept ones included",
          "[grader][class]") {
  // A class of two graded into OUT; then bob fixes his kernel and the class is graded again
  // (alice is kept, bob regraded). Each row must come from the summary the grader recorded for
  // the student (the registry's exercise ids, never results.json's test names).
  const fs::path klass = build_dir() / "test-grade" / "records-input";
  fs::remove_all(klass);
  fs::create_directories(klass / "alice");
  fs::create_directories(klass / "bob");
  fs::copy("solutions/04-padding-transpose", klass / "alice" / "04-padding-transpose");
  fs::copy("tests/submissions/still_conflicting/04-padding-transpose",
           klass / "bob" / "04-padding-transpose");
  const std::string args = "--submissions " + klass.string() + " --exercise 04";
  GradeRun r = grade(args + " --jobs 2", "records");
  CHECK(r.status == 0);
  const fs::path out = build_dir() / "test-grade" / "records";
  const auto book = [&]() {
    std::ifstream csv(out / "gradebook.csv");
    return std::string((std::istreambuf_iterator<char>(csv)), {});
  };
  const std::string head = "student,total,max,04-padding-transpose\r\n";
  CHECK(book() == head + "alice,100,100,100\r\nbob,10,100,10\r\n");
  // The record is typed: a versioned summary, one line per exercise graded.
  std::ifstream rin(out / "bob" / ".record");
  const json rec = json::parse(rin, nullptr, false);
  REQUIRE(rec.is_object());
  CHECK(rec["summary"] == json::parse(R"({"version": 1, "score": 10, "max_score": 100,
      "exercises": [{"id": "04", "score": 10, "max_score": 100}]})"));

  // Grading again without --out cleared (grade() clears it): the same command by hand.
  const auto regrade = [&](const std::string& extra) {
    const std::string cmd = (build_dir() / "bin" / "grade").string() + " --mode cpu --seed 7 " +
                            args + extra + " --out " + out.string() + " > " +
                            (out.string() + ".again.log") + " 2>&1";
    return std::system(cmd.c_str());
  };
  fs::remove_all(klass / "bob" / "04-padding-transpose");
  fs::copy("solutions/04-padding-transpose", klass / "bob" / "04-padding-transpose");
  const auto stamp = fs::last_write_time(out / "alice" / "results.json");
  CHECK(regrade("") == 0);
  CHECK(fs::last_write_time(out / "alice" / "results.json") == stamp);  // kept
  CHECK(book() == head + "alice,100,100,100\r\nbob,100,100,100\r\n");

  // results.json is for the platforms: its test names are words, not keys. The gradebook job
  // (--merge-only) must not read them.
  std::ifstream ain(out / "alice" / "results.json");
  json alice = json::parse(ain, nullptr, false);
  REQUIRE(alice.is_object());
  for (auto& t : alice["tests"]) t["name"] = "padding-transpose: " + t.value("name", "");
  std::ofstream(out / "alice" / "results.json") << alice.dump(2) << "\n";
  CHECK(regrade(" --merge-only") == 0);
  CHECK(book() == head + "alice,100,100,100\r\nbob,100,100,100\r\n");

  // A record without a summary (an older grader's) keeps nothing: alice is graded again.
  std::ofstream(out / "alice" / ".record") << "0123456789abcdef 0123456789abcdef\n";
  CHECK(regrade("") == 0);
  CHECK(fs::last_write_time(out / "alice" / "results.json") != stamp);
  CHECK(book() == head + "alice,100,100,100\r\nbob,100,100,100\r\n");
}

TEST_CASE("grader: a student's summary reads back what was written, and no other version",
          "[grader][class]") {
  grader::StudentSummary s;
  s.exercises = {{"04", 10, 100}, {"02", 100, 100}};
  s.score = 110;
  s.max_score = 200;
  const json j = s;
  const auto back = j.get<grader::StudentSummary>();
  CHECK(back.score == 110);
  CHECK(back.max_score == 200);
  REQUIRE(back.find("02") != nullptr);
  CHECK(back.find("02")->score == 100);
  CHECK(back.find("05") == nullptr);
  json other = j;
  other["version"] = grader::StudentSummary::kVersion + 1;
  CHECK_THROWS_WITH(other.get<grader::StudentSummary>(), Catch::Contains("a summary of version"));
  json partial = j;
  partial["exercises"][0].erase("max_score");
  CHECK_THROWS(partial.get<grader::StudentSummary>());
}
