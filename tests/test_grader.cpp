// The grader, end to end, through its command line (build/bin/grade): solutions get full marks,
// the untouched skeletons get no correctness points, every known-bad submission of
// tests/submissions/ gets the right verdict with a clear reason, and the report formats and class
// mode work. Each case runs the real grader in CPU mode with a fixed seed.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include "course_catch.hpp"

#include "course/registry.hpp"
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
    for (const std::string& bad : never) {
      const std::string re = with_lines(bad, file);
      INFO("must not say /" << re << "/ (in the gate's output or the terminal)");
      CHECK_FALSE(std::regex_search(output, std::regex(re)));
      CHECK_FALSE(std::regex_search(r.output, std::regex(re)));
      CHECK_FALSE(std::regex_search(r.results.dump(), std::regex(re)));
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

TEST_CASE("grader: the untouched skeletons get no correctness points", "[grader]") {
  const GradeRun r = grade("", "skeletons");
  CHECK(r.status == 0);
  REQUIRE(r.results.is_object());
  for (const auto& e : course::exercises()) {
    INFO(e.slug);
    CHECK(test_of(r.results, e.id, "correct").value("score", -1) == 0);
    CHECK(test_of(r.results, e.id, "builds").value("status", "") == "passed");
    CHECK(std::regex_search(test_of(r.results, e.id, "correct").value("output", ""),
                            std::regex("TODO\\(ex" + e.id + "\\.1\\) is not done yet")));
  }
  CHECK(r.results.value("score", -1) == 10 * static_cast<int>(course::exercises().size()));
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
    expect_failure("bypass_shared", "04", "conflicts", "makes no shared-memory access");
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
  const fs::path cout_dir = build_dir() / "test-grade" / "class";
  std::ifstream csv(cout_dir / "gradebook.csv");
  const std::string book((std::istreambuf_iterator<char>(csv)), {});
  CHECK(book == "student,total,max,04-padding-transpose\r\nalice,100,100,100\r\nbob,70,100,70\r\n");
  CHECK(fs::exists(cout_dir / "alice" / "results.json"));
  // Resume: nothing changed, nothing regraded.
  const auto stamp = fs::last_write_time(cout_dir / "alice" / "results.json");
  const std::string again = "--submissions " + klass.string() + " --exercise 04";
  const std::string cmd = (build_dir() / "bin" / "grade").string() + " --mode cpu " + again +
                          " --out " + cout_dir.string() + " > /dev/null 2>&1";
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(fs::last_write_time(cout_dir / "alice" / "results.json") == stamp);
}
