// grade - the course's grader (`make grade` runs it).
//
//   build/bin/grade [--submission DIR] [--exercise NN]... [--mode auto|cpu|gpu] [--verbose]
//                   [--format gradescope,prairielearn,junit] [--out build/grade]
//   build/bin/grade --submissions DIR [--jobs N]      a class: one sub-folder per student
//   build/bin/grade skeletons [--check]                regenerate / check exercises/ from
//   solutions/ build/bin/grade list                               the exercises
//
// Writes OUT/results.json (Gradescope) and on request prairielearn.json and junit.xml; a class
// gets OUT/<student>/results.json and OUT/gradebook.csv. Exits 0 whenever grading itself
// completed, whatever the score; 2 when it could not (bad folder, no backend).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "course/registry.hpp"
#include "grader/backend.hpp"
#include "grader/judge.hpp"
#include "grader/report.hpp"
#include "grader/skeleton.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Options {
  fs::path submission = "exercises";
  fs::path submissions;
  std::vector<std::string> exercise_ids;
  std::string mode = "auto";
  bool verbose = false;
  std::string format = "gradescope";
  fs::path out = "build/grade";
  int jobs = 1;
  std::uint64_t seed = 0;
  bool no_sandbox = false;
};

std::vector<const grader::ExerciseSpec*> selected(const Options& o) {
  std::vector<const grader::ExerciseSpec*> out;
  if (o.exercise_ids.empty()) {
    for (const auto& e : grader::exercises()) out.push_back(&e);
    return out;
  }
  for (const auto& id : o.exercise_ids) {
    const std::string padded = id.size() == 1 ? "0" + id : id;
    const grader::ExerciseSpec* e = grader::find_exercise(padded);
    if (e == nullptr) {
      std::string ids;
      for (const auto& x : grader::exercises()) ids += (ids.empty() ? "" : ", ") + x.id;
      throw std::runtime_error("no exercise '" + id + "': the exercises are " + ids);
    }
    out.push_back(e);
  }
  return out;
}

