// Kernels cut into regions at their barriers (banksim/pass/regions.cpp) give what fibers give:
// the same outputs, counts and problems; the kernels the pass must leave alone run with fibers.
// Part of test_banksim.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "banksim/banksim.hpp"

namespace {

using banksim::Arg;
using banksim::DeviceBuffer;
using banksim::LaunchReport;
using banksim::Module;

const std::vector<std::string> kKernels = {
    "carry_locals",        "early_return", "divergent_barriers", "problems_after_barrier",
    "barrier_in_loop",     "nested_loops", "with_shuffle",       "callee_barrier",
    "abort_after_barrier", "no_stops",     "barrier_votes"};

/// tests/corpus/regions.cu compiled with the pass (regions) or without (fibers).
Module& regions_module(bool regions) {
  static std::map<bool, Module> modules;
  auto it = modules.find(regions);
  if (it == modules.end()) {
    banksim::CompileOptions options;
    options.kernels = kKernels;
    options.widths = banksim::Widths::kClang;
    options.regions = regions;
    it = modules.emplace(regions, Module::compile("tests/corpus/regions.cu", options)).first;
  }
  return it->second;
}

/// The report as JSON text, less what may differ between the two ways of running (time, the
/// way, and the addresses its messages name: each run allocates its own buffers, which the
/// allocator need not place where the other run's were).
std::string comparable(const LaunchReport& r) {
  nlohmann::json j = r.to_json();
  j.erase("seconds");
  j.erase("execution");
  static const std::regex address("0x[0-9a-f]+");
  return std::regex_replace(j.dump(1), address, "0x(address)");
}

struct Run {
  LaunchReport report;
  std::vector<int> out;
};

Run run(bool regions, const std::string& kernel, unsigned blocks) {
  const std::size_t n = std::size_t{64} * blocks;
  std::vector<int> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<int>((i * 7 + 3) % 23);
  DeviceBuffer out(n * sizeof(int));
  DeviceBuffer input(n * sizeof(int));
  std::copy(in.begin(), in.end(), input.as<int>());
  std::vector<Arg> args = {out};
  if (kernel == "carry_locals" || kernel == "nested_loops" || kernel == "no_stops") {
    args.emplace_back(input);
  }
  banksim::LaunchConfig config{{blocks, 1, 1}, {64, 1, 1}};
  config.timeout_s = 10;
  Run r{regions_module(regions).launch(kernel, config, args), {}};
  r.out.assign(out.as<int>(), out.as<int>() + n);
  return r;
}

}  // namespace

TEST_CASE("regions: each kernel gives the same outputs, counts and problems as with fibers",
          "[banksim][regions]") {
  const std::map<std::string, bool> cut = {
      {"carry_locals", true},        {"early_return", true},
      {"divergent_barriers", true},  {"problems_after_barrier", true},
      {"barrier_in_loop", true},     {"nested_loops", true},
      {"with_shuffle", true},        {"callee_barrier", false},
      {"abort_after_barrier", true}, {"no_stops", true},
      {"barrier_votes", true}};
  if (BANKSIM_REGIONS_BUILT == 0) {
    WARN("banksim's region pass is not built (no LLVM development files): only fibers run");
  }
  for (const std::string& kernel : kKernels) {
    INFO("kernel " << kernel);
    const Run fibers = run(false, kernel, 3);
    const Run regions = run(true, kernel, 3);
    CHECK_FALSE(fibers.report.regions);
    CHECK(regions.report.regions == (BANKSIM_REGIONS_BUILT != 0 && cut.at(kernel)));
    CHECK(comparable(regions.report) == comparable(fibers.report));
    CHECK(regions.out == fibers.out);
  }
}

TEST_CASE("regions: locals, values and a local passed by pointer survive the barriers",
          "[banksim][regions]") {
  if (BANKSIM_REGIONS_BUILT == 0) {
    WARN("banksim's region pass is not built (no LLVM development files): nothing to test");
    return;
  }
  const Run r = run(true, "carry_locals", 2);
  REQUIRE(r.report.regions);
  CHECK(r.report.problems.empty());
  CHECK(r.report.completed);
  // The kernel's arithmetic, on the host.
  for (int b = 0; b < 2; ++b) {
    std::vector<int> v(64);
    std::vector<int> local0(std::size_t{64} * 6);
    std::vector<int> s(64);
    for (int t = 0; t < 64; ++t) {
      v[t] = static_cast<int>(((b * 64 + t) * 7 + 3) % 23);
      for (int i = 0; i < 6; ++i) local0[t * 6 + (i + v[t]) % 6] = v[t] * (i + 1);
      s[t] = local0[t * 6 + v[t] % 6];
    }
    std::vector<int> s2(64);
    for (int t = 0; t < 64; ++t) s2[t] = s[(t + 1) % 64] + 2 * v[t] + 1;
    for (int t = 0; t < 64; ++t) {
      int sum = 0;
      for (int i = 0; i < 6; ++i) sum += local0[t * 6 + i];
      INFO("block " << b << " thread " << t);
      CHECK(r.out[b * 64 + t] == s2[63 - t] + sum + local0[t * 6 + (t + 3) % 6]);
    }
  }
}

