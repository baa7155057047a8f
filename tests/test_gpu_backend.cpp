// The GPU backend's readers, tested on what the tools really print on the H200
// (tests/gpu-fixtures/, recorded by scripts/gpu-integrity.sh from bad_kernels.cu), ncu's command
// line, the word a GPU worker waits for before it touches the GPU, the GPU gate table (the
// calibration file, the row chosen, the tolerance), and the GPU submission policy on objects that
// nvcc really builds (nvcc works without a GPU).
#include "course_catch.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "../grader/src/backend_internal.hpp"
#include "course/registry.hpp"
#include "grader/gpu_gates.hpp"
#include "grader/policy.hpp"

namespace fs = std::filesystem;
using grader::internal::parse_source_page;
using grader::internal::sanitizer_argv;
using grader::internal::sanitizer_issues;
using grader::internal::sanitizer_unfinished;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in("tests/gpu-fixtures/" + name, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("ncu source page: predicated stores and both kinds of shared atomics are sites",
          "[gpu][parser]") {
  const auto launches = parse_source_page(fixture("ncu-source-atomics.csv"), "bad_kernels.cu");
  REQUIRE(launches.size() == 1);
  int stores = 0, loads = 0, atomics = 0, loops = 0;
  for (const auto& s : launches[0].sites) {
    stores += s.op == bankmodel::Op::kStore;
    loads += s.op == bankmodel::Op::kLoad;
    atomics += s.op == bankmodel::Op::kAtomic;
    loops += s.op == bankmodel::Op::kAtomicLoop;
    if (s.op == bankmodel::Op::kAtomicLoop) {
      CHECK(s.requests == 125);  // the CAS loop of 64 threads on one float: 125 passes
      CHECK(s.wavefronts == 250);
    }
  }
  CHECK(stores == 3);   // "@!P1 STS" twice, "@!P0 STS" once: all predicated
  CHECK(loads == 3);    // the CAS loop's LDS, and the two final reads
  CHECK(atomics == 1);  // ATOMS.POPC.INC: nvcc's warp-aggregated atomicAdd(int, 1)
  CHECK(loops == 1);    // ATOMS.CAST.SPIN
  // The two STG.E of the kernel's result, each one request of 4 sectors (32 lanes x 4 bytes).
  REQUIRE(launches[0].global_sites.size() == 2);
  for (const auto& g : launches[0].global_sites) {
    CHECK(g.op == bankmodel::Op::kStore);
    CHECK(g.bytes == 4);
    CHECK(g.requests == 1);
    CHECK(g.sectors == 4);
    CHECK(g.ideal == 4);
  }
}

TEST_CASE("ncu source page on the H200: partial 16-byte stores, reachable ideal", "[gpu][parser]") {
  // bad_kernels.cu partial16: 4 lanes, one per quarter-warp, on distinct banks (ncu: 4 wavefronts,
  // ideal 1); 8 lanes of one quarter-warp on one 16-byte column (8 wavefronts, ideal 1); a full
  // LDS.128 reading a column, 8-way (32 wavefronts, ideal 4).
  const auto launches = parse_source_page(fixture("ncu-source-partial16.csv"), "bad_kernels.cu");
  REQUIRE(launches.size() == 1);
  const auto& sites = launches[0].sites;
  REQUIRE(sites.size() == 3);
  CHECK(sites[0].wavefronts == 4);
  CHECK(sites[0].ideal == 4);  // not a conflict: the phases are fixed
  CHECK(sites[1].wavefronts == 8);
  CHECK(sites[1].ideal == 4);  // still a conflict (2-way at least; the lanes are one phase's)
  CHECK(sites[2].wavefronts == 32);
  CHECK(sites[2].ideal == 4);  // full requests keep ncu's ideal: 8-way
}

TEST_CASE("the sanitizers start the worker as its usage line says", "[gpu]") {
  // gpu/worker.cu: "usage: worker DIR --report-fd N [--once]". Without --report-fd the worker
  // exits at once and every tool reports nothing: all kernels looked clean (H200, 2026-12-01).
  std::ifstream in("gpu/worker.cu");
  std::stringstream src;
  src << in.rdbuf();
  REQUIRE(src.str().find("usage: worker DIR --report-fd N [--once]") != std::string::npos);
  for (const char* tool : {"memcheck", "racecheck", "initcheck", "synccheck"}) {
    const auto argv = sanitizer_argv(tool, "/w/worker", "/w", true);
    const auto at = std::find(argv.begin(), argv.end(), "/w/worker");
    REQUIRE(at != argv.end());
    const std::vector<std::string> rest(at + 1, argv.end());
    CHECK(rest == std::vector<std::string>{"/w", "--report-fd", "-1", "--once"});
    CHECK((std::find(argv.begin(), argv.end(), "--padding") != argv.end()) ==
          (std::string(tool) == "memcheck"));
  }
}

TEST_CASE("a sanitizer run without its summary is no evidence of a clean kernel", "[gpu][parser]") {
  // Each recorded run finished: no "unchecked" problem, whatever it found.
  for (const char* f : {"sanitizer-memcheck-atomics.txt", "sanitizer-racecheck-race.txt",
                        "sanitizer-memcheck-oob.txt"}) {
    INFO(f);
    CHECK(sanitizer_unfinished(fixture(f), "memcheck", false, 0, 300).empty());
  }
  // Cut off (timed out) or dead before the summary: the check did not happen, and says so.
  const auto cut =
      sanitizer_unfinished(fixture("sanitizer-memcheck-atomics.txt"), "racecheck", true, 137, 300);
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].kind == "unchecked");
  CHECK(cut[0].message.find("racecheck did not finish in 300 s") != std::string::npos);
  CHECK(cut[0].message.find("races") != std::string::npos);
  const auto dead = sanitizer_unfinished("========= COMPUTE-SANITIZER\nSegmentation fault\n",
                                         "initcheck", false, 139, 300);
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].message.find("exit status 139") != std::string::npos);
  CHECK(dead[0].message.find("Segmentation fault") != std::string::npos);
}

