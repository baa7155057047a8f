// gpu_worker.cu - the GPU backend's child process. The grader compiles it with nvcc together with
// one student (or baseline) file:
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Iinclude -DCOURSE_STUDENT_FILE='"/abs/file.cu"'
//        -DCOURSE_KERNEL=transpose_tiled grader/gpu/gpu_worker.cu -o DIR/worker
// and runs `DIR/worker DIR [--once]`. It reads DIR/request.txt (written by gpu_backend.cpp):
//   runs R                          then per run:
//   run grid X Y Z block X Y Z smem S timed 0|1 buffers B args A
//   buffer BYTES                    (B lines; contents in runK_bufJ.in)
//   arg buffer J | arg int V        (A lines)
// and writes runK_bufJ.out (every buffer after the first launch), runK.time_ms (median of 15
// CUDA-event timings, each after an L2 flush and fresh inputs; only when timed and not --once),
// and runK.report.json ({"completed", "abort_reason", "sites": [], "issues": [...]}). It never
// judges. Only the CUDA toolkit is needed, so it builds on a bare GPU machine.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// Without the grader's -D flags (e.g. in CI's compile-only check of every .cu file) it builds
// around exercise 04's solution.
#ifndef COURSE_STUDENT_FILE
#define COURSE_STUDENT_FILE "../../solutions/04-padding-transpose/transpose.cu"
#define COURSE_KERNEL transpose_tiled
#endif
#include COURSE_STUDENT_FILE

