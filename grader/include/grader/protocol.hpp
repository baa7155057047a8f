// grader/protocol.hpp - the worker protocol: what the grader asks a worker process (the CPU
// worker, grader/tools/grade_worker.cpp, running banksim; the GPU worker, gpu/worker.cu) and
// what the worker reports back. One header, one serializer, for both workers and the judge.
//
// Transport. The grader writes the request (request.json and the input buffers runK_bufJ.in)
// into the worker's folder, and opens a pipe whose write end the worker inherits as the file
// descriptor given by `--report-fd N`. The worker writes its report to that pipe as frames:
//   "BSR1" | u32 type | u64 length | payload
//   type 1 kCompile   JSON {"ok", "message", "diagnostics"}
//   type 2 kRun       JSON RunReport (without buffers), one per run, with "run": K
//   type 3 kBuffer    u32 run, u32 buffer, then the buffer's bytes after the run
//   type 4 kHost      int32 results of a host exercise, one per case
// The grader never reads a file the worker could write: everything it trusts arrives through
// the pipe, and decode() validates it against the request (indices, sizes, JSON shape).
// Header-only, nlohmann-json only, so nvcc builds the GPU worker with it on a bare machine.
/// \file
/// The worker protocol: what the grader asks a worker process and what the worker reports back.
#pragma once

#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bankmodel/bank_model.hpp"

