// banksim on the corpus of real .cu kernels (tests/corpus/): the worked examples of
// docs/bank-rules.md, the stride sweep, transposes, GEMM, reductions, CUDA features, and every
// kind of problem. Lines under test are found by their "// @marker" comments.
// Over 500 lines on purpose: one test program per corpus keeps the compiled modules cached
// across its test cases (compiling a file costs about a second).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "course_catch.hpp"

#include "banksim/banksim.hpp"
#include "banksim/sass_widths.hpp"

using banksim::Arg;
using banksim::DeviceBuffer;
using banksim::LaunchReport;
using banksim::Module;

namespace {

std::string corpus(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;  // a lesson's file, from the root
  return "tests/corpus/" + name;
}

/// The line of `file` that carries "// @name" (followed by a space, ':' or the line's end).
int marker(const std::string& file, const std::string& name) {
  std::ifstream in(file);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto pos = line.find("@" + name);
    if (pos == std::string::npos) continue;
    const auto end = pos + 1 + name.size();
    if (end == line.size() || line[end] == ' ' || line[end] == ':') return n;
  }
  FAIL("marker @" << name << " not found in " << file);
  return 0;
}

/// Modules compiled once per test process, with every kernel the tests use.
Module& module(const std::string& file) {
  static const std::map<std::string, std::vector<std::string>> kernels = {
      {"bank_rules.cu",
       {"float_stride", "swizzle_read", "broadcast_read", "char_read", "short_stride",
        "double_read", "double_column_store", "float4_patterns"}},
      {"column_read.cu", {"column_read_naive", "column_read_padded"}},
      {"transpose.cu",
       {"transpose_naive_tile", "transpose_tile<0>", "transpose_tile<1>",
        "transpose_padded_32x32"}},
      {"transpose_padded.cu", {"transpose_padded"}},
      {"lessons/06-xor-swizzle/transpose_swizzled.cu", {"transpose_swizzled"}},
      {"gemm.cu", {"gemm_abt<0>", "gemm_abt<1>"}},
      {"reduction.cu", {"reduce_interleaved", "reduce_sequential", "reduce_shuffle"}},
      {"features.cu", {"reverse_dynamic", "two_arrays", "block3d", "histogram", "warp_exchange"}},
      {"builtins.cu", {"builtin_ids"}},
      {"atomics_widths.cu",
       {"atom_int", "atom_float", "atom_u64", "mixed_widths", "misaligned_float2",
        "misaligned_float4_row", "two_loads_one_line", "shuffle_from_exited", "shuffle_all_lanes"}},
      {"coop_groups.cu",
       {"block_sum", "tile8_max", "streaming_copy", "async_stage", "async_no_wait", "group_sums",
        "grid_stride_double", "aggregated_append", "tile_shuffle_wide", "multi_warp_ranks"}},
      {"host_api.cu", {"weigh"}},
      {"cuda_barrier.cu", {"staged_sum", "read_before_wait", "group_copy"}},
      {"half_types.cu", {"half2_sum", "half_column", "bf16_fma", "half_round"}},
      {"vector_types_all.cu", {"make_all", "cuda_std", "float3_cross"}},
      {"intrinsics.cu", {"warp_collectives", "integer_math", "scoped_atomics"}},
      {"divergent_loops.cu",
       {"take_turns", "take_turns_fibers", "lane_trips", "take_turns_call", "take_turns_pointer"}},
      {"problems.cu",
       {"race_missing_sync", "race_same_word", "same_value_write", "oob_shared_write",
        "oob_into_next", "oob_dynamic", "uninitialized", "early_return", "oob_global",
        "wild_pointer", "spin_on_shared", "barrier_in_branch", "loop_carried_race",
        "half_warp_sync_race", "warp_sync_orders_halves"}},
  };
  static std::map<std::string, Module> modules;
  auto it = modules.find(file);
  if (it == modules.end()) {
    banksim::CompileOptions options;
    options.kernels = kernels.at(file);
    // These tests pin the tracer and the bank rules on the accesses as written; nvcc's widths
    // are tested against the H200 on tests/everyday (CTest everyday_matches_h200).
    options.widths = banksim::Widths::kClang;
    it = modules.emplace(file, Module::compile(corpus(file), options)).first;
  }
  return it->second;
}

/// The stats of `line` for `op` (exactly one must exist).
const banksim::LineStats& stats(const LaunchReport& r, int line, bankmodel::Op op) {
  for (const auto* l : r.at_line(line)) {
    if (l->op == op) return *l;
  }
  FAIL("no " << bankmodel::to_string(op) << " traced at line " << line << "\n" << r.table());
  throw std::logic_error("unreachable");
}

/// Wavefronts and ideal per request of the access at marker `name`.
std::pair<double, double> per_request(const LaunchReport& r, const std::string& file,
                                      const std::string& name, bankmodel::Op op) {
  const auto& s = stats(r, marker(corpus(file), name), op);
  return {s.wavefronts_per_request(), s.ideal_per_request()};
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

template <typename T>
DeviceBuffer upload(const std::vector<T>& v) {
  DeviceBuffer b(v.size() * sizeof(T));
  std::copy(v.begin(), v.end(), b.as<T>());
  return b;
}

constexpr auto kLoad = bankmodel::Op::kLoad;
constexpr auto kStore = bankmodel::Op::kStore;

LaunchReport run_warp(const std::string& file, const std::string& kernel, std::vector<Arg> args) {
  return module(file).launch(kernel, {dim3(1), dim3(32), 0, 10.0}, std::move(args));
}

}  // namespace

// ---- Worked examples of docs/bank-rules.md, through real source
// -------------------------------------

TEST_CASE("corpus: 4-byte stride sweep s = 1..33 gives gcd(s, 32) wavefronts",
          "[banksim][example]") {
  DeviceBuffer out(32 * sizeof(float));
  for (int s = 1; s <= 33; ++s) {
    INFO("stride " << s);
    const LaunchReport r = run_warp("bank_rules.cu", "float_stride", {out, Arg::scalar(s)});
    const auto [wf, ideal] = per_request(r, "bank_rules.cu", "float_stride", kLoad);
    CHECK(wf == (s == 33 ? 1 : std::gcd(s, 32)));
    CHECK(ideal == 1);
    CHECK(r.problems.empty());
    for (int t = 0; t < 32; ++t) CHECK(out.as<float>()[t] == static_cast<float>(t * s));
  }
}

TEST_CASE("corpus: column read of float tile[32][32] is 32/1, tile[32][33] is 1/1",
          "[banksim][example]") {
  DeviceBuffer out(1024 * sizeof(float));
  const auto naive = module("column_read.cu").launch("column_read_naive", {1, {32, 32}}, {out});
  const auto padded = module("column_read.cu").launch("column_read_padded", {1, {32, 32}}, {out});
  CHECK(stats(naive, 9, kLoad).wavefronts_per_request() == 32);
  CHECK(stats(naive, 7, kStore).wavefronts_per_request() == 1);
  CHECK(stats(padded, 17, kLoad).wavefronts_per_request() == 1);
  CHECK(stats(naive, 9, kLoad).variable == "tile");
  CHECK(stats(naive, 9, kLoad).source ==
        "out[ty * kTile + tx] = tile[tx][ty];  // lane tx reads "
        "word 32*tx+ty: all in bank ty, 32-way");
  CHECK(naive.problems.empty());
  for (int i = 0; i < 1024; ++i) {
    CHECK(out.as<float>()[i] == static_cast<float>((i % 32) * 32 + i / 32));
  }
}

TEST_CASE("corpus: XOR-swizzled tile is conflict-free by row and by column", "[banksim][example]") {
  DeviceBuffer out(32 * sizeof(float));
  for (int fixed : {0, 5, 31}) {
    const auto r = run_warp("bank_rules.cu", "swizzle_read", {out, Arg::scalar(fixed)});
    CHECK(per_request(r, "bank_rules.cu", "swz_column", kLoad) == std::make_pair(1.0, 1.0));
    CHECK(per_request(r, "bank_rules.cu", "swz_row", kLoad) == std::make_pair(1.0, 1.0));
    CHECK(per_request(r, "bank_rules.cu", "swz_store", kStore) == std::make_pair(1.0, 1.0));
    CHECK(r.problems.empty());
    for (int t = 0; t < 32; ++t) {
      CHECK(out.as<float>()[t] == static_cast<float>(t * 32 + fixed + fixed * 32 + t));
    }
  }
}

