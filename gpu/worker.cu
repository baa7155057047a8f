// worker.cu - the GPU backend's child process (grader/src/gpu_backend.cpp). The grader builds it
// with nvcc from two translation units, so no macro of the student's file reaches this one:
//   nvcc FLAGS -Igpu -Igpu/include -Igrader/include gpu/worker.cu DIR/student_unit.cu
//        -o DIR/worker
// (FLAGS: the course's one nvcc flag set, `course-registry nvcc-flags`; the CMake target
// gpu_harness builds this unit alone with them)
// where DIR/student_unit.cu #includes the student's (or baseline's) file and defines
//   extern "C" const void* course_student_kernel();   // the kernel under test
// It runs `worker DIR --report-fd N [--once] [--go-fd M]` (N = -1: no report): reads
// DIR/request.json and DIR/runK_bufJ.in (grader/protocol.hpp), with --go-fd waits for the
// grader's word on fd M (the GPU lock is then the grader's), runs each launch once through the
// harness (gpu/harness.cuh), then, when the request is timed and not --once, times it (median of 15
// CUDA-event timings after 2 warm-ups, fresh inputs and a flushed L2 before each). Once the GPU's
// work is done it resets the device and writes one byte back on fd M (the grader may give the GPU
// to the next step), then everything goes back as protocol frames on fd N. A timed request may also
// ask for a ceiling (cudaMemcpy, cuBLAS SGEMM, as gpu/ceilings.cuh measures them for the
// benchmarks), timed the same way in the same process. It never judges.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <dlfcn.h>

#include "grader/protocol.hpp"
#include "harness.cuh"

namespace proto = grader::protocol;

extern "C" const void* course_student_kernel();

