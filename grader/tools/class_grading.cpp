// class_grading.cpp - grading a class: one folder per student, --jobs at a time (a GPU's timings
// take turns under its lock while builds and banksim's checks overlap), each student's time
// logged, resumable after a kill; then the gradebook.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>
#include "grade_cli.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace grade_cli {

using nlohmann::json;

/// A student's folder name as text: invalid UTF-8 bytes and control characters become \xNN, so
/// a name is always data (never breaks JSON, the CSV or the terminal).
std::string display_name(const std::string& raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size();) {
    const auto c = static_cast<unsigned char>(raw[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok =
        len > 0 && i + static_cast<std::size_t>(len) <= raw.size() && !(c < 0x20 || c == 0x7f);
    for (int k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(raw[i + static_cast<std::size_t>(k)]) >> 6) == 2;
    }
    if (ok) {
      out.append(raw, i, static_cast<std::size_t>(len));
      i += static_cast<std::size_t>(len);
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

/// Where a student's results go: the display name when it is a plain, safe file name, otherwise
/// a safe version of it plus a hash of the raw name (so two odd names never collide).
std::string output_name(const std::string& raw) {
  std::string safe;
  for (char c : raw) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.';
    safe += plain ? c : '_';
  }
  if (safe == raw && raw != "work" && raw != "banksim-cache" && raw[0] != '.') return raw;
  return safe.substr(0, 40) + "-" +
         fmt::format("{:08x}", std::hash<std::string>{}(raw)&0xffffffffu);
}

/// A class's student folders (and links, which get a row saying why they are refused), sorted:
/// the order SLURM's array task numbers follow.
std::vector<fs::path> class_folders(const fs::path& dir) {
  std::vector<fs::path> students;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_symlink(e2) || it->is_directory(e2)) students.push_back(it->path());
  }
  std::sort(students.begin(), students.end());
  return students;
}