TEST_CASE("corpus: broadcast, char and short examples", "[banksim][example]") {
  DeviceBuffer out(32 * sizeof(double));
  auto r = run_warp("bank_rules.cu", "broadcast_read", {out});
  CHECK(per_request(r, "bank_rules.cu", "broadcast", kLoad) == std::make_pair(1.0, 1.0));
  r = run_warp("bank_rules.cu", "char_read", {out});
  CHECK(per_request(r, "bank_rules.cu", "char", kLoad) == std::make_pair(1.0, 1.0));
  CHECK(stats(r, marker(corpus("bank_rules.cu"), "char"), kLoad).bytes == 1);
  r = run_warp("bank_rules.cu", "short_stride", {out});
  CHECK(per_request(r, "bank_rules.cu", "short", kLoad) == std::make_pair(16.0, 1.0));
  CHECK(r.problems.empty());
}

TEST_CASE("corpus: 8-byte examples: double s[lane] 2/2, column store of double[32][32] 32/2",
          "[banksim][example]") {
  DeviceBuffer out(32 * sizeof(double));
  auto r = run_warp("bank_rules.cu", "double_read", {out});
  CHECK(per_request(r, "bank_rules.cu", "double_read", kLoad) == std::make_pair(2.0, 2.0));
  CHECK(stats(r, marker(corpus("bank_rules.cu"), "double_read"), kLoad).bytes == 8);
  r = run_warp("bank_rules.cu", "double_column_store", {out, Arg::scalar(3)});
  CHECK(per_request(r, "bank_rules.cu", "double_column", kStore) == std::make_pair(32.0, 2.0));
  CHECK(r.problems.empty());
}

TEST_CASE("corpus: 16-byte examples including the load pairing exception", "[banksim][example]") {
  DeviceBuffer out(32 * sizeof(float));
  const std::pair<double, double> expected[] = {{4, 4}, {32, 4}, {2, 2}, {2, 2}, {8, 4}, {4, 4}};
  for (int pattern = 0; pattern < 6; ++pattern) {
    INFO("pattern " << pattern);
    const auto r = run_warp("bank_rules.cu", "float4_patterns", {out, Arg::scalar(pattern)});
    CHECK(per_request(r, "bank_rules.cu", "float4", kLoad) == expected[pattern]);
    CHECK(stats(r, marker(corpus("bank_rules.cu"), "float4"), kLoad).bytes == 16);
    CHECK(r.problems.empty());
  }
}

// ---- Transposes, GEMM, reductions --------------------------------------------------------------

TEST_CASE("corpus: transposes are correct and load 32 / 1 / 1 wavefronts per request",
          "[banksim]") {
  for (int n : {64, 70}) {
    INFO("n = " << n);
    const auto input = random_floats(static_cast<std::size_t>(n) * n, 7);
    DeviceBuffer in = upload(input);
    const unsigned tiles = (static_cast<unsigned>(n) + 31) / 32;
    const struct {
      const char* file;
      const char* kernel;
      const char* marker;
      double wavefronts;
    } cases[] = {
        {"transpose.cu", "transpose_naive_tile", "naive_load", 32},
        {"transpose_padded.cu", "transpose_padded", "padded_load", 1},
        {"lessons/06-xor-swizzle/transpose_swizzled.cu", "transpose_swizzled", "swizzled_load", 1},
        {"transpose.cu", "transpose_tile<0>", "template_load", 32},
        {"transpose.cu", "transpose_tile<1>", "template_load", 1}};
    for (const auto& c : cases) {
      INFO(c.kernel);
      DeviceBuffer out(static_cast<std::size_t>(n) * n * sizeof(float));
      std::fill(out.as<float>(), out.as<float>() + n * n, NAN);  // poison
      const auto r =
          module(c.file).launch(c.kernel, {{tiles, tiles}, {32, 8}}, {out, in, Arg::scalar(n)});
      const auto& load = stats(r, marker(corpus(c.file), c.marker), kLoad);
      if (n == 64) CHECK(load.wavefronts_per_request() == c.wavefronts);
      CHECK(r.problems.empty());
      int wrong = 0;
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) wrong += out.as<float>()[j * n + i] != input[i * n + j];
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("corpus: tiled GEMM A*B^T is correct, unpadded B tile is 32-way, padded 1-way",
          "[banksim]") {
  const int m = 40, n = 36, k = 70;
  const auto a = random_floats(m * k, 1);
  const auto b = random_floats(n * k, 2);
  DeviceBuffer da = upload(a);
  DeviceBuffer db = upload(b);
  for (const char* kernel : {"gemm_abt<0>", "gemm_abt<1>"}) {
    INFO(kernel);
    DeviceBuffer c(m * n * sizeof(float));
    const auto r = module("gemm.cu").launch(
        kernel, {{2, 2}, {32, 32}}, {c, da, db, Arg::scalar(m), Arg::scalar(n), Arg::scalar(k)});
    CHECK(r.problems.empty());
    double max_err = 0;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double ref = 0;
        for (int kk = 0; kk < k; ++kk) ref += static_cast<double>(a[i * k + kk]) * b[j * k + kk];
        max_err = std::max(max_err, std::abs(ref - c.as<float>()[i * n + j]));
      }
    }
    CHECK(max_err < 1e-4);
    // The inner line reads as[ty][kk] (a broadcast, 1) and bs[tx][kk] (32 unpadded, 1 padded):
    // two accesses, each with its own row (not their average, 16.5).
    std::map<std::string, double> ways;
    for (const auto* l : r.at_line(marker(corpus("gemm.cu"), "gemm_inner"))) {
      if (l->op == kLoad) ways[l->variable] = l->wavefronts_per_request();
    }
    REQUIRE(ways.size() == 2);
    CHECK(ways.begin()->second == 1.0);  // the A tile (first by name)
    CHECK(std::next(ways.begin())->second == (std::string(kernel) == "gemm_abt<0>" ? 32.0 : 1.0));
  }
}

TEST_CASE("exercise 08 register-blocked GEMM: correct, every shared access conflict-free",
          "[banksim]") {
  const int m = 128, n = 256, k = 64;
  const auto a = random_floats(m * k, 11);
  const auto b = random_floats(n * k, 12);
  DeviceBuffer da = upload(a);
  DeviceBuffer db = upload(b);
  DeviceBuffer c(m * n * sizeof(float));
  banksim::CompileOptions o;
  o.kernels = {"gemm_abt_register_blocked"};
  const Module fast = Module::compile("solutions/08-gemm-register-blocked/gemm_fast.cu", o);
  const auto r = fast.launch("gemm_abt_register_blocked", {{2, 1}, {256}},
                             {c, da, db, Arg::scalar(m), Arg::scalar(n), Arg::scalar(k)});
  CHECK(r.problems.empty());
  double max_err = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int kk = 0; kk < k; ++kk) ref += static_cast<double>(a[i * k + kk]) * b[j * k + kk];
      max_err = std::max(max_err, std::abs(ref - c.as<float>()[i * n + j]));
    }
  }
  CHECK(max_err < 1e-4);
  bool saw16 = false;
  for (const auto& l : r.lines) {
    INFO("line " << l.line << ": " << l.source);
    CHECK(l.wavefronts == l.ideal);
    saw16 = saw16 || l.bytes == 16;
  }
  CHECK(saw16);
}

TEST_CASE("corpus: reductions: interleaved addressing conflicts, sequential does not",
          "[banksim]") {
  const auto input = random_floats(4 * 256, 3);
  DeviceBuffer in = upload(input);
  DeviceBuffer out(4 * sizeof(float));
  for (const char* kernel : {"reduce_interleaved", "reduce_sequential", "reduce_shuffle"}) {
    INFO(kernel);
    const auto r = module("reduction.cu").launch(kernel, {4, 256}, {out, in});
    CHECK(r.problems.empty());
    for (int blk = 0; blk < 4; ++blk) {
      double ref = 0;
      for (int i = 0; i < 256; ++i) ref += input[blk * 256 + i];
      CHECK(std::abs(ref - out.as<float>()[blk]) < 1e-4);
    }
  }
  const auto inter = module("reduction.cu").launch("reduce_interleaved", {4, 256}, {out, in});
  const auto seq = module("reduction.cu").launch("reduce_sequential", {4, 256}, {out, in});
  CHECK(stats(inter, marker(corpus("reduction.cu"), "interleaved"), kLoad).ways() > 2.0);
  CHECK(stats(seq, marker(corpus("reduction.cu"), "sequential"), kLoad).ways() == 1.0);
  CHECK(stats(seq, marker(corpus("reduction.cu"), "sequential"), kStore).ways() == 1.0);
}

// ---- CUDA features ---------------------------------------------------------------------------

TEST_CASE("corpus: dynamic shared memory", "[banksim][feature]") {
  const int n = 50;
  const auto input = random_floats(n, 4);
  DeviceBuffer in = upload(input);
  DeviceBuffer out(n * sizeof(float));
  const auto r =
      module("features.cu")
          .launch("reverse_dynamic", {1, 64, n * sizeof(float)}, {out, in, Arg::scalar(n)});
  CHECK(r.problems.empty());
  for (int i = 0; i < n; ++i) CHECK(out.as<float>()[i] == input[n - 1 - i]);
  const auto& load = stats(r, marker(corpus("features.cu"), "dyn_load"), kLoad);
  CHECK(load.variable == "buf");
  CHECK(load.wavefronts_per_request() == 1);
}