TEST_CASE("ncu source page: partial 16-byte requests are judged against a reachable ideal",
          "[gpu][parser]") {
  // Exercise 06's solution at n = 9 on the H200: 16 requests of a swizzled STS.128 (6 with
  // active lanes: 32, 32, 8, 4, 4, 1), 18 wavefronts; ncu's ideal (bytes / 128 per request) is
  // 12, which 4 lanes in 4 quarter-warps cannot reach. A 4-byte access keeps ncu's ideal, and a
  // 16-byte access beyond one wavefront per active lane and phase is still a conflict.
  const std::string head =
      "\"Kernel Name\",\"k(float4 *, const float4 *, int)\",\n"
      "\"Address\",\"Source\",\"Instructions Executed\",\"Predicated-On Thread Instructions "
      "Executed\",\"Access Size\",\"L1 Wavefronts Shared\",\"L1 Wavefronts Shared Ideal\"\n";
  auto one = [&](const char* row) {
    const auto launches = parse_source_page(head + row + "\n", "k.cu");
    REQUIRE(launches.size() == 1);
    REQUIRE(launches[0].sites.size() == 1);
    return launches[0].sites[0];
  };
  const auto partial = one(R"("0x10","@!P0 STS.128 [R2], R4","16","81","128","18","12")");
  CHECK(partial.ideal == 18);
  CHECK(partial.wavefronts == 18);
  // The same partial requests with an 8-way conflict: 4 x 18 wavefronts stay above reachable.
  const auto conflicting = one(R"("0x10","@!P0 STS.128 [R2], R4","16","81","128","72","12")");
  CHECK(conflicting.ideal == 64);
  CHECK(conflicting.wavefronts > conflicting.ideal);
  // Full requests: ncu's ideal holds.
  const auto full = one(R"("0x10","STS.128 [R2], R4","16","512","128","80","64")");
  CHECK(full.ideal == 64);
  const auto narrow = one(R"("0x10","@!P0 STS [R2], R4","16","81","32","9","6")");
  CHECK(narrow.ideal == 6);
}

TEST_CASE("compute-sanitizer logs: each tool's finding with its kind and line", "[gpu][parser]") {
  struct Case {
    const char* file;
    const char* tool;
    const char* kind;
    int line;
  };
  for (const Case& c :
       {Case{"sanitizer-memcheck-oob.txt", "memcheck", "out_of_bounds", 10},
        Case{"sanitizer-memcheck-misaligned.txt", "memcheck", "misaligned", 19},
        Case{"sanitizer-racecheck-race.txt", "racecheck", "race", 25},
        Case{"sanitizer-initcheck-uninit.txt", "initcheck", "uninitialized_read", 30},
        Case{"sanitizer-synccheck-divergent.txt", "synccheck", "barrier_divergence", 36}}) {
    INFO(c.file);
    const auto issues = sanitizer_issues(fixture(c.file), c.tool);
    REQUIRE(issues.size() == 1);
    CHECK(issues[0].kind == c.kind);
    CHECK(issues[0].line == c.line);
    CHECK(issues[0].message.find("compute-sanitizer " + std::string(c.tool)) == 0);
  }
  CHECK(sanitizer_issues(fixture("sanitizer-memcheck-atomics.txt"), "memcheck").empty());
}

