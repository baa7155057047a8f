// grade_worker - the CPU backend's child process: compiles one student (or baseline) file and
// runs it under banksim, as described by DIR/request.json, writing raw results to DIR:
//   compile.json                 {"ok": bool, "message": "...", "diagnostics": "..."}
//   runK_bufJ.in  -> runK_bufJ.out   every buffer's contents before and after run K
//   runK.report.json             banksim's report (per-line stats, problems) of run K
//   host_cases.in -> host_results.out   host exercises: 32 int64 per case in, one int32 out
// It never judges: the grader compares outputs with its own reference and reads the traces.
// Student code runs here, so a crash, hang or exit() ends only this process; banksim's
// emergency handler still writes the report of the run in progress.
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "banksim/banksim.hpp"
#include "banksim/runtime.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path g_dir;
int g_run = -1;
const banksim::Module* g_module = nullptr;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const void* data, std::size_t bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

void write_json(const fs::path& p, const json& j) {
  std::ofstream(p) << j.dump(1) << "\n";
}

// Called by banksim when the process must stop (crash, hang without memory accesses).
void emergency(const char* kind, const char* message, std::uint64_t pc) {
  if (g_run < 0) return;
  std::pair<std::string, int> where{"", 0};
  if (g_module != nullptr && pc != 0) where = g_module->locate(pc);
  json j = {{"completed", false},
            {"abort_reason", message},
            {"sites", json::array()},
            {"issues", json::array({{{"kind", kind},
                                     {"severity", "error"},
                                     {"file", where.first},
                                     {"line", where.second},
                                     {"message", message}}})}};
  write_json(g_dir / fmt::format("run{}.report.json", g_run), j);
}

int run_kernels(const json& req) {
  banksim::CompileOptions options;
  options.kernels = {req.at("kernel").get<std::string>()};
  for (const auto& inc : req.value("include_dirs", json::array())) {
    options.extra_flags.push_back("-I" + inc.get<std::string>());
  }
  std::optional<banksim::Module> module;
  try {
    module.emplace(banksim::Module::compile(req.at("file").get<std::string>(), options));
  } catch (const banksim::CompileError& e) {
    write_json(g_dir / "compile.json",
               {{"ok", false}, {"message", e.what()}, {"diagnostics", e.diagnostics()}});
    return 0;
  } catch (const banksim::UsageError& e) {
    write_json(g_dir / "compile.json", {{"ok", false}, {"message", e.what()}, {"diagnostics", ""}});
    return 0;
  }
  write_json(g_dir / "compile.json", {{"ok", true}});
  g_module = &*module;
  const auto& runs = req.at("runs");
  for (std::size_t k = 0; k < runs.size(); ++k) {
    g_run = static_cast<int>(k);
    const json& run = runs[k];
    std::vector<banksim::DeviceBuffer> buffers;
    const auto& bufs = run.at("buffers");
    buffers.reserve(bufs.size());
    for (std::size_t j = 0; j < bufs.size(); ++j) {
      const std::string data = read_file(g_dir / fmt::format("run{}_buf{}.in", k, j));
      buffers.emplace_back(data.size());
      std::memcpy(buffers.back().data(), data.data(), data.size());
    }
    std::vector<banksim::Arg> args;
    for (const auto& a : run.at("args")) {
      if (a.contains("buffer")) {
        args.emplace_back(buffers.at(a.at("buffer").get<std::size_t>()));
      } else {
        args.push_back(banksim::Arg::scalar(a.at("int").get<int>()));
      }
    }
    const auto& g = run.at("grid");
    const auto& b = run.at("block");
    banksim::LaunchConfig config{dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]),
                                 run.value("smem", std::size_t{0}), run.value("timeout_s", 10.0)};
    try {
      const banksim::LaunchReport report = module->launch(options.kernels[0], config, args);
      for (std::size_t j = 0; j < buffers.size(); ++j) {
        write_file(g_dir / fmt::format("run{}_buf{}.out", k, j), buffers[j].data(),
                   buffers[j].bytes());
      }
      write_json(g_dir / fmt::format("run{}.report.json", k), report.to_json());
    } catch (const banksim::UsageError& e) {
      write_json(g_dir / fmt::format("run{}.report.json", k),
                 {{"completed", false},
                  {"abort_reason", e.what()},
                  {"sites", json::array()},
                  {"issues", json::array({{{"kind", "usage"},
                                           {"severity", "error"},
                                           {"file", req.at("file")},
                                           {"line", 0},
                                           {"message", e.what()}}})}});
    }
  }
  g_run = -1;
  return 0;
}

int run_host(const json& req) {
  const std::string file = req.at("file").get<std::string>();
  const fs::path so = g_dir / "host.so";
  // clang++ as everywhere else; on a GPU machine without it, the C++ compiler nvcc uses.
  const char* cxx = std::system("command -v clang++ >/dev/null 2>&1") == 0 ? "clang++"
                    : std::system("command -v g++ >/dev/null 2>&1") == 0   ? "g++"
                                                                           : "c++";
  std::string cmd = std::string(cxx) + " -std=c++17 -O1 -g -fPIC -shared";
  for (const auto& inc : req.value("include_dirs", json::array())) {
    cmd += " -I'" + inc.get<std::string>() + "'";
  }
  cmd += " '" + file + "' -o '" + so.string() + "' 2>&1";
  std::string output;
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  while (pipe != nullptr && std::fgets(buf, sizeof buf, pipe) != nullptr) output += buf;
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  if (status != 0) {
    std::string first = output.substr(0, output.find('\n'));
    const auto err = output.find("error:");
    if (err != std::string::npos) {
      const auto start = output.rfind('\n', err);
      first = output.substr(start == std::string::npos ? 0 : start + 1,
                            output.find('\n', err) - (start == std::string::npos ? 0 : start + 1));
    }
    write_json(g_dir / "compile.json",
               {{"ok", false}, {"message", first}, {"diagnostics", output}});
    return 0;
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  const std::string symbol = req.at("kernel").get<std::string>();
  void* fn = handle != nullptr ? dlsym(handle, symbol.c_str()) : nullptr;
  if (fn == nullptr) {
    write_json(g_dir / "compile.json",
               {{"ok", false},
                {"message", fmt::format("{} does not define extern \"C\" {}(): keep the "
                                        "function's name and signature",
                                        file, symbol)},
                {"diagnostics", handle == nullptr ? dlerror() : ""}});
    return 0;
  }
  write_json(g_dir / "compile.json", {{"ok", true}});
  const std::string cases = read_file(g_dir / "host_cases.in");
  const std::size_t n = cases.size() / (32 * sizeof(long long));
  std::vector<std::int32_t> results(n);
  using Fn = int (*)(const long long*);
  for (std::size_t i = 0; i < n; ++i) {
    long long lanes[32];
    std::memcpy(lanes, cases.data() + i * sizeof lanes, sizeof lanes);
    results[i] = reinterpret_cast<Fn>(fn)(lanes);
  }
  write_file(g_dir / "host_results.out", results.data(), results.size() * sizeof(std::int32_t));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: grade_worker DIR   (run by the grader, not by hand)\n";
    return 2;
  }
  g_dir = argv[1];
  banksim::rt::set_emergency_handler(emergency);
  try {
    const json req = json::parse(read_file(g_dir / "request.json"));
    return req.value("kind", "kernel") == "host" ? run_host(req) : run_kernels(req);
  } catch (const std::exception& e) {
    std::cerr << "grade_worker: " << e.what() << "\n";
    return 3;
  }
}