TEST_CASE("corpus: two shared arrays are told apart", "[banksim][feature]") {
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("features.cu").launch("two_arrays", {1, 64}, {out});
  CHECK(r.problems.empty());
  CHECK(stats(r, marker(corpus("features.cu"), "alpha_store"), kStore).variable == "alpha");
  CHECK(stats(r, marker(corpus("features.cu"), "beta_store"), kStore).variable == "beta");
  // beta[(2t) % 64]: stride 2 words -> 2-way; alpha[63 - t] reversed -> 1-way: one row each.
  std::map<std::string, double> ways;
  for (const auto* l : r.at_line(marker(corpus("features.cu"), "two_loads"))) {
    if (l->op == kLoad) ways[l->variable] = l->ways();
  }
  CHECK(ways == std::map<std::string, double>{{"alpha", 1.0}, {"beta", 2.0}});
  for (int t = 0; t < 64; ++t) {
    CHECK(out.as<float>()[t] == static_cast<float>(63 - t + (t * 2) % 64 * 2));
  }
}

TEST_CASE("corpus: a 3-D block maps threads to lanes by linear id", "[banksim][feature]") {
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("features.cu").launch("block3d", {1, {8, 4, 2}}, {out});
  CHECK(r.problems.empty());
  CHECK(per_request(r, "features.cu", "block3d_store", kStore) == std::make_pair(4.0, 1.0));
  for (int i = 0; i < 64; ++i) CHECK(out.as<float>()[i] == static_cast<float>(i));
}

TEST_CASE("corpus: shared atomics do not race, __syncwarp orders lanes", "[banksim][feature]") {
  const int n = 1000;
  DeviceBuffer values(n * sizeof(int));
  for (int i = 0; i < n; ++i) values.as<int>()[i] = i * 7;
  DeviceBuffer bins(16 * sizeof(int));
  auto r = module("features.cu").launch("histogram", {1, 128}, {bins, values, Arg::scalar(n)});
  CHECK(r.problems.empty());
  std::vector<int> ref(16, 0);
  for (int i = 0; i < n; ++i) ++ref[(i * 7) % 16];
  for (int b = 0; b < 16; ++b) CHECK(bins.as<int>()[b] == ref[b]);
  DeviceBuffer out(32 * sizeof(float));
  r = module("features.cu").launch("warp_exchange", {1, 32}, {out});
  CHECK(r.problems.empty());
  for (int t = 0; t < 32; ++t) CHECK(out.as<float>()[t] == static_cast<float>(31 - t));
}

// ---- Problems ----------------------------------------------------------------------------------

namespace {

const banksim::Problem* find_problem(const LaunchReport& r, const std::string& kind) {
  for (const auto& p : r.problems) {
    if (p.kind == kind) return &p;
  }
  return nullptr;
}

int line_of(const std::string& name) {
  return marker(corpus("problems.cu"), name);
}

}  // namespace

TEST_CASE("problem: a missing __syncthreads is a race, with both lines", "[banksim][problem]") {
  const auto in = upload(random_floats(64, 5));
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("problems.cu").launch("race_missing_sync", {1, 64}, {out, in});
  const auto* p = find_problem(r, "race");
  REQUIRE(p != nullptr);
  // Threads run one after another, so the read of thread t may come before the write of
  // thread t+1: either line may be the one reported first; both must be named.
  CHECK(std::minmax(p->line, p->other_line) ==
        std::minmax(line_of("race_read"), line_of("race_write")));
  CHECK(p->variable == "s");
  CHECK(p->has_other_thread);
  CHECK(p->file == corpus("problems.cu"));
  CHECK(p->to_string().find("problems.cu:" + std::to_string(p->line)) != std::string::npos);
  CHECK(p->to_string().find("other access at line " + std::to_string(p->other_line)) !=
        std::string::npos);
  // A read that came before the other thread's write is reported as such, with barrier advice
  // and the writing line.
  const auto* u = find_problem(r, "uninitialized_read");
  REQUIRE(u != nullptr);
  CHECK(u->message.find("before any thread of the block had written it") != std::string::npos);
  CHECK(u->message.find("__syncthreads()") != std::string::npos);
  CHECK(u->other_line == line_of("race_write"));
}

TEST_CASE("problem: a race's message tells its two accesses in the order they happened",
          "[banksim][problem]") {
  const auto in = upload(random_floats(64, 5));
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("problems.cu").launch("race_missing_sync", {1, 64}, {out, in});
  const std::string w = std::to_string(line_of("race_write"));
  const std::string rd = std::to_string(line_of("race_read"));
  const std::string t = "thread \\(\\d+,0,0\\)";
  // Reported at the write: the other thread's read came first (write-after-read); reported at
  // the read: the other thread's write came first (read-after-write). The barrier goes between
  // the two lines, in the order the code has them.
  bool war = false, raw = false;
  for (const auto& p : r.problems) {
    if (p.kind != "race") continue;
    INFO(p.message);
    if (p.line == line_of("race_write")) {
      war = true;
      CHECK(std::regex_search(p.message, std::regex("^" + t + " read `s` at line " + rd +
                                                    ", then " + t + " wrote it at line " + w +
                                                    ", with no __syncthreads\\(\\) in between: "
                                                    "a write-after-read race")));
    } else {
      raw = true;
      CHECK(std::regex_search(p.message, std::regex("^" + t + " wrote `s` at line " + w +
                                                    ", then " + t + " read it at line " + rd +
                                                    ", .*a "
                                                    "read-after-write race")));
    }
    CHECK(p.message.find("put a __syncthreads() between line " + w + " and line " + rd) !=
          std::string::npos);
    CHECK(p.message.find("between the read and the write") == std::string::npos);
  }
  CHECK(war);
  CHECK(raw);
  // A race across a loop's iterations: the barrier inside the loop is there, the one at the end
  // of the body is missing.
  const auto loop = module("problems.cu").launch("loop_carried_race", {1, 64}, {out, in});
  const auto* p = find_problem(loop, "race");
  REQUIRE(p != nullptr);
  INFO(p->message);
  CHECK(p->message.find("add a __syncthreads() after line " + std::to_string(line_of("loop_read")) +
                        ", at the end of the loop body") != std::string::npos);
  DeviceBuffer flags(64 * sizeof(int));
  const auto waw = module("problems.cu").launch("race_same_word", {1, 64}, {flags});
  const auto* q = find_problem(waw, "race");
  REQUIRE(q != nullptr);
  CHECK(q->message.find("a write-after-write race") != std::string::npos);
}

TEST_CASE("problem: different values written by many threads race, same value only warns",
          "[banksim][problem]") {
  DeviceBuffer out(64 * sizeof(int));
  auto r = module("problems.cu").launch("race_same_word", {1, 64}, {out});
  const auto* p = find_problem(r, "race");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("waw_write"));
  CHECK(p->variable == "flag");
  r = module("problems.cu").launch("same_value_write", {1, 64}, {out});
  CHECK(r.error_count() == 0);
  const auto* w = find_problem(r, "same_value_write");
  REQUIRE(w != nullptr);
  CHECK(w->warning);
  CHECK(w->line == line_of("same_value"));
}

TEST_CASE(
    "problem: out-of-bounds shared writes: past the end, into the next array, past the "
    "dynamic size",
    "[banksim][problem]") {
  DeviceBuffer out(64 * sizeof(float));
  auto r = module("problems.cu").launch("oob_shared_write", {1, 32}, {out});
  auto* p = find_problem(r, "out_of_bounds");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("oob_write"));
  CHECK(p->thread.x == 31);
  CHECK(p->message.find("past the end of `s` (128 bytes)") != std::string::npos);

  r = module("problems.cu").launch("oob_into_next", {1, 32}, {out});
  p = find_problem(r, "out_of_bounds");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("oob_next"));
  CHECK(p->message.find("`first`") != std::string::npos);

  r = module("problems.cu")
          .launch("oob_dynamic", {1, 32, 16 * sizeof(float)}, {out, Arg::scalar(16)});
  p = find_problem(r, "out_of_bounds");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("oob_dynamic"));
  CHECK(p->thread.x == 16);
  CHECK(p->message.find("dynamic shared memory") != std::string::npos);
}

