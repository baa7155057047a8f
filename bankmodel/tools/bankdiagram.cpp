// bankdiagram - draw one warp request from a formula, for lessons and quick checks.
//
//   build/bin/bankdiagram --width 4 --stride 128                 # column of float tile[32][32]
//   build/bin/bankdiagram --width 4 --stride 132 --svg pad.svg   # tile[32][33]: conflict-free
//   build/bin/bankdiagram --width 16 --stride 32 --modulo 16     # float4 32 B apart: 8/4
// Lane t accesses base + stride * (t mod modulo) bytes (modulo 32 by default), or the offsets
// given with --offsets. Prints the text picture; --svg also writes the SVG.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <vector>

#include "bankmodel/diagram.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Draw the banks of one warp-level shared-memory request"};
  std::string op = "load";
  int width = 4;
  std::uint64_t base = 0;
  std::uint64_t stride = 4;
  int modulo = bankmodel::kWarpSize;
  int active = bankmodel::kWarpSize;
  std::vector<std::uint64_t> offsets;
  std::string svg_path;
  std::string title;
  app.add_option("--op", op, "load or store")->check(CLI::IsMember({"load", "store"}));
  app.add_option("--width", width, "access width in bytes: 1, 2, 4, 8 or 16");
  app.add_option("--base", base, "byte offset of lane 0");
  app.add_option("--stride", stride, "bytes between consecutive lanes");
  app.add_option("--modulo", modulo, "lane t uses (t mod M) in the stride formula")
      ->check(CLI::Range(1, 32));
  app.add_option("--active", active, "lanes 0..N-1 are active")->check(CLI::Range(0, 32));
  app.add_option("--offsets", offsets, "explicit byte offsets, one per lane (overrides stride)")
      ->delimiter(',');
  app.add_option("--svg", svg_path, "also write the picture as SVG");
  app.add_option("--title", title, "title line of the picture");
  CLI11_PARSE(app, argc, argv);
  try {
    bankmodel::Request r(op == "load" ? bankmodel::Op::kLoad : bankmodel::Op::kStore, width);
    for (int t = 0; t < active; ++t) {
      if (!offsets.empty()) {
        if (static_cast<std::size_t>(t) >= offsets.size()) break;
        r.set_lane(t, offsets[static_cast<std::size_t>(t)]);
      } else {
        r.set_lane(t, base + stride * static_cast<std::uint64_t>(t % modulo));
      }
    }
    const bankmodel::Analysis a = bankmodel::analyze(r);
    std::cout << bankmodel::render_text(a, title);
    if (!svg_path.empty()) {
      std::ofstream out(svg_path);
      if (!out) {
        std::cerr << "bankdiagram: cannot write " << svg_path << ": check the folder exists\n";
        return 1;
      }
      out << bankmodel::render_svg(a, title);
    }
  } catch (const bankmodel::InvalidRequest& e) {
    std::cerr << "bankdiagram: invalid request: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
