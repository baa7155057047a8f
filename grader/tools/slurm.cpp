// slurm.cpp - SCHEDULER=slurm: a class as a SLURM job array (one task per student, each asking
// for --gres=gpu:1 in GPU mode), then the gradebook job.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include "grade_cli.hpp"

namespace grade_cli {

using nlohmann::json;

std::string shell_word(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// SCHEDULER=slurm: a job array (one task per student, each exactly a local run's grading of
/// that folder, resumable as a local run is), then a job that writes the gradebook once every
/// task has ended. Submits and returns (or waits, --slurm-wait).
int submit_slurm(const Options& o) {
  std::error_code ec;
  if (!fs::is_directory(o.submissions, ec)) {
    std::cerr << "grade: SUBMISSIONS=" << o.submissions.string() << " is not a folder\n";
    return 2;
  }
  const std::size_t n = class_folders(o.submissions).size();
  if (n == 0) {
    std::cerr << "grade: " << o.submissions.string() << " has no student folders\n";
    return 2;
  }
  if (std::system("command -v sbatch >/dev/null 2>&1") != 0) {
    std::cerr << "grade: SCHEDULER=slurm needs sbatch on the PATH (a SLURM login node)\n";
    return 2;
  }
  const fs::path out = fs::absolute(o.out);
  const fs::path dir = out / "slurm";
  fs::create_directories(dir);
  std::string cmd = shell_word((exe_dir() / "grade").string()) + " --submissions " +
                    shell_word(fs::absolute(o.submissions).string()) + " --out " +
                    shell_word(out.string()) + " --mode " + shell_word(o.mode) + " --format " +
                    shell_word(o.format) + " --isolation " + shell_word(o.isolation) + " --jobs 1";
  for (const auto& id : o.exercise_ids) cmd += " --exercise " + shell_word(id);
  if (o.seed != 0) cmd += " --seed " + std::to_string(o.seed);
  cmd += " --widths " + shell_word(o.widths);
  if (!o.policy.empty()) cmd += " --policy " + shell_word(fs::absolute(o.policy).string());
  if (o.verbose) cmd += " --verbose";
  if (o.no_sandbox) cmd += " --no-sandbox";
  if (o.hide_secret_sizes) cmd += " --hide-secret-sizes";
  if (!o.gates.empty()) cmd += " --gates " + shell_word(fs::absolute(o.gates).string());
  if (o.gpu_only) cmd += " --gpu-only";
  std::ofstream(dir / "task.sh") << "#!/bin/sh\n# one student of the class: array task K grades "
                                    "the K-th folder (sorted)\nexec "
                                 << cmd << " --task \"$SLURM_ARRAY_TASK_ID\"\n";
  std::ofstream(dir / "gradebook.sh") << "#!/bin/sh\nexec " << cmd << " --merge-only\n";
  const std::string gres = o.mode == "gpu" ? " --gres=gpu:1" : "";
  const std::string extra =
      std::getenv("SBATCH_ARGS") ? std::string(" ") + std::getenv("SBATCH_ARGS") : "";
  auto sbatch = [&](const std::string& args) {
    std::string id;
    FILE* p = popen(("sbatch --parsable" + extra + " " + args + " 2>&1").c_str(), "r");
    char buf[512];
    while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) id += buf;
    const int status = p != nullptr ? pclose(p) : -1;
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    if (status != 0 || id.empty() || id.find_first_not_of("0123456789;") != std::string::npos) {
      throw std::runtime_error("sbatch failed: " + id);
    }
    return id.substr(0, id.find(';'));
  };
  const std::string array = sbatch(fmt::format(
      "--job-name=grade-class --array=0-{} --cpus-per-task=1{} --output={} {}", n - 1, gres,
      shell_word((dir / "task-%a.log").string()), shell_word((dir / "task.sh").string())));
  const std::string book = sbatch(
      fmt::format("--job-name=gradebook --dependency=afterany:{} --output={}{} {}", array,
                  shell_word((dir / "gradebook.log").string()), o.slurm_wait ? " --wait" : "",
                  shell_word((dir / "gradebook.sh").string())));
  std::cout << fmt::format(
      "SLURM: {} students as array job {} (logs {}/task-K.log); job {} writes {} when they have "
      "ended{}\n",
      n, array, dir.string(), book, (out / "gradebook.csv").string(),
      o.slurm_wait ? " (done)" : ": squeue -j " + array + "," + book);
  return 0;
}

}  // namespace grade_cli