TEST_CASE("atomics: native ATOMS and CAS loops cost what the H200 measured (R6)",
          "[banksim][example][atomics]") {
  // Passes (wavefronts per request) for patterns s[lane], s[0], s[2 lane], one bank, s[lane/2]:
  // ncu on the H200, measurements/fidelity/2026-11-30-h200-atomics/.
  const int native[5] = {1, 1, 2, 32, 1};   // atomicAdd(int): ATOMS.ADD, like a store
  const int loop32[5] = {1, 32, 2, 32, 2};  // atomicAdd(float): LDS + ATOMS.CAST.SPIN loop
  const int loop64[5] = {1, 32, 2, 16, 2};  // atomicAdd(u64): the 64-bit CAS loop
  DeviceBuffer out(1024 * sizeof(double));
  for (int p = 0; p < 5; ++p) {
    INFO("pattern " << p);
    const auto i = run_warp("atomics_widths.cu", "atom_int", {out, Arg::scalar(p)});
    CHECK(i.problems.empty());
    CHECK(per_request(i, "atomics_widths.cu", "atom_int", bankmodel::Op::kAtomic).first ==
          native[p]);
    const int expect_sum = 32;
    int sum = 0;
    for (int k = 0; k < 1024; ++k) sum += out.as<int>()[k];
    CHECK(sum == expect_sum);
    const auto f = run_warp("atomics_widths.cu", "atom_float", {out, Arg::scalar(p)});
    CHECK(per_request(f, "atomics_widths.cu", "atom_float", bankmodel::Op::kAtomicLoop) ==
          std::pair<double, double>{loop32[p], 1});
    const auto u = run_warp("atomics_widths.cu", "atom_u64", {out, Arg::scalar(p)});
    CHECK(per_request(u, "atomics_widths.cu", "atom_u64", bankmodel::Op::kAtomicLoop).first ==
          loop64[p]);
    CHECK(stats(u, marker(corpus("atomics_widths.cu"), "atom_u64"), bankmodel::Op::kAtomicLoop)
              .variable == "s");
  }
}

TEST_CASE("tracer: lanes of one call site with different widths are all kept",
          "[banksim][tracer]") {
  DeviceBuffer out(32 * sizeof(float));
  const auto r = run_warp("atomics_widths.cu", "mixed_widths", {out});
  const int line = marker(corpus("atomics_widths.cu"), "mixed");
  std::uint64_t lanes = 0;
  for (const auto* l : r.at_line(line)) {
    if (l->op == kLoad) lanes += l->requests;
  }
  CHECK(lanes == 2);  // one 4-byte request (even lanes), one 8-byte request (odd lanes)
  for (int t = 0; t < 32; ++t) {
    CHECK(out.as<float>()[t] == static_cast<float>(4 * (t / 4) + t % 4));
  }
}

TEST_CASE("tracer: two accesses on one line are two rows, each with its own degree",
          "[banksim][tracer]") {
  DeviceBuffer out(32 * sizeof(float));
  const auto r = run_warp("atomics_widths.cu", "two_loads_one_line", {out});
  const auto rows = r.at_line(marker(corpus("atomics_widths.cu"), "two_loads"));
  std::vector<std::pair<int, double>> loads;  // column, ways
  for (const auto* l : rows) {
    if (l->op == kLoad) loads.emplace_back(l->column, l->ways());
  }
  REQUIRE(loads.size() == 2);
  std::sort(loads.begin(), loads.end());
  CHECK(loads[0].first > 0);
  CHECK(loads[0].first < loads[1].first);
  CHECK(loads[0].second == 1.0);   // tile[0][t]
  CHECK(loads[1].second == 32.0);  // tile[t][0]
  for (int t = 0; t < 32; ++t) CHECK(out.as<float>()[t] == static_cast<float>(t + 32 * t));
}

TEST_CASE("problem: a shuffle that reads a lane that has returned is undefined",
          "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(float));
  const auto bad = run_warp("atomics_widths.cu", "shuffle_from_exited", {out});
  const auto* p = find_problem(bad, "warp_mask");
  REQUIRE(p != nullptr);
  CHECK(p->line == marker(corpus("atomics_widths.cu"), "shfl_exited"));
  CHECK(p->message.find("has already returned") != std::string::npos);
  // Lanes 8-15 read lanes 16-23, which the mask 0xffff leaves out: said too.
  CHECK(p->message.find("not in the shuffle's mask (0x0000ffff)") != std::string::npos);
  // All lanes taking part: no problem, and the sum of 0..31 everywhere in lane 0.
  const auto good = run_warp("atomics_widths.cu", "shuffle_all_lanes", {out});
  CHECK(good.problems.empty());
  CHECK(out.as<float>()[0] == 496.0f);
}

TEST_CASE("half and bfloat16: CUDA's headers, 2- and 4-byte shared accesses, shuffles of half2",
          "[banksim][feature]") {
  const auto values = random_floats(64, 11);
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(32 * sizeof(float));
  const auto r = run_warp("half_types.cu", "half2_sum", {out, in});
  CHECK(r.problems.empty());
  const float got = out.as<float>()[0];
  const double want = std::accumulate(values.begin(), values.end(), 0.0);
  CHECK(std::abs(got - want) < 0.05);  // inputs and 6 additions in half precision
  const auto& h2 = stats(r, marker(corpus("half_types.cu"), "h2read"), kLoad);
  CHECK(h2.bytes == 4);
  CHECK(h2.wavefronts == h2.requests);  // lane t reads word t

  const auto c = run_warp("half_types.cu", "half_column", {out});
  CHECK(c.problems.empty());
  for (int t = 0; t < 32; ++t) CHECK(out.as<float>()[t] == static_cast<float>(t));
  const auto& col = stats(c, marker(corpus("half_types.cu"), "hcolumn"), kLoad);
  CHECK(col.bytes == 2);
  CHECK(col.wavefronts == 16 * col.requests);  // banks 0 and 16, 16 words each

  const auto b = run_warp("half_types.cu", "bf16_fma", {out, in});
  CHECK(b.problems.empty());
  for (int t = 0; t < 32; ++t) {
    const double x = values[static_cast<std::size_t>(t)], y = x * x + 1;
    CHECK(std::abs(out.as<float>()[t] - y) < 0.02 * y);  // 8 significant bits
  }
  // The conversions round to nearest even, as the GPU does: ties to even, 65520 and up to
  // infinity, subnormals down to 2^-24, NaN kept.
  const std::vector<float> cases = {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65519.0f, 65520.0f,
                                    5.9604645e-8f,      2.9802322e-8f,      -0.1f,    1e-5f};
  const std::vector<float> halves = {1.0f,          1.0f + 2.0f / 1024, 65504.0f,
                                     INFINITY,      5.9604645e-8f,      0.0f,
                                     -0.099975586f, 1.001358e-05f};
  std::vector<float> padded(cases);
  padded.resize(32, 0.0f);
  const DeviceBuffer hin = upload(padded);
  const auto h = run_warp("half_types.cu", "half_round", {out, hin});
  CHECK(h.problems.empty());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO("float " << cases[i]);
    CHECK(out.as<float>()[i] == halves[i]);
  }
}

TEST_CASE("cooperative groups: block, tiles of 32 and 8, cg::reduce, shuffles and ballots",
          "[banksim][feature]") {
  const int n = 1000;
  const auto values = random_floats(n, 9);
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(4 * sizeof(float));
  const auto r = module("coop_groups.cu").launch("block_sum", {4, 256}, {out, in, Arg::scalar(n)});
  CHECK(r.problems.empty());
  for (int b = 0; b < 4; ++b) {
    double want = 0;
    for (int i = 256 * b; i < std::min(n, 256 * (b + 1)); ++i)
      want += values[static_cast<std::size_t>(i)];
    CHECK(std::abs(out.as<float>()[b] - want) < 1e-3);
  }
  // The partial sums' store: lane 0 of each warp, one request per warp.
  CHECK(stats(r, marker(corpus("coop_groups.cu"), "cg_partial"), kStore).requests == 4 * 8);

  DeviceBuffer ints(64 * sizeof(int));
  const auto t = module("coop_groups.cu").launch("tile8_max", {1, 64}, {ints});
  CHECK(t.problems.empty());
  for (int i = 0; i < 64; ++i) {
    int m = 0;
    unsigned ballot = 0;
    for (int j = 0; j < 8; ++j) {
      const int v = (8 * (i / 8) + j) * 7 % 23;
      m = std::max(m, v);
      if (v > 10) ballot |= 1u << j;
    }
    INFO("thread " << i);
    CHECK(ints.as<int>()[i] == m * 1000 + static_cast<int>(ballot));
  }
}

