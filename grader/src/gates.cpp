// gates.cpp - the gates of an exercise, one small function each, and the table that orders them
// (docs/design.md, "How an exercise is graded"). Each reads the Evidence the judge collected and
// the verdicts of the gates before it.
// Over 600 lines on purpose: every gate and the one table that orders them, in one place, so that
// the order of judging and the evidence each gate reads are read together.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "bankmodel/diagram.hpp"
#include "cost_model.hpp"
#include "gates_internal.hpp"

namespace grader::internal {
namespace fs = std::filesystem;
using State = Verdict::State;
using course::GpuGate;
using course::SpeedReference;
using course::Thresholds;
using course::to_string;

namespace {

bool passed(const std::vector<Gate>& earlier, GateId id) {
  for (const Gate& g : earlier) {
    if (g.id == id) return g.passed;
  }
  return false;
}

/// "exercises/04-padding-transpose/transpose.cu:27": a place in the student's file by the name
/// the student knows it (JudgeOptions::shown_submission); another file (a header) by its name.
std::string where(const Evidence& ev, const std::string& file, int line, int column = 0) {
  const std::string f =
      file.empty() || file == ev.shown ? ev.shown : fs::path(file).filename().string();
  if (line <= 0) return f;
  return column > 0 ? fmt::format("{}:{}:{}", f, line, column) : fmt::format("{}:{}", f, line);
}

/// Why a gate after no_problems is not judged ("" when it is): correct and no_problems are the
/// preconditions of every later gate; uses_shared is one of conflicts and speed, whose verdicts
/// mean nothing for a kernel that avoids the conflict or gains its speed by not doing the
/// exercise. The texts start with "needs" (tools read that as a skip).
std::string precondition_missing(const std::vector<Gate>& earlier, bool needs_shared_path) {
  if (!passed(earlier, GateId::kCorrect) || !passed(earlier, GateId::kNoProblems)) {
    return "needs a correct kernel first";
  }
  if (needs_shared_path && !passed(earlier, GateId::kUsesShared)) {
    return "needs the data to flow through shared memory first (see uses_shared)";
  }
  return "";
}

/// Why size k produced no result.
std::string run_failure(const Evidence& ev, std::size_t k) {
  const Size& size = ev.sizes[k];
  const WorkerOutcome& w = ev.student[k];
  const std::string msg = child_message(w);
  if (msg.find("is not done yet") != std::string::npos) {
    return fmt::format("{}: {}", size.label, msg);
  }
  const protocol::RunReport& rep = ev.run(k);
  if (!w.report.runs.empty() && w.report.run_received[0]) {
    for (const protocol::Issue& issue : rep.issues) {
      if (issue.kind == "timeout" || issue.kind == "crash" || issue.kind == "usage" ||
          (issue.kind == "out_of_bounds" && !rep.completed)) {
        return fmt::format(
            "{}: {}{}", size.label, issue.message.empty() ? issue.kind : issue.message,
            issue.line > 0 ? fmt::format(" (near {})", where(ev, issue.file, issue.line)) : "");
      }
    }
    if (!rep.completed) {
      return fmt::format("{}: the launch stopped early: {}", size.label,
                         rep.abort_reason.empty() ? "unknown reason" : rep.abort_reason);
    }
  }
  if (w.timed_out) {
    return fmt::format(
        "{}: the kernel ran past the grader's time limit ({:.0f} s) and was stopped: an infinite "
        "loop?",
        size.label, w.seconds);
  }
  if (w.exit_status != 0) {
    return fmt::format("{}: the program stopped (exit status {}){}{}", size.label, w.exit_status,
                       msg.empty() ? "" : ": ", msg);
  }
  return fmt::format("{}: the kernel produced no output", size.label);
}

double value_at(const std::vector<unsigned char>& b, course::Elem e, std::size_t i) {
  switch (e) {
    case course::Elem::kF32: {
      float f;
      std::memcpy(&f, b.data() + i * 4, 4);
      return f;
    }
    case course::Elem::kF64: {
      double d;
      std::memcpy(&d, b.data() + i * 8, 8);
      return d;
    }
    case course::Elem::kI32: {
      std::int32_t v;
      std::memcpy(&v, b.data() + i * 4, 4);
      return v;
    }
  }
  return 0;
}

/// Scalar i of buffer b as the kernel indexes it: "out[513] (row 1, column 1)", "out[5].y".
std::string element_name(const course::BufferSpec& b, const Size& size, std::size_t i) {
  const auto w = static_cast<std::size_t>(std::clamp(b.vector_width, 1, 4));
  const std::size_t e = i / w;
  std::string name = fmt::format("{}[{}]", b.name, e);
  if (w > 1) name += std::string(".") + "xyzw"[i % w];
  const std::size_t len = b.row_length ? b.row_length(size) : 0;
  if (len > 0) name += fmt::format(" (row {}, column {})", e / len, e % len);
  return name;
}

/// The input element holding exactly the bytes of `value` (a scalar of `elem`), named as
/// element_name() does, or "": a wrong output that is an input's value shows which element the
/// kernel read instead (a copy instead of a transpose reads in[r][c] for out[r][c]).
std::string input_with(const course::Workload& w, const Size& size, const Buffers& inputs,
                       course::Elem elem, const unsigned char* value) {
  const std::size_t eb = course::elem_bytes(elem);
  if (elem == course::Elem::kI32) return "";  // small integers repeat: no evidence
  const std::vector<unsigned char> zero(eb, 0);
  if (std::memcmp(value, zero.data(), eb) == 0) return "";  // zero is not a fingerprint
  for (std::size_t j = 0; j < w.buffers.size() && j < inputs.size(); ++j) {
    if (w.buffers[j].output || w.buffers[j].elem != elem) continue;
    const std::vector<unsigned char>& in = inputs[j];
    for (std::size_t i = 0; i + eb <= in.size(); i += eb) {
      if (std::memcmp(in.data() + i, value, eb) == 0)
        return element_name(w.buffers[j], size, i / eb);
    }
  }
  return "";
}

/// Checks one run's buffers: outputs against the reference, inputs unchanged. The message names
/// how many elements are wrong, the first one (index, row and column, yours and the expected
/// value, and which input elements those are when they are inputs' values) and the size.
std::string check_buffers(const ExerciseSpec& spec, const Size& size, const Buffers& got,
                          const Buffers& expected, const Buffers& inputs) {
  const course::Workload& w = spec.workload;
  for (std::size_t j = 0; j < w.buffers.size(); ++j) {
    const course::BufferSpec& b = w.buffers[j];
    if (got[j].size() != expected[j].size()) return size.label + ": buffer size changed";
    if (!b.output) {
      if (got[j] != inputs[j]) {
        return fmt::format(
            "{}: the kernel modified its input `{}`: inputs are read-only (write only to the "
            "output)",
            size.label, b.name);
      }
      continue;
    }
    const std::size_t eb = course::elem_bytes(b.elem);
    const std::vector<unsigned char> poison(eb, 0xff);
    const std::size_t n = got[j].size() / eb;
    std::size_t wrong = 0;
    std::size_t unwritten = 0;
    std::size_t first = n;
    for (std::size_t i = 0; i < n; ++i) {
      const double g = value_at(got[j], b.elem, i);
      const double want = value_at(expected[j], b.elem, i);
      const bool poisoned = std::memcmp(got[j].data() + i * eb, poison.data(), eb) == 0;
      const bool ok = !poisoned && std::isfinite(g) &&
                      std::abs(g - want) <= w.tolerance_abs + w.tolerance_rel * std::abs(want);
      if (!ok) {
        ++wrong;
        unwritten += poisoned ? 1 : 0;
        if (first == n) first = i;
      }
    }
    if (wrong > 0) {
      const double g = value_at(got[j], b.elem, first);
      const double want = value_at(expected[j], b.elem, first);
      const bool never = std::memcmp(got[j].data() + first * eb, poison.data(), eb) == 0;
      const std::string yours =
          never ? "" : input_with(w, size, inputs, b.elem, got[j].data() + first * eb);
      const std::string theirs =
          input_with(w, size, inputs, b.elem, expected[j].data() + first * eb);
      std::string origin;
      if (!yours.empty() && !theirs.empty()) {
        origin = fmt::format("; your value is {}, the expected one is {}", yours, theirs);
      } else if (!yours.empty()) {
        origin = fmt::format("; your value is {}", yours);
      } else if (!theirs.empty() && !never) {
        origin = fmt::format("; the expected value is {}", theirs);
      }
      return fmt::format(
          "{}: {} of {} elements of `{}` are wrong{}; the first is {} = {}, expected {:.6g}{}{}",
          size.label, wrong, n, b.name,
          unwritten > 0 ? fmt::format(" ({} never written)", unwritten) : "",
          element_name(b, size, first),
          never || !std::isfinite(g) ? std::string("(never written)") : fmt::format("{:.6g}", g),
          want, origin,
          unwritten == wrong && unwritten > 0
              ? " -- does every element get a thread that writes it, for every size?"
              : "");
    }
  }
  return "";
}

/// GEMM outputs at a large k differ elementwise between two correct fp32 summation orders (an
/// element near 0 has the error of its partial sums), so two GPU outputs are compared by
/// ||got - want|| / ||want|| < 1e-5, as the benchmarks do.
std::string relative_norm_check(const ExerciseSpec& spec, const Buffers& got, const Buffers& want) {
  const course::Workload& w = spec.workload;
  for (std::size_t j = 0; j < w.buffers.size(); ++j) {
    if (!w.buffers[j].output || w.buffers[j].elem != course::Elem::kF32) continue;
    if (got[j].size() != want[j].size())
      return spec.gpu_timing_size.label + ": buffer size changed";
    double num = 0, den = 0;
    const std::size_t n = got[j].size() / 4;
    for (std::size_t i = 0; i < n; ++i) {
      const double g = value_at(got[j], course::Elem::kF32, i);
      const double r = value_at(want[j], course::Elem::kF32, i);
      num += (g - r) * (g - r);
      den += r * r;
    }
    const double rel = std::sqrt(num / (den > 0 ? den : 1.0));
    if (!(rel < 1e-5)) {
      return fmt::format("{}: `{}` differs: relative error {:.3g} (needs < 1e-5)",
                         spec.gpu_timing_size.label, w.buffers[j].name, rel);
    }
  }
  return "";
}

struct Totals {
  std::uint64_t wavefronts = 0;
  std::uint64_t ideal = 0;
  std::uint64_t load_requests = 0;
  std::uint64_t store_requests = 0;
};

/// Shared wavefronts and global sectors of a run, as the cost model reads them.
Counts counts(const protocol::RunReport& report) {
  Counts c;
  c.shuffles = report.warp_shuffles;
  for (const protocol::Site& s : report.sites) c.wavefronts += s.wavefronts;
  for (const protocol::GlobalSite& g : report.global_sites) {
    if (g.op == bankmodel::Op::kLoad) {
      c.load_sectors += g.sectors;
      c.load_fresh += g.fresh;
      c.load_lines += g.lines;
    } else {
      c.store_sectors += g.sectors;
      c.store_ideal += g.ideal;
    }
  }
  return c;
}

/// The global access that wastes the most sectors, as advice ("" if every one is coalesced).
std::string worst_global(const Evidence& ev, const protocol::RunReport& report, bool lines) {
  const protocol::GlobalSite* worst = nullptr;
  for (const protocol::GlobalSite& g : report.global_sites) {
    if (g.sectors > 2 * g.ideal &&
        (worst == nullptr || g.sectors - g.ideal > worst->sectors - worst->ideal))
      worst = &g;
  }
  if (worst == nullptr || worst->requests == 0) return "";
  const double per = static_cast<double>(worst->sectors) / static_cast<double>(worst->requests);
  const double ideal = static_cast<double>(worst->ideal) / static_cast<double>(worst->requests);
  const std::string at = lines && worst->line > 0 ? where(ev, worst->file, worst->line)
                                                  : fmt::format("`{}`", worst->source);
  return fmt::format(
      "; the global {} at {} touches {:.1f} 32-byte sectors per warp request where {:.1f} would "
      "do (uncoalesced: neighbouring lanes should access neighbouring addresses)",
      bankmodel::to_string(worst->op), at, per, ideal);
}

Totals totals(const protocol::RunReport& report) {
  Totals t;
  for (const protocol::Site& s : report.sites) {
    t.wavefronts += s.wavefronts;
    t.ideal += s.ideal;
    (s.op == bankmodel::Op::kLoad ? t.load_requests : t.store_requests) += s.requests;
  }
  return t;
}

bankmodel::Request request_from(const protocol::Site& s) {
  bankmodel::Request r(s.worst_op, s.worst_width);
  for (int t = 0; t < bankmodel::kWarpSize; ++t) {
    const long long o = s.worst_offsets[static_cast<std::size_t>(t)];
    if (o >= 0) r.set_lane(t, static_cast<std::uint64_t>(o));
  }
  return r;
}

/// One access's conflict degree: its wavefronts over its ideal (1 when it has no ideal).
double site_ways(const protocol::Site& s) {
  return s.ideal == 0 ? 1.0 : static_cast<double>(s.wavefronts) / static_cast<double>(s.ideal);
}

/// The access with the most ways (the first of equals), or nullptr when every one is at its
/// ideal.
const protocol::Site* worst_site(const std::vector<protocol::Site>& sites) {
  const protocol::Site* worst = nullptr;
  for (const protocol::Site& s : sites) {
    if (site_ways(s) > 1.0 && (worst == nullptr || site_ways(s) > site_ways(*worst))) worst = &s;
  }
  return worst;
}

/// How many ways an access conflicts, as the lessons count it: its worst warp request's
/// wavefronts over that request's ideal (banksim keeps that request: a 32-way column read stays
/// 32-way though edge tiles' partial warps pull its average to 31.67); from counters alone (a
/// GPU's), the average over its requests.
double site_degree(const protocol::Site& s) {
  return s.has_worst ? bankmodel::count_wavefronts(request_from(s)).ways() : site_ways(s);
}

/// "32-way", "2.5-way", "1.06-way".
std::string ways_text(double ways) {
  return fmt::format("{:.3g}-way", ways);
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

// ---- The gates ------------------------------------------------------------------------------

Verdict builds(const Evidence& ev, const std::vector<Gate>&) {
  const WorkerOutcome& w = ev.student.front();
  if (w.report.compile.ok) return Verdict::pass("compiles");
  std::string why = w.report.compile.message;
  if (why.empty()) {
    if (w.timed_out) {
      why = "building and loading the file took longer than the time limit";
    } else if (w.exit_status == 0) {
      why =
          "the program exited (status 0) while loading your file, before any kernel ran: does it "
          "call exit() at start-up, e.g. in a global initialiser?";
    } else {
      const std::string msg = child_message(w);
      why = fmt::format(
          "the program stopped (exit status {}) while loading your file, before any kernel "
          "ran{}{}",
          w.exit_status, msg.empty() ? "" : ": ", msg);
    }
  }
  return Verdict::fail(why, w.report.compile.diagnostics);
}

/// How early a problem is in a chain of causes: a divergent barrier makes races and
/// uninitialised reads appear; a misaligned or out-of-bounds access stops the GPU. The first
/// cause is what a report names first.
int cause_rank(const std::string& kind) {
  static const char* order[] = {"barrier_divergence", "misaligned", "out_of_bounds", "race",
                                "uninitialized_read"};
  for (int i = 0; i < 5; ++i) {
    if (kind == order[i]) return i;
  }
  return kind == "unchecked" ? 6 : 5;  // a check that did not finish: after real findings
}

/// One problem the worker or the sanitizers found, with every size it showed at.
struct Found {
  int rank = 0;                    ///< cause_rank(kind)
  std::string kind;                ///< race, out_of_bounds, ...
  std::string place;               ///< where(): "exercises/04-padding-transpose/transpose.cu:27"
  int other_line = 0;              ///< the other access of a race, the other barrier
  std::string message;             ///< as found at the first size
  std::vector<std::size_t> sizes;  ///< indices into Evidence::sizes, in order
  /// "n=512: exercises/04-padding-transpose/transpose.cu:22: race: ... (also at n=70, n=33)".
  std::string text(const Evidence& ev) const {
    std::string t =
        fmt::format("{}: {}: {}: {}", ev.sizes[sizes.front()].label, place, kind, message);
    // banksim names both lines of a race in its message; a sanitizer's may not.
    if (other_line > 0 && message.find("line " + std::to_string(other_line)) == std::string::npos)
      t += fmt::format(" (other access: line {})", other_line);
    if (sizes.size() > 1) {
      std::string also;
      for (std::size_t i = 1; i < sizes.size(); ++i)
        also += (also.empty() ? "" : ", ") + ev.sizes[sizes[i]].label;
      t += " (also at " + also + ")";
    }
    return t;
  }
  bool at(std::size_t k) const { return std::find(sizes.begin(), sizes.end(), k) != sizes.end(); }
};

/// Every error the worker or the sanitizers found while the kernel ran (not crashes and
/// timeouts, which `correct` reports as failed runs), causes first, each once: the same kind at
/// the same lines at several sizes is one finding (its message is the first size's).
std::vector<Found> problems_found(const Evidence& ev) {
  std::vector<Found> found;
  for (std::size_t k = 0; k < ev.student.size(); ++k) {
    for (const protocol::Issue& issue : ev.run(k).issues) {
      if (issue.severity != protocol::Severity::kError) continue;
      if (issue.kind == "timeout" || issue.kind == "crash" || issue.kind == "usage") continue;
      const std::string place = where(ev, issue.file, issue.line);
      auto same = std::find_if(found.begin(), found.end(), [&](const Found& f) {
        return f.kind == issue.kind && f.place == place && f.other_line == issue.other_line;
      });
      if (same == found.end()) {
        found.push_back(
            {cause_rank(issue.kind), issue.kind, place, issue.other_line, issue.message, {k}});
      } else if (!same->at(k)) {
        same->sizes.push_back(k);
      }
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.rank < b.rank; });
  return found;
}

Verdict correct(const Evidence& ev, const std::vector<Gate>& earlier) {
  if (!passed(earlier, GateId::kBuilds)) return Verdict::skip("needs a kernel that builds");
  const ExerciseSpec& spec = *ev.spec;
  // What the output shows comes first: how many elements are wrong, the first one and the size
  // (or why a size gave no output); a problem found at that size follows as its probable cause.
  std::vector<std::pair<std::size_t, std::string>> wrong;  // size index, message
  bool no_output = false;  // the first wrong size gave no output (a crash, a hang)
  for (std::size_t k = 0; k < ev.sizes.size(); ++k) {
    if (k >= ev.student.size() || !ev.student[k].ran(0)) {
      no_output = no_output || wrong.empty();
      wrong.emplace_back(
          k, k < ev.student.size() ? run_failure(ev, k) : ev.sizes[k].label + ": not run");
      continue;
    }
    const std::string msg =
        check_buffers(spec, ev.sizes[k], ev.run(k).buffers, ev.expected[k], ev.inputs[k]);
    if (!msg.empty()) wrong.emplace_back(k, msg);
  }
  // At the timed size (GPU), the student's output must equal the baseline's for the same inputs.
  if (wrong.empty() && !ev.timing_baseline.empty()) {
    const std::string msg = ev.timing_student.empty() ? spec.gpu_timing_size.label +
                                                            ": the kernel failed at the timed size"
                            : spec.workload.rate == course::Rate::kFlops
                                ? relative_norm_check(spec, ev.timing_student, ev.timing_baseline)
                                : check_buffers(spec, spec.gpu_timing_size, ev.timing_student,
                                                ev.timing_baseline, ev.timing_inputs);
    if (!msg.empty()) {
      wrong.emplace_back(ev.sizes.size(),
                         msg + " (compared with the baseline's output on the GPU)");
    }
  }
  // Wrong code is wrong even when its output happens to match here: a race, an out-of-bounds,
  // misaligned or uninitialised access, or a divergent barrier fails the exercise past its build
  // points, as the GPU would (it stops, or answers differently another time).
  const std::vector<Found> problems = problems_found(ev);
  if (wrong.empty() && problems.empty()) {
    std::string sizes;
    for (const Size& s : ev.sizes) sizes += (sizes.empty() ? "" : ", ") + s.label;
    if (!ev.timing_baseline.empty()) sizes += ", and " + spec.gpu_timing_size.label + " timed";
    return Verdict::pass("right on every size (" + sizes + ")");
  }
  std::string reason;
  if (wrong.empty()) {
    reason = "the output is right at every size, but " + problems.front().text(ev) +
             " -- the output cannot be trusted while this stays (on the GPU it may differ "
             "another time, or the kernel stop)";
  } else {
    const std::size_t k = wrong.front().first;
    reason = wrong.front().second;
    if (wrong.size() > 1) {
      std::string others;
      for (std::size_t i = 1; i < wrong.size(); ++i) {
        others += (others.empty() ? "" : ", ") + (wrong[i].first < ev.sizes.size()
                                                      ? ev.sizes[wrong[i].first].label
                                                      : spec.gpu_timing_size.label);
      }
      reason += ". Also wrong at " + others;
    }
    // The first cause found at the size shown; for a size that gave no output, the first
    // found at all (a sanitizer names the access that stopped the GPU, whichever size it was).
    auto cause =
        std::find_if(problems.begin(), problems.end(), [&](const Found& f) { return f.at(k); });
    if (cause == problems.end() && no_output) cause = problems.begin();
    if (cause != problems.end()) {
      reason +=
          fmt::format(". Probable cause: {}: {}: {}", cause->place, cause->kind, cause->message);
    } else if (!problems.empty()) {
      const Found& f = problems.front();
      reason += fmt::format(". Also found at {}: {}: {} (see no_problems)",
                            ev.sizes[f.sizes.front()].label, f.place, f.kind);
    }
  }
  std::string detail;
  for (const auto& m : wrong) detail += m.second + "\n";
  for (const Found& f : problems) detail += f.text(ev) + "\n";
  return Verdict::fail(reason, detail);
}

Verdict no_problems(const Evidence& ev, const std::vector<Gate>& earlier) {
  if (!passed(earlier, GateId::kBuilds)) return Verdict::skip("needs a kernel that builds");
  bool all_ran = true;
  for (std::size_t k = 0; k < ev.student.size(); ++k) all_ran = all_ran && ev.student[k].ran(0);
  const std::vector<Found> found = problems_found(ev);
  if (!found.empty()) {
    std::string detail;
    for (const Found& f : found) detail += f.text(ev) + "\n";
    return Verdict::fail(found.front().text(ev) +
                             (found.size() > 1 ? fmt::format(" (+{} more)", found.size() - 1) : ""),
                         detail);
  }
  if (!all_ran) return Verdict::fail("the kernel did not finish on every size (see correct)");
  return Verdict::pass(
      "no race, out-of-bounds or misaligned access, uninitialised read or divergent barrier");
}

/// The hardware counters of the measured size could not be read (GPU mode): why, or "".
std::string counters_missing(const Evidence& ev) {
  if (!ev.student.empty() && !ev.student[0].counters_error.empty()) {
    return ev.student[0].counters_error;
  }
  if (ev.have_baseline && !ev.baseline.counters_error.empty()) return ev.baseline.counters_error;
  return "";
}

Verdict counters_verdict(const std::string& why) {
  return Verdict::fail(
      "the shared-memory counters could not be read on this grading machine (a grading-machine "
      "problem, not your code; the instructor should check Nsight Compute): " +
      why.substr(0, 300));
}

Verdict conflicts(const Evidence& ev, const std::vector<Gate>& earlier) {
  if (const std::string why = precondition_missing(earlier, true); !why.empty()) {
    return Verdict::skip(why);
  }
  if (const std::string why = counters_missing(ev); !why.empty()) return counters_verdict(why);
  const ExerciseSpec& spec = *ev.spec;
  const protocol::RunReport& rep = ev.run(0);
  const Totals st = totals(rep);
  // The table and the reasons speak of one access's ways (its wavefronts per request over its
  // ideal), the worst one's: an average over a kernel's accesses (16.5x for one 32-way access
  // and one conflict-free) names no access a student could fix.
  const protocol::Site* base_worst =
      ev.have_baseline ? worst_site(ev.baseline.report.runs[0].sites) : nullptr;
  const std::string base_text =
      base_worst == nullptr ? std::string("conflict-free") : ways_text(site_degree(*base_worst));
  Verdict v;
  // Every access at its ideal at every size (a pad that fixes only one size does not count).
  const protocol::Site* worst = nullptr;
  double worst_ways = ev.caps.conflict_tolerance;
  std::string worst_size;
  for (std::size_t k = 0; k < ev.student.size(); ++k) {
    for (const protocol::Site& s : ev.run(k).sites) {
      const double ways = site_ways(s);
      if (ways > worst_ways) {
        worst_ways = ways;
        worst = &s;
        worst_size = ev.sizes[k].label;
      }
    }
  }
  if (st.load_requests + st.store_requests == 0) {
    v = Verdict::fail(
        "the kernel makes no shared-memory access, so there is no conflict to fix: stage the "
        "data through shared memory as the exercise asks");
  } else if (worst == nullptr) {
    v = Verdict::pass(fmt::format(
        "every shared access at its ideal: {} wavefronts for {} requests (the baseline's worst "
        "access is {})",
        st.wavefronts, st.load_requests + st.store_requests, base_text));
    if (ev.options.verbose && ev.have_baseline) {
      // The bank picture of the access the exercise is about: the baseline's worst line.
      for (const protocol::Site& s : ev.baseline.report.runs[0].sites) {
        if (s.wavefronts > s.ideal && s.has_worst) {
          v.detail = "The baseline's conflicting access, now fixed:\n" +
                     bankmodel::render_text(
                         bankmodel::analyze(request_from(s)),
                         fmt::format("{}:{}: {}", spec.baseline.file, s.line, s.source));
          break;
        }
      }
    }
  } else {
    const bankmodel::Analysis a =
        worst->has_worst ? bankmodel::analyze(request_from(*worst))
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
    const double requests = std::max<double>(1.0, static_cast<double>(worst->requests));
    v = Verdict::fail(
        fmt::format(
            "{}{}: `{}` ({} of {} bytes) is {}: {:.2f} wavefronts per request, ideal {:.2f}{}; "
            "try: {}",
            worst_size == ev.sizes[0].label ? "" : worst_size + ": ",
            worst->line > 0 ? where(ev, worst->file, worst->line, worst->column)
                            : "an instruction of " + ev.shown + " (Nsight Compute)",
            worst->source.size() > 60 ? worst->source.substr(0, 57) + "..." : worst->source,
            bankmodel::to_string(worst->op), worst->bytes, ways_text(site_degree(*worst)),
            static_cast<double>(worst->wavefronts) / requests,
            static_cast<double>(worst->ideal) / requests, bank_text, spec.conflict_hint),
        ev.options.verbose && worst->has_worst
            ? bankmodel::render_text(
                  a, fmt::format("{}: {}", where(ev, worst->file, worst->line), worst->source))
            : "");
  }
  // The table's column: the worst access's ways where the reason names it.
  if (st.load_requests + st.store_requests == 0) {
    v.summary = "no shared access";
  } else if (worst == nullptr) {
    v.summary = "none (baseline " + base_text + ")";
  } else {
    v.summary = ways_text(site_degree(*worst)) +
                (worst->line > 0 ? " at line " + std::to_string(worst->line) : std::string());
  }
  // Which widths banksim counted (nvcc's SASS, or clang's and why): a merge nvcc makes (two
  // 4-byte reads into one LDS.64) changes a count. The model's working, for VERBOSE only.
  if (!rep.widths.empty() && v.state != Verdict::State::kSkip && ev.options.verbose) {
    v.detail += (v.detail.empty() || v.detail.back() == '\n' ? "" : "\n") +
                std::string("access widths: ") + rep.widths + "\n";
  }
  return v;
}

Verdict speed(const Evidence& ev, const std::vector<Gate>& earlier) {
  if (const std::string why = precondition_missing(earlier, true); !why.empty()) {
    return Verdict::skip(why);
  }
  const ExerciseSpec& spec = *ev.spec;
  if (!ev.have_baseline) {
    const std::string msg = ev.baseline.report.compile.message.empty()
                                ? child_message(ev.baseline)
                                : ev.baseline.report.compile.message;
    return Verdict::fail("the baseline kernel could not be run: " + msg);
  }
  const Thresholds& th = spec.thresholds;
  // The row graded with: the one chosen for this GPU (calibrated or committed), else the
  // registry's row for its name.
  GpuGate chosen;
  const GpuGate* row = nullptr;
  if (ev.caps.can_time && ev.options.gate_row != nullptr) {
    const GateRow& r = *ev.options.gate_row;
    if (const auto it = r.min_ratio.find(spec.id); it != r.min_ratio.end()) {
      chosen = {r.gpu + (r.compute_capability.empty() ? "" : " (" + r.compute_capability + ")") +
                    (r.origin.rfind("calibrated", 0) == 0 ? " calibrated" : ""),
                it->second, r.origin};
      row = &chosen;
    }
  } else if (ev.caps.can_time) {
    row = th.gpu_gate(ev.gpu_name);
  }
  Verdict v;
  if (row != nullptr) {
    // Timed on a GPU the gate table has a row for.
    const bool vs_baseline = th.reference == SpeedReference::kBaseline;
    const double ref_ms = vs_baseline ? ev.baseline_ms : ev.ceiling_ms;
    const double ratio = ev.student_ms > 0 && ref_ms > 0 ? ref_ms / ev.student_ms : 0.0;
    std::string m;
    if (vs_baseline) {
      m = fmt::format(
          "timed on the GPU at {}: {:.2f}x faster than the baseline ({:.4f} ms vs {:.4f} ms, "
          "median of 15, L2 flushed), needs {:.2f}x ({} row of the gate table)",
          spec.gpu_timing_size.label, ratio, ev.baseline_ms, ev.student_ms, row->min_ratio,
          row->gpu);
    } else {
      m = fmt::format(
          "timed on the GPU at {}: {:.0f}% of {}'s speed ({:.4f} ms vs {:.4f} ms; the baseline "
          "{:.4f} ms; median of 15, L2 flushed), needs {:.0f}% ({} row of the gate table)",
          spec.gpu_timing_size.label, 100 * ratio, to_string(th.reference), ev.student_ms, ref_ms,
          ev.baseline_ms, 100 * row->min_ratio, row->gpu);
    }
    if (!vs_baseline && ev.ceiling_ms <= 0) {
      return Verdict::fail("the grading machine could not time " +
                           std::string(to_string(th.reference)) +
                           " to compare with (a grading-machine problem, not your code)");
    }
    v = ratio >= row->min_ratio ? Verdict::pass(m) : Verdict::fail(m);
    v.summary = vs_baseline
                    ? fmt::format("{:.2f}x", ratio)
                    : fmt::format("{:.0f}% {}", 100 * ratio,
                                  th.reference == SpeedReference::kMemcpy ? "memcpy" : "cuBLAS");
    return v;
  }
  // The cost model: banksim's counts in CPU mode, the GPU's own counters on a GPU without a row.
  if (ev.caps.can_time) {
    if (const std::string why = counters_missing(ev); !why.empty()) return counters_verdict(why);
  }
  const Counts sc = counts(ev.run(0));
  const Counts bc = counts(ev.baseline.report.runs[0]);
  const double ratio = sc.cost() <= 0 ? 0.0 : bc.cost() / sc.cost();
  const std::string how =
      ev.caps.can_time
          ? fmt::format(
                "no measured gate for this GPU ({}): judged by the cost model on its "
                "counters",
                ev.gpu_name.empty() ? "unknown" : ev.gpu_name)
          : std::string("CPU mode, judged by the cost model (no GPU here; a GPU run times it)");
  // The gate for the widths counted: a GPU's counters are nvcc's by nature.
  const double need = th.cpu_gate(ev.caps.can_time || ev.run(0).nvcc_widths);
  std::string m =
      fmt::format("{}: {:.2f}x cheaper than the baseline, needs {:.2f}x", how, ratio, need);
  const bool ok = ratio >= need;
  if (!ok) m += worst_global(ev, ev.run(0), ev.caps.sites_have_lines);
  v = ok ? Verdict::pass(m) : Verdict::fail(m);
  // The model's working (its sector and line counts), for VERBOSE only.
  if (ev.options.verbose)
    v.detail = fmt::format("cost model: yours {}; baseline {}\n", sc.describe(), bc.describe());
  v.summary = fmt::format("{:.2f}x (model)", ratio);
  return v;
}

/// Global load requests and the store sectors over their coalesced ideal, of one run.
struct GlobalTraffic {
  std::uint64_t load_requests = 0;
  std::uint64_t store_sectors = 0;
  std::uint64_t store_ideal = 0;
  double store_ratio() const {
    return store_ideal == 0 ? 1.0
                            : static_cast<double>(store_sectors) / static_cast<double>(store_ideal);
  }
};

GlobalTraffic global_traffic(const protocol::RunReport& report) {
  GlobalTraffic t;
  for (const protocol::GlobalSite& g : report.global_sites) {
    if (g.op == bankmodel::Op::kLoad) {
      t.load_requests += g.requests;
    } else {
      t.store_sectors += g.sectors;
      t.store_ideal += g.ideal;
    }
  }
  return t;
}

/// Why the global traffic the exercise exists to fix was not fixed (Thresholds: the transposes'
/// store sectors against the coalesced ideal, the GEMMs' load requests against the baseline's,
/// which stages both operands), or "".
std::string global_bypass(const Evidence& ev) {
  const Thresholds& th = ev.spec->thresholds;
  const GlobalTraffic st = global_traffic(ev.run(0));
  if (th.max_store_sectors_per_ideal > 0 && st.store_ratio() > th.max_store_sectors_per_ideal) {
    return fmt::format(
        "but the global stores touch {:.1f}x the 32-byte sectors coalesced stores need ({} for "
        "{}; at most {:g}x): the tile exists so that a warp writes a row of the output, and "
        "writing the transpose straight to global memory bypasses it{}",
        st.store_ratio(), st.store_sectors, st.store_ideal, th.max_store_sectors_per_ideal,
        worst_global(ev, ev.run(0), ev.caps.sites_have_lines));
  }
  if (th.max_load_requests_vs_baseline > 0 && ev.have_baseline) {
    const GlobalTraffic bt = global_traffic(ev.baseline.report.runs[0]);
    const double ratio = bt.load_requests == 0 ? 0.0
                                               : static_cast<double>(st.load_requests) /
                                                     static_cast<double>(bt.load_requests);
    if (ratio > th.max_load_requests_vs_baseline) {
      return fmt::format(
          "but it makes {} global load requests, {:.1f}x the baseline's {} (at most {:g}x): "
          "both operands must be staged in shared-memory tiles, each element read from global "
          "memory once per tile; an operand read straight from global memory in the inner loop "
          "bypasses its tile",
          st.load_requests, ratio, bt.load_requests, th.max_load_requests_vs_baseline);
    }
  }
  return "";
}

/// What global_bypass() measured, when the exercise judges it ("" otherwise).
std::string global_summary(const Evidence& ev) {
  const Thresholds& th = ev.spec->thresholds;
  const GlobalTraffic st = global_traffic(ev.run(0));
  std::string out;
  if (th.max_store_sectors_per_ideal > 0) {
    out += fmt::format("; global stores {:.2f}x the coalesced sectors (at most {:g}x)",
                       st.store_ratio(), th.max_store_sectors_per_ideal);
  }
  if (th.max_load_requests_vs_baseline > 0 && ev.have_baseline) {
    const GlobalTraffic bt = global_traffic(ev.baseline.report.runs[0]);
    out += fmt::format("; {} global load requests, the baseline's {} (at most {:g}x)",
                       st.load_requests, bt.load_requests, th.max_load_requests_vs_baseline);
  }
  return out;
}

Verdict uses_shared(const Evidence& ev, const std::vector<Gate>& earlier) {
  if (const std::string why = precondition_missing(earlier, false); !why.empty()) {
    return Verdict::skip(why);
  }
  if (!ev.have_baseline)
    return Verdict::fail("the baseline kernel could not be run to compare with");
  if (const std::string why = counters_missing(ev); !why.empty()) return counters_verdict(why);
  const ExerciseSpec& spec = *ev.spec;
  const Totals st = totals(ev.run(0));
  const Totals bt = totals(ev.baseline.report.runs[0]);
  const double f = spec.thresholds.min_shared_fraction;
  const auto need_loads = static_cast<std::uint64_t>(f * static_cast<double>(bt.load_requests));
  const auto need_stores = static_cast<std::uint64_t>(f * static_cast<double>(bt.store_requests));
  const std::string m =
      fmt::format("{} shared load and {} store requests (at least {} and {} needed)",
                  st.load_requests, st.store_requests, need_loads, need_stores);
  if (st.load_requests < need_loads || st.store_requests < need_stores || st.load_requests == 0) {
    return Verdict::fail(m +
                         ": the exercise is about staging data through shared memory; a kernel "
                         "that bypasses it does not count");
  }
  // Shared traffic alone can be dummy traffic: the global traffic the tiles exist to fix must be
  // fixed too, or the part it belongs to was bypassed.
  if (const std::string why = global_bypass(ev); !why.empty()) return Verdict::fail(m + "; " + why);
  return Verdict::pass(m + global_summary(ev));
}

Verdict host_correct(const Evidence& ev, const std::vector<Gate>& earlier) {
  if (!passed(earlier, GateId::kBuilds)) return Verdict::skip("needs a file that builds");
  const WorkerOutcome& w = ev.student.front();
  const auto& results = w.report.host_results;
  if (results.size() != ev.host_cases.size()) {
    const std::string msg = child_message(w);
    return Verdict::fail(
        msg.empty()
            ? fmt::format("the function stopped the program (exit status {})", w.exit_status)
            : msg);
  }
  std::size_t wrong = 0;
  std::string first;
  for (std::size_t i = 0; i < ev.host_cases.size(); ++i) {
    bankmodel::Request r(bankmodel::Op::kLoad, 4);
    for (int t = 0; t < 32; ++t) {
      const long long a = ev.host_cases[i][static_cast<std::size_t>(t)];
      if (a >= 0) r.set_lane(t, static_cast<std::uint64_t>(a));
    }
    const int want = bankmodel::count_wavefronts(r).wavefronts;
    if (results[i] != want && ++wrong == 1) {
      std::string lanes;
      for (int t = 0; t < 32; ++t) {
        const long long a = ev.host_cases[i][static_cast<std::size_t>(t)];
        lanes += (t ? "," : "") + (a < 0 ? std::string("-") : std::to_string(a));
      }
      first = fmt::format("for byte addresses [{}] the answer is {} wavefronts, yours returned {}",
                          lanes, want, results[i]);
    }
  }
  if (wrong == 0) {
    return Verdict::pass(fmt::format(
        "{} requests, all right (the edge cases: no active lane, one lane, one word, one bank; "
        "then random ones)",
        ev.host_cases.size()));
  }
  return Verdict::fail(
      fmt::format("{} of {} requests wrong; {}", wrong, ev.host_cases.size(), first));
}

}  // namespace

const std::vector<GateRule>& kernel_gates() {
  static const std::vector<GateRule> table = {
      {GateId::kBuilds, builds},          {GateId::kCorrect, correct},
      {GateId::kNoProblems, no_problems}, {GateId::kUsesShared, uses_shared},
      {GateId::kConflicts, conflicts},    {GateId::kSpeed, speed}};
  return table;
}

const std::vector<GateRule>& host_gates() {
  static const std::vector<GateRule> table = {{GateId::kBuilds, builds},
                                              {GateId::kCorrect, host_correct}};
  return table;
}

std::string child_message(const WorkerOutcome& w) {
  std::istringstream in(w.output_tail);
  std::string line;
  std::string todo;
  std::string banksim;
  std::string last;
  while (std::getline(in, line)) {
    if (line.find("is not done yet") != std::string::npos) todo = line;
    if (line.rfind("banksim: ", 0) == 0) banksim = line.substr(9);
    if (line.find_first_not_of(" \t") != std::string::npos) last = line;
  }
  if (!todo.empty()) return todo;
  if (!banksim.empty()) return banksim;
  // Otherwise the last line the process printed, cut to a readable length.
  return w.exit_status != 0 && last.size() > 200 ? last.substr(0, 197) + "..."
         : w.exit_status != 0                    ? last
                                                 : "";
}

const protocol::RunReport& Evidence::run(std::size_t k) const {
  static const protocol::RunReport kEmpty;
  if (k >= student.size() || student[k].report.runs.empty()) return kEmpty;
  return student[k].report.runs[0];
}

bool Evidence::compiled() const {
  return !student.empty() && student.front().report.compile.ok;
}

}  // namespace grader::internal