/// The worker protocol between the judge and its worker processes (JSON).
namespace grader::protocol {

/// A kernel argument: a buffer's device pointer, or an int.
struct Arg {
  int buffer = -1;      ///< >= 0: index of the buffer
  long long value = 0;  ///< otherwise the int passed
};

/// One launch: geometry, buffer sizes (contents in runK_bufJ.in), arguments.
struct RunSpec {
  std::array<unsigned, 3> grid{1, 1, 1};   ///< blocks in the grid, x y z
  std::array<unsigned, 3> block{1, 1, 1};  ///< threads per block, x y z
  std::size_t smem = 0;                    ///< bytes of dynamic shared memory
  double timeout_s = 10.0;                 ///< banksim's own time limit for this launch
  std::vector<std::size_t> buffer_bytes;   ///< one per buffer
  std::vector<Arg> args;                   ///< the kernel's arguments, in order
};

/// What a request runs: kernels (banksim or the GPU) or a host function on cases.
enum class RequestKind { kKernel, kHost };
/// How bad an issue is: an error fails the run's correctness, a warning is only shown.
enum class Severity { kError, kWarning };

/// "kernel" or "host", the wire's name of a request kind.
inline const char* to_string(RequestKind k) {
  return k == RequestKind::kHost ? "host" : "kernel";
}
/// "error" or "warning", the wire's name of a severity.
inline const char* to_string(Severity s) {
  return s == Severity::kWarning ? "warning" : "error";
}

/// The request kind `text` names. @throws std::runtime_error naming any other text.
inline RequestKind parse_request_kind(const std::string& text) {
  if (text == "kernel") return RequestKind::kKernel;
  if (text == "host") return RequestKind::kHost;
  throw std::runtime_error("a request of unknown kind '" + text + "' (expected kernel or host)");
}
/// The severity `text` names. @throws std::runtime_error naming any other text.
inline Severity parse_severity(const std::string& text) {
  if (text == "error") return Severity::kError;
  if (text == "warning") return Severity::kWarning;
  throw std::runtime_error("an issue of unknown severity '" + text +
                           "' (expected error or warning)");
}
/// The op `text` names (bankmodel::to_string's names). @throws std::runtime_error naming any
/// other text; `what` says whose op it is.
inline bankmodel::Op parse_op(const std::string& text, const std::string& what) {
  bankmodel::Op op = bankmodel::Op::kLoad;
  if (!bankmodel::parse_op(text, &op)) {
    throw std::runtime_error(what + " with an unknown op '" + text +
                             "' (expected load, store, atomic or atomic-loop)");
  }
  return op;
}

/// What the worker is asked to do.
struct Request {
  RequestKind kind = RequestKind::kKernel;  ///< kernels or a host function
  std::string file;                         ///< absolute path of the .cu / .cpp file
  std::string kernel;                       ///< kernel or extern "C" function name
  std::vector<std::string> include_dirs;    ///< passed to the compiler as -I
  std::vector<RunSpec> runs;                ///< the launches, in order
  bool timed = false;                       ///< GPU: also time each run (median of 15)
  /// GPU, timed runs: also time a ceiling the same way, in the same process: "memcpy" (device to
  /// device, ceiling_bytes) or "sgemm" (cuBLAS, row-major C = A B^T of ceiling_mnk); "" none.
  std::string ceiling;
  std::size_t ceiling_bytes = 0;                  ///< bytes the "memcpy" ceiling copies
  std::array<long long, 3> ceiling_mnk{0, 0, 0};  ///< M, N, K of the "sgemm" ceiling
  std::size_t host_cases = 0;  ///< host exercises: cases in host_cases.in (32 int64 each)
  /// CPU: whose access widths the bank model sees: "auto" (nvcc's SASS when nvcc and nvdisasm
  /// are found), "nvcc" or "clang" (banksim::Widths), or "probe": clang's, saying whether nvcc's
  /// could differ (RunReport::mergeable).
  std::string widths = "auto";
};

/// One shared-memory access site (banksim: a source line and access; GPU: a SASS instruction).
struct Site {
  std::string file;      ///< source file
  int line = 0;          ///< source line (0: unknown)
  int column = 0;        ///< of the access in its line (0: unknown); one site per access
  std::string source;    ///< the source line, or the SASS instruction
  std::string variable;  ///< the __shared__ variable, when known
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< load, store, atomic, atomic-loop
  int bytes = 4;                            ///< access width
  std::uint64_t requests = 0;               ///< warp-level requests
  std::uint64_t wavefronts = 0;             ///< wavefronts they took, summed
  std::uint64_t ideal = 0;                  ///< their conflict-free minimum, summed
  /// The worst request seen: its op, width and each lane's byte offset (-1: inactive).
  bool has_worst = false;
  bankmodel::Op worst_op = bankmodel::Op::kLoad;  ///< the worst request's op
  int worst_width = 4;                            ///< its access width in bytes
  std::array<long long, 32> worst_offsets{};      ///< each lane's byte offset, -1: inactive
};

/// One global-memory access site: its warp requests to device buffers and the 32-byte sectors
/// they touch (banksim: a source line and access; GPU: an LDG/STG with ncu's theoretical sectors).
struct GlobalSite {
  std::string file;                         ///< source file
  int line = 0;                             ///< source line (0: unknown)
  int column = 0;                           ///< of the access in its line (0: unknown)
  std::string source;                       ///< the source line, or the SASS instruction
  bankmodel::Op op = bankmodel::Op::kLoad;  ///< load or store
  int bytes = 4;                            ///< access width
  std::uint64_t requests = 0;               ///< warp-level requests
  std::uint64_t sectors = 0;                ///< 32-byte sectors they touched, summed
  std::uint64_t ideal = 0;  ///< sectors if the requests' bytes were contiguous and aligned
  std::uint64_t lines = 0;  ///< 128-byte lines (L1 wavefronts; ncu: L1 tag requests)
  std::uint64_t fresh = 0;  ///< sectors not loaded earlier by the warp (GPU: = sectors)
};

/// A problem found while running (race, out_of_bounds, crash, timeout, ...).
struct Issue {
  std::string kind;                      ///< race, out_of_bounds, crash, timeout, ...
  Severity severity = Severity::kError;  ///< error or warning
  std::string file;                      ///< source file
  int line = 0;                          ///< source line (0: unknown)
  int other_line = 0;                    ///< the other access of a race, when known
  std::string message;                   ///< what happened, in words
};

/// The outcome of one run.
struct RunReport {
  bool completed = false;                ///< the launch ran to its end
  std::string abort_reason;              ///< why it stopped early, when it did
  std::vector<Site> sites;               ///< shared-memory access sites
  std::vector<GlobalSite> global_sites;  ///< global-memory access sites
  std::vector<Issue> issues;             ///< problems found
  double median_ms = -1.0;               ///< GPU timing, when asked for
  double ceiling_ms = -1.0;              ///< the request's ceiling, timed alike
  std::string widths;        ///< CPU: whose access widths the counts use, in words ("" on a GPU)
  bool nvcc_widths = false;  ///< CPU: the counts use nvcc's widths (from its SASS)
  /// CPU, counted with clang's widths: two accesses nvcc could merge were seen, so nvcc's widths
  /// could change the counts (the backend then runs the job again with them).
  bool mergeable = false;
  /// Warp shuffle instructions executed (banksim: per warp and call site; GPU: SHFL instructions
  /// executed, from Nsight Compute): the cost model prices them.
  std::uint64_t warp_shuffles = 0;
  std::vector<std::vector<unsigned char>> buffers;  ///< contents after the run (kBuffer frames)
};

/// Whether the file compiled and loaded.
struct CompileReport {
  bool received = false;    ///< a kCompile frame arrived
  bool ok = false;          ///< the file compiled and loaded
  std::string message;      ///< "file.cu:12: error: ..."
  std::string diagnostics;  ///< the compiler's full output
};

/// Everything a worker reported, after validation.
struct Report {
  CompileReport compile;                   ///< the compile result
  std::vector<RunReport> runs;             ///< one per requested run (empty ones if not reported)
  std::vector<bool> run_received;          ///< which runs sent a kRun frame
  std::vector<std::int32_t> host_results;  ///< host exercises: one result per case (kHost frame)
  std::vector<std::string> rejected;       ///< frames refused by validation, and why
};

/// Frame types of the report pipe: compile result, run report (JSON), one buffer, host results.
enum FrameType : std::uint32_t { kCompile = 1, kRun = 2, kBuffer = 3, kHost = 4 };

// ---- JSON ---------------------------------------------------------------------------------------

/// A request as JSON (request_from_json() reads it back).
inline nlohmann::json to_json(const Request& r) {
  nlohmann::json j = {{"kind", to_string(r.kind)},
                      {"file", r.file},
                      {"kernel", r.kernel},
                      {"include_dirs", r.include_dirs},
                      {"timed", r.timed},
                      {"host_cases", r.host_cases},
                      {"widths", r.widths},
                      {"ceiling", r.ceiling},
                      {"ceiling_bytes", r.ceiling_bytes},
                      {"ceiling_mnk", r.ceiling_mnk},
                      {"runs", nlohmann::json::array()}};
  for (const RunSpec& run : r.runs) {
    nlohmann::json args = nlohmann::json::array();
    for (const Arg& a : run.args) {
      args.push_back(a.buffer >= 0 ? nlohmann::json{{"buffer", a.buffer}}
                                   : nlohmann::json{{"int", a.value}});
    }
    j["runs"].push_back({{"grid", run.grid},
                         {"block", run.block},
                         {"smem", run.smem},
                         {"timeout_s", run.timeout_s},
                         {"buffer_bytes", run.buffer_bytes},
                         {"args", args}});
  }
  return j;
}

/// Reads a request; throws nlohmann::json's exceptions on a missing key or wrong type.
inline Request request_from_json(const nlohmann::json& j) {
  Request r;
  r.kind = parse_request_kind(j.at("kind").get<std::string>());
  r.file = j.at("file").get<std::string>();
  r.kernel = j.at("kernel").get<std::string>();
  r.include_dirs = j.value("include_dirs", std::vector<std::string>{});
  r.timed = j.value("timed", false);
  r.host_cases = j.value("host_cases", std::size_t{0});
  r.widths = j.value("widths", "auto");
  r.ceiling = j.value("ceiling", "");
  r.ceiling_bytes = j.value("ceiling_bytes", std::size_t{0});
  r.ceiling_mnk = j.value("ceiling_mnk", std::array<long long, 3>{0, 0, 0});
  for (const auto& jr : j.at("runs")) {
    RunSpec run;
    run.grid = jr.at("grid").get<std::array<unsigned, 3>>();
    run.block = jr.at("block").get<std::array<unsigned, 3>>();
    run.smem = jr.value("smem", std::size_t{0});
    run.timeout_s = jr.value("timeout_s", 10.0);
    run.buffer_bytes = jr.at("buffer_bytes").get<std::vector<std::size_t>>();
    for (const auto& a : jr.at("args")) {
      run.args.push_back(a.contains("buffer") ? Arg{a.at("buffer").get<int>(), 0}
                                              : Arg{-1, a.at("int").get<long long>()});
    }
    r.runs.push_back(run);
  }
  return r;
}

/// A site as JSON; the worst request, when there is one, as "worst" (inactive lanes null).
inline nlohmann::json to_json(const Site& s) {
  nlohmann::json j = {
      {"file", s.file},         {"line", s.line},         {"source", s.source},
      {"variable", s.variable}, {"column", s.column},     {"op", bankmodel::to_string(s.op)},
      {"bytes", s.bytes},       {"requests", s.requests}, {"wavefronts", s.wavefronts},
      {"ideal", s.ideal}};
  if (s.has_worst) {
    nlohmann::json offsets = nlohmann::json::array();
    for (long long o : s.worst_offsets)
      offsets.push_back(o < 0 ? nlohmann::json() : nlohmann::json(o));
    j["worst"] = {
        {"op", bankmodel::to_string(s.worst_op)}, {"width", s.worst_width}, {"offsets", offsets}};
  }
  return j;
}

/// Reads and validates a site. @throws std::runtime_error for an unknown op or a worst request
/// with a bad width or lane offset.
inline Site site_from_json(const nlohmann::json& j) {
  Site s;
  s.file = j.value("file", "");
  s.line = j.value("line", 0);
  s.column = j.value("column", 0);
  s.source = j.value("source", "");
  s.variable = j.value("variable", "");
  s.op = parse_op(j.value("op", "load"), "a site");
  s.bytes = j.value("bytes", 4);
  s.requests = j.value("requests", std::uint64_t{0});
  s.wavefronts = j.value("wavefronts", std::uint64_t{0});
  s.ideal = j.value("ideal", std::uint64_t{0});
  if (j.contains("worst") && j["worst"].is_object()) {
    const auto& w = j["worst"];
    s.has_worst = true;
    s.worst_op = parse_op(w.value("op", "load"), "a site's worst request");
    s.worst_width = w.value("width", 4);
    if ((s.worst_width & (s.worst_width - 1)) != 0 || s.worst_width <= 0 || s.worst_width > 16) {
      throw std::runtime_error("a site's worst request has an unknown width");
    }
    s.worst_offsets.fill(-1);
    const auto& offsets = w.at("offsets");
    for (std::size_t t = 0; t < 32 && t < offsets.size(); ++t) {
      if (offsets[t].is_null()) continue;
      const long long o = offsets[t].get<long long>();
      if (o < 0 || o % s.worst_width != 0 || o >= (1LL << 24)) {
        throw std::runtime_error("a site's worst request has a lane offset out of range");
      }
      s.worst_offsets[t] = o;
    }
  }
  return s;
}

/// An issue as JSON (other_line only when known).
inline nlohmann::json to_json(const Issue& i) {
  nlohmann::json j = {{"kind", i.kind},
                      {"severity", to_string(i.severity)},
                      {"file", i.file},
                      {"line", i.line},
                      {"message", i.message}};
  if (i.other_line > 0) j["other_line"] = i.other_line;
  return j;
}

/// Reads an issue; missing keys take their defaults.
inline Issue issue_from_json(const nlohmann::json& j) {
  Issue i;
  i.kind = j.value("kind", "");
  i.severity = parse_severity(j.value("severity", "error"));
  i.file = j.value("file", "");
  i.line = j.value("line", 0);
  i.other_line = j.value("other_line", 0);
  i.message = j.value("message", "");
  return i;
}

/// A global site as JSON.
inline nlohmann::json to_json(const GlobalSite& s) {
  return {{"file", s.file},
          {"line", s.line},
          {"column", s.column},
          {"source", s.source},
          {"op", bankmodel::to_string(s.op)},
          {"bytes", s.bytes},
          {"requests", s.requests},
          {"sectors", s.sectors},
          {"ideal", s.ideal},
          {"lines", s.lines},
          {"fresh", s.fresh}};
}

/// Reads and validates a global site. @throws std::runtime_error for an unknown op, a bad width
/// or impossible sector counts.
inline GlobalSite global_site_from_json(const nlohmann::json& j) {
  GlobalSite s;
  s.file = j.value("file", "");
  s.line = j.value("line", 0);
  s.column = j.value("column", 0);
  s.source = j.value("source", "");
  const std::string op = j.value("op", "load");
  s.op = parse_op(op, "a global site");
  s.bytes = j.value("bytes", 4);
  if (s.op != bankmodel::Op::kLoad && s.op != bankmodel::Op::kStore)
    throw std::runtime_error("a global site with an unknown op '" + op +
                             "' (expected load or store)");
  s.requests = j.value("requests", std::uint64_t{0});
  s.sectors = j.value("sectors", std::uint64_t{0});
  s.ideal = j.value("ideal", std::uint64_t{0});
  s.lines = j.value("lines", std::uint64_t{0});
  s.fresh = j.value("fresh", s.sectors);
  if (s.bytes <= 0 || s.bytes > 16 || s.sectors > 64 * s.requests || s.ideal > s.sectors ||
      s.lines > s.sectors || s.fresh > s.sectors)
    throw std::runtime_error("a global site with impossible sector counts");
  return s;
}

/// A run report as JSON (without its buffers, which travel as kBuffer frames).
inline nlohmann::json to_json(const RunReport& r) {
  nlohmann::json j = {{"completed", r.completed},
                      {"abort_reason", r.abort_reason},
                      {"median_ms", r.median_ms},
                      {"ceiling_ms", r.ceiling_ms},
                      {"widths", r.widths},
                      {"nvcc_widths", r.nvcc_widths},
                      {"mergeable", r.mergeable},
                      {"warp_shuffles", r.warp_shuffles},
                      {"sites", nlohmann::json::array()},
                      {"global_sites", nlohmann::json::array()},
                      {"issues", nlohmann::json::array()}};
  for (const Site& s : r.sites) j["sites"].push_back(to_json(s));
  for (const GlobalSite& s : r.global_sites) j["global_sites"].push_back(to_json(s));
  for (const Issue& i : r.issues) j["issues"].push_back(to_json(i));
  return j;
}

/// Reads a run report (without buffers), validating its sites.
inline RunReport run_report_from_json(const nlohmann::json& j) {
  RunReport r;
  r.completed = j.at("completed").get<bool>();
  r.abort_reason = j.value("abort_reason", "");
  r.median_ms = j.value("median_ms", -1.0);
  r.ceiling_ms = j.value("ceiling_ms", -1.0);
  r.widths = j.value("widths", "");
  r.nvcc_widths = j.value("nvcc_widths", false);
  r.mergeable = j.value("mergeable", false);
  r.warp_shuffles = j.value("warp_shuffles", std::uint64_t{0});
  for (const auto& s : j.value("sites", nlohmann::json::array()))
    r.sites.push_back(site_from_json(s));
  for (const auto& s : j.value("global_sites", nlohmann::json::array()))
    r.global_sites.push_back(global_site_from_json(s));
  for (const auto& i : j.value("issues", nlohmann::json::array()))
    r.issues.push_back(issue_from_json(i));
  return r;
}

// ---- Frames -----------------------------------------------------------------------------------

/// Writes one frame to `fd` (blocking; retries short writes). Returns false when the pipe broke.
inline bool write_frame(int fd, std::uint32_t type, const void* data, std::size_t bytes) {
  unsigned char head[16];
  std::memcpy(head, "BSR1", 4);
  std::memcpy(head + 4, &type, 4);
  const std::uint64_t len = bytes;
  std::memcpy(head + 8, &len, 8);
  auto all = [fd](const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd, c, n);
      if (w <= 0) return false;
      c += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  };
  return all(head, sizeof head) && all(data, bytes);
}