TEST_CASE("cooperative groups: a tile shuffles a uint4 and a 12-byte struct word by word",
          "[banksim][feature]") {
  DeviceBuffer wide(32 * 16);
  DeviceBuffer triples(32 * 12);
  const auto r = module("coop_groups.cu").launch("tile_shuffle_wide", {1, 32}, {wide, triples});
  CHECK(r.problems.empty());
  for (unsigned lane = 0; lane < 32; ++lane) {
    INFO("lane " << lane);
    const unsigned partner = lane ^ 1u;
    const unsigned* w = wide.as<unsigned>() + 4 * lane;
    CHECK(w[0] == partner);
    CHECK(w[1] == 2 * partner);
    CHECK(w[2] == 3 * partner);
    CHECK(w[3] == 4 * partner);
    // shfl_down by 2 in tiles of 8: the last two of each tile keep their own value.
    const unsigned src = lane % 8 < 6 ? lane + 2 : lane;
    const float* t = triples.as<float>() + 3 * lane;
    CHECK(t[0] == static_cast<float>(src));
    CHECK(t[1] == 0.5f * static_cast<float>(src));
    CHECK(t[2] == -static_cast<float>(src));
  }
}

TEST_CASE("cooperative groups: tiles of several warps have their ranks, and sync as the block",
          "[banksim][feature]") {
  DeviceBuffer out(128 * sizeof(int));
  const auto r = module("coop_groups.cu").launch("multi_warp_ranks", {1, 128}, {out});
  CHECK(r.problems.empty());
  for (int t = 0; t < 128; ++t) {
    INFO("thread " << t);
    // rank in its 64-thread tile, 2 tiles, and the tile index the mirrored thread wrote.
    CHECK(out.as<int>()[t] == (t % 64) * 1000 + 2 * 100 + (127 - t) / 64);
  }
}

TEST_CASE("cuda::barrier: memcpy_async double-buffers a tile as on the H200",
          "[banksim][feature]") {
  // tests/corpus/cuda_barrier.cu's staged_sum: 16-byte copies that nvcc makes TMA bulk copies
  // (UBLKCP) for sm_90, which the H200's ncu counts neither as shared stores nor as global loads
  // (tests/fixtures/h200/cuda_barrier_check-h200.txt: shared loads 8 requests
  // and 32 wavefronts, no shared store, no global load, 2 global store requests of 8 sectors).
  const int tiles = 4;
  std::vector<float> values(static_cast<std::size_t>(tiles) * 64 * 4);
  for (std::size_t i = 0; i < values.size() / 4; ++i) {
    values[4 * i] = static_cast<float>(i % 7);
    values[4 * i + 1] = static_cast<float>(i % 5);
    values[4 * i + 2] = 0.5f;
    values[4 * i + 3] = static_cast<float>(i % 3);
  }
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(64 * sizeof(float));
  const auto r =
      module("cuda_barrier.cu").launch("staged_sum", {1, 64}, {out, in, Arg::scalar(tiles)});
  CHECK(r.problems.empty());
  for (int t = 0; t < 64; ++t) {
    float want = 0;
    for (int k = 0; k < tiles; ++k) {
      const std::size_t i = static_cast<std::size_t>(k * 64 + 63 - t);
      want += values[4 * i] + values[4 * i + 1] + values[4 * i + 2] + values[4 * i + 3];
    }
    INFO("thread " << t);
    CHECK(out.as<float>()[t] == want);
  }
  std::uint64_t load_requests = 0, load_wavefronts = 0, stores = 0;
  for (const auto& l : r.lines) {
    if (l.op == kLoad) {
      load_requests += l.requests;
      load_wavefronts += l.wavefronts;
    } else {
      stores += l.requests;
    }
  }
  CHECK(load_requests == 8);
  CHECK(load_wavefronts == 32);
  CHECK(stores == 0);
  std::uint64_t global_loads = 0, global_stores = 0, store_sectors = 0;
  for (const auto& g : r.global_lines) {
    if (g.op == kLoad) {
      global_loads += g.requests;
    } else {
      global_stores += g.requests;
      store_sectors += g.sectors;
    }
  }
  CHECK(global_loads == 0);
  CHECK(global_stores == 2);
  CHECK(store_sectors == 8);

  // The group form (one bulk copy for the block, UBLKCP on the H200) with a split arrive/wait:
  // shared loads 2 requests of 8 wavefronts in all, no stores, no global loads, as the H200's.
  const auto g = module("cuda_barrier.cu").launch("group_copy", {1, 64}, {out, in});
  CHECK(g.problems.empty());
  for (int t = 0; t < 64; ++t) {
    const std::size_t i = static_cast<std::size_t>(63 - t);
    CHECK(out.as<float>()[t] ==
          values[4 * i] + values[4 * i + 1] + values[4 * i + 2] + values[4 * i + 3]);
  }
  std::uint64_t g_loads = 0, g_wavefronts = 0, g_stores = 0, g_global_loads = 0;
  for (const auto& l : g.lines) {
    if (l.op == kLoad) {
      g_loads += l.requests;
      g_wavefronts += l.wavefronts;
    } else {
      g_stores += l.requests;
    }
  }
  for (const auto& gl : g.global_lines) {
    if (gl.op == kLoad) g_global_loads += gl.requests;
  }
  CHECK(g_loads == 2);
  CHECK(g_wavefronts == 8);
  CHECK(g_stores == 0);
  CHECK(g_global_loads == 0);

  // Reading another thread's copy before the barrier: a race, as on the GPU.
  const auto early = module("cuda_barrier.cu").launch("read_before_wait", {1, 64}, {out, in});
  const auto* p = find_problem(early, "race");
  REQUIRE(p != nullptr);
  CHECK((p->line == marker(corpus("cuda_barrier.cu"), "early") ||
         p->other_line == marker(corpus("cuda_barrier.cu"), "early")));
}

TEST_CASE("host code: a file with nvcc-style host code compiles and its kernel runs",
          "[banksim][feature]") {
  // Device properties, events, __constant__ symbols, managed and pinned memory, NULL and 0 for a
  // pointer in a launch, <cublas_v2.h> where installed, helper_cuda.h-style checks that need
  // driver_types.h's guard, isfinite in a kernel (tests/corpus/host_api.cu; nvcc compiles it too).
  std::vector<float> values(32, 2.0f);
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(32 * sizeof(float));
  DeviceBuffer mask(32 * sizeof(int));
  for (int i = 0; i < 32; ++i) mask.as<int>()[i] = i % 2;
  const auto r = module("host_api.cu").launch("weigh", {1, 32}, {out, in, Arg::scalar(32), mask});
  CHECK(r.problems.empty());
  // The padded tile's column store: one wavefront.
  CHECK(stats(r, 32, kStore).wavefronts_per_request() == 1.0);
  // The masked-in (odd) lanes wrote in * weights, and weights are zero: main, which sets them,
  // is not run.
  for (int i = 1; i < 32; i += 2) CHECK(out.as<float>()[i] == 0.0f);
}

TEST_CASE("cooperative groups: memcpy_async stages a tile in 16-byte chunks, cg::wait publishes it",
          "[banksim][feature]") {
  const auto values = random_floats(2048, 4);
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("coop_groups.cu").launch("async_stage", {2, 32}, {out, in});
  CHECK(r.problems.empty());
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; t < 32; ++t) {
      double want = 0;
      for (int row = 0; row < 32; ++row)
        want += values[static_cast<std::size_t>(1024 * b + 32 * row + t)];
      CHECK(std::abs(out.as<float>()[32 * b + t] - want) < 1e-3);
    }
  }
  // 4096 bytes per block in 16-byte chunks, consecutive threads consecutive chunks: 8 rounds of
  // one conflict-free warp request (4 quarter-warp phases, 4 wavefronts) per block.
  const auto& copy = stats(r, marker(corpus("coop_groups.cu"), "cg_async"), kStore);
  CHECK(copy.bytes == 16);
  CHECK(copy.requests == 2 * 8);
  CHECK(copy.wavefronts == copy.ideal);
  CHECK(copy.wavefronts == 2 * 8 * 4);

  // Reading the destination before cg::wait: another thread's chunk, unordered.
  DeviceBuffer out2(32 * sizeof(float));
  const auto w = module("coop_groups.cu").launch("async_no_wait", {1, 32}, {out2, in});
  REQUIRE_FALSE(w.problems.empty());
  const auto& p = w.problems.front();
  CHECK((p.kind == "race" || p.kind == "uninitialized_read"));
  // The pair: the copy's write (line before) and the early read; the second of the two to run
  // is reported.
  const int read_line = marker(corpus("coop_groups.cu"), "cg_async_race");
  INFO(p.kind << " at line " << p.line << ": " << p.message);
  CHECK((p.line == read_line || p.line == read_line - 1));
}