namespace {

/// "nvcc" and the course's one flag set for the default GPU (course::nvcc_flags: what the GPU
/// grader builds with), with the course's GPU headers: the objects tested are the grader's.
std::string course_nvcc() {
  std::string cmd = "nvcc";
  for (const auto& f : course::nvcc_flags()) cmd += " " + f;
  return cmd + " -I gpu/include";
}

/// Compiles `source` with the course's nvcc flags into a relocatable object in a fresh folder.
fs::path nvcc_object(const std::string& name, const std::string& source) {
  const fs::path dir = fs::temp_directory_path() / ("gpu-policy-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / (name + ".cu")) << source;
  const std::string cmd = course_nvcc() + " -c " + (dir / (name + ".cu")).string() + " -o " +
                          (dir / (name + ".o")).string() + " >" + (dir / "log").string() + " 2>&1";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  return dir / (name + ".o");
}

const char* kUnitTail =
    "extern \"C\" const void* course_student_kernel() {\n"
    "  return reinterpret_cast<const void*>(&copy);\n}\n";

}  // namespace

TEST_CASE("GPU object policy: nvcc's registration passes, runtime overrides and constructors fail",
          "[gpu][policy]") {
  // nvcc is the CUDA toolkit's (not in Debian's archive): where it is missing, say so and skip;
  // the course's CI machines have it, so there this test runs and can fail.
  if (std::system("nvcc --version >/dev/null 2>&1") != 0) {
    WARN("nvcc not found: the GPU object policy is not tested on this machine");
    return;
  }
  // A stand-in for the timing harness: it calls the CUDA runtime's timer.
  const fs::path harness =
      nvcc_object("harness",
                  "#include <cstdio>\nint main() { cudaEvent_t a, b; cudaEventCreate(&a); "
                  "cudaEventCreate(&b);\n"
                  "  float ms = 0; cudaEventElapsedTime(&ms, a, b); std::printf(\"%f\", ms); }\n");
  const std::string kernel =
      "#include \"course_todo.h\"\n"
      "__global__ void copy(float* o, const float* i) {\n"
      "  __shared__ float s[32]; s[threadIdx.x] = i[threadIdx.x]; __syncthreads();\n"
      "  o[threadIdx.x] = s[31 - threadIdx.x]; }\n";
  SECTION("an honest kernel") {
    CHECK(grader::check_gpu_object_policy(nvcc_object("honest", kernel + kUnitTail), harness)
              .empty());
  }
  SECTION("an honest kernel with a plain __device__ helper") {
    // nvcc's host stub for a non-inline __device__ function calls exit: it must not be refused.
    const std::string helper =
        "#include \"course_todo.h\"\n"
        "__device__ float twice(float x) { return 2.0f * x; }\n"
        "__global__ void copy(float* o, const float* i) {\n"
        "  __shared__ float s[32]; s[threadIdx.x] = i[threadIdx.x]; __syncthreads();\n"
        "  o[threadIdx.x] = twice(s[31 - threadIdx.x]); }\n";
    const auto v =
        grader::check_gpu_object_policy(nvcc_object("helper", helper + kUnitTail), harness);
    std::string said;
    for (const auto& x : v) said += x.message + "\n";
    INFO(said);
    CHECK(v.empty());
  }
  SECTION("host code that ends the process some other way than exit") {
    for (const char* call : {"_exit(0)", "quick_exit(0)", "_Exit(0)"}) {
      const auto v = grader::check_gpu_object_policy(
          nvcc_object("quit", "#include <cstdlib>\n#include <unistd.h>\n" + kernel +
                                  "void launch() { " + call + "; }\n" + kUnitTail),
          harness);
      INFO(call);
      REQUIRE(v.size() == 1);
      const bool refused = v[0].message.find("calls _") != std::string::npos ||
                           v[0].message.find("calls quick_exit") != std::string::npos;
      CHECK(refused);
    }
  }
  SECTION("a kernel file that replaces the runtime's timer, the name hidden by a macro") {
    const auto v = grader::check_gpu_object_policy(
        nvcc_object("timer", kernel +
                                 "#define PASTE(a, b) a##b\n"
                                 "cudaError_t PASTE(cudaEvent, ElapsedTime)(float* ms, "
                                 "cudaEvent_t, cudaEvent_t) { *ms = 1000; return cudaSuccess; }\n" +
                                 kUnitTail),
        harness);
    REQUIRE(v.size() == 1);
    CHECK(v[0].message.find("defines cudaEventElapsedTime") != std::string::npos);
  }
  SECTION("a static constructor behind a macro") {
    const auto v = grader::check_gpu_object_policy(
        nvcc_object("ctor", kernel +
                                "#include <cstdlib>\n#define RUN(x) static int g = (x);\n"
                                "RUN(std::system(\"true\"))\n" +
                                kUnitTail),
        harness);
    REQUIRE_FALSE(v.empty());
    bool before = false, system_call = false;
    for (const auto& x : v) {
      before = before || x.message.find("runs code before the kernels") != std::string::npos;
      system_call = system_call || x.message.find("calls system") != std::string::npos;
    }
    CHECK(before);
    CHECK(system_call);
  }
  SECTION("not an object") {
    const auto v = grader::check_gpu_object_policy("tests/gpu-fixtures/bad_kernels.cu", harness);
    REQUIRE(v.size() == 1);
    CHECK(v[0].message.find("not an ELF file") != std::string::npos);
  }
}

TEST_CASE("GPU mode: nvcc's error and its output name the student's file, not the copy it built",
          "[gpu][feedback]") {
  if (std::system("nvcc --version >/dev/null 2>&1") != 0) {
    WARN("nvcc not found: GPU mode's compile errors are not tested on this machine");
    return;
  }
  // As the GPU backend builds it: a copy of the file in the job's folder, included by a unit.
  const fs::path dir = fs::temp_directory_path() / "gpu-feedback-nvcc";
  fs::remove_all(dir);
  fs::create_directories(dir / "src");
  const fs::path copy = dir / "src" / "transpose.cu";
  std::ofstream(copy) << "#include \"course_todo.h\"\n"
                         "__global__ void k(float* o) {\n"
                         "  __syncthreads()\n"
                         "  o[threadIdx.x] = 0;\n"
                         "}\n";
  std::ofstream(dir / "unit.cu") << "#include \"" << copy.string() << "\"\n";
  const std::string cmd = course_nvcc() + " -c " + (dir / "unit.cu").string() + " -o " +
                          (dir / "unit.o").string() + " >" + (dir / "log").string() + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) != 0);
  std::ifstream in(dir / "log");
  const std::string log((std::istreambuf_iterator<char>(in)), {});
  INFO(log);
  const std::string shown = "exercises/04-padding-transpose/transpose.cu";
  const std::string first = grader::internal::nvcc_error(log, copy.string(), shown);
  CHECK(first.rfind(shown + ":4: error: expected a \";\"", 0) == 0);
  // The full output (the builds gate's detail) names the file the same way.
  grader::WorkerOutcome out;
  out.report.compile = {true, false, first, log};
  grader::internal::show_file_as(out, copy.string(), shown);
  CHECK(out.report.compile.diagnostics.find(copy.string()) == std::string::npos);
  CHECK(out.report.compile.diagnostics.find(shown + "(4): error") != std::string::npos);
}

