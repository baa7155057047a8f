// test_baseline_cache.cpp - BaselineCache kept on disk: an entry comes back whole in the next
// grading run, only for the key it was written for, and a damaged file is ignored; students
// graded at the same time run a baseline once.
#include "course_catch.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "grader/judge.hpp"

namespace fs = std::filesystem;

namespace {
grader::BaselineEvidence sample() {
  grader::BaselineEvidence e;
  e.counted.started = true;
  e.counted.seconds = 1.5;
  e.counted.report.compile = {true, true, "", ""};
  grader::protocol::RunReport r;
  r.completed = true;
  r.warp_shuffles = 7;
  grader::protocol::Site s;
  s.line = 12;
  s.requests = 64;
  s.wavefronts = 2048;
  s.ideal = 64;
  r.sites.push_back(s);
  r.buffers = {{1, 2, 3, 4}, {}, {9}};
  e.counted.report.runs.push_back(r);
  e.counted.report.run_received = {true};
  e.timed_ms = 0.25;
  e.timed_output = {std::vector<unsigned char>(100000, 7)};
  return e;
}

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("course-baselines-" + name);
  fs::remove_all(dir);
  return dir;
}
}  // namespace

TEST_CASE("baseline cache: an entry on disk comes back whole in the next run") {
  const fs::path dir = fresh("whole");
  {
    grader::BaselineCache first(dir);
    first.put("02|GPU: NVIDIA H200|key", sample());
  }
  grader::BaselineCache next(dir);
  const auto e = next.find("02|GPU: NVIDIA H200|key");
  REQUIRE(e != nullptr);
  CHECK(next.from_disk() == 1);
  const auto want = sample();
  CHECK(e->timed_ms == want.timed_ms);
  CHECK(e->timed_output == want.timed_output);
  REQUIRE(e->counted.report.runs.size() == 1);
  const auto& r = e->counted.report.runs[0];
  CHECK(r.buffers == want.counted.report.runs[0].buffers);
  CHECK(r.warp_shuffles == 7);
  REQUIRE(r.sites.size() == 1);
  CHECK(r.sites[0].line == 12);
  CHECK(r.sites[0].wavefronts == 2048);
  CHECK(e->counted.ran(0));
  CHECK(e->counted.report.compile.ok);
}

TEST_CASE("baseline cache: another key, a damaged file or no folder gives nothing from disk") {
  const fs::path dir = fresh("other");
  {
    grader::BaselineCache first(dir);
    first.put("04|GPU: NVIDIA H200|harness a", sample());
  }
  CHECK(grader::BaselineCache(dir).find("04|GPU: NVIDIA H200|harness b") == nullptr);
  // Every file cut short (a grader killed while a disk filled): ignored, run again.
  for (const auto& f : fs::directory_iterator(dir)) {
    fs::resize_file(f.path(), fs::file_size(f.path()) - 10);
  }
  grader::BaselineCache damaged(dir);
  CHECK(damaged.find("04|GPU: NVIDIA H200|harness a") == nullptr);
  CHECK(damaged.from_disk() == 0);
  // Without a folder (CPU mode) nothing is written.
  const fs::path none = fresh("none");
  grader::BaselineCache memory_only;
  memory_only.put("k", sample());
  CHECK(memory_only.find("k") != nullptr);
  CHECK_FALSE(fs::exists(none));
}

TEST_CASE("baseline cache: students graded at the same time run a baseline once") {
  grader::BaselineCache cache(fresh("claim"));
  std::atomic<int> ran{0}, got{0};
  std::vector<std::thread> students;
  for (int i = 0; i < 6; ++i) {
    students.emplace_back([&] {
      if (cache.find_or_claim("04|key") == nullptr) {
        ++ran;  // this student runs the baseline; the others wait for its entry
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        cache.put("04|key", sample());
        cache.release("04|key");
      } else {
        ++got;
      }
    });
  }
  for (auto& t : students) t.join();
  CHECK(ran == 1);
  CHECK(got == 5);
}

TEST_CASE("baseline cache: a claim given up without an entry lets the next student run it") {
  grader::BaselineCache cache;
  REQUIRE(cache.find_or_claim("05|key") == nullptr);
  std::atomic<bool> second_runs{false};
  std::thread next([&] { second_runs = cache.find_or_claim("05|key") == nullptr; });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(second_runs);  // it waits while the first holds the claim
  cache.release("05|key");   // the first baseline failed: no entry
  next.join();
  CHECK(second_runs);
}