TEST_CASE(
    "cooperative groups: thread_group takes a block or a tile, tiled_partition(g, n) at run time",
    "[banksim][feature]") {
  DeviceBuffer out(13 * sizeof(int));
  const auto r = module("coop_groups.cu").launch("group_sums", {1, 64}, {out});
  CHECK(r.problems.empty());
  CHECK(out.as<int>()[0] == 63 * 64 / 2);                          // the block's ranks 0..63
  for (int k = 0; k < 4; ++k) CHECK(out.as<int>()[1 + k] == 120);  // tiles of 16: 0..15
  for (int k = 0; k < 8; ++k) CHECK(out.as<int>()[5 + k] == 28);   // tiles of 8: 0..7
}

TEST_CASE("cooperative groups: this_grid() ranks a grid-stride loop", "[banksim][feature]") {
  const int n = 1000;
  const auto values = random_floats(n, 5);
  DeviceBuffer data = upload(values);
  const auto r =
      module("coop_groups.cu").launch("grid_stride_double", {{3, 2}, 64}, {data, Arg::scalar(n)});
  CHECK(r.problems.empty());
  for (int i = 0; i < n; ++i) CHECK(data.as<float>()[i] == 2 * values[static_cast<std::size_t>(i)]);
  // grid.sync(): the CLI test grid_sync_said (a stopped launch ends the process).
}

TEST_CASE("cooperative groups: coalesced_threads() in a branch is the branch's lanes",
          "[banksim][feature]") {
  // Two blocks of 64 threads; a pseudo-random third of the threads take the branch, a whole warp
  // of them does not (warp 1 of block 0: an empty group is never formed).
  const int n = 128;
  std::vector<int> flags(n);
  for (int i = 0; i < n; ++i)
    flags[static_cast<std::size_t>(i)] = (i * 7 % 3 == 0) && (i / 32 != 1);
  const DeviceBuffer flag_buf = upload(flags);
  DeviceBuffer counter(sizeof(int));
  DeviceBuffer slots(n * sizeof(int));
  DeviceBuffer info(3 * n * sizeof(int));
  const auto r = module("coop_groups.cu")
                     .launch("aggregated_append", {2, 64}, {counter, slots, info, flag_buf});
  CHECK(r.problems.empty());
  int flagged = 0;
  std::vector<int> seen(n, 0);
  for (int i = 0; i < n; ++i) {
    if (flags[static_cast<std::size_t>(i)] == 0) continue;
    ++flagged;
    int size = 0, rank = 0, sum = 0;
    for (int j = i / 32 * 32; j < i / 32 * 32 + 32; ++j) {
      if (flags[static_cast<std::size_t>(j)] == 0) continue;
      ++size;
      sum += j;
      if (j < i) ++rank;
    }
    CHECK(info.as<int>()[3 * i] == size);
    CHECK(info.as<int>()[3 * i + 1] == rank);
    CHECK(info.as<int>()[3 * i + 2] == sum);
  }
  REQUIRE(counter.as<int>()[0] == flagged);
  for (int k = 0; k < flagged; ++k) {
    const int i = slots.as<int>()[k];
    REQUIRE(i >= 0);
    REQUIRE(i < n);
    CHECK(flags[static_cast<std::size_t>(i)] != 0);
    seen[static_cast<std::size_t>(i)] += 1;
  }
  for (int i = 0; i < n; ++i)
    CHECK(seen[static_cast<std::size_t>(i)] == flags[static_cast<std::size_t>(i)]);
}

TEST_CASE("cache-hint loads and stores (__ldcs, __stcs...) are plain accesses",
          "[banksim][feature]") {
  const auto values = random_floats(32, 3);
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(32 * sizeof(float));
  const auto r = module("coop_groups.cu").launch("streaming_copy", {1, 32}, {out, in});
  CHECK(r.problems.empty());
  for (int i = 0; i < 32; ++i) CHECK(out.as<float>()[i] == 3 * values[static_cast<std::size_t>(i)]);
}

TEST_CASE(
    "built-ins: threadIdx and blockIdx are each thread's own, across a barrier and in helpers",
    "[banksim][feature]") {
  // 3-D blocks in a 3-D grid: blocks and threads all told apart. (Host code in the file names
  // its own blockDim and gridDim: it compiles.)
  const unsigned threads = 4 * 2 * 3;
  const unsigned blocks = 2 * 3 * 2;
  DeviceBuffer out(threads * blocks * sizeof(int));
  const auto r = module("builtins.cu").launch("builtin_ids", {{2, 3, 2}, {4, 2, 3}}, {out});
  CHECK(r.problems.empty());
  CHECK(r.traced_shared_accesses == 2 * threads * blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < threads; ++t) {
      CHECK(out.as<int>()[b * threads + t] == static_cast<int>(b * 1000 + t));
    }
  }
}

TEST_CASE("problem: a misaligned 8-byte shared access is reported as on the GPU",
          "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(float));
  const auto r = run_warp("atomics_widths.cu", "misaligned_float2", {out});
  REQUIRE_FALSE(r.problems.empty());
  const auto& p = r.problems.front();
  CHECK(p.kind == "misaligned");
  CHECK(p.line == marker(corpus("atomics_widths.cu"), "misaligned"));
  CHECK(p.message.find("`raw`") != std::string::npos);
  CHECK(p.message.find("mod 8 is 4") != std::string::npos);
}

TEST_CASE("problem: a float4 view 8 bytes into a padded row is misaligned, as on the GPU",
          "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(float));
  const auto r = run_warp("atomics_widths.cu", "misaligned_float4_row", {out});
  const auto* p = find_problem(r, "misaligned");
  REQUIRE(p != nullptr);
  CHECK(p->line == marker(corpus("atomics_widths.cu"), "float4row"));
  CHECK(p->message.find("16-byte access at `tile`, byte 136") != std::string::npos);
  CHECK(p->message.find("mod 16 is 8") != std::string::npos);
}

TEST_CASE("vector types: all of CUDA's with nvcc's sizes, and the toolkit's own <cuda/std/...>",
          "[banksim][feature]") {
  // The file's static_asserts pin every type's size and alignment (nvcc checks the same file).
  DeviceBuffer sums(32 * sizeof(long long));
  const auto made = run_warp("vector_types_all.cu", "make_all", {sums});
  CHECK(made.problems.empty());
  for (int t = 0; t < 32; ++t) CHECK(sums.as<long long>()[t] == 45LL * t);
  DeviceBuffer out(32 * sizeof(int));
  const auto r = run_warp("vector_types_all.cu", "cuda_std", {out});
  CHECK(r.problems.empty());
  for (int t = 0; t < 32; ++t) CHECK(out.as<int>()[t] == 2 * t + 4);
}

TEST_CASE("usage: <cuda/std/atomic> and the waiting primitives stop with a message",
          "[banksim][usage]") {
  banksim::CompileOptions options;
  options.kernels = {"k"};
  options.widths = banksim::Widths::kClang;
  try {
    Module::compile(corpus("cuda_std_atomic.nocompile.cu"), options);
    FAIL("a kernel using cuda::std::atomic_ref compiled");
  } catch (const banksim::CompileError& e) {
    CHECK_THAT(e.what(), HasSubstr("banksim does not emulate <cuda/std/atomic>") &&
                             HasSubstr("use atomicAdd"));
  }
}

TEST_CASE("usage: <cuda/std/...> without the CUDA toolkit says what to install",
          "[banksim][usage]") {
  banksim::CompileOptions options;
  options.kernels = {"cuda_std"};
  options.widths = banksim::Widths::kClang;
  ::setenv("BANKSIM_CCCL", "none", 1);
  try {
    Module::compile(corpus("vector_types_all.cu"), options);
    ::unsetenv("BANKSIM_CCCL");
    FAIL("compiled without the toolkit's headers");
  } catch (const banksim::CompileError& e) {
    ::unsetenv("BANKSIM_CCCL");
    CHECK_THAT(e.what(),
               HasSubstr("vector_types_all.cu:7: error: 'cuda/std/array' file not found") &&
                   HasSubstr("install the CUDA toolkit, or set BANKSIM_CCCL"));
  }
}