TEST_CASE("ncu source page on the H200: ldmatrix (LDSM) loads are shared sites", "[gpu][parser]") {
  // measurements/lessons/2026-12-03-tensor-core-tiles: fragment_loads.cu's WMMA GEMM, rows of
  // 64 halves (8-way LDSM.16.M88.4) and 72 (conflict-free), m = n = k = 128, two launches each;
  // rows not executed and other instructions dropped.
  const auto launches = parse_source_page(fixture("ncu-source-ldsm.csv"), "fragment_loads.cu");
  REQUIRE(launches.size() == 4);
  for (std::size_t k = 0; k < launches.size(); ++k) {
    std::uint64_t requests = 0, wavefronts = 0, ideal = 0;
    for (const auto& s : launches[k].sites) {
      if (s.op != bankmodel::Op::kLoad) continue;
      CHECK(s.bytes == 16);
      requests += s.requests;
      wavefronts += s.wavefronts;
      ideal += s.ideal;
    }
    INFO("launch " << k);
    CHECK(requests == 512);                         // 16 warps x 2 slabs x 16 fragment loads
    CHECK(wavefronts == (k < 2 ? 16384u : 2048u));  // 32 or 4 per LDSM.x4, as banksim counts
    CHECK(ideal == 2048);
  }
}

