// banksim's <mma.h> (nvcuda::wmma) against the H200: every count below is what Nsight Compute
// read on the H200 for the same kernel (measurements/lessons/2026-12-03-tensor-core-tiles:
// fragment_loads.cu, ncu-table.txt), and every result is exact (half inputs whose products and
// sums float represents exactly).
#include <map>
#include <string>
#include <vector>

#include "banksim/banksim.hpp"
#include "course_catch.hpp"

using banksim::Arg;
using banksim::DeviceBuffer;
using banksim::LaunchReport;
using banksim::Module;

namespace {

const char* const kFile = "tests/corpus/wmma_fragments.cu";
constexpr int kLdms[] = {16, 24, 32, 40, 64, 72, 80, 128};

/// H200, per LDM: wavefronts of one half fragment load (any of the four operand layouts: one
/// LDSM.16.M88.4 or MT88.4), of one accumulator store (4 STS.64) and load (4 LDS.64) with LDM
/// floats a row.
struct H200Counts {
  int fragment, acc_store, acc_load;
};
const std::map<int, H200Counts>& h200() {
  static const std::map<int, H200Counts> m = {
      {16, {8, 16, 16}},  {24, {4, 8, 8}}, {32, {16, 32, 32}}, {40, {4, 8, 8}},
      {64, {32, 32, 32}}, {72, {4, 8, 8}}, {80, {8, 16, 16}},  {128, {32, 32, 32}}};
  return m;
}

std::string load_kernel(int ldm, int kind) {
  return "wmma_load<" + std::to_string(ldm) + ", " + std::to_string(kind) + ">";
}

Module& module() {
  static Module m = [] {
    banksim::CompileOptions options;
    for (int ldm : kLdms) {
      for (int kind = 0; kind < 4; ++kind) options.kernels.push_back(load_kernel(ldm, kind));
      options.kernels.push_back("wmma_accumulator<" + std::to_string(ldm) + ">");
    }
    options.kernels.insert(options.kernels.end(),
                           {"gemm_wmma<64>", "gemm_wmma<72>", "gemm_wmma<80>", "wmma_edit_a"});
    options.widths = banksim::Widths::kClang;
    return Module::compile(kFile, options);
  }();
  return m;
}

/// Requests and wavefronts of every site of `op` (all of the kernel's lines together).
std::pair<std::uint64_t, std::uint64_t> totals(const LaunchReport& r, bankmodel::Op op,
                                               int bytes = 0) {
  std::uint64_t req = 0, wf = 0;
  for (const auto& l : r.lines) {
    if (l.op != op || (bytes != 0 && l.bytes != bytes)) continue;
    req += l.requests;
    wf += l.wavefronts;
  }
  return {req, wf};
}

}  // namespace

TEST_CASE("wmma: a half fragment load is one 16-byte request per lane with the H200's wavefronts",
          "[banksim][wmma]") {
  std::vector<float> values(16 * 128);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7) - 3.0f;
  DeviceBuffer in(values.size() * sizeof(float));
  std::copy(values.begin(), values.end(), in.as<float>());
  DeviceBuffer out(256 * sizeof(float));
  for (int ldm : kLdms) {
    for (int kind = 0; kind < 4; ++kind) {
      INFO("ldm " << ldm << ", kind " << kind);
      const LaunchReport r =
          module().launch(load_kernel(ldm, kind), {dim3(1), dim3(32), 0, 10.0}, {out, in});
      CHECK(r.problems.empty());
      const auto [req, wf] = totals(r, bankmodel::Op::kLoad, 16);
      CHECK(req == 1);
      CHECK(wf == static_cast<std::uint64_t>(h200().at(ldm).fragment));
      // Tile element (memory row rr, column cc) is values[rr * ldm + cc]: A row-major puts it at
      // A[rr][cc], col-major at A[cc][rr]; B row-major at B[rr][cc], col-major at B[cc][rr].
      for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 16; ++j) {
          double want = 0;
          for (int q = 0; q < 16; ++q) {
            const int rr = kind == 0 ? i : kind == 1 ? q : kind == 2 ? q : j;
            const int cc = kind == 0 ? q : kind == 1 ? i : kind == 2 ? j : q;
            want += values[static_cast<std::size_t>(rr * ldm + cc)];
          }
          CHECK(out.as<float>()[i * 16 + j] == static_cast<float>(want));
        }
      }
    }
  }
}

TEST_CASE("wmma: accumulator store and load are 4 requests of 8 bytes, the H200's wavefronts",
          "[banksim][wmma]") {
  DeviceBuffer out(256 * sizeof(float));
  for (int ldm : kLdms) {
    INFO("ldm " << ldm);
    const LaunchReport r = module().launch("wmma_accumulator<" + std::to_string(ldm) + ">",
                                           {dim3(1), dim3(32), 0, 10.0}, {out});
    CHECK(r.problems.empty());
    const auto [sreq, swf] = totals(r, bankmodel::Op::kStore, 8);
    const auto [lreq, lwf] = totals(r, bankmodel::Op::kLoad, 8);
    CHECK(sreq == 4);
    CHECK(swf == static_cast<std::uint64_t>(h200().at(ldm).acc_store));
    CHECK(lreq == 4);
    CHECK(lwf == static_cast<std::uint64_t>(h200().at(ldm).acc_load));
    for (int i = 0; i < 256; ++i) CHECK(out.as<float>()[i] == static_cast<float>(i + 1));
  }
}

TEST_CASE("wmma: a 128^3 GEMM A B^T is exact, with the H200's wavefronts for tiles of 64, 72, 80",
          "[banksim][wmma]") {
  const int s = 128;
  std::vector<float> a(s * s), b(s * s);
  unsigned seed = 1;
  for (auto* v : {&a, &b}) {
    for (auto& x : *v) {
      seed = seed * 1664525u + 1013904223u;
      x = static_cast<float>(static_cast<int>((seed >> 16) % 17) - 8) / 8.0f;
    }
  }
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(a.size() * 4);
  std::copy(a.begin(), a.end(), da.as<float>());
  std::copy(b.begin(), b.end(), db.as<float>());
  // H200 (ncu, same kernels, m = n = k = 128): LDSM wavefronts; 256 STS.128, 1024 wavefronts.
  const std::map<int, std::uint64_t> lds_wavefronts = {{64, 16384}, {72, 2048}, {80, 4096}};
  for (const auto& [ldm, want_wf] : lds_wavefronts) {
    INFO("ldm " << ldm);
    const LaunchReport r =
        module().launch("gemm_wmma<" + std::to_string(ldm) + ">", {dim3(2, 2), dim3(128), 0, 60.0},
                        {dc, da, db, Arg::scalar(s), Arg::scalar(s), Arg::scalar(s)});
    CHECK(r.problems.empty());
    CHECK(totals(r, bankmodel::Op::kLoad, 16) == std::make_pair(std::uint64_t{512}, want_wf));
    CHECK(totals(r, bankmodel::Op::kStore, 16) ==
          std::make_pair(std::uint64_t{256}, std::uint64_t{1024}));
    int wrong = 0;
    for (int i = 0; i < s; ++i) {
      for (int j = 0; j < s; ++j) {
        float want = 0;
        for (int q = 0; q < s; ++q) want += a[i * s + q] * b[j * s + q];
        wrong += dc.as<float>()[i * s + j] != want;
      }
    }
    CHECK(wrong == 0);
  }
}
// An element-wise change to an A fragment stops the kernel (the process): CTest
// cli_wmma_edit_a_said.