TEST_CASE("float3: clang's 8-byte half of a returned float3 is not a misaligned access",
          "[banksim][problem][widths]") {
  // A __device__ function returning float3: the x86-64 ABI returns x and y as one 8-byte value,
  // which clang stores whole at odd elements (byte 12 mod 8 = 4); nvcc stores three floats and
  // the H200 runs it (tests/everyday/libcuxx_vectors.cu, float3_particles).
  std::vector<float> values = random_floats(96, 7);
  const DeviceBuffer in = upload(values);
  DeviceBuffer out(96 * sizeof(float));
  // clang's widths cannot tell it from a misaligned float2: reported, and the run says nvcc's
  // widths could change that (the grader then reruns with them).
  const auto clang = run_warp("vector_types_all.cu", "float3_cross", {out, in});
  const auto* p = find_problem(clang, "misaligned");
  REQUIRE(p != nullptr);
  CHECK(p->line == marker(corpus("vector_types_all.cu"), "cross"));
  CHECK(clang.mergeable);
  // Global requests: clang stores each float3 as 8 + 4 bytes (2 requests of the warp)...
  auto global_stores = [](const LaunchReport& r) {
    std::pair<std::uint64_t, std::uint64_t> requests_sectors{0, 0};
    for (const auto& g : r.global_lines) {
      if (g.op != bankmodel::Op::kStore) continue;
      requests_sectors.first += g.requests;
      requests_sectors.second += g.sectors;
    }
    return requests_sectors;
  };
  CHECK(global_stores(clang).first == 2);
  // nvcc's widths: three 4-byte stores on that line, so no problem; and the values are right.
  banksim::CompileOptions options;
  options.kernels = {"float3_cross"};
  options.widths = banksim::Widths::kNvcc;
  std::optional<Module> nvcc;
  try {
    nvcc.emplace(Module::compile(corpus("vector_types_all.cu"), options));
  } catch (const banksim::UsageError& e) {
    WARN("nvcc's widths are not available here, only clang's checked: " << e.what());
    return;
  }
  const auto r = nvcc->launch("float3_cross", {dim3(1), dim3(32), 0, 10.0}, {out, in});
  CHECK(r.problems.empty());
  CHECK(r.nvcc_widths);
  // ...nvcc as three STG.32, each request 32 lanes 12 bytes apart: 12 sectors (the H200's count
  // for the same store, tests/fixtures/h200/everyday-ncu.json).
  CHECK(global_stores(r) == std::pair<std::uint64_t, std::uint64_t>{3, 36});
  for (int t = 0; t < 32; ++t) {
    const float* a = &values[static_cast<std::size_t>(3 * t)];
    const float* b = &values[static_cast<std::size_t>(3 * ((t + 1) % 32))];
    CHECK(out.as<float>()[3 * t] == a[1] * b[2] - a[2] * b[1]);
    CHECK(out.as<float>()[3 * t + 2] == a[0] * b[1] - a[1] * b[0]);
  }
}

TEST_CASE("intrinsics: warp reductions and matches, integer and float math, as the H200 computes",
          "[banksim][feature]") {
  // The H200's outputs of the same two kernels (intrinsics_check.cu beside the file, 3 runs
  // identical): "warp_collectives v..." and "integer_math v..." lines.
  std::ifstream in("tests/fixtures/h200/intrinsics-h200.txt");
  REQUIRE(in);
  std::map<std::string, std::vector<long long>> h200;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    long long v = 0;
    while (words >> v) h200[name].push_back(v);
  }
  REQUIRE(h200["warp_collectives"].size() == 12 * 32);
  REQUIRE(h200["integer_math"].size() == 16 * 32);
  DeviceBuffer a(12 * 32 * sizeof(int));
  const auto ra = run_warp("intrinsics.cu", "warp_collectives", {a});
  CHECK(ra.problems.empty());
  for (int i = 0; i < 12 * 32; ++i) {
    INFO("warp_collectives: lane " << i / 12 << ", value " << i % 12);
    CHECK(a.as<int>()[i] == h200["warp_collectives"][static_cast<std::size_t>(i)]);
  }
  DeviceBuffer b(16 * 32 * sizeof(unsigned));
  const auto rb = run_warp("intrinsics.cu", "integer_math", {b});
  CHECK(rb.problems.empty());
  for (int i = 0; i < 16 * 32; ++i) {
    INFO("integer_math: lane " << i / 16 << ", value " << i % 16);
    CHECK(b.as<unsigned>()[i] == h200["integer_math"][static_cast<std::size_t>(i)]);
  }
}

TEST_CASE("intrinsics: scoped atomics, float2 atomicAdd, norms and pi-scaled sines",
          "[banksim][feature]") {
  DeviceBuffer counter(3 * sizeof(unsigned));
  DeviceBuffer f(sizeof(float) * 2);
  DeviceBuffer out(6 * sizeof(float));
  const auto r = run_warp("intrinsics.cu", "scoped_atomics", {counter, f, out});
  CHECK(r.problems.empty());
  CHECK(counter.as<unsigned>()[0] == 32);
  CHECK(counter.as<unsigned>()[1] == 31);
  CHECK(counter.as<unsigned>()[2] >= 1);
  CHECK(counter.as<unsigned>()[2] <= 32);
  CHECK(f.as<float>()[0] == 32.0f);
  CHECK(f.as<float>()[1] == 64.0f);
  const std::vector<float> want = {3.0f, 1.0f, 1.0f, -1.0f, 0.5f, 1.0f};
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("value " << i);
    CHECK(out.as<float>()[i] == Approx(want[i]).epsilon(1e-6));
  }
}

TEST_CASE("problem: uninitialised shared read", "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(float));
  const auto r = module("problems.cu").launch("uninitialized", {1, 32}, {out});
  const auto* p = find_problem(r, "uninitialized_read");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("uninit"));
  CHECK(p->variable == "s");
  // Nobody ever writes it: the advice is about the write that is skipped, not a barrier.
  CHECK(p->message.find("no thread of this block wrote") != std::string::npos);
  CHECK(p->message.find("__syncthreads") == std::string::npos);
}

TEST_CASE("problem: a barrier after an early return is divergent", "[banksim][problem]") {
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("problems.cu").launch("early_return", {1, 64}, {out, Arg::scalar(40)});
  const auto* p = find_problem(r, "barrier_divergence");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("divergent_barrier"));
  CHECK(p->message.find("reached by 40 of 64 threads") != std::string::npos);
  // The advice names the return that comes before the barrier.
  CHECK(p->message.find("the `return` at line " + std::to_string(line_of("early_return")) +
                        " comes before the barrier") != std::string::npos);
  // With every thread in range the same kernel is fine.
  const auto ok = module("problems.cu").launch("early_return", {1, 64}, {out, Arg::scalar(64)});
  CHECK(ok.problems.empty());
}

TEST_CASE("problem: a barrier inside an `if` is not told to move an early return",
          "[banksim][problem]") {
  DeviceBuffer out(64 * sizeof(float));
  const auto r = module("problems.cu").launch("barrier_in_branch", {1, 64}, {out, Arg::scalar(40)});
  const auto* p = find_problem(r, "barrier_divergence");
  REQUIRE(p != nullptr);
  INFO(p->message);
  CHECK(p->line == line_of("branch_barrier"));
  CHECK(p->message.find("reached by 40 of 64 threads") != std::string::npos);
  CHECK(p->message.find("inside the `if` at line " + std::to_string(line_of("branch_head"))) !=
        std::string::npos);
  CHECK(p->message.find("return") == std::string::npos);
}

TEST_CASE("problem: global out-of-bounds and wild pointers are reported, not crashes",
          "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(float));
  auto r = module("problems.cu").launch("oob_global", {1, 32}, {out});
  auto* p = find_problem(r, "out_of_bounds");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("oob_global"));
  CHECK(p->thread.x == 31);
  CHECK(r.completed);
  r = module("problems.cu").launch("wild_pointer", {1, 32}, {Arg::pointer(nullptr)});
  p = find_problem(r, "out_of_bounds");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("wild"));
  CHECK_FALSE(r.completed);
}

TEST_CASE("problem: a kernel spinning on shared memory is stopped by the timeout",
          "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(int));
  const auto r = module("problems.cu").launch("spin_on_shared", {1, 32, 0, 0.5}, {out});
  CHECK_FALSE(r.completed);
  const auto* p = find_problem(r, "timeout");
  REQUIRE(p != nullptr);
  CHECK(p->line == line_of("spin"));
}

// ---- Usage errors --------------------------------------------------------------------------

TEST_CASE("usage: unknown kernel, wrong arguments, bad launch, compile error", "[banksim][usage]") {
  banksim::CompileOptions options;
  options.kernels = {"no_such_kernel"};
  CHECK_THROWS_WITH(Module::compile(corpus("column_read.cu"), options),
                    HasSubstr("kernel 'no_such_kernel' not found in tests/corpus/column_read.cu") &&
                        HasSubstr("column_read_naive (line 4)"));
  options.kernels = {"transpose_tile"};
  CHECK_THROWS_WITH(Module::compile(corpus("transpose.cu"), options),
                    HasSubstr("is a template") && HasSubstr("transpose_tile<32>"));
  DeviceBuffer out(1024 * sizeof(float));
  CHECK_THROWS_WITH(module("column_read.cu").launch("column_read_naive", {1, {32, 32}}, {}),
                    HasSubstr("takes 1 argument (float* out); 0 given"));
  CHECK_THROWS_WITH(module("column_read.cu").launch("column_read_naive", {1, {64, 32}}, {out}),
                    HasSubstr("more than a GPU allows"));
  CHECK_THROWS_WITH(module("column_read.cu").launch("column_read_naive", {1, 32}, {Arg::scalar(3)}),
                    HasSubstr("is a pointer"));
  options.kernels = {"broken"};
  try {
    Module::compile(corpus("compile_error.nocompile.cu"), options);
    FAIL("a broken file compiled");
  } catch (const banksim::CompileError& e) {
    CHECK_THAT(e.what(), HasSubstr("tests/corpus/compile_error.nocompile.cu:6: error:") &&
                             HasSubstr("undeclared identifier 'tyle'"));
  }
  // The built-in variables are read-only, as under nvcc.
  options.kernels = {"resize"};
  try {
    Module::compile(corpus("write_builtin.nocompile.cu"), options);
    FAIL("a kernel that writes blockDim compiled");
  } catch (const banksim::CompileError& e) {
    CHECK_THAT(e.what(), HasSubstr("write_builtin.nocompile.cu:4: error:") &&
                             HasSubstr("const-qualified type 'const dim3'"));
  }
  CHECK_THROWS_AS(banksim::parse_dim3("32,x", "--block"), banksim::UsageError);
  CHECK(banksim::parse_dim3("32,8", "--block").y == 8);
}