TEST_CASE("ncu runs the student's kernel only, one launch per size, the source counters only",
          "[gpu][ncu]") {
  const auto argv = grader::internal::ncu_argv("transpose_tiled", 5, "/w/prof", "/w/worker", "/w");
  const auto at = [&](const std::string& flag) {
    const auto it = std::find(argv.begin(), argv.end(), flag);
    REQUIRE(it != argv.end());
    REQUIRE(it + 1 != argv.end());
    return *(it + 1);
  };
  CHECK(at("--clock-control") == "none");
  // The source counters the reader uses, by name: no section, so no warp-state sampling.
  CHECK(std::count(argv.begin(), argv.end(), "--section") == 0);
  const std::string metrics = at("--metrics");
  for (const char* m :
       {"inst_executed", "thread_inst_executed_true", "memory_access_size_type",
        "memory_l1_wavefronts_shared", "memory_l1_wavefronts_shared_ideal",
        "memory_l2_theoretical_sectors_global", "memory_l2_theoretical_sectors_global_ideal",
        "memory_l1_tag_requests_global"}) {
    CHECK(("," + metrics + ",").find("," + std::string(m) + ",") != std::string::npos);
  }
  // The section, for an ncu that gives no page for the names: that section alone.
  const auto sec = grader::internal::ncu_argv("transpose_tiled", 5, "/w/prof", "/w/worker", "/w",
                                              grader::internal::NcuCounters::kSection);
  CHECK(std::count(sec.begin(), sec.end(), "--section") == 1);
  CHECK(*(std::find(sec.begin(), sec.end(), "--section") + 1) == "SourceCounters");
  CHECK(std::count(sec.begin(), sec.end(), "--metrics") == 0);
  CHECK(at("--launch-count") == "5");
  // The name filter: the kernel itself (with or without template arguments or parameters, as
  // ncu prints it), never a kernel whose name only starts alike.
  const std::string name = at("--kernel-name");
  REQUIRE(name.rfind("regex:", 0) == 0);
  const std::regex re(name.substr(6));
  CHECK(std::regex_search("transpose_tiled", re));
  CHECK(std::regex_search("transpose_tiled(float *, const float *, int)", re));
  CHECK_FALSE(std::regex_search("transpose_tiled_naive", re));
  const auto templ = grader::internal::ncu_argv("shared_column_throughput<0>", 1, "p", "w", "d");
  const std::regex re2((std::find(templ.begin(), templ.end(), "--kernel-name") + 1)->substr(6));
  CHECK(std::regex_search("shared_column_throughput<0>", re2));
  // No name (the fallback when this ncu names kernels otherwise): no filter, the launch count.
  const auto any = grader::internal::ncu_argv("", 2, "p", "w", "d");
  CHECK(std::find(any.begin(), any.end(), "--kernel-name") == any.end());
  CHECK(*(std::find(any.begin(), any.end(), "--launch-count") + 1) == "2");
  // The worker after ncu's own options, with its report pipe, once (no timing loop).
  const auto w = std::find(argv.begin(), argv.end(), "/w/worker");
  REQUIRE(w != argv.end());
  CHECK(std::vector<std::string>(w, argv.end()) ==
        std::vector<std::string>{"/w/worker", "/w", "--report-fd", "{report_fd}", "--once"});
}

TEST_CASE("ncu source page with the metrics named reads as the section's page", "[gpu][parser]") {
  // The H200's page for --metrics (exercise 02's solution, 2026-12-03): columns by metric name.
  const auto real = parse_source_page(fixture("ncu-source-metrics.csv"), "k.cu");
  REQUIRE(real.size() == 1);
  REQUIRE(real[0].sites.size() == 2);
  for (const auto& site : real[0].sites) {
    CHECK(site.requests == 256);
    CHECK(site.wavefronts == 256);
    CHECK(site.ideal == 256);
    CHECK(site.bytes == 4);
  }
  REQUIRE(real[0].global_sites.size() == 2);
  CHECK(real[0].global_sites[0].sectors == 1024);
  CHECK(real[0].global_sites[0].ideal == 1024);
  CHECK(real[0].global_sites[0].lines == 256);
  // Every recorded section page, its columns renamed to the metrics' names, reads the same.
  const std::vector<std::pair<std::string, std::string>> names = {
      {"Predicated-On Thread Instructions Executed", "thread_inst_executed_true"},
      {"L1 Wavefronts Shared Ideal", "memory_l1_wavefronts_shared_ideal"},
      {"L1 Wavefronts Shared", "memory_l1_wavefronts_shared"},
      {"L2 Theoretical Sectors Global Ideal", "memory_l2_theoretical_sectors_global_ideal"},
      {"L2 Theoretical Sectors Global", "memory_l2_theoretical_sectors_global"},
      {"L1 Tag Requests Global", "memory_l1_tag_requests_global"},
      {"Access Size", "memory_access_size_type"},
      {"\"Instructions Executed\"", "\"inst_executed\""}};
  for (const char* f :
       {"ncu-source-atomics.csv", "ncu-source-partial16.csv", "ncu-source-ldsm.csv"}) {
    INFO(f);
    const std::string section = fixture(f);
    std::string named = section;
    for (const auto& [shown, metric] : names) {
      for (auto at = named.find(shown); at != std::string::npos; at = named.find(shown, at)) {
        named.replace(at, shown.size(), metric);
        at += metric.size();
      }
    }
    REQUIRE(named != section);
    const auto a = parse_source_page(section, "k.cu");
    const auto b = parse_source_page(named, "k.cu");
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      REQUIRE(a[k].sites.size() == b[k].sites.size());
      REQUIRE(!a[k].sites.empty());
      for (std::size_t i = 0; i < a[k].sites.size(); ++i) {
        CHECK(a[k].sites[i].requests == b[k].sites[i].requests);
        CHECK(a[k].sites[i].wavefronts == b[k].sites[i].wavefronts);
        CHECK(a[k].sites[i].ideal == b[k].sites[i].ideal);
        CHECK(a[k].sites[i].bytes == b[k].sites[i].bytes);
      }
      CHECK(a[k].global_sites.size() == b[k].global_sites.size());
    }
  }
}