TEST_CASE("regions: a kernel without a stop runs as one region, its locals on the stack",
          "[banksim][regions]") {
  if (BANKSIM_REGIONS_BUILT == 0) {
    WARN("banksim's region pass is not built (no LLVM development files): nothing to test");
    return;
  }
  const Run r = run(true, "no_stops", 2);
  REQUIRE(r.report.regions);
  REQUIRE(r.report.completed);
  // The race on s[t - 1] (thread t - 1 wrote it, no barrier between), once.
  REQUIRE(r.report.problems.size() == 1);
  CHECK(r.report.problems[0].kind == "race");
  for (int i = 0; i < 2 * 64; ++i) {
    const int t = i % 64;
    const auto v = [](int k) { return static_cast<int>((k * 7 + 3) % 23); };
    // local[(j + v) % 5] = v + j: the sum is 5v + 10, local[v % 5] is j = 0's, v.
    const int expected = (5 * v(i) + 10) * 100 + v(i) + (t > 0 ? v(i - 1) : 0);
    INFO("thread " << i);
    CHECK(r.out[i] == expected);
  }
}

TEST_CASE("regions and fibers: __syncthreads_count, _and and _or return the block's answer",
          "[banksim][regions]") {
  for (const bool regions : {false, true}) {
    INFO((regions ? "regions" : "fibers"));
    const Run r = run(regions, "barrier_votes", 2);
    REQUIRE(r.report.completed);
    CHECK(r.report.problems.empty());
    // 22 of 64 threads have t % 3 == 0; the shuffle gave c + (t ^ 1); and/or as named.
    for (int i = 0; i < 2 * 64; ++i) {
      INFO("thread " << i);
      CHECK(r.out[i] == 22101010);
    }
  }
}

TEST_CASE("regions: the problems of a cut kernel are found as with fibers", "[banksim][regions]") {
  auto kinds = [](const LaunchReport& r) {
    std::vector<std::string> k;
    for (const auto& p : r.problems) k.push_back(p.kind);
    return k;
  };
  if (BANKSIM_REGIONS_BUILT == 0) {
    WARN("banksim's region pass is not built (no LLVM development files): nothing to test");
    return;
  }
  const Run early = run(true, "early_return", 1);
  REQUIRE(early.report.regions);
  CHECK(kinds(early.report) == std::vector<std::string>{"barrier_divergence"});
  const Run divergent = run(true, "divergent_barriers", 1);
  REQUIRE(divergent.report.regions);
  CHECK(kinds(divergent.report) == std::vector<std::string>{"barrier_divergence"});
  const Run after = run(true, "problems_after_barrier", 1);
  REQUIRE(after.report.regions);
  const auto k = kinds(after.report);
  CHECK(std::count(k.begin(), k.end(), "race") >= 1);
  CHECK(std::count(k.begin(), k.end(), "out_of_bounds") == 1);
  const Run aborted = run(true, "abort_after_barrier", 3);
  REQUIRE(aborted.report.regions);
  CHECK_FALSE(aborted.report.completed);
  CHECK_FALSE(aborted.report.abort_reason.empty());
}

TEST_CASE("compile: cuda_host.hpp is precompiled with the module's flags (a compile uses the PCH)",
          "[banksim][compile]") {
  // A linker flag among the module's flags (-Wl,-z,now) once made the PCH command fail ("cannot
  // specify -o when generating multiple output files"): every compile then ran without the PCH,
  // and a class took 1.6x as long to grade.
  const auto cache =
      std::filesystem::temp_directory_path() / ("banksim-pch-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache);
  banksim::CompileOptions options;
  options.kernels = {"carry_locals"};
  options.widths = banksim::Widths::kClang;
  options.cache_dir = cache;
  Module::compile("tests/corpus/regions.cu", options);
  int pch = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache)) {
    pch += e.path().extension() == ".pch" ? 1 : 0;
  }
  std::filesystem::remove_all(cache);
  CHECK(pch == 1);
}