TEST_CASE("nvcc widths: nvdisasm's listing read per source line", "[banksim][widths]") {
  // An excerpt of `nvdisasm -c -gi` (nvcc 13.0, sm_90), shortened: an inlined helper whose
  // frame is in the file (innermost line counts), an atomic inlined from a CUDA header (its
  // caller's line counts), predicated and wide instructions, another function's instructions.
  const std::string sass = R"(//--------------------- .text._Z1kPfPj --------------------------
_Z1kPfPj:
	//## File "/w/k.cu", line 4
        /*0110*/                   STS [R9+UR7], R4 ;
        /*0140*/                   STS.64 [R7+UR5], R2 ;
	//## File "/usr/local/cuda/include/device_atomic_functions.hpp", line 112 inlined at "/w/k.cu", line 6
	//## File "/w/k.cu", line 6
        /*0170*/                   ATOMS.POPC.INC.32 RZ, [R6+UR4] ;
	//## File "/w/k.cu", line 1 inlined at "/w/k.cu", line 9
	//## File "/w/k.cu", line 9
        /*0290*/                   LDS R10, [R10+UR7] ;
	//## File "/w/k.cu", line 9
        /*02c0*/              @!P0 LDS.128 R4, [R11] ;
        /*02d0*/                   FADD R4, R4, R5 ;
	//## File "/w/k.cu", line 10
        /*0360*/                   STS.U8 [R0+UR7], R2 ;
	//## File "/w/other.h", line 3
        /*0370*/                   LDS.64 R2, [R0] ;
)";
  const banksim::SassWidths w = banksim::parse_sass_widths(sass, "/w/./k.cu");
  REQUIRE(w.lines.size() == 5);
  CHECK(w.lines.at(4).store == (4 | 8));
  CHECK(w.lines.at(6).atomic == 4);
  CHECK(w.lines.at(1).load == 4);   // the helper's own line, as banksim's symbolizer names it
  CHECK(w.lines.at(9).load == 16);  // predicated LDS.128 counts
  CHECK(w.lines.at(10).store == 1);
  CHECK(w.lines.count(3) == 0);  // another file's line
  CHECK(w.instructions == 6);
  // The cache format reads back the same.
  const banksim::SassWidths back = banksim::sass_widths_from_text(banksim::to_text(w));
  REQUIRE(back.lines.size() == w.lines.size());
  CHECK(back.lines.at(4).store == w.lines.at(4).store);
  CHECK(banksim::width_mask_text(4 | 16) == "4+16");
}

TEST_CASE("module cache: a file compiles once, whatever kernel of it is asked for next",
          "[banksim][cache]") {
  // A fresh cache: the first Module::compile builds one module; asking for another kernel of
  // the file, or a template instance the file instantiates itself, loads that module (no new
  // module is built), and the kernels run from it.
  namespace fs = std::filesystem;
  const fs::path cache =
      fs::temp_directory_path() / ("banksim-cache-once-" + std::to_string(std::random_device{}()));
  auto modules_built = [&]() {
    int n = 0;
    for (const auto& e : fs::directory_iterator(cache)) n += e.path().extension() == ".so";
    return n;
  };
  banksim::CompileOptions options;
  options.cache_dir = cache;
  options.widths = banksim::Widths::kClang;
  options.kernels = {"row"};
  Module::compile(corpus("kernel_pointers.cu"), options);
  const int first = modules_built();
  for (const std::string k : {"tiles::column<1>", "tiles::column<0>", "row"}) {
    options.kernels = {k};
    const Module again = Module::compile(corpus("kernel_pointers.cu"), options);
    CHECK(modules_built() == first);
    DeviceBuffer in(1024 * sizeof(float));
    DeviceBuffer out(32 * sizeof(float));
    const LaunchReport r = again.launch(k, {dim3(1), dim3(32)}, {in, out});
    CHECK(r.completed);
    CHECK(r.problems.empty());
  }
  fs::remove_all(cache);
}

TEST_CASE("divergent loops: one request per iteration, the lanes that skip it left out",
          "[banksim][divergence]") {
  constexpr int kTrips = 8;  // each lane skips 2 of the 8 iterations: 6 loads a lane
  DeviceBuffer out(32 * sizeof(float));
  for (const char* kernel : {"take_turns", "take_turns_fibers"}) {
    INFO(kernel);
    const LaunchReport r = run_warp("divergent_loops.cu", kernel, {out, Arg::scalar(kTrips)});
    CHECK(r.regions == (std::string(kernel) == "take_turns"));
    const std::string name = std::string(kernel) + "_load";
    const auto& s = stats(r, marker(corpus("divergent_loops.cu"), name), kLoad);
    // Pairing each lane's k-th load gave 6 requests of 32 lanes mixing iterations.
    CHECK(s.requests == kTrips);
    CHECK(s.wavefronts == 8 * kTrips);  // 24 lanes, 8 on each of 3 banks, in every iteration
  }
  // The same loop with its load in a called function, and through a stepped pointer beside a
  // global read: the pass must still see a shared access in the loop (or it keeps no epoch).
  DeviceBuffer in(kTrips * sizeof(float));
  for (const auto& [kernel, name] : {std::pair{"take_turns_call", "load_at_load"},
                                     std::pair{"take_turns_pointer", "take_turns_pointer_load"}}) {
    INFO(kernel);
    const LaunchReport r =
        std::string(kernel) == "take_turns_call"
            ? run_warp("divergent_loops.cu", kernel, {out, Arg::scalar(kTrips)})
            : run_warp("divergent_loops.cu", kernel, {out, in, Arg::scalar(kTrips)});
    const auto& s = stats(r, marker(corpus("divergent_loops.cu"), name), kLoad);
    CHECK(s.requests == kTrips);
    CHECK(s.wavefronts == 8 * kTrips);
  }
  const LaunchReport r = run_warp("divergent_loops.cu", "lane_trips", {out, Arg::scalar(kTrips)});
  const auto& after = stats(r, marker(corpus("divergent_loops.cu"), "after_inner_load"), kLoad);
  CHECK(after.requests == kTrips);
  CHECK(after.wavefronts == kTrips);
  const auto& inner = stats(r, marker(corpus("divergent_loops.cu"), "inner_load"), kLoad);
  CHECK(inner.requests == 2 * kTrips);  // inner iterations 0 and 1 of each outer one
}

TEST_CASE("problem: a half warp's __syncwarp does not order its writes after the other half's",
          "[banksim][problem]") {
  DeviceBuffer out(32 * sizeof(int));
  auto r = module("problems.cu").launch("half_warp_sync_race", {1, 32}, {out});
  const auto* p = find_problem(r, "race");
  REQUIRE(p != nullptr);
  INFO(p->message);
  CHECK(p->line == line_of("half_high_write"));
  CHECK(p->variable == "s");
  r = module("problems.cu").launch("warp_sync_orders_halves", {1, 32}, {out});
  CHECK(find_problem(r, "race") == nullptr);
}

TEST_CASE("compile: __CUDA_ARCH__ follows the GPU architecture asked for", "[banksim][compile]") {
  for (const auto& [arch, expected] : {std::pair<std::string, int>{"", 900}, {"80", 800}}) {
    INFO("gpu_arch '" << arch << "'");
    banksim::CompileOptions options;
    options.kernels = {"cuda_arch"};
    options.widths = banksim::Widths::kClang;
    options.gpu_arch = arch;
    Module m = Module::compile(corpus("cuda_arch.cu"), options);
    DeviceBuffer out(32 * sizeof(int));
    m.launch("cuda_arch", {dim3(1), dim3(32), 0, 10.0}, {out});
    CHECK(out.as<int>()[0] == expected);
  }
}