TEST_CASE("ncu's failure is its ==ERROR== line, else its exit status and log", "[gpu][ncu]") {
  CHECK(grader::internal::ncu_failure("x\n==ERROR== ERR_NVGPUCTRPERM - no permission\ny", 1) ==
        "==ERROR== ERR_NVGPUCTRPERM - no permission");
  CHECK(grader::internal::ncu_failure("nothing", 3).find("exit status 3") != std::string::npos);
}

namespace {

fs::path gates_fixture(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / "test-gpu-gates" / name;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

std::vector<const course::ExerciseSpec*> kernel_exercises() {
  std::vector<const course::ExerciseSpec*> out;
  for (const auto& e : course::exercises()) {
    if (e.kind == course::ExerciseSpec::Kind::kKernel) out.push_back(&e);
  }
  return out;
}

}  // namespace

TEST_CASE("gate table: a calibrated row is found by GPU name and compute capability",
          "[gpu][calibration]") {
  grader::GateRow row;
  row.gpu = "NVIDIA L4";
  row.compute_capability = "8.9";
  for (const auto* e : kernel_exercises()) {
    row.min_ratio[e->id] = 1.25;
    row.measured_ratio[e->id] = 1.5;
  }
  grader::GateTable t;
  t.put(row);
  const fs::path file = gates_fixture("l4.json", t.to_json().dump(2));
  std::string error;
  const auto loaded = grader::GateTable::load(file, &error);
  REQUIRE(loaded);
  CHECK(error.empty());
  REQUIRE(loaded->find("NVIDIA L4", "8.9") != nullptr);
  CHECK(loaded->find("NVIDIA L4", "8.6") == nullptr);  // another chip of that name: not this row
  CHECK(loaded->find("NVIDIA L40", "8.9") == nullptr);
  const auto chosen =
      grader::choose_gate_row(*loaded, "NVIDIA L4", "8.9", kernel_exercises(), &error);
  REQUIRE(chosen);
  CHECK(chosen->min_ratio.at("04") == 1.25);
  CHECK(chosen->origin.rfind("calibrated: " + file.string(), 0) == 0);
  CHECK(chosen->to_json()["min_ratio"]["04"] == 1.25);  // what results.json records
}

TEST_CASE("gate table: a GPU with no row is refused with the command that makes one",
          "[gpu][calibration]") {
  std::string error;
  const auto empty =
      grader::GateTable::load(fs::temp_directory_path() / "no-such-gates.json", &error);
  REQUIRE(empty);  // no file yet: an empty table
  std::string message;
  const auto chosen = grader::choose_gate_row(*empty, "NVIDIA GeForce RTX 4090", "8.9",
                                              kernel_exercises(), &message);
  CHECK_FALSE(chosen);
  CHECK(message.find("no speed gates for NVIDIA GeForce RTX 4090 (compute capability 8.9)") !=
        std::string::npos);
  CHECK(message.find("make calibrate") != std::string::npos);
  CHECK(message.find("no-such-gates.json") != std::string::npos);
  // The H200 has the registry's committed row, under any compute capability string.
  const auto h200 =
      grader::choose_gate_row(*empty, "NVIDIA H200", "9.0", kernel_exercises(), &message);
  REQUIRE(h200);
  CHECK(h200->origin == "committed: the registry's NVIDIA H200 row");
  CHECK(h200->min_ratio.at("04") == course::find_exercise("04")->thresholds.gpu[0].min_ratio);
}

TEST_CASE("gate table: a malformed calibration file names itself and what to do",
          "[gpu][calibration]") {
  std::string error;
  CHECK_FALSE(grader::GateTable::load(gates_fixture("bad.json", "{\"rows\": 3}"), &error));
  CHECK(error.find("bad.json") != std::string::npos);
  CHECK(error.find("make calibrate") != std::string::npos);
  const std::string zero =
      R"({"format": "course-gpu-gates/1", "rows": [{"gpu": "X", "compute_capability": "8.0",
          "exercises": {"04": {"min_ratio": 0}}}]})";
  CHECK_FALSE(grader::GateTable::load(gates_fixture("zero.json", zero), &error));
  CHECK(error.find("exercise 04: no positive \"min_ratio\"") != std::string::npos);
}

