// grade - the course's grader (`make grade` runs it).
//
//   build/bin/grade [--submission DIR] [--exercise NN]... [--mode auto|cpu|gpu] [--verbose]
//                   [--format gradescope,prairielearn,junit] [--out build/grade]
//                   [--policy FILE]   gate points and thresholds (default: grading-policy.toml at
//                                     the course's root when there, else the registry's)
//   build/bin/grade --submissions DIR [--jobs N]      a class: one sub-folder per student
//   build/bin/grade hint NN [--level K]               an exercise's hints, K of 3
//   build/bin/grade skeletons [--check]                regenerate / check exercises/ from
//                                                     solutions/
//   build/bin/grade skeletons --out DIR                the same skeletons into DIR/NN-slug/
//                                                     (bundles, the site; exercises/ untouched)
//   build/bin/grade list                               the exercises
//   build/bin/grade calibrate [--runs N] [--gates F]   this GPU's row of the gate table
//                                                     (`make calibrate`)
//
// Writes OUT/results.json (Gradescope) and on request prairielearn.json and junit.xml; a class
// gets OUT/<student>/results.json and OUT/gradebook.csv. Exits 0 whenever grading itself
// completed, whatever the score; 2 when it could not (bad folder, no backend).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <iostream>

#include "course/registry.hpp"
#include "grade_cli.hpp"
#include "grader/grading_policy.hpp"
#include "grader/policy.hpp"
#include "grader/skeleton.hpp"

using namespace grade_cli;