grader::SubmissionResult grade_submission(const fs::path& dir, const std::string& name,
                                          const std::vector<const grader::ExerciseSpec*>& list,
                                          const grader::Backend& backend, const Options& o,
                                          const fs::path& work) {
  const auto start = std::chrono::steady_clock::now();
  grader::SubmissionResult r;
  r.name = name;
  r.mode_description = backend.describe();
  r.facts = backend.facts();
  grader::JudgeOptions jo;
  jo.seed = o.seed;
  jo.verbose = o.verbose;
  jo.work_dir = fs::absolute(work);
  fs::create_directories(work);
  for (const auto* spec : list) {
    try {
      r.exercises.push_back(grader::grade_exercise(*spec, dir, backend, jo));
    } catch (const std::exception& e) {
      // The grader's own failure on one exercise must not lose the others.
      grader::ExerciseResult er;
      er.spec = spec;
      er.mode = backend.capabilities().name;
      er.timed = backend.capabilities().can_time;
      grader::Gate g;
      g.name = "builds";
      g.max_score = spec->points.total();
      g.reason = std::string("the grader could not grade this exercise: ") + e.what();
      er.gates.push_back(g);
      er.conflicts_summary = er.speedup_summary = "-";
      r.exercises.push_back(er);
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void write_results(const grader::SubmissionResult& r, const fs::path& out, const Options& o) {
  fs::create_directories(out);
  std::ofstream(out / "results.json") << grader::to_gradescope(r).dump(2) << "\n";
  if (o.format.find("prairielearn") != std::string::npos) {
    std::ofstream(out / "prairielearn.json") << grader::to_prairielearn(r).dump(2) << "\n";
  }
  if (o.format.find("junit") != std::string::npos) {
    std::ofstream(out / "junit.xml") << grader::to_junit(r);
  }
}

/// A fingerprint of a student's files (for resuming a class).
std::string fingerprint(const fs::path& dir, const Options& o) {
  std::string all = o.mode + "|" + o.format;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    all += f.lexically_relative(dir).string() + "\x1f" + s.str() + "\x1e";
  }
  return fmt::format("{:016x}", std::hash<std::string>{}(all));
}

int grade_class(const Options& o, const grader::Backend& backend) {
  if (!fs::is_directory(o.submissions)) {
    std::cerr << "grade: SUBMISSIONS=" << o.submissions.string()
              << " is not a folder: give a folder with one sub-folder per student\n";
    return 2;
  }
  std::vector<fs::path> students;
  for (const auto& entry : fs::directory_iterator(o.submissions)) {
    if (entry.is_directory()) students.push_back(entry.path());
  }
  std::sort(students.begin(), students.end());
  const auto list = selected(o);
  std::vector<grader::SubmissionResult> results(students.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex print;
  auto worker = [&]() {
    for (std::size_t i = next++; i < students.size(); i = next++) {
      const std::string name = students[i].filename().string();
      const fs::path out = o.out / name;
      const std::string fp = fingerprint(students[i], o);
      const fs::path fp_file = out / ".fingerprint";
      std::ifstream fin(fp_file);
      std::string old;
      std::getline(fin, old);
      bool resumed = false;
      if (old == fp && fs::exists(out / "results.json")) {
        // Unchanged since the last run: reuse its results.
        std::ifstream rin(out / "results.json");
        const json j = json::parse(rin, nullptr, false);
        results[i].name = name;
        results[i].facts = j.is_object() ? j.value("tests", json::array()) : json::array();
        resumed = true;
      } else {
        results[i] = grade_submission(students[i], name, list, backend, o, o.out / "work" / name);
        write_results(results[i], out, o);
        std::ofstream(fp_file) << fp << "\n";
      }
      const std::size_t d = ++done;
      std::lock_guard<std::mutex> lock(print);
      std::cerr << fmt::format("\r[{}/{}] {} {}{}", d, students.size(),
                               resumed ? "unchanged, kept" : "graded", name, std::string(20, ' '))
                << std::flush;
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, o.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  std::cerr << "\n";
  // The gradebook, from every student's results.json (fresh or kept).
  std::ofstream csv(o.out / "gradebook.csv");
  csv << "student,total,max";
  for (const auto* e : list) csv << "," << e->slug;
  csv << "\n";
  for (const auto& s : students) {
    const std::string name = s.filename().string();
    std::ifstream rin(o.out / name / "results.json");
    const json j = json::parse(rin, nullptr, false);
    if (!j.is_object()) {
      csv << name << ",,,\n";
      continue;
    }
    std::map<std::string, int> per;
    for (const auto& t : j.value("tests", json::array())) {
      per[t.value("name", "").substr(0, 2)] += t.value("score", 0);
    }
    csv << name << "," << j.value("score", 0) << "," << j["extra_data"].value("max_score", 0);
    for (const auto* e : list) csv << "," << per[e->id];
    csv << "\n";
  }
  std::cout << fmt::format("graded {} submissions into {}/<student>/results.json and {}\n",
                           students.size(), o.out.string(), (o.out / "gradebook.csv").string());
  return 0;
}

/// The course site's generated pages: the exercises (skeletons, gates, sizes) and, for the
/// instructor edition, the solutions and grading specs. From the exercise table, so they
/// cannot drift.
void write_doc_pages(const fs::path& dir, bool instructor) {
  fs::create_directories(dir);
  std::ofstream ex(dir / "exercises.md");
  ex << "# Exercises {#exercises}\n\n"
        "Each exercise belongs to a lesson. Copy nothing: edit the file in `exercises/`, then run "
        "`make grade EXERCISE=NN`. Every exercise is worth 100 points; the gates are explained "
        "on the \\ref index \"front page\".\n\n";
  for (const auto& e : grader::exercises()) {
    ex << "## " << e.id << " — " << e.title << " {#exercise-" << e.id << "}\n\n";
    ex << "Lesson: \\ref lesson-" << e.id << " \"" << e.slug << "\". File: `exercises/" << e.slug
       << "/" << e.file << "`. Grade: `make grade EXERCISE=" << e.id << "`.\n\n";
    if (e.kind == grader::ExerciseSpec::Kind::kKernel) {
      std::string sizes;
      for (const auto& sz : e.sizes) sizes += (sizes.empty() ? "" : ", ") + sz.label;
      ex << "Checked on " << sizes << " with fresh random inputs each run. Points: builds "
         << e.points.builds << ", correct " << e.points.correct << ", no problems "
         << e.points.no_problems << ", conflict-free " << e.points.conflicts << ", speed-up "
         << e.points.speed << ", uses shared memory " << e.points.uses_shared << ".\n\n";
    } else {
      ex << "Checked on " << e.host_cases << " random warp requests against the course's bank "
         << "model. Points: builds " << e.points.builds << ", correct " << e.points.correct
         << ".\n\n";
    }
    ex << "\\include exercises/" << e.slug << "/" << e.file << "\n\n";
  }
  if (!instructor) return;
  std::ofstream so(dir / "solutions.md");
  so << "# Solutions and grading specs (instructor edition) {#solutions}\n\n"
        "Written once in `solutions/`; `make skeletons` turns the `BEGIN SOLUTION` blocks into "
        "the students' TODOs. The thresholds below come from the registry, "
        "`registry/src/registry.cpp`.\n\n";
  for (const auto& e : grader::exercises()) {
    so << "## " << e.id << " — " << e.title << " {#solution-" << e.id << "}\n\n";
    if (e.kind == grader::ExerciseSpec::Kind::kKernel) {
      so << "| spec | value |\n|---|---|\n";
      so << "| kernel | `" << e.kernel << "` |\n";
      so << "| baseline | `" << e.baseline.kernel << "` in `" << e.baseline.file << "` |\n";
      std::string sizes;
      for (const auto& sz : e.sizes) sizes += (sizes.empty() ? "" : ", ") + sz.label;
      so << "| sizes (first one measured) | " << sizes << " |\n";
      so << "| tolerance | abs " << e.workload.tolerance_abs << ", rel " << e.workload.tolerance_rel
         << " |\n";
      so << "| CPU speed gate (wavefront ratio) | >= " << e.thresholds.cpu_min_wavefront_ratio
         << " |\n";
      so << "| GPU speed gate (timed) | >= " << e.thresholds.gpu_min_speedup << " |\n";
      so << "| shared requests floor | " << e.thresholds.min_shared_fraction << " x baseline |\n\n";
    }
    so << "\\include solutions/" << e.slug << "/" << e.file << "\n\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Grade the bank-conflict exercises (CPU model via banksim, or a GPU)"};
  Options o;
  app.add_option("--submission", o.submission, "folder laid out like exercises/ (default)");
  app.add_option("--submissions", o.submissions, "a class: one sub-folder per student");
  app.add_option("--exercise", o.exercise_ids, "grade only these exercises (e.g. 04)");
  app.add_option("--mode", o.mode, "auto, cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  app.add_flag("--verbose", o.verbose, "show compiler output and bank diagrams");
  app.add_option("--format", o.format, "gradescope[,prairielearn][,junit]");
  app.add_option("--out", o.out, "where results go (build/grade)");
  app.add_option("--jobs", o.jobs, "students graded in parallel");
  app.add_option("--seed", o.seed, "fixed input seed (default: a fresh secret one each run)");
  app.add_flag("--no-sandbox", o.no_sandbox,
               "run workers without the bubblewrap sandbox: only for your own, trusted code");
  bool check_only = false;
  CLI::App* skel = app.add_subcommand("skeletons", "regenerate exercises/ from solutions/");
  skel->add_flag("--check", check_only, "only check that exercises/ is up to date");
  CLI::App* list = app.add_subcommand("list", "list the exercises");
  CLI::App* pages = app.add_subcommand("docs-pages", "write the course site's generated pages");
  fs::path pages_dir;
  bool instructor = false;
  pages->add_option("dir", pages_dir, "output folder")->required();
  pages->add_flag("--instructor", instructor, "also the solutions and grading specs");
  CLI11_PARSE(app, argc, argv);

  try {
    if (skel->parsed()) {
      const auto lines = grader::sync_skeletons(grader::course_root(), !check_only);
      for (const auto& l : lines) std::cout << l << "\n";
      if (check_only && !lines.empty()) return 1;
      if (lines.empty()) std::cout << "exercises/ is in sync with solutions/\n";
      return 0;
    }
    if (pages->parsed()) {
      write_doc_pages(pages_dir, instructor);
      return 0;
    }
    if (list->parsed()) {
      for (const auto& e : grader::exercises()) {
        std::cout << fmt::format("{}  {:<22} {}\n", e.id, e.slug, e.title);
      }
      return 0;
    }
    std::string why;
    grader::BackendOptions bo;
    bo.sandbox = !o.no_sandbox;
    bo.cache_dir = fs::absolute(o.out) / "banksim-cache";
    const auto backend = grader::make_backend(o.mode, bo, &why);
    if (!backend) {
      std::cerr << "grade: " << why << "\n";
      return 2;
    }
    if (!o.submissions.empty()) return grade_class(o, *backend);
    if (!fs::is_directory(o.submission)) {
      std::cerr << "grade: " << o.submission.string()
                << " is not a folder: give SUBMISSION=DIR laid out like exercises/\n";
      return 2;
    }
    const auto exercises = selected(o);
    const grader::SubmissionResult r = grade_submission(
        o.submission, o.submission.filename().string(), exercises, *backend, o, o.out / "work");
    write_results(r, o.out, o);
    std::cout << grader::render_table(r, o.verbose);
    std::cout << fmt::format("\nresults: {}\n", (o.out / "results.json").string());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "grade: " << e.what() << "\n";
    return 2;
  }
}