TEST_CASE("calibration: the fraction reproduces the committed H200 row, within the tolerance",
          "[gpu][calibration]") {
  const auto committed = grader::committed_row("NVIDIA H200", kernel_exercises());
  REQUIRE(committed);
  // The H200's measured ratios times each exercise's fraction give back its committed gates.
  grader::GateRow same = *committed;
  for (const auto* e : kernel_exercises()) {
    INFO("exercise " << e->id);
    const double fraction = grader::calibration_fraction(*e);
    CHECK(fraction > 0.5);
    CHECK(fraction <= 1.0);
    // Every H200 row says what the reference measured there (the registry's, not a copy here),
    // and the fraction gives the committed gate back from it.
    const course::GpuGate* h200 = e->thresholds.gpu_gate("NVIDIA H200");
    REQUIRE(h200 != nullptr);
    CHECK(h200->measured > 0);
    CHECK(fraction * h200->measured == Approx(h200->min_ratio));
  }
  CHECK(grader::rows_differ(same, *committed).empty());
  grader::GateRow off = *committed;
  off.min_ratio["04"] *= 1.0 + grader::kCalibrationTolerance + 0.01;
  off.min_ratio["05"] *= 1.0 - grader::kCalibrationTolerance / 2;  // inside
  const auto differ = grader::rows_differ(off, *committed);
  REQUIRE(differ.size() == 1);
  CHECK(differ[0].rfind("04: calibrated", 0) == 0);
  off.min_ratio.erase("06");
  CHECK(grader::rows_differ(off, *committed).size() == 2);
}

TEST_CASE("a GPU worker reads its inputs while its step waits for the GPU, then waits for the word",
          "[gpu][lock]") {
  // The child notes "inputs" at once, then waits for the word on {go_fd}; the step's `ready`
  // (the lock, in the backend) sees the child already started, notes "lock", and only then
  // the word goes: the child's "gpu" comes after it.
  const fs::path dir = fs::temp_directory_path() / "course-go-word";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string order = (dir / "order").string();
  std::vector<std::string> argv = {
      "/bin/sh", "-c",
      "echo inputs >>\"$0\"; eval \"head -c 1 <&$1\" >/dev/null; echo gpu >>\"$0\"", order,
      "{go_fd}"};
  grader::SandboxSpec spec;
  spec.wall_seconds = spec.cpu_seconds = 20;
  bool started_first = false;
  {
    grader::internal::GoWord go(argv, spec);
    REQUIRE(spec.pass_fds.size() == 1);
    CHECK(argv.back() == std::to_string(spec.pass_fds[0]));
    go.send_after([&] {
      for (int i = 0; i < 200 && !started_first; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::ifstream in(order);
        std::string first;
        started_first = static_cast<bool>(std::getline(in, first)) && first == "inputs";
      }
      std::ofstream(order, std::ios::app) << "lock\n";
    });
    const grader::SandboxResult r = grader::run_unsandboxed(argv, spec);
    CHECK(r.exit_status == 0);
    go.join();
  }
  CHECK(started_first);
  std::ifstream in(order);
  std::stringstream all;
  all << in.rdbuf();
  CHECK(all.str() == "inputs\nlock\ngpu\n");
}

TEST_CASE("a GPU worker's word back lets the GPU go before it ends (without one: at its end)",
          "[gpu][lock]") {
  // The child takes the word, answers it, then keeps going for 1 s (its outputs travelling):
  // the step's `done` (letting the lock go) runs before the child ends. A child that ends
  // without answering gets `done` once the step joins it.
  using Clock = std::chrono::steady_clock;
  for (const bool answers : {true, false}) {
    std::vector<std::string> argv = {
        "/bin/sh", "-c",
        answers ? "eval \"head -c 1 <&$0\" >/dev/null; eval \"printf d >&$0\"; sleep 1"
                : "eval \"head -c 1 <&$0\" >/dev/null; sleep 1",
        "{go_fd}"};
    grader::SandboxSpec spec;
    spec.wall_seconds = spec.cpu_seconds = 20;
    std::atomic<bool> done{false};
    Clock::time_point done_at{};
    grader::internal::GoWord go(argv, spec);
    go.send_after([] {},
                  [&] {
                    done_at = Clock::now();
                    done = true;
                  });
    const grader::SandboxResult r = grader::run_unsandboxed(argv, spec);
    const Clock::time_point ended = Clock::now();
    CHECK(r.exit_status == 0);
    CHECK(done == answers);
    go.join();
    REQUIRE(done);
    if (answers) {
      CHECK(std::chrono::duration<double>(ended - done_at).count() > 0.5);
    } else {
      CHECK(done_at >= ended);
    }
  }
}

TEST_CASE("the class log names the tools whose steps take the GPU's lock before they start",
          "[gpu][lock]") {
  using grader::internal::gpu_usage_line;
  const std::string all_pass = gpu_usage_line(307.4, 238, 41.2, 119, 11, 25.6, {});
  CHECK(all_pass ==
        "GPU held alone 307 s (238 steps), by sanitizers only 41 s (119 steps, 11 gatherings), by "
        "neither 26 s");
  const std::string slow = gpu_usage_line(307.4, 238, 41.2, 119, 11, 25.6, {"ncu"});
  CHECK(slow.rfind(all_pass, 0) == 0);
  CHECK(slow.find("the lock taken before ncu starts (it did not pass the go word on)") !=
        std::string::npos);
  CHECK(gpu_usage_line(1, 1, 0, 0, 0, 0, {"ncu", "compute-sanitizer"})
            .find("before ncu, compute-sanitizer start (they did not pass the go word on)") !=
        std::string::npos);
}