int grade_class(const Options& o, const grader::Backend& backend) {
  std::error_code ec;
  if (!fs::is_directory(o.submissions, ec)) {
    std::cerr << "grade: SUBMISSIONS=" << o.submissions.string()
              << " is not a folder: give a folder with one sub-folder per student\n";
    return 2;
  }
  const std::vector<fs::path> students = class_folders(o.submissions);
  if (o.task >= 0 && static_cast<std::size_t>(o.task) >= students.size()) {
    std::cerr << "grade: --task " << o.task << ": the class has " << students.size()
              << " folders\n";
    return 2;
  }
  const auto list = selected(o);
  const std::string key = grading_key(o, list);
  // A SLURM array task grades one student; the gradebook job grades none.
  std::atomic<std::size_t> next{o.merge_only  ? students.size()
                                : o.task >= 0 ? static_cast<std::size_t>(o.task)
                                              : 0};
  const std::size_t stop = o.task >= 0 ? static_cast<std::size_t>(o.task) + 1 : students.size();
  std::atomic<std::size_t> done{0};
  std::mutex print;
  const auto class_start = std::chrono::steady_clock::now();
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto worker = [&]() {
    for (std::size_t i = next++; i < stop; i = next++) {
      const std::string raw = students[i].filename().string();
      const std::string name = display_name(raw);
      const fs::path out = o.out / output_name(raw);
      bool resumed = false;
      const auto student_start = std::chrono::steady_clock::now();
      try {
        if (fs::is_symlink(students[i])) {
          throw std::runtime_error("the folder is a symbolic link: submit a real folder");
        }
        const std::string fp = fingerprint(students[i], key);
        std::string why;
        const std::optional<Record> old = read_record(out, why);
        const std::string results_text = read_text(out / "results.json");
        // Kept only with the grader's own record of it, summary included (a record of an
        // older grader, without one, is no record): unchanged since the grader's last run.
        if (!results_text.empty() && old && old->fingerprint == fp &&
            old->results_hash == results_hash(results_text)) {
          resumed = true;
        } else {
          fs::remove(record_file(out));
          // In a log (a batch job, CI), a line per exercise too: a long class run shows how far
          // each student has got, and a run cut short still says what it had graded.
          ExerciseDone one;
          if (!tty) {
            one = [&](const grader::ExerciseResult& e, double seconds) {
              const std::lock_guard<std::mutex> lock(print);
              std::cerr << fmt::format(
                  "  {} · {}: {}/{} ({:.1f} s, {:.0f} s into the class)\n", name, e.spec->slug,
                  e.score(), e.max_score(), seconds,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - class_start)
                      .count());
            };
          }
          // Each student starts on another exercise: their builds, banksim's checks and GPU
          // steps interleave instead of queueing for the same step at once.
          const grader::SubmissionResult r = grade_submission(
              students[i], name, list, backend, o, o.out / "work" / output_name(raw), 1, {}, one,
              list.empty() ? 0 : i % list.size());
          write_results(r, out, o);
          write_record(out,
                       {fp, results_hash(read_text(out / "results.json")), grader::summarize(r)});
        }
      } catch (const std::exception& e) {
        // One student's folder can never stop the class: the failure stays in that row.
        grader::SubmissionResult r;
        r.name = name;
        r.mode_description = backend.describe();
        for (const auto* spec : list) {
          r.exercises.push_back(not_graded(
              *spec, backend, std::string("the grader could not grade this folder: ") + e.what()));
        }
        write_results(r, out, o);
        // Its zeros go into the gradebook; no fingerprint, so the next run grades it again.
        write_record(out,
                     {"", results_hash(read_text(out / "results.json")), grader::summarize(r)});
      }
      const std::size_t d = ++done;
      // How the backend's GPU was used so far: where a long class run's time goes.
      const std::string usage = tty ? "" : backend.usage();
      std::lock_guard<std::mutex> lock(print);
      // On a terminal one line that updates; in a log (a batch job, CI) one line per student
      // with its time, so that a run cut short still says how far it got.
      std::cerr << (tty ? fmt::format("\r[{}/{}] {} {}{}", d, students.size(),
                                      resumed ? "unchanged, kept" : "graded", name,
                                      std::string(20, ' '))
                        : fmt::format("[{}/{}] {} {} in {:.1f} s ({:.0f} s into the class{})\n", d,
                                      students.size(), resumed ? "unchanged, kept" : "graded", name,
                                      std::chrono::duration<double>(
                                          std::chrono::steady_clock::now() - student_start)
                                          .count(),
                                      std::chrono::duration<double>(
                                          std::chrono::steady_clock::now() - class_start)
                                          .count(),
                                      usage.empty() ? "" : "; " + usage))
                << std::flush;
    }
  };
  std::vector<std::thread> pool;
  // On a GPU, the baselines, one thread each, beside the first students (not in a SLURM task,
  // which grades one student): a student then finds its exercise's baseline run or running, instead
  // of running it queued behind the others' GPU steps while they all wait for it.
  if (o.task < 0 && !o.merge_only && o.baselines != nullptr && backend.capabilities().can_time) {
    const grader::JudgeOptions jo = judge_options(o, o.out / "work" / ".baselines", {});
    for (const auto* spec : list) {
      pool.emplace_back([&backend, jo, spec] {
        try {
          grader::warm_baseline(*spec, backend, jo);
        } catch (const std::exception&) {
          // The first student that needs it runs it again, and says what failed.
        }
      });
    }
  }
  for (int j = 0; j < std::max(1, o.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (o.task >= 0) return 0;  // the gradebook job writes it when every task has ended
  if (!o.merge_only) std::cerr << "\n";
  write_gradebook(o, list, students);
  // The class's wall time, and on a GPU how the GPU was held over all of it: what an instructor
  // sizes the next class run by.
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - class_start).count();
  const std::string usage = o.merge_only ? "" : backend.usage();
  if (!usage.empty()) std::cerr << "over the class: " << usage << "\n";
  // A SLURM gradebook job only merges the tasks' results: its seconds are not the class's.
  const std::string took = o.merge_only ? "" : fmt::format(" in {:.1f} s", wall);
  std::cout << fmt::format("graded {} submissions{} into {}/<student>/results.json and {}\n",
                           students.size(), took, o.out.string(),
                           (o.out / "gradebook.csv").string());
  return 0;
}

}  // namespace grade_cli
