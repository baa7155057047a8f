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
#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "calibrate.hpp"
#include "course/registry.hpp"
#include "grader/backend.hpp"
#include "grader/gpu_gates.hpp"
#include "grader/grading_policy.hpp"
#include "grader/judge.hpp"
#include "grader/report.hpp"
#include "grader/sandbox.hpp"
#include "grader/skeleton.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

/// The folder of this executable (defined below).
fs::path exe_dir();

namespace {

struct Options {
  fs::path submission = "exercises";
  fs::path submissions;
  std::vector<std::string> exercise_ids;
  std::string mode = "auto";
  std::string widths = "auto";
  bool verbose = false;
  std::string format = "gradescope";
  fs::path out = "build/grade";
  fs::path policy;  ///< --policy: the grading policy file ("" = the course's, if any)
  int jobs = 1;
  std::uint64_t seed = 0;
  bool no_sandbox = false;
  bool require_full = false;
  bool hide_secret_sizes = false;
  std::string isolation = "bwrap";  ///< bwrap, uid (root; containers without namespaces), auto
  std::string scheduler;            ///< "slurm": one array task per student (submit and return)
  std::string isolation_note;       ///< why --isolation auto fell back to uid isolation
  int task = -1;                    ///< a class's K-th student only (a SLURM array task)
  bool merge_only = false;          ///< only write the gradebook from the results there
  bool slurm_wait = false;          ///< wait for the gradebook job (sbatch --wait)
  fs::path gates;                   ///< --gates: the calibration file (default beside bin/)
  bool gpu_only = false;            ///< --gpu-only: GPU mode without banksim's checks first
  // Shared by every exercise and student of this run (set in main).
  const grader::Backend* checker = nullptr;  ///< hybrid GPU mode: banksim on the CPU
  grader::BaselineCache* baselines = nullptr;
  const grader::GateRow* gate_row = nullptr;  ///< the GPU gate table's row graded with
};

/// The calibration file the grader reads: --gates, else gpu-gates.json beside the grader's bin/.
fs::path gates_file(const Options& o) {
  return o.gates.empty() ? exe_dir().parent_path() / "gpu-gates.json" : o.gates;
}

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

/// An exercise the grader could not grade: every point lost, with the reason in the build gate.
grader::ExerciseResult not_graded(const grader::ExerciseSpec& spec, const grader::Backend& backend,
                                  const std::string& why) {
  grader::ExerciseResult er;
  er.spec = &spec;
  er.mode = backend.capabilities().name;
  er.timed = backend.capabilities().can_time;
  grader::Gate g;
  g.name = "builds";
  g.max_score = spec.points.total();
  g.reason = why;
  er.gates.push_back(g);
  er.conflicts_summary = er.speedup_summary = "-";
  return er;
}

/// Grades the submission folder `dir`. `shown` names it in messages (JudgeOptions::
/// shown_submission): the relative path a student typed, or empty (a class's students and uploads
/// know their files by their path inside the folder).
grader::SubmissionResult grade_submission(const fs::path& dir, const std::string& name,
                                          const std::vector<const grader::ExerciseSpec*>& list,
                                          const grader::Backend& backend, const Options& o,
                                          const fs::path& work, int jobs = 1,
                                          const fs::path& shown = {}) {
  const auto start = std::chrono::steady_clock::now();
  grader::SubmissionResult r;
  r.name = name;
  r.mode_description = backend.describe();
  r.facts = backend.facts();
  // The points and thresholds this grading used, so that a gradebook says what it measured.
  std::vector<std::string> ids;
  for (const auto* spec : list) ids.push_back(spec->id);
  r.facts["policy"] = grader::policy_json(ids);
  r.facts["isolation"] = o.no_sandbox ? "none (--no-sandbox)"
                         : grader::isolation() == grader::Isolation::kUid
                             ? "uid (no namespaces: own uid, rlimits, killed with its run)"
                             : "bubblewrap";
  if (!o.isolation_note.empty()) r.facts["isolation_fallback"] = o.isolation_note;
  if (o.gate_row != nullptr) r.facts["gate_row"] = o.gate_row->to_json();
  if (backend.capabilities().can_time) {
    r.facts["hybrid"] = o.checker != nullptr ? "banksim on the CPU at every size, then the GPU"
                                             : "GPU only (--gpu-only)";
  }
  grader::JudgeOptions jo;
  jo.checker = o.checker;
  jo.baselines = o.baselines;
  jo.gate_row = o.gate_row;
  jo.seed = o.seed;
  jo.verbose = o.verbose;
  jo.work_dir = fs::absolute(work);
  jo.shown_submission = shown;
  fs::create_directories(work);
  // One submission's exercises run `jobs` at a time (a class runs its students in parallel
  // instead); results keep the registry's order.
  std::vector<std::optional<grader::ExerciseResult>> done(list.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&]() {
    for (std::size_t i = next++; i < list.size(); i = next++) {
      const auto* spec = list[i];
      try {
        done[i] = grader::grade_exercise(*spec, dir, backend, jo);
      } catch (const std::exception& e) {
        // The grader's own failure on one exercise must not lose the others.
        done[i] = not_graded(*spec, backend,
                             std::string("the grader could not grade this exercise: ") + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(jobs, static_cast<int>(list.size())); ++t) {
    pool.emplace_back(worker);
  }
  worker();
  for (auto& t : pool) t.join();
  for (auto& e : done) r.exercises.push_back(std::move(*e));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

void write_results(const grader::SubmissionResult& r, const fs::path& out, const Options& o) {
  fs::create_directories(out);
  // Student output can hold any bytes: invalid UTF-8 is replaced, never an exception.
  std::ofstream(out / "results.json") << grader::to_gradescope(r, o.hide_secret_sizes)
                                             .dump(2, ' ', false, json::error_handler_t::replace)
                                      << "\n";
  if (o.format.find("prairielearn") != std::string::npos) {
    std::ofstream(out / "prairielearn.json")
        << grader::to_prairielearn(r).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  }
  if (o.format.find("junit") != std::string::npos) {
    std::ofstream(out / "junit.xml") << grader::to_junit(r);
  }
}

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

/// One CSV field per RFC 4180 (quoted when it holds a comma, quote or line break; quotes
/// doubled), with a leading ' before =, +, -, @ so that spreadsheets never run it as a formula.
std::string csv_field(const std::string& v) {
  std::string f = v;
  if (!f.empty() &&
      (f[0] == '=' || f[0] == '+' || f[0] == '-' || f[0] == '@' || f[0] == '\t' || f[0] == '\r')) {
    f = "'" + f;
  }
  if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// What a result depends on besides the student's files: the grader's version and binary, the
/// exercise selection, every selected exercise's points, sizes and thresholds, mode and format.
std::string grading_key(const Options& o, const std::vector<const grader::ExerciseSpec*>& list) {
  std::string all = std::string(COURSE_VERSION) + "|" + o.mode + "|" + o.format + "|" +
                    (o.no_sandbox ? "nosandbox" : "sandbox");
  std::error_code ec;
  all += "|" + std::to_string(fs::file_size("/proc/self/exe", ec)) + "|" +
         std::to_string(fs::last_write_time(fs::read_symlink("/proc/self/exe", ec), ec)
                            .time_since_epoch()
                            .count());
  // The policy in force (points of every gate, every threshold): a changed weight re-grades.
  std::vector<std::string> ids;
  for (const auto* e : list) ids.push_back(e->id);
  all += "|" + grader::policy_json(ids).dump();
  for (const auto* e : list) {
    all += fmt::format("|{}:{}:{}/{}:{}:{}:{}", e->id, e->points.total(),
                       e->thresholds.cpu_min_cost_ratio, e->thresholds.cpu_min_cost_ratio_clang,
                       e->thresholds.gpu.empty() ? 0.0 : e->thresholds.gpu[0].min_ratio,
                       e->thresholds.min_shared_fraction, e->sizes.size());
    for (const auto& sz : e->sizes) all += "," + sz.label;
  }
  return all;
}

/// A fingerprint of a student's files and the grading key (for resuming a class). Reads at
/// most 4 MiB per file and 10,000 entries, never follows links (a link counts by its target's
/// name), and never throws: an unreadable entry counts by its name and error.
std::string fingerprint(const fs::path& dir, const std::string& key) {
  std::string all = key;
  std::vector<std::string> items;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (std::size_t n = 0; !ec && it != end && n < 10000; it.increment(ec), ++n) {
    const fs::path p = it->path();
    const std::string rel = p.lexically_relative(dir).string();
    if (it.depth() > 16) it.disable_recursion_pending();
    const fs::file_status st = it->symlink_status(ec);
    if (ec) {
      items.push_back(rel + "\x1f!" + ec.message());
      ec.clear();
      continue;
    }
    if (fs::is_symlink(st)) {
      items.push_back(rel + "\x1f->" + fs::read_symlink(p, ec).string());
      ec.clear();
    } else if (fs::is_regular_file(st)) {
      std::ifstream in(p, std::ios::binary);
      std::string data(std::size_t{4} << 20, '\0');
      in.read(data.data(), static_cast<std::streamsize>(data.size()));
      data.resize(static_cast<std::size_t>(in.gcount()));
      items.push_back(rel + "\x1f" + std::to_string(fs::file_size(p, ec)) + "\x1f" + data);
      ec.clear();
    }
  }
  std::sort(items.begin(), items.end());
  for (const auto& i : items) all += i + "\x1e";
  return fmt::format("{:016x}", std::hash<std::string>{}(all));
}

/// The grader's own record of a student's results: the fingerprint and a hash of the
/// results.json it wrote. Results are kept on resume only when both still match.
std::string record_of(const std::string& fp, const std::string& results_text) {
  return fp + " " + fmt::format("{:016x}", std::hash<std::string>{}(results_text));
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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
        const fs::path record_file = out / ".record";
        std::string old;
        std::getline(std::ifstream(record_file) >> std::ws, old);
        const std::string results_text = read_text(out / "results.json");
        if (!results_text.empty() && old == record_of(fp, results_text)) {
          resumed = true;  // unchanged since the grader's own last run: keep it
        } else {
          fs::remove(record_file);
          const grader::SubmissionResult r = grade_submission(students[i], name, list, backend, o,
                                                              o.out / "work" / output_name(raw));
          write_results(r, out, o);
          std::ofstream(record_file) << record_of(fp, read_text(out / "results.json")) << "\n";
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
      }
      const std::size_t d = ++done;
      std::lock_guard<std::mutex> lock(print);
      // On a terminal one line that updates; in a log (a batch job, CI) one line per student
      // with its time, so that a run cut short still says how far it got.
      static const bool tty = isatty(STDERR_FILENO) != 0;
      std::cerr << (tty ? fmt::format("\r[{}/{}] {} {}{}", d, students.size(),
                                      resumed ? "unchanged, kept" : "graded", name,
                                      std::string(20, ' '))
                        : fmt::format("[{}/{}] {} {} in {:.1f} s ({:.0f} s into the class)\n", d,
                                      students.size(), resumed ? "unchanged, kept" : "graded", name,
                                      std::chrono::duration<double>(
                                          std::chrono::steady_clock::now() - student_start)
                                          .count(),
                                      std::chrono::duration<double>(
                                          std::chrono::steady_clock::now() - class_start)
                                          .count()))
                << std::flush;
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, o.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (o.task >= 0) return 0;  // the gradebook job writes it when every task has ended
  if (!o.merge_only) std::cerr << "\n";
  // The gradebook (RFC 4180), from every student's results.json (fresh or kept): a row for
  // every folder, empty scores when its results are missing.
  const fs::path tmp = o.out / "gradebook.csv.tmp";
  {
    std::ofstream csv(tmp, std::ios::binary);
    csv << "student,total,max";
    for (const auto* e : list) csv << "," << csv_field(e->slug);
    csv << "\r\n";
    for (const auto& s : students) {
      const std::string raw = s.filename().string();
      const json j =
          json::parse(read_text(o.out / output_name(raw) / "results.json"), nullptr, false);
      csv << csv_field(display_name(raw));
      if (!j.is_object()) {
        csv << ",,";
        for (std::size_t k = 0; k < list.size(); ++k) csv << ",";
        csv << "\r\n";
        continue;
      }
      std::map<std::string, int> per;
      for (const auto& t : j.value("tests", json::array())) {
        per[t.value("name", "").substr(0, 2)] += t.value("score", 0);
      }
      csv << "," << j.value("score", 0) << "," << j["extra_data"].value("max_score", 0);
      for (const auto* e : list) csv << "," << per[e->id];
      csv << "\r\n";
    }
  }
  fs::rename(tmp, o.out / "gradebook.csv");
  std::cout << fmt::format("graded {} submissions into {}/<student>/results.json and {}\n",
                           students.size(), o.out.string(), (o.out / "gradebook.csv").string());
  return 0;
}

/// What each level of hint gives.
constexpr const char* kHintNames[] = {"a nudge", "the bank arithmetic", "the fix's shape"};

/// The course site's generated pages: the exercises (skeletons, gates, sizes) and, for the
/// instructor edition, the solutions and grading specs. From the exercise table, so they
/// cannot drift.
/// The site's page on the gates, their points and every exercise's thresholds, from the registry
/// (so it cannot drift from what the grader applies).
void write_grading_page(const fs::path& file) {
  std::ofstream g(file);
  const bool from_registry = grader::policy_source() == "registry defaults";
  g << "# How a submission is graded: gates, points and thresholds {#grading}\n\n"
       "Every exercise is earned gate by gate in this order. The same gates run "
       "in both modes: on a machine with an NVIDIA GPU (`make grade MODE=gpu`, the judge of truth) "
       "and without one (CPU mode: the kernel runs under banksim, the course's emulator). The "
       "report says which mode ran and why a gate was skipped. Numbers below are the grading "
       "policy in force when this page was built: "
    << (from_registry ? std::string("the registry's defaults (`registry/src/registry.cpp`)")
                      : "`" + fs::path(grader::policy_source()).filename().string() +
                            "` over the registry's defaults")
    << ", the same table the grader reads.\n\n"
       "| gate | what it checks | CPU mode | GPU mode |\n"
       "|---|---|---|---|\n"
       "| builds | the file compiles, and passes the submission policy (kernels, device "
       "functions, constants and types only) | clang, host code | nvcc, sm_90 |\n"
       "| correct | the output equals the CPU reference on every size, fresh random inputs "
       "each run, outputs poisoned beforehand so unwritten elements show | banksim | the GPU, "
       "also the timed run's output |\n"
       "| no problems | no race, out-of-bounds or misaligned access, read of shared memory "
       "nobody wrote, divergent barrier or warp primitive, crash | banksim's shadow memory | "
       "compute-sanitizer: memcheck, racecheck, synccheck, initcheck |\n"
       "| uses shared memory | the data really flows through shared memory (at least a share "
       "of the baseline's shared requests), and the global traffic the exercise's tiles exist to "
       "fix is fixed: the transposes' stores coalesced, both GEMM operands staged | banksim | "
       "Nsight Compute |\n"
       "| conflict-free | every shared-memory instruction at its ideal wavefronts (per "
       "instruction, not averaged per line) | banksim's bank model | Nsight Compute's "
       "per-instruction counters |\n"
       "| speed-up | faster than the conflicting baseline (or close enough to a stated "
       "ceiling: cudaMemcpy, cuBLAS) by the exercise's threshold | cost model: shared wavefronts, "
       "global sectors and warp shuffles | timed: median of 15, L2 flushed, same run as the "
       "reference |\n\n"
       "Host-code exercises (01) have two gates: builds and correct.\n\n"
       "**Points measure the fix.** Correct and no-problems are preconditions: a wrong or racy "
       "kernel keeps only its build points, however fast; the later gates are skipped (\"needs a "
       "correct kernel first\"). A kernel that bypasses shared memory, or the part of the "
       "exercise its tiles are for, fails uses-shared-memory, and conflict-free and speed-up are "
       "skipped with it: avoiding the conflict by not doing the exercise earns nothing. The "
       "report names the cause first and the failing size, which changes every run: learning it "
       "gains nothing.\n\n"
       "## Points per exercise {#grading-points}\n\n"
       "| exercise | builds | correct | no problems | uses shared memory | conflict-free | "
       "speed-up | total |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : grader::exercises()) {
    const course::Points& p = e.points;
    const bool host = e.kind == grader::ExerciseSpec::Kind::kHost;
    auto cell = [&](int v) { return host ? std::string("-") : std::to_string(v); };
    g << "| \\ref exercise-" << e.id << " \"" << e.id << "\" | " << p.builds << " | " << p.correct
      << " | " << cell(p.no_problems) << " | " << cell(p.uses_shared) << " | " << cell(p.conflicts)
      << " | " << cell(p.speed) << " | " << p.total() << " |\n";
  }
  g << "\nWith the registry's defaults the untouched skeleton scores 0; deleting the TODO "
       "line(s) and nothing else (the conflicting baseline the skeleton hands over) at most 10; a "
       "correct kernel that keeps the conflict at most 40; a correct conflict-free kernel below "
       "the speed gate 70 to 90; the solution 100 (`tests/test_grader.cpp`, \"points measure the "
       "fix\").\n\n"
       "## The instructor's grading policy {#grading-policy}\n\n"
       "The points and thresholds are the instructor's. A TOML file overrides the registry's "
       "defaults: `grading-policy.toml` at the course's root (read by `make grade` and by the "
       "`make gradescope`, `prairielearn` and `classroom` bundles, which copy it), or any file "
       "given with `make grade POLICY=FILE` (`grade --policy FILE`). Every results.json says "
       "which policy graded it (`extra_data.policy`). A key the grader does not know, or a value "
       "of the wrong kind, stops grading before it starts, naming the file, line and key "
       "(`grading-policy.toml:12: exercises.04.weights.speed must be a non-negative "
       "integer`).\n\n"
       "~~~{.toml}\n"
       "[kernels.weights]           # every kernel exercise (02-08), before its own table\n"
       "correct = 10                # builds correct no_problems uses_shared conflicts speed\n"
       "conflicts = 60\n\n"
       "[exercises.04.weights]      # one exercise\n"
       "speed = 30\n\n"
       "[exercises.04.thresholds]   # cpu_min_cost_ratio cpu_min_cost_ratio_clang\n"
       "cpu_min_cost_ratio = 2.0    # min_shared_fraction max_store_sectors_per_ideal\n"
       "gpu = { \"NVIDIA H200\" = 1.9 }  # max_load_requests_vs_baseline; gpu: per GPU name\n"
       "~~~\n\n"
       "## Thresholds per exercise {#grading-thresholds}\n\n"
       "The CPU speed gate is the baseline's modelled cost over yours; the GPU gate is measured "
       "time, the reference's over yours, on the GPU named (other GPUs fall back to the CPU "
       "model's gate, and the report says so).\n\n"
       "| exercise | sizes (first: the CPU speed size) | CPU speed gate | GPU speed gate | "
       "uses shared memory |\n|---|---|---|---|---|\n";
  for (const auto& e : grader::exercises()) {
    if (e.kind != grader::ExerciseSpec::Kind::kKernel) continue;
    std::string sizes;
    for (const auto& sz : e.sizes) sizes += (sizes.empty() ? "" : ", ") + sz.label;
    std::string gpu;
    for (const course::GpuGate& gate : e.thresholds.gpu) {
      gpu += (gpu.empty() ? "" : "<br>") + gate.gpu + ": " + fmt::format("{:g}", gate.min_ratio) +
             "x " +
             (e.thresholds.reference == course::SpeedReference::kBaseline
                  ? "the baseline"
                  : std::string(course::to_string(e.thresholds.reference))) +
             " (" + gate.source + ")";
    }
    g << "| \\ref exercise-" << e.id << " \"" << e.id << "\" | " << sizes << " | "
      << fmt::format("{:g}", e.thresholds.cpu_min_cost_ratio) << "x"
      << (e.thresholds.cpu_min_cost_ratio_clang > 0
              ? fmt::format(" ({:g}x with clang's widths)", e.thresholds.cpu_min_cost_ratio_clang)
              : std::string())
      << " | " << (gpu.empty() ? "CPU model's gate" : gpu) << " | "
      << fmt::format("{:g}", e.thresholds.min_shared_fraction) << " x the baseline's requests"
      << (e.thresholds.max_store_sectors_per_ideal > 0
              ? fmt::format("; global store sectors at most {:g} x the coalesced ideal",
                            e.thresholds.max_store_sectors_per_ideal)
              : std::string())
      << (e.thresholds.max_load_requests_vs_baseline > 0
              ? fmt::format("; global load requests at most {:g} x the baseline's",
                            e.thresholds.max_load_requests_vs_baseline)
              : std::string())
      << " |\n";
  }
  g << "\nWhere the thresholds come from, measured on an NVIDIA H200: the measurements pages "
       "under \\ref reference \"Reference\". Where CPU and GPU mode disagree the GPU is right; "
       "the known cases are listed in the student corpus (`tests/students/students.json`, "
       "`known_gap`).\n";
}

void write_doc_pages(const fs::path& dir, bool instructor) {
  fs::create_directories(dir);
  // The skeletons shown are the ones generated from solutions/ (what students get), never
  // exercises/ as an instructor's working tree happens to hold it. A student's copy has no
  // solutions/: there exercises/ is the course's own.
  std::map<std::string, std::string> generated;
  if (fs::is_directory(grader::course_root() / "solutions")) {
    auto g = grader::generate_skeletons(grader::course_root());
    if (!g.errors.empty()) {
      std::string all;
      for (const auto& l : g.errors) all += "\n  " + l;
      throw std::runtime_error("the skeletons cannot be generated from solutions/:" + all);
    }
    for (const auto& l : g.differs) std::cerr << "grade docs-pages: " << l << "\n";
    generated.insert(g.files.begin(), g.files.end());
  }
  std::ofstream ex(dir / "exercises.md");
  ex << "# Exercises {#exercises}\n\n"
        "Each exercise belongs to a lesson. Copy nothing: edit the file in `exercises/`, then run "
        "`make grade EXERCISE=NN`. Every exercise is worth 100 points; \\ref grading "
        "\"How a submission is graded\" explains the gates, their points and thresholds.\n\n";
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
    if (const auto it = generated.find(e.slug + "/" + e.file); it != generated.end()) {
      ex << "```{." << fs::path(e.file).extension().string().substr(1) << "}\n"
         << it->second << "```\n\n";
    } else {
      ex << "\\include exercises/" << e.slug << "/" << e.file << "\n\n";
    }
    // Folded, one level at a time (the same as `make hint EXERCISE=NN LEVEL=k`).
    for (std::size_t k = 0; k < e.hints.size(); ++k) {
      // One line: Doxygen would close the block at a paragraph break.
      ex << "<details><summary>Hint " << k + 1 << ": " << kHintNames[k] << "</summary>"
         << e.hints[k] << "</details>\n\n";
    }
  }
  write_grading_page(dir / "grading.md");
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
      so << "| CPU speed gate (cost model: shared wavefronts + global sectors, vs the baseline) | "
            ">= "
         << e.thresholds.cpu_min_cost_ratio << "x"
         << (e.thresholds.cpu_min_cost_ratio_clang > 0
                 ? fmt::format(" ({:g}x with clang's widths)",
                               e.thresholds.cpu_min_cost_ratio_clang)
                 : std::string())
         << " |\n";
      for (const course::GpuGate& g : e.thresholds.gpu) {
        so << "| GPU speed gate on " << g.gpu << " (timed, "
           << (e.thresholds.reference == course::SpeedReference::kBaseline
                   ? "baseline ms / yours"
                   : std::string(course::to_string(e.thresholds.reference)) + " ms / yours")
           << ") | >= " << g.min_ratio << " (" << g.source << ") |\n";
      }
      so << "| shared requests floor | " << e.thresholds.min_shared_fraction << " x baseline |\n\n";
    }
    so << "\\include solutions/" << e.slug << "/" << e.file << "\n\n";
  }
}

}  // namespace

/// The first folder on the way to `p` that other users may not enter (no o+x), or "": there the
/// sandbox reaches `p` only through its own binds.
std::string closed_ancestor(const fs::path& p) {
  fs::path walk;
  for (const auto& part : fs::absolute(p)) {
    walk /= part;
    struct stat st;
    if (stat(walk.c_str(), &st) != 0) break;  // not there yet: created by the grader
    if (S_ISDIR(st.st_mode) && (st.st_mode & S_IXOTH) == 0) return walk.string();
  }
  return "";
}

/// The folder of this executable.
fs::path exe_dir() {
  std::error_code ec;
  return fs::canonical("/proc/self/exe", ec).parent_path();
}

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
    if (hint->parsed()) {
      const auto* e = course::find_exercise(hint_id.size() == 1 ? "0" + hint_id : hint_id);
      if (e == nullptr) {
        std::cerr << "grade hint: no exercise '" << hint_id << "' (see `grade list`)\n";
        return 2;
      }
      std::cout << fmt::format("Exercise {} — {}\n", e->id, e->title);
      for (int k = 0; k < hint_level && k < static_cast<int>(e->hints.size()); ++k) {
        std::cout << fmt::format("\nHint {} ({}): {}\n", k + 1, kHintNames[k],
                                 e->hints[static_cast<std::size_t>(k)]);
      }
      if (hint_level < static_cast<int>(e->hints.size())) {
        std::cout << fmt::format("\nOne more: make hint EXERCISE={} LEVEL={}\n", e->id,
                                 hint_level + 1);
      }
      return 0;
    }
    if (list->parsed()) {
      for (const auto& e : grader::exercises()) {
        std::cout << fmt::format("{}  {:<22} {}\n", e.id, e.slug, e.title);
      }
      return 0;
    }
    if (!o.submissions.empty() && o.scheduler == "slurm") return submit_slurm(o);
    std::string why;
    if (!o.no_sandbox && o.isolation == "uid") grader::set_isolation(grader::Isolation::kUid);
    if (!o.no_sandbox && o.isolation == "auto" && !grader::sandbox_available(&why)) {
      if (geteuid() != 0) {
        std::cerr << "grade: no sandbox for student code: " << why << "\n";
        return 2;
      }
      std::cerr << "grade: bubblewrap cannot run here (" << why.substr(0, 160)
                << "...): student code runs under uid isolation instead (its own uid, "
                   "rlimits, killed with its run; no namespaces)\n";
      grader::set_isolation(grader::Isolation::kUid);
      o.isolation_note = "bubblewrap unavailable: " + why.substr(0, 240);
    }
    if (!o.no_sandbox && grader::isolation() == grader::Isolation::kUid) {
      // Under uid isolation student code (and the compiler it drives) sees what any user may
      // read: an #include built by macros could reach the solutions. Platform packages ship none.
      const fs::path sol = grader::course_root() / "solutions";
      struct stat st {};
      if (stat(sol.c_str(), &st) == 0 && (st.st_mode & (S_IROTH | S_IXOTH)) != 0) {
        std::cerr << "grade: uid isolation lets student code read what others may: " << sol.string()
                  << " is readable by others. Remove it from a grading copy of the course "
                     "(the platform packages have none) or chmod o-rwx it\n";
        return 2;
      }
    }
    if (!o.no_sandbox && geteuid() == 0) {
      // As root the sandboxes run as uids 61000-61064. A folder on the way that they cannot
      // enter (a clone in /root, or in a `mktemp -d` folder) is passed through the sandbox's own
      // binds (grader/src/sandbox_reach.hpp); a trial run says here, once, when that is
      // impossible (no CAP_SYS_ADMIN), instead of in every exercise's row.
      fs::create_directories(o.out);
      std::string closed;
      for (const fs::path& p : {fs::absolute(o.out), grader::course_root(), exe_dir()}) {
        if (closed.empty()) closed = closed_ancestor(p);
      }
      if (!closed.empty()) {
        grader::SandboxSpec trial;
        trial.ro_paths = {exe_dir(), fs::absolute(o.out)};
        trial.wall_seconds = 20;
        trial.sandbox_uid = 61064;  // the compile steps' uid: nothing runs as it before grading
        const std::string worker = (exe_dir() / "grade_worker").string();
        const grader::SandboxResult r =
            grader::run_sandboxed({"/bin/sh", "-c", "test -x \"$0\"", worker}, trial);
        if (!r.error.empty() || r.exit_status != 0) {
          std::cerr << "grade: the sandbox runs student code as another user (uids "
                       "61000-61064), who cannot enter "
                    << closed << ", and a trial sandbox could not reach " << worker
                    << " through its own binds either (status " << r.exit_status << "): " << r.error
                    << " " << r.stderr_text.substr(0, 500)
                    << "\nKeep the course, the grader and --out under folders others may enter "
                       "(e.g. /srv or /tmp), or grade your own code with NO_SANDBOX=1\n";
          return 2;
        }
      }
    }
    grader::BackendOptions bo;
    bo.sandbox = !o.no_sandbox;
    bo.cache_dir = fs::absolute(o.out) / "banksim-cache";
    bo.widths = o.widths;
    const auto backend = grader::make_backend(o.mode, bo, &why);
    if (!backend) {
      std::cerr << "grade: " << why << "\n";
      return 2;
    }
    if (calib->parsed()) {
      CalibrateOptions co;
      co.gates_file = gates_file(o);
      co.work_dir = fs::absolute(o.out) / "calibrate";
      co.runs = calib_runs;
      return run_calibrate(co, *backend, selected(o));
    }
    // Hybrid GPU mode: banksim checks first, on the CPU (grader/judge.hpp, JudgeOptions::checker).
    std::unique_ptr<grader::Backend> checker;
    grader::BaselineCache baselines;
    std::optional<grader::GateRow> row;
    o.baselines = &baselines;
    if (backend->capabilities().can_time) {
      if (!o.gpu_only) {
        // banksim compiles each submission with clang for the CPU: without it every student
        // would lose the build gate, so say so once, here.
        const char* clang = std::getenv("BANKSIM_CLANG");
        const std::string cmd = std::string("command -v ") +
                                (clang != nullptr && *clang != '\0' ? clang : "clang++") +
                                " >/dev/null 2>&1";
        if (std::system(cmd.c_str()) != 0) {
          std::cerr << "grade: MODE=gpu checks every submission with banksim on the CPU first, "
                       "which needs clang++ (Debian/Ubuntu: apt-get install clang; "
                       "scripts/deps.sh grade-gpu): install it, or grade with the GPU's tools "
                       "alone (GPU_ONLY=1, --gpu-only)\n";
          return 2;
        }
        checker = grader::make_cpu_backend(bo);
      }
      o.checker = checker.get();
      const auto caps = backend->capabilities();
      auto table = grader::GateTable::load(gates_file(o), &why);
      if (table)
        row = grader::choose_gate_row(*table, caps.gpu_name, caps.compute_capability, selected(o),
                                      &why);
      if (!row) {
        std::cerr << "grade: " << why << "\n";
        return 2;
      }
      o.gate_row = &*row;
      std::cerr << fmt::format("grade: GPU mode on {} (compute capability {}): gate row {}\n",
                               caps.gpu_name, caps.compute_capability, row->origin);
    }
    if (!o.submissions.empty()) return grade_class(o, *backend);
    if (!fs::is_directory(o.submission)) {
      std::cerr << "grade: " << o.submission.string()
                << " is not a folder: give SUBMISSION=DIR laid out like exercises/\n";
      return 2;
    }
    const auto exercises = selected(o);
    const grader::SubmissionResult r = grade_submission(
        o.submission, o.submission.filename().string(), exercises, *backend, o, o.out / "work",
        // Exercises side by side: on a GPU, the GPU lock keeps timings and profiles one at a
        // time (gpu_lock.hpp) while builds and banksim's checks overlap them.
        std::max(1, o.jobs), o.submission.is_relative() ? o.submission : fs::path());
    write_results(r, o.out, o);
    std::cout << grader::render_table(r, o.verbose);
    std::cout << fmt::format("\nresults: {}\n", (o.out / "results.json").string());
    // For CI-style platforms (GitHub Classroom's command grader): exit 1 below full marks.
    if (o.require_full && r.score() < r.max_score()) return 1;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "grade: " << e.what() << "\n";
    return 2;
  }
}
