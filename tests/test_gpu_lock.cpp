// test_gpu_lock.cpp - the GPU lock of a class graded with --jobs N: a timing step waiting for the
// GPU alone is not overtaken by shared steps that arrive after it, shared steps gather behind
// the steps alone (for a bounded time), and steps that change their hold do not deadlock.
#include "course_catch.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../grader/src/gpu_lock.hpp"

namespace fs = std::filesystem;
using grader::internal::GpuGate;
using grader::internal::GpuLock;
using namespace std::chrono_literals;

namespace {
fs::path lock_file(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("course-gpu-lock-" + name);
  fs::create_directories(dir);
  return dir / "gpu.lock";
}
}  // namespace

TEST_CASE("GPU lock: a step waiting alone goes before shared steps that come after it") {
  const fs::path file = lock_file("order");
  std::mutex m;
  std::vector<std::string> order;
  auto note = [&](const std::string& what) {
    const std::lock_guard<std::mutex> g(m);
    order.push_back(what);
  };
  auto holder = std::make_unique<GpuLock>(file, false);  // a sanitizer run holds it shared
  std::thread timing([&] {
    GpuLock l(file, true);
    note("timing");
    std::this_thread::sleep_for(50ms);
  });
  std::this_thread::sleep_for(100ms);  // the timing step now waits in the turnstile
  std::thread later([&] {
    GpuLock l(file, false);
    note("shared");
  });
  std::this_thread::sleep_for(100ms);
  {
    const std::lock_guard<std::mutex> g(m);
    CHECK(order.empty());  // neither got in while the first holder holds it
  }
  holder.reset();
  timing.join();
  later.join();
  REQUIRE(order == std::vector<std::string>{"timing", "shared"});
}

TEST_CASE("GPU lock: steps that change their hold at once do not deadlock") {
  const fs::path file = lock_file("convert");
  std::atomic<int> done{0};
  std::vector<std::thread> steps;
  for (int i = 0; i < 6; ++i) {
    steps.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k) {
        GpuLock l(file, false);  // a plain run, shared
        l.set(true);             // then ncu alone
        l.release();             // reading its report
        l.set(i % 2 == 0);       // the sanitizers (shared) or a timing (alone)
      }
      ++done;
    });
  }
  const auto start = std::chrono::steady_clock::now();
  while (done < 6 && std::chrono::steady_clock::now() - start < 30s)
    std::this_thread::sleep_for(10ms);
  const bool finished = done == 6;
  if (!finished) {
    // A deadlock: the threads can never be joined, end the test process with the failure.
    FAIL_CHECK("6 steps changing their hold 20 times each did not finish in 30 s");
    std::_Exit(1);
  }
  for (auto& t : steps) t.join();
  REQUIRE(done == 6);
}

TEST_CASE("GPU lock: a step that holds the GPU as it asks keeps its place in the queue") {
  const fs::path file = lock_file("keep");
  std::mutex m;
  std::vector<std::string> order;
  auto note = [&](const std::string& what) {
    const std::lock_guard<std::mutex> g(m);
    order.push_back(what);
  };
  auto profile = std::make_unique<GpuLock>(file, true);  // a profile holds the GPU alone
  std::thread other([&] {
    GpuLock l(file, true);  // another student's timing waits for it
    note("other");
  });
  std::this_thread::sleep_for(100ms);
  profile->set(true);  // the profile's next step asks for the GPU alone again
  note("same step");
  profile.reset();
  other.join();
  // Letting go and queueing again would have let the waiting step in first.
  REQUIRE(order == std::vector<std::string>{"same step", "other"});
}

TEST_CASE("GPU lock: shared steps gather while steps alone wait, then enter together") {
  // Arrivals: a sanitizer holds the GPU; a timing waits; a second sanitizer; a second timing; a
  // third sanitizer. The waiting sanitizers let both timings go first (a gathering after each
  // timing would keep the second one out until the first sanitizer ends), then run side by side.
  const fs::path file = lock_file("gather");
  std::mutex m;
  std::vector<std::string> order;
  std::atomic<int> shared_now{0}, shared_most{0};
  auto note = [&](const std::string& what) {
    const std::lock_guard<std::mutex> g(m);
    order.push_back(what);
  };
  auto shared_step = [&](const std::string& name) {
    GpuLock l(file, false);
    note(name);
    const int now = ++shared_now;
    int most = shared_most;
    while (now > most && !shared_most.compare_exchange_weak(most, now)) {
    }
    std::this_thread::sleep_for(150ms);
    --shared_now;
  };
  auto first = std::make_unique<GpuLock>(file, false);
  std::vector<std::thread> steps;
  steps.emplace_back([&] {
    GpuLock l(file, true);
    note("timing 1");
    std::this_thread::sleep_for(50ms);
  });
  std::this_thread::sleep_for(100ms);
  steps.emplace_back([&] { shared_step("sanitizer 2"); });
  std::this_thread::sleep_for(100ms);
  steps.emplace_back([&] {
    GpuLock l(file, true);
    note("timing 2");
  });
  std::this_thread::sleep_for(100ms);
  steps.emplace_back([&] { shared_step("sanitizer 3"); });
  std::this_thread::sleep_for(100ms);
  first.reset();
  for (auto& t : steps) t.join();
  REQUIRE(order.size() == 4);
  CHECK(order[0] == "timing 1");
  CHECK(order[1] == "timing 2");
  CHECK(shared_most == 2);
}

TEST_CASE("GPU lock: a shared step waits no longer than the gate's bound behind steps alone") {
  // Two threads keep the queue of steps alone full (20 ms each, for about 2 s); a sanitizer that
  // arrives meanwhile enters at the end of the step alone during which its 200 ms bound passed,
  // long before the queue empties, and the steps alone go on after it.
  const fs::path file = lock_file("bound");
  GpuGate gate(200ms);
  std::atomic<bool> stop{false};
  std::atomic<int> alone_after{0};
  std::atomic<bool> sanitizer_in{false};
  std::vector<std::thread> timings;
  for (int i = 0; i < 2; ++i) {
    timings.emplace_back([&] {
      const auto until = std::chrono::steady_clock::now() + 2s;
      while (!stop && std::chrono::steady_clock::now() < until) {
        GpuLock l(file, true, gate);
        if (sanitizer_in) ++alone_after;
        std::this_thread::sleep_for(20ms);
      }
    });
  }
  std::this_thread::sleep_for(100ms);
  const auto asked = std::chrono::steady_clock::now();
  double waited = 0;
  {
    GpuLock l(file, false, gate);
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
    sanitizer_in = true;
  }
  std::this_thread::sleep_for(200ms);
  stop = true;
  for (auto& t : timings) t.join();
  CHECK(waited >= 0.19);
  CHECK(waited < 1.0);  // without the bound: until the timings stop, 2 s after they began
  CHECK(alone_after > 0);
  const GpuGate::Usage u = gate.usage();
  CHECK(u.gatherings == 1);
  CHECK(u.shared_steps == 1);
  CHECK(u.alone_seconds > 0.3);  // the timings before the sanitizer and after it
}