namespace {

std::string g_dir;

std::string path(const std::string& name) {
  return g_dir + "/" + name;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out;
}

void write_report(int run, bool completed, const std::string& reason) {
  std::ofstream out(path("run" + std::to_string(run) + ".report.json"));
  out << "{\"completed\": " << (completed ? "true" : "false") << ", \"abort_reason\": \""
      << json_escape(reason) << "\", \"sites\": [], \"issues\": [";
  if (!completed) {
    out << "{\"kind\": \"crash\", \"severity\": \"error\", \"file\": \"\", \"line\": 0, "
        << "\"message\": \"" << json_escape(reason) << "\"}";
  }
  out << "]}\n";
}

/// Stops the process on a CUDA error: a kernel fault leaves the context unusable.
void check(cudaError_t err, int run, const char* what) {
  if (err == cudaSuccess) return;
  const bool kernel = std::strcmp(what, "kernel") == 0 || std::strcmp(what, "launch") == 0;
  const std::string reason =
      std::string(kernel ? "the kernel failed on the GPU: " : "CUDA error: ") + what + ": " +
      cudaGetErrorString(err) +
      (kernel ? " (an out-of-bounds access, a trap such as an unfilled TODO, or an invalid launch)"
              : "");
  std::fprintf(stderr, "gpu_worker: %s\n", reason.c_str());
  if (run >= 0) write_report(run, false, reason);
  std::exit(1);
}

struct Arg {
  bool is_buffer = false;
  int buffer = 0;
  int value = 0;
};

struct Run {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  size_t smem = 0;
  bool timed = false;
  std::vector<size_t> buffer_bytes;
  std::vector<Arg> args;
};

std::vector<Run> read_request() {
  std::ifstream in(path("request.txt"));
  std::string word;
  int runs = 0;
  in >> word >> runs;
  std::vector<Run> out(static_cast<size_t>(runs));
  for (Run& r : out) {
    size_t buffers = 0, args = 0;
    int timed = 0;
    in >> word >> word >> r.grid[0] >> r.grid[1] >> r.grid[2] >> word >> r.block[0] >> r.block[1] >>
        r.block[2] >> word >> r.smem >> word >> timed >> word >> buffers >> word >> args;
    r.timed = timed != 0;
    for (size_t j = 0; j < buffers; ++j) {
      size_t bytes = 0;
      in >> word >> bytes;
      r.buffer_bytes.push_back(bytes);
    }
    for (size_t j = 0; j < args; ++j) {
      Arg a;
      std::string kind;
      in >> word >> kind;
      if (kind == "buffer") {
        a.is_buffer = true;
        in >> a.buffer;
      } else {
        in >> a.value;
      }
      r.args.push_back(a);
    }
  }
  return out;
}

std::vector<char> read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: worker DIR [--once]   (run by the grader)\n");
    return 2;
  }
  g_dir = argv[1];
  const bool once = argc > 2 && std::strcmp(argv[2], "--once") == 0;
  const std::vector<Run> runs = read_request();
  void* flush = nullptr;
  const size_t flush_bytes = size_t{256} << 20;  // several times the 60 MB L2 of an H200
  check(cudaMalloc(&flush, flush_bytes), -1, "cudaMalloc (L2 flush buffer)");
  for (size_t k = 0; k < runs.size(); ++k) {
    const Run& r = runs[k];
    const int run = static_cast<int>(k);
    std::vector<std::vector<char>> host;
    std::vector<void*> dev;
    for (size_t j = 0; j < r.buffer_bytes.size(); ++j) {
      host.push_back(
          read_file(path("run" + std::to_string(k) + "_buf" + std::to_string(j) + ".in")));
      void* p = nullptr;
      check(cudaMalloc(&p, std::max<size_t>(r.buffer_bytes[j], 1)), run, "cudaMalloc");
      check(cudaMemcpy(p, host[j].data(), host[j].size(), cudaMemcpyHostToDevice), run,
            "cudaMemcpy");
      dev.push_back(p);
    }
    std::vector<void*> values(r.args.size());
    std::vector<int> ints(r.args.size());
    std::vector<void*> params(r.args.size());
    for (size_t a = 0; a < r.args.size(); ++a) {
      if (r.args[a].is_buffer) {
        values[a] = dev[static_cast<size_t>(r.args[a].buffer)];
        params[a] = &values[a];
      } else {
        ints[a] = r.args[a].value;
        params[a] = &ints[a];
      }
    }
    const dim3 grid(r.grid[0], r.grid[1], r.grid[2]), block(r.block[0], r.block[1], r.block[2]);
    auto launch = [&]() {
      return cudaLaunchKernel(reinterpret_cast<const void*>(&COURSE_KERNEL), grid, block,
                              params.data(), r.smem, nullptr);
    };
    check(launch(), run, "launch");
    check(cudaDeviceSynchronize(), run, "kernel");
    for (size_t j = 0; j < dev.size(); ++j) {
      std::vector<char> after(r.buffer_bytes[j]);
      check(cudaMemcpy(after.data(), dev[j], after.size(), cudaMemcpyDeviceToHost), run,
            "cudaMemcpy");
      std::ofstream(path("run" + std::to_string(k) + "_buf" + std::to_string(j) + ".out"),
                    std::ios::binary)
          .write(after.data(), static_cast<std::streamsize>(after.size()));
    }
    if (r.timed && !once) {
      cudaEvent_t a, b;
      check(cudaEventCreate(&a), run, "cudaEventCreate");
      check(cudaEventCreate(&b), run, "cudaEventCreate");
      std::vector<float> times;
      for (int rep = 0; rep < 17; ++rep) {
        for (size_t j = 0; j < dev.size(); ++j) {  // fresh inputs (and poisoned outputs)
          check(cudaMemcpy(dev[j], host[j].data(), host[j].size(), cudaMemcpyHostToDevice), run,
                "cudaMemcpy");
        }
        check(cudaMemset(flush, rep, flush_bytes), run, "L2 flush");
        check(cudaEventRecord(a), run, "cudaEventRecord");
        check(launch(), run, "launch");
        check(cudaEventRecord(b), run, "cudaEventRecord");
        check(cudaEventSynchronize(b), run, "kernel");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), run, "cudaEventElapsedTime");
        if (rep >= 2) times.push_back(ms);  // the first two are warm-ups
      }
      std::sort(times.begin(), times.end());
      std::ofstream(path("run" + std::to_string(k) + ".time_ms"))
          << times[times.size() / 2] << "\n";
    }
    write_report(run, true, "");
    for (void* p : dev) cudaFree(p);
  }
  cudaFree(flush);
  return 0;
}