int main(int argc, char** argv) {
  CLI::App app{"Grade the bank-conflict exercises (CPU model via banksim, or a GPU)"};
  Options o;
  app.add_option("--submission", o.submission, "folder laid out like exercises/ (default)");
  app.add_option("--submissions", o.submissions, "a class: one sub-folder per student");
  app.add_option("--exercise", o.exercise_ids, "grade only these exercises (e.g. 04)");
  app.add_option("--mode", o.mode, "auto, cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  // A test suite that grades many files where widths do not matter sets COURSE_GRADE_WIDTHS=clang
  // (nvcc's widths cost about 1.3 s per new file).
  if (const char* w = std::getenv("COURSE_GRADE_WIDTHS");
      w != nullptr && (std::string(w) == "clang" || std::string(w) == "nvcc")) {
    o.widths = w;
  }
  app.add_option("--widths", o.widths,
                 "CPU mode: whose access widths count: auto (nvcc's, read from its SASS for sm_90, "
                 "when nvcc and nvdisasm are found: what the GPU runs), nvcc, or clang")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}));
  app.add_flag("--verbose", o.verbose, "show compiler output and bank diagrams");
  app.add_flag("--keep-inputs", o.keep_inputs,
               "keep the large inputs (the GPU's timed size) in the work folders after grading "
               "(to run a worker again by hand; a class's would fill a disk)");
  app.add_option("--policy", o.policy,
                 "grading policy (TOML): gate points and thresholds per exercise (default: "
                 "grading-policy.toml at the course's root when there, else the registry's)");
  app.add_option("--format", o.format, "gradescope[,prairielearn][,junit]");
  app.add_option("--out", o.out, "where results go (build/grade)");
  app.add_option("--jobs", o.jobs, "students graded in parallel");
  app.add_option("--seed", o.seed, "fixed input seed (default: a fresh secret one each run)");
  app.add_option("--isolation", o.isolation,
                 "bwrap (namespaces, default), uid (as root where a container forbids "
                 "namespaces: student code runs as its own uid, killed with its run), or auto "
                 "(bwrap if a trial sandbox works, else uid)")
      ->check(CLI::IsMember({"bwrap", "uid", "auto"}));
  app.add_flag("--hide-secret-sizes", o.hide_secret_sizes,
               "results.json for a course platform: the sizes drawn from the secret seed read "
               "'a secret size' until the due date (a test visible after it names them)");
  app.add_option("--scheduler", o.scheduler,
                 "slurm: grade a class as a SLURM job array, one task per student (GPU mode asks "
                 "--gres=gpu:1; SBATCH_ARGS adds options), then a gradebook job")
      ->check(CLI::IsMember({"", "slurm"}));
  app.add_option("--task", o.task, "grade only the K-th student folder (a SLURM array task)");
  app.add_flag("--merge-only", o.merge_only, "only write the gradebook from the results there");
  app.add_flag("--slurm-wait", o.slurm_wait, "with --scheduler slurm: wait for the gradebook");
  app.add_flag("--require-full", o.require_full,
               "exit with status 1 unless every graded exercise has full marks (GitHub "
               "Classroom: one command per exercise)");
  app.add_option("--gates", o.gates,
                 "GPU mode: the calibration file with this GPU's gate row (default: "
                 "gpu-gates.json beside the grader's bin/, written by `make calibrate`)");
  app.add_flag("--gpu-only", o.gpu_only,
               "GPU mode without banksim's checks on the CPU first (the GPU's tools alone)");
  app.add_flag("--no-sandbox", o.no_sandbox,
               "run workers without the bubblewrap sandbox: only for your own, trusted code");
  bool check_only = false;
  CLI::App* skel = app.add_subcommand("skeletons", "regenerate exercises/ from solutions/");
  skel->add_flag("--check", check_only, "only check that exercises/ is up to date");
  fs::path skel_out;
  skel->add_option("--out", skel_out,
                   "write the skeletons into this folder (DIR/NN-slug/FILE) instead of "
                   "exercises/, and say where exercises/ differs from them")
      ->excludes("--check");
  CLI::App* list = app.add_subcommand("list", "list the exercises");
  CLI::App* includes =
      app.add_subcommand("includes", "list the headers a submission may include, one per line");
  CLI::App* calib = app.add_subcommand("calibrate",
                                       "time the baselines and references on this GPU and write "
                                       "its row of the gate table (make calibrate)");
  int calib_runs = 3;
  calib->add_option("--runs", calib_runs, "timings of each kernel (each a median of 15)")
      ->check(CLI::Range(1, 15));
  CLI::App* hint = app.add_subcommand("hint", "an exercise's hints, one more each level");
  std::string hint_id;
  int hint_level = 1;
  hint->add_option("exercise", hint_id, "the exercise, e.g. 04")->required();
  hint->add_option("--level", hint_level,
                   "how many hints (1: a nudge, 2: the bank arithmetic, "
                   "3: the fix's shape)")
      ->check(CLI::Range(1, 3));
  CLI::App* pages = app.add_subcommand("docs-pages", "write the course site's generated pages");
  fs::path pages_dir;
  bool instructor = false;
  pages->add_option("dir", pages_dir, "output folder")->required();
  pages->add_flag("--instructor", instructor, "also the solutions and grading specs");
  CLI11_PARSE(app, argc, argv);

  // The policy first: a malformed file stops everything before any grading starts.
  try {
    const fs::path file = !o.policy.empty() ? o.policy : grader::default_policy_file();
    std::error_code ec;
    if (!o.policy.empty() || fs::exists(file, ec)) {
      grader::set_policy(grader::apply_policy_file(file, course::exercises()), file.string());
    }
  } catch (const std::exception& e) {
    std::cerr << "grade: " << e.what() << "\ngrade: nothing was graded: fix the policy file\n";
    return 2;
  }

  try {
    if (skel->parsed() && !skel_out.empty()) {
      const auto g = grader::write_skeletons(grader::course_root(), skel_out);
      for (const auto& l : g.differs) std::cerr << "grade skeletons: " << l << "\n";
      for (const auto& l : g.errors) std::cerr << "grade skeletons: " << l << "\n";
      if (!g.errors.empty()) return 1;
      std::cout << fmt::format("wrote {} skeletons generated from solutions/ into {}\n",
                               g.files.size(), skel_out.string());
      return 0;
    }
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
    if (hint->parsed()) return print_hints(hint_id, hint_level);
    if (includes->parsed()) {
      for (const auto& h : grader::allowed_includes()) std::cout << h << "\n";
      return 0;
    }
    if (list->parsed()) {
      for (const auto& e : grader::exercises()) {
        std::cout << fmt::format("{}  {:<22} {}\n", e.id, e.slug, e.title);
      }
      return 0;
    }
    if (!o.submissions.empty() && o.scheduler == "slurm") return submit_slurm(o);
    return run_grading(o, calib->parsed(), calib_runs);
  } catch (const std::exception& e) {
    std::cerr << "grade: " << e.what() << "\n";
    return 2;
  }
}