/// Frames a JSON payload.
inline bool write_json_frame(int fd, std::uint32_t type, const nlohmann::json& j) {
  const std::string s = j.dump();
  return write_frame(fd, type, s.data(), s.size());
}

/// Sends one run's report and its buffers.
inline bool send_run(int fd, std::size_t run, const RunReport& r) {
  nlohmann::json j = to_json(r);
  j["run"] = run;
  bool ok = write_json_frame(fd, kRun, j);
  for (std::size_t b = 0; b < r.buffers.size() && ok; ++b) {
    std::vector<unsigned char> payload(8 + r.buffers[b].size());
    const auto run32 = static_cast<std::uint32_t>(run), buf32 = static_cast<std::uint32_t>(b);
    std::memcpy(payload.data(), &run32, 4);
    std::memcpy(payload.data() + 4, &buf32, 4);
    if (!r.buffers[b].empty()) {
      std::memcpy(payload.data() + 8, r.buffers[b].data(), r.buffers[b].size());
    }
    ok = write_frame(fd, kBuffer, payload.data(), payload.size());
  }
  return ok;
}

/// Sends the compile result.
inline bool send_compile(int fd, bool ok, const std::string& message,
                         const std::string& diagnostics) {
  return write_json_frame(fd, kCompile,
                          {{"ok", ok}, {"message", message}, {"diagnostics", diagnostics}});
}

