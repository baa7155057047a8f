// The worker protocol (grader/protocol.hpp): what a worker sends round-trips, and what breaks
// the rules (indices, sizes, duplicates, garbage) is dropped and named, never trusted.
#include "course_catch.hpp"

#include <unistd.h>

#include "grader/protocol.hpp"

namespace proto = grader::protocol;

namespace {

proto::Request request() {
  proto::Request r;
  r.file = "/x/transpose.cu";
  r.kernel = "transpose_tiled";
  proto::RunSpec run;
  run.grid = {2, 2, 1};
  run.block = {32, 8, 1};
  run.buffer_bytes = {16, 8};
  run.args = {{0, 0}, {1, 0}, {-1, 70}};
  r.runs = {run};
  return r;
}

/// Everything written to a pipe by `send`.
template <typename F>
std::string captured(F send) {
  int fd[2];
  REQUIRE(pipe(fd) == 0);
  send(fd[1]);
  close(fd[1]);
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
  close(fd[0]);
  return s;
}

proto::RunReport good_run() {
  proto::RunReport r;
  r.completed = true;
  proto::Site s;
  s.file = "transpose.cu";
  s.line = 21;
  s.op = bankmodel::Op::kLoad;
  s.requests = 4;
  s.wavefronts = 128;
  s.ideal = 4;
  s.has_worst = true;
  s.worst_offsets.fill(-1);
  s.worst_offsets[0] = 0;
  s.worst_offsets[1] = 128;
  r.sites = {s};
  r.issues = {{"race", proto::Severity::kError, "transpose.cu", 22, 18, "read after write"}};
  r.buffers = {std::vector<unsigned char>(16, 1), std::vector<unsigned char>(8, 2)};
  return r;
}

}  // namespace

TEST_CASE("protocol: a request round-trips through JSON", "[protocol]") {
  const proto::Request r = request();
  const proto::Request back = proto::request_from_json(proto::to_json(r));
  CHECK(back.file == r.file);
  CHECK(back.runs.at(0).grid == r.runs[0].grid);
  CHECK(back.runs[0].buffer_bytes == r.runs[0].buffer_bytes);
  CHECK(back.runs[0].args.at(2).value == 70);
  CHECK(back.runs[0].args[1].buffer == 1);
}

TEST_CASE("protocol: a report round-trips through the pipe", "[protocol]") {
  const std::string s = captured([](int fd) {
    proto::send_compile(fd, true, "", "");
    proto::send_run(fd, 0, good_run());
  });
  const proto::Report rep = proto::decode(s, request());
  CHECK(rep.rejected.empty());
  CHECK(rep.compile.ok);
  REQUIRE(rep.run_received.at(0));
  const proto::RunReport& r = rep.runs[0];
  CHECK(r.completed);
  REQUIRE(r.sites.size() == 1);
  CHECK(r.sites[0].wavefronts == 128);
  CHECK(r.sites[0].worst_offsets[1] == 128);
  CHECK(r.sites[0].worst_offsets[2] == -1);
  CHECK(r.issues.at(0).other_line == 18);
  CHECK(r.buffers.at(1) == std::vector<unsigned char>(8, 2));
}

TEST_CASE("protocol: frames that break the rules are refused", "[protocol]") {
  SECTION("a buffer of the wrong size") {
    proto::RunReport r = good_run();
    r.buffers[0].resize(12);
    const auto rep = proto::decode(captured([&](int fd) { proto::send_run(fd, 0, r); }), request());
    CHECK(rep.rejected.at(0) == "buffer of the wrong size");
    CHECK(rep.runs[0].buffers.empty());  // the run has no outputs to judge
  }
  SECTION("a run index out of range") {
    const auto rep =
        proto::decode(captured([&](int fd) { proto::send_run(fd, 3, good_run()); }), request());
    CHECK(rep.rejected.at(0) == "run index out of range");
    CHECK_FALSE(rep.run_received[0]);
  }
  SECTION("a second report for the same run (a forged 'completed')") {
    proto::RunReport crash;
    crash.completed = false;
    const auto rep = proto::decode(captured([&](int fd) {
                                     proto::send_run(fd, 0, crash);
                                     proto::send_run(fd, 0, good_run());
                                   }),
                                   request());
    CHECK_FALSE(rep.runs[0].completed);
    CHECK(rep.rejected.at(0) == "a second report for one run");
  }
  SECTION("garbage and truncated frames") {
    const auto rep = proto::decode("BSR1garbage" + std::string(20, 'x'), request());
    CHECK_FALSE(rep.rejected.empty());
    const auto rep2 = proto::decode("not a frame at all, just text a student printed", request());
    CHECK(rep2.rejected.at(0).find("malformed frame header") == 0);
    CHECK_FALSE(rep2.compile.received);
  }
  SECTION("bad JSON in a run frame") {
    const auto rep = proto::decode(captured([](int fd) {
                                     const std::string bad = "{\"run\": 0, \"completed\": ";
                                     proto::write_frame(fd, proto::kRun, bad.data(), bad.size());
                                   }),
                                   request());
    REQUIRE(rep.rejected.size() == 1);
    CHECK_FALSE(rep.run_received[0]);
  }
}

TEST_CASE("protocol: an unknown op, severity or request kind on the wire is refused by name",
          "[protocol]") {
  using Catch::Matchers::Contains;
  nlohmann::json site = {{"file", "t.cu"}, {"line", 3}, {"op", "gather"}};
  CHECK_THROWS_WITH(proto::site_from_json(site), Contains("'gather'"));
  site["op"] = "load";
  site["worst"] = {{"op", "scatter"}, {"width", 4}, {"offsets", nlohmann::json::array()}};
  CHECK_THROWS_WITH(proto::site_from_json(site), Contains("'scatter'"));
  const nlohmann::json global = {{"op", "atomic"}, {"bytes", 4}};
  CHECK_THROWS_WITH(proto::global_site_from_json(global), Contains("'atomic'"));
  const nlohmann::json issue = {{"kind", "race"}, {"severity", "fatal"}};
  CHECK_THROWS_WITH(proto::issue_from_json(issue), Contains("'fatal'"));
  nlohmann::json req = proto::to_json(request());
  CHECK(req.at("kind") == "kernel");
  req["kind"] = "daemon";
  CHECK_THROWS_WITH(proto::request_from_json(req), Contains("'daemon'"));
}