TEST_CASE("a GPU step whose tool does not pass the go word on runs again with the lock taken first",
          "[gpu][lock]") {
  // The worker stands in as a shell that leaves no-go-word when its --go-fd is not open (a tool
  // that closed it) and otherwise takes the word; `take` and `let_go` count the lock's use.
  const fs::path dir = fs::temp_directory_path() / "course-go-gated";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path no_go = dir / grader::internal::kNoGoWordFile;
  grader::SandboxSpec spec;
  spec.wall_seconds = spec.cpu_seconds = 20;
  int takes = 0, lets = 0;
  std::vector<std::vector<std::string>> ran;
  auto step_of = [&](bool tool_passes) {
    return [&, tool_passes](const std::vector<std::string>& argv, const grader::SandboxSpec& s) {
      ran.push_back(argv);
      const bool go = argv.size() > 2 && argv[argv.size() - 2] == "--go-fd";
      const std::string script =
          !go           ? "true"
          : tool_passes ? "eval \"head -c 1 <&" + argv.back() + "\" >/dev/null"
                        : "echo no word on --go-fd >" + no_go.string();  // the fd was not passed on
      CHECK(grader::run_unsandboxed({"/bin/sh", "-c", script}, s).exit_status == 0);
    };
  };
  auto take = [&] { ++takes; };
  auto let_go = [&] { ++lets; };
  std::atomic<bool> passes{true};
  grader::internal::run_gated({"worker", "DIR"}, spec, no_go, passes, take, let_go, step_of(true));
  CHECK(ran.size() == 1);
  CHECK(passes);
  CHECK(takes == 1);
  CHECK(lets == 1);
  // A tool that does not pass it on: its worker stops, the step runs again without the word.
  ran.clear();
  takes = lets = 0;
  grader::internal::run_gated({"worker", "DIR"}, spec, no_go, passes, take, let_go, step_of(false));
  REQUIRE(ran.size() == 2);
  CHECK(ran[0].size() == 4);
  CHECK(ran[1] == std::vector<std::string>{"worker", "DIR"});
  CHECK_FALSE(passes);
  CHECK(takes == 2);
  // From then on the lock is taken first, without the word.
  ran.clear();
  grader::internal::run_gated({"worker", "DIR"}, spec, no_go, passes, take, let_go, step_of(false));
  REQUIRE(ran.size() == 1);
  CHECK(ran[0] == std::vector<std::string>{"worker", "DIR"});
  // A hostile kernel that prints the worker's message (device printf) changes nothing: only the
  // worker's file says the word did not come.
  std::atomic<bool> fresh{true};
  ran.clear();
  grader::internal::run_gated(
      {"worker", "DIR"}, spec, no_go, fresh, take, let_go,
      [&](const std::vector<std::string>& argv, const grader::SandboxSpec& s) {
        ran.push_back(argv);
        const std::string script = "eval \"head -c 1 <&" + argv.back() +
                                   "\" >/dev/null; echo 'gpu worker: no word on --go-fd 3: "
                                   "stopping before the GPU'";
        CHECK(grader::run_unsandboxed({"/bin/sh", "-c", script}, s).exit_status == 0);
      });
  CHECK(ran.size() == 1);
  CHECK(fresh);
}

TEST_CASE("a GPU step's wait for the GPU is not charged to its wall-clock limit", "[gpu][lock]") {
  // The lock is taken 2 s after the step starts (other students' timings); the worker, limited
  // to 1 s of wall clock, takes the word and answers at once: it is not killed for the wait.
  const fs::path dir = fs::temp_directory_path() / "course-go-wait";
  fs::remove_all(dir);
  fs::create_directories(dir);
  grader::SandboxSpec spec;
  spec.wall_seconds = spec.cpu_seconds = 1;
  std::atomic<bool> passes{true};
  grader::SandboxResult r;
  grader::internal::run_gated(
      {"/bin/sh", "-c", "eval \"head -c 1 <&$1\" >/dev/null; eval \"printf d >&$1\"", "sh"}, spec,
      dir / grader::internal::kNoGoWordFile, passes,
      [] { std::this_thread::sleep_for(std::chrono::seconds(2)); }, [] {},
      [&](const std::vector<std::string>& argv, const grader::SandboxSpec& s) {
        // argv ends "--go-fd N": the script reads $1, so N must come first after "sh".
        std::vector<std::string> a = {argv[0], argv[1], argv[2], argv[3], argv.back()};
        r = grader::run_unsandboxed(a, s);
      });
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_status == 0);
  CHECK(passes);
}
