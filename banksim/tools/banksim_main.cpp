// banksim - run a CUDA kernel on the CPU and count its shared-memory bank conflicts per line.
//
//   build/bin/banksim profile tests/corpus/column_read.cu --kernel column_read_naive
//       --grid 1 --block 32,32 --arg 1024 [--json out.json] [--diagram 9 [--svg bank.svg]]
//
// One --arg per kernel parameter, in order: a pointer parameter takes an element count and gets
// a buffer of random values; a scalar takes its value. Prints one row per source line that
// touches shared memory (requests, wavefronts per request, ideal, k-way) and every problem found
// (race, out_of_bounds, uninitialized_read, barrier_divergence).
// Exit status: 0 no problem, 1 problems found, 2 bad usage or a compile error, 124 timeout,
// 128+N crashed with signal N.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>

#include "bankmodel/diagram.hpp"
#include "banksim/banksim.hpp"
#include "banksim/runtime.hpp"

namespace {

// For reports written when the process must stop at once (crash, hard timeout).
std::string g_json_path;
const banksim::Module* g_module = nullptr;
std::string g_kernel;

void write_emergency_json(const char* kind, const char* message, std::uint64_t pc) {
  if (g_json_path.empty()) return;
  std::pair<std::string, int> where{"", 0};
  if (g_module != nullptr && pc != 0) where = g_module->locate(pc);
  nlohmann::json j;
  j["kernel"] = g_kernel;
  j["completed"] = false;
  j["abort_reason"] = message;
  if (*banksim::rt::current_execution() != '\0') j["execution"] = banksim::rt::current_execution();
  j["sites"] = nlohmann::json::array();
  j["issues"] = nlohmann::json::array({{{"kind", kind},
                                        {"severity", "error"},
                                        {"file", where.first},
                                        {"line", where.second},
                                        {"message", message}}});
  std::ofstream(g_json_path) << j.dump(2) << "\n";
  if (where.second != 0) {
    std::fprintf(stderr, "banksim: last shared-memory access before that: %s:%d\n",
                 where.first.c_str(), where.second);
  }
}

banksim::Arg make_arg(const banksim::ParamInfo& p, const std::string& text, int index,
                      std::mt19937_64& rng, std::vector<banksim::DeviceBuffer>& buffers) {
  using banksim::ParamKind;
  auto bad = [&](const std::string& why) {
    return banksim::UsageError(fmt::format("--arg {} ('{}'): {}", index + 1, text, why));
  };
  try {
    std::size_t used = 0;
    if (p.kind == ParamKind::kPointer) {
      const unsigned long long count = std::stoull(text, &used);
      if (used != text.size()) throw bad("a pointer parameter takes an element count");
      const std::size_t elem = p.pointee_size == 0 ? 1 : p.pointee_size;
      buffers.emplace_back(static_cast<std::size_t>(count) * elem);
      banksim::DeviceBuffer& b = buffers.back();
      // Random contents: floats in [-1, 1), integers in [0, 100), anything else random floats.
      if (p.pointee_kind == ParamKind::kSignedInt || p.pointee_kind == ParamKind::kUnsignedInt) {
        std::uniform_int_distribution<int> d(0, 99);
        auto* bytes = b.as<unsigned char>();
        for (std::size_t i = 0; i < count; ++i) {
          const long long v = d(rng);
          std::memcpy(bytes + i * elem, &v, std::min<std::size_t>(elem, sizeof v));
        }
      } else if (p.pointee_kind == ParamKind::kFloat && elem == sizeof(double)) {
        std::uniform_real_distribution<double> d(-1.0, 1.0);
        for (std::size_t i = 0; i < count; ++i) b.as<double>()[i] = d(rng);
      } else {
        std::uniform_real_distribution<float> d(-1.0f, 1.0f);
        for (std::size_t i = 0; i < b.bytes() / sizeof(float); ++i) b.as<float>()[i] = d(rng);
      }
      return banksim::Arg(b);
    }
    if (p.kind == ParamKind::kFloat) {
      const double v = std::stod(text, &used);
      if (used != text.size()) throw bad("not a number");
      return p.size == sizeof(float) ? banksim::Arg::scalar(static_cast<float>(v))
                                     : banksim::Arg::scalar(v);
    }
    if (p.kind == ParamKind::kSignedInt || p.kind == ParamKind::kUnsignedInt) {
      const long long v = std::stoll(text, &used, 0);
      if (used != text.size()) throw bad("not an integer");
      switch (p.size) {
        case 1:
          return banksim::Arg::scalar(static_cast<std::int8_t>(v));
        case 2:
          return banksim::Arg::scalar(static_cast<std::int16_t>(v));
        case 4:
          return banksim::Arg::scalar(static_cast<std::int32_t>(v));
        default:
          return banksim::Arg::scalar(static_cast<std::int64_t>(v));
      }
    }
  } catch (const std::invalid_argument&) {
    throw bad("not a number");
  } catch (const std::out_of_range&) {
    throw bad("out of range");
  }
  throw bad(
      "parameters of this type (a struct?) cannot be given on the command line; use the C++ "
      "API");
}

int profile(const std::string& file, const std::string& kernel, const std::string& grid,
            const std::string& block, std::size_t smem, const std::vector<std::string>& arg_texts,
            const std::string& json_path, int diagram_line, const std::string& svg_path,
            const std::string& tile, double timeout, unsigned long long seed,
            banksim::Widths widths, const std::vector<std::string>& include_dirs,
            const std::vector<std::string>& defines, bool fibers) {
  g_json_path = json_path;
  g_kernel = kernel;
  banksim::rt::set_emergency_handler(write_emergency_json);
  banksim::CompileOptions options;
  options.kernels = {kernel};
  options.widths = widths;
  options.regions = !fibers;
  for (const auto& d : include_dirs) options.extra_flags.push_back("-I" + d);
  for (const auto& d : defines) options.extra_flags.push_back("-D" + d);
  banksim::Module module = banksim::Module::compile(file, options);
  g_module = &module;
  const banksim::KernelEntry& entry = module.entry(kernel);
  if (static_cast<int>(arg_texts.size()) != entry.num_params) {
    const auto& decls = module.declared_kernels();
    std::string params;
    int line = 0;
    for (const auto& d : decls) {
      if (kernel.rfind(d.name, 0) == 0) {
        params = d.params;
        line = d.line;
      }
    }
    throw banksim::UsageError(fmt::format(
        "{}:{}: kernel {} takes {} parameter{} {}; give one --arg per parameter ({} given)", file,
        line, kernel, entry.num_params, entry.num_params == 1 ? "" : "s", params,
        arg_texts.size()));
  }
  std::mt19937_64 rng(seed);
  std::vector<banksim::DeviceBuffer> buffers;
  buffers.reserve(arg_texts.size());
  std::vector<banksim::Arg> args;
  for (int i = 0; i < entry.num_params; ++i) {
    args.push_back(
        make_arg(entry.params[i], arg_texts[static_cast<std::size_t>(i)], i, rng, buffers));
  }
  banksim::LaunchConfig config{banksim::parse_dim3(grid, "--grid"),
                               banksim::parse_dim3(block, "--block"), smem, timeout};
  const banksim::LaunchReport report = module.launch(kernel, config, std::move(args));
  std::cout << report.table();
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    if (!out) throw banksim::UsageError("cannot write --json " + json_path);
    out << report.to_json().dump(2) << "\n";
  }
  if (diagram_line > 0) {
    const auto at = report.at_line(diagram_line);
    if (at.empty()) {
      std::cout << fmt::format("\n--diagram {}: line {} makes no shared-memory access\n",
                               diagram_line, diagram_line);
    } else {
      const banksim::LineStats* worst = at.front();
      for (const auto* l : at) {
        if (l->ways() > worst->ways()) worst = l;
      }
      const std::string title = fmt::format("{}:{}: {}", file, diagram_line, worst->source);
      const bankmodel::Analysis a = bankmodel::analyze(worst->worst);
      std::cout << "\nworst request of line " << diagram_line << ":\n"
                << bankmodel::render_text(a, title);
      if (!svg_path.empty()) {
        std::ofstream svg(svg_path);
        if (!svg) throw banksim::UsageError("cannot write --svg " + svg_path);
        if (tile.empty()) {
          svg << bankmodel::render_svg(a, title);
        } else {
          // --tile ROWSxCOLS[+BYTE]: the shared array itself, with the words this request touches.
          static const std::regex shape(R"((\d+)x(\d+)(?:\+(\d+))?)");
          std::smatch m;
          if (!std::regex_match(tile, m, shape)) {
            throw banksim::UsageError("--tile " + tile +
                                      ": expected ROWSxCOLS or ROWSxCOLS+BYTE, e.g. 32x33");
          }
          bankmodel::TileShape t;
          t.rows = std::stoi(m[1].str());
          t.cols = std::stoi(m[2].str());
          t.base = m[3].matched ? std::stoull(m[3].str()) : worst->variable_offset;
          if (t.rows < 1 || t.cols < 1 || t.rows > 256 || t.cols > 256) {
            throw banksim::UsageError("--tile " + tile + ": 1 to 256 rows and words per row");
          }
          svg << bankmodel::render_tile_svg(a, t, title);
        }
      }
    }
  }
  return report.error_count() == 0 && report.completed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "banksim: run CUDA kernels on the CPU, count shared-memory bank conflicts per "
      "source line, and find races and out-of-bounds accesses"};
  app.require_subcommand(1);
  CLI::App* prof = app.add_subcommand("profile", "run one kernel of a .cu file");
  std::string file;
  std::string kernel;
  std::string grid = "1";
  std::string block;
  std::size_t smem = 0;
  std::vector<std::string> arg_texts;
  std::string json_path;
  int diagram_line = 0;
  std::string svg_path;
  std::string tile;
  double timeout = 5.0;
  unsigned long long seed = 1;
  prof->add_option("file", file, "the .cu file")->required();
  prof->add_option("--kernel", kernel, "kernel name (a template instance like k<32>)")->required();
  prof->add_option("--grid", grid, "grid size X[,Y[,Z]]");
  prof->add_option("--block", block, "block size X[,Y[,Z]]")->required();
  prof->add_option("--smem", smem, "dynamic shared memory in bytes");
  prof->add_option("--arg", arg_texts,
                   "one per kernel parameter: an element count for a pointer, else the value")
      ->allow_extra_args(false);
  prof->add_option("--json", json_path, "also write the report as JSON");
  prof->add_option("--diagram", diagram_line, "show the bank picture of this line's worst request");
  prof->add_option("--svg", svg_path, "with --diagram: write the picture as SVG");
  prof->add_option("--tile", tile,
                   "with --svg: draw the line's shared array as ROWSxCOLS words (e.g. 32x33) with "
                   "the words the request touches (+BYTE: start at that byte of shared memory "
                   "instead of the array's first)");
  prof->add_option("--timeout", timeout, "seconds before a hanging kernel is stopped (5)");
  prof->add_option("--seed", seed, "seed of the random input buffers (1)");
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  prof->add_option("-I,--include-dir", include_dirs,
                   "a folder of headers the file includes (as nvcc's -I; repeatable)");
  prof->add_option("-D,--define", defines, "NAME or NAME=VALUE, as nvcc's -D (repeatable)");
  std::string widths = "auto";
  prof->add_option("--widths", widths,
                   "whose access widths count: nvcc (read from its SASS for sm_90: what the GPU "
                   "runs), clang (as compiled for the CPU), or auto (nvcc's when nvcc and "
                   "nvdisasm are found)")
      ->check(CLI::IsMember({"auto", "nvcc", "clang"}));
  bool fibers = false;
  prof->add_flag("--fibers", fibers,
                 "run every CUDA thread as a fiber, even a kernel banksim could cut into regions "
                 "at its barriers (same counts and problems, slower; for comparisons)");
  CLI11_PARSE(app, argc, argv);
  const banksim::Widths w = widths == "nvcc"    ? banksim::Widths::kNvcc
                            : widths == "clang" ? banksim::Widths::kClang
                                                : banksim::Widths::kAuto;
  try {
    return profile(file, kernel, grid, block, smem, arg_texts, json_path, diagram_line, svg_path,
                   tile, timeout, seed, w, include_dirs, defines, fibers);
  } catch (const banksim::CompileError& e) {
    std::cerr << "banksim: " << file << " does not compile: " << e.what() << "\n";
    if (!e.diagnostics().empty()) std::cerr << e.diagnostics();
    return 2;
  } catch (const banksim::UsageError& e) {
    std::cerr << "banksim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "banksim: internal error: " << e.what() << "\n";
    return 2;
  }
}