namespace {

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reports a failed run and stops: a kernel fault leaves the context unusable.
[[noreturn]] void fail_run(int fd, std::size_t run, const std::string& what) {
  const std::string reason =
      "the kernel failed on the GPU: " + what +
      " (an out-of-bounds or misaligned access, a trap such as an unfilled TODO, or an invalid "
      "launch)";
  std::fprintf(stderr, "gpu worker: %s\n", reason.c_str());
  proto::RunReport r;
  r.completed = false;
  r.abort_reason = reason;
  r.issues.push_back({"crash", proto::Severity::kError, "", 0, 0, reason});
  proto::send_run(fd, run, r);
  std::exit(1);
}

/// cuBLAS, loaded only when a request asks for the SGEMM ceiling (exercise 08): a worker that
/// cannot find it still grades every other exercise, and says why this one has no ceiling.
class Cublas {
 public:
  /// The library, loaded (never unloaded): reading it from disk touches no GPU.
  static void* preload() {
    static void* lib = [] {
      for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
        if (void* l = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return l;
      }
      return static_cast<void*>(nullptr);
    }();
    return lib;
  }
  Cublas() {
    lib_ = preload();
    if (lib_ == nullptr) return;
    create_ = reinterpret_cast<decltype(create_)>(dlsym(lib_, "cublasCreate_v2"));
    destroy_ = reinterpret_cast<decltype(destroy_)>(dlsym(lib_, "cublasDestroy_v2"));
    math_ = reinterpret_cast<decltype(math_)>(dlsym(lib_, "cublasSetMathMode"));
    sgemm_ = reinterpret_cast<decltype(sgemm_)>(dlsym(lib_, "cublasSgemm_v2"));
    if (create_ == nullptr || destroy_ == nullptr || math_ == nullptr || sgemm_ == nullptr ||
        create_(&handle_) != CUBLAS_STATUS_SUCCESS) {
      handle_ = nullptr;
      return;
    }
    math_(handle_, CUBLAS_PEDANTIC_MATH);  // fp32 as the exercise computes it, no TF32
  }
  ~Cublas() {
    if (handle_ != nullptr) destroy_(handle_);
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  bool ok() const { return handle_ != nullptr; }
  /// Row-major C (m x n) = A (m x k) * B^T (B: n x k): column-major C^T = B * A^T.
  void abt(int m, int n, int k, const float* a, const float* b, float* c) const {
    const float one = 1.0f, zero = 0.0f;
    sgemm_(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, k, a, k, &zero, c, n);
  }

 private:
  void* lib_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  decltype(&cublasCreate_v2) create_ = nullptr;
  decltype(&cublasDestroy_v2) destroy_ = nullptr;
  decltype(&cublasSetMathMode) math_ = nullptr;
  decltype(&cublasSgemm_v2) sgemm_ = nullptr;
};

/// The request's ceiling timed like the kernel (median of 15, L2 flushed), or -1: a device to
/// device copy of the outputs' bytes (gpu/ceilings.cuh's CopyCeiling), or cuBLAS SGEMM.
double ceiling_ms(const proto::Request& req) {
  if (req.ceiling == "memcpy" && req.ceiling_bytes > 0) {
    const course::gpu::DeviceBuffer src(req.ceiling_bytes), dst(req.ceiling_bytes);
    course::gpu::fill_uniform<float>(src, 1);
    return course::gpu::median_ms([&] {
      COURSE_CHECK_CUDA(
          cudaMemcpyAsync(dst.data(), src.data(), req.ceiling_bytes, cudaMemcpyDeviceToDevice));
    });
  }
  const auto& d = req.ceiling_mnk;
  if (req.ceiling == "sgemm" && d[0] > 0 && d[1] > 0 && d[2] > 0) {
    const Cublas blas;
    if (!blas.ok()) {
      const char* why = dlerror();
      std::fprintf(stderr, "gpu worker: cuBLAS could not be loaded: %s\n",
                   why != nullptr ? why : "no libcublas.so found");
      return -1.0;
    }
    const int m = static_cast<int>(d[0]), n = static_cast<int>(d[1]), k = static_cast<int>(d[2]);
    const course::gpu::DeviceBuffer a(size_t{4} * m * k), b(size_t{4} * n * k),
        c(size_t{4} * m * n);
    course::gpu::fill_uniform<float>(a, 2);
    course::gpu::fill_uniform<float>(b, 3);
    return course::gpu::median_ms(
        [&] { blas.abt(m, n, k, a.as<float>(), b.as<float>(), c.as<float>()); });
  }
  return -1.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--report-fd") != 0) {
    std::fprintf(stderr,
                 "usage: worker DIR --report-fd N [--once] [--go-fd M]   (run by the grader)\n");
    return 2;
  }
  const std::string dir = argv[1];
  // "--report-fd -1": no report (the sanitizers' runs, whose findings come from the tool's log).
  const int fd = std::atoi(argv[3]) >= 0 ? std::atoi(argv[3]) : open("/dev/null", O_WRONLY);
  bool once = false;
  int go_fd = -1;
  for (int a = 4; a < argc; ++a) {
    if (std::strcmp(argv[a], "--once") == 0) once = true;
    if (std::strcmp(argv[a], "--go-fd") == 0 && a + 1 < argc) go_fd = std::atoi(argv[++a]);
  }
  proto::Request req;
  try {
    req = proto::request_from_json(nlohmann::json::parse(read_file(dir + "/request.json")));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu worker: bad request: %s\n", e.what());
    return 3;
  }
  const void* kernel = course_student_kernel();
  // Every run's inputs from disk before the GPU is touched: with --go-fd the grader takes the
  // GPU lock meanwhile, and says go when it holds it.
  std::vector<course::gpu::Job> jobs(req.runs.size());
  for (std::size_t k = 0; k < req.runs.size(); ++k) {
    const proto::RunSpec& run = req.runs[k];
    course::gpu::Job& job = jobs[k];
    job.grid = dim3(run.grid[0], run.grid[1], run.grid[2]);
    job.block = dim3(run.block[0], run.block[1], run.block[2]);
    job.smem = run.smem;
    for (std::size_t j = 0; j < run.buffer_bytes.size(); ++j) {
      const std::string in =
          read_file(dir + "/run" + std::to_string(k) + "_buf" + std::to_string(j) + ".in");
      job.buffers.emplace_back(run.buffer_bytes[j]);
      std::memcpy(job.buffers.back().data(), in.data(), std::min(in.size(), run.buffer_bytes[j]));
    }
    for (const proto::Arg& a : run.args) job.args.push_back({a.buffer, a.value});
  }
  // cuBLAS's library is large: loaded from disk before the word, created after it.
  if (req.ceiling == "sgemm") Cublas::preload();
  if (go_fd >= 0) {
    char word = 0;
    ssize_t got = -1;
    while ((got = read(go_fd, &word, 1)) < 0 && errno == EINTR) {
    }
    // A tool between the grader and this process did not pass the descriptor on: the GPU lock
    // is not this run's, so it stops before the GPU and leaves DIR/no-go-word; the grader runs
    // it again with the lock taken first.
    if (got != 1) {
      std::ofstream(dir + "/no-go-word") << "no word on --go-fd\n";
      std::fprintf(stderr,
                   "gpu worker: no word on --go-fd %d: stopping before the GPU (the tool that "
                   "started this worker did not pass the descriptor on)\n",
                   go_fd);
      return 5;
    }
  }
  proto::send_compile(fd, true, "", "");
  // The reports wait until the GPU is done with: their outputs (up to hundreds of MB at the
  // timed size) go to the grader after the GPU is given back.
  std::vector<proto::RunReport> reports;
  auto send_reports = [&] {
    for (std::size_t k = 0; k < reports.size(); ++k) proto::send_run(fd, k, reports[k]);
    reports.clear();
  };
  for (std::size_t k = 0; k < req.runs.size(); ++k) {
    course::gpu::Job& job = jobs[k];
    const course::gpu::Job initial = job;
    std::string error;
    if (!course::gpu::run_once(kernel, job, &error)) {
      send_reports();
      fail_run(fd, k, error);
    }
    proto::RunReport report;
    report.completed = true;
    if (req.timed && !once) {
      // The ceiling first: nothing of the student's code has run since its kernel finished.
      report.ceiling_ms = ceiling_ms(req);
      report.median_ms = course::gpu::median_ms_fresh(kernel, initial, &error);
      if (report.median_ms < 0) {
        send_reports();
        fail_run(fd, k, error);
      }
    }
    report.buffers = std::move(job.buffers);
    job = course::gpu::Job{};
    reports.push_back(std::move(report));
  }
  // Done with the GPU: its context goes now, not at exit, and the grader hears it on --go-fd
  // (it lets other steps have the GPU while the outputs travel).
  cudaDeviceReset();
  if (go_fd >= 0) {
    const char done = 'd';
    // MSG_NOSIGNAL: a grader that no longer listens is no reason to lose the reports.
    while (send(go_fd, &done, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
    close(go_fd);
  }
  send_reports();
  return 0;
}