/// Decodes and validates everything a worker sent for `request`. Frames that break the rules
/// (unknown type, bad JSON or shape, run or buffer index out of range, a buffer of the wrong size,
/// a second report for the same run) are dropped and listed in Report::rejected; the stream
/// stops at the first malformed header.
inline Report decode(const std::string& stream, const Request& request) {
  Report rep;
  rep.runs.resize(request.runs.size());
  rep.run_received.assign(request.runs.size(), false);
  std::vector<std::vector<bool>> got_buffer(request.runs.size());
  for (std::size_t k = 0; k < request.runs.size(); ++k) {
    got_buffer[k].assign(request.runs[k].buffer_bytes.size(), false);
    rep.runs[k].buffers.resize(request.runs[k].buffer_bytes.size());
  }
  std::size_t pos = 0;
  while (pos + 16 <= stream.size()) {
    if (stream.compare(pos, 4, "BSR1") != 0) {
      rep.rejected.push_back("malformed frame header at byte " + std::to_string(pos));
      break;
    }
    std::uint32_t type = 0;
    std::uint64_t len = 0;
    std::memcpy(&type, stream.data() + pos + 4, 4);
    std::memcpy(&len, stream.data() + pos + 8, 8);
    if (len > stream.size() - pos - 16) {
      rep.rejected.push_back("truncated frame at byte " + std::to_string(pos));
      break;
    }
    const std::string payload = stream.substr(pos + 16, len);
    pos += 16 + len;
    try {
      if (type == kCompile) {
        if (rep.compile.received) throw std::runtime_error("a second compile frame");
        const auto j = nlohmann::json::parse(payload);
        rep.compile.received = true;
        rep.compile.ok = j.at("ok").get<bool>();
        rep.compile.message = j.value("message", "");
        rep.compile.diagnostics = j.value("diagnostics", "");
      } else if (type == kRun) {
        const auto j = nlohmann::json::parse(payload);
        const std::size_t k = j.at("run").get<std::size_t>();
        if (k >= rep.runs.size()) throw std::runtime_error("run index out of range");
        if (rep.run_received[k]) throw std::runtime_error("a second report for one run");
        auto buffers = std::move(rep.runs[k].buffers);
        rep.runs[k] = run_report_from_json(j);
        rep.runs[k].buffers = std::move(buffers);
        rep.run_received[k] = true;
      } else if (type == kBuffer) {
        if (payload.size() < 8) throw std::runtime_error("short buffer frame");
        std::uint32_t k = 0, b = 0;
        std::memcpy(&k, payload.data(), 4);
        std::memcpy(&b, payload.data() + 4, 4);
        if (k >= rep.runs.size() || b >= got_buffer[k].size())
          throw std::runtime_error("buffer index out of range");
        if (got_buffer[k][b]) throw std::runtime_error("a buffer sent twice");
        if (payload.size() - 8 != request.runs[k].buffer_bytes[b])
          throw std::runtime_error("buffer of the wrong size");
        rep.runs[k].buffers[b].assign(payload.begin() + 8, payload.end());
        got_buffer[k][b] = true;
      } else if (type == kHost) {
        if (payload.size() != request.host_cases * 4 || !rep.host_results.empty())
          throw std::runtime_error("host results of the wrong size");
        rep.host_results.resize(request.host_cases);
        std::memcpy(rep.host_results.data(), payload.data(), payload.size());
      } else {
        throw std::runtime_error("unknown frame type " + std::to_string(type));
      }
    } catch (const std::exception& e) {
      rep.rejected.push_back(e.what());
    }
  }
  // A run counts only with every buffer back.
  for (std::size_t k = 0; k < rep.runs.size(); ++k) {
    for (bool b : got_buffer[k]) {
      if (!b) {
        rep.runs[k].buffers.clear();
        break;
      }
    }
  }
  return rep;
}

}  // namespace grader::protocol
