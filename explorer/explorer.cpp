// explorer.cpp - the course's bank model for the browser: compiled to WebAssembly with Debian's
// emscripten (scripts/build-explorer.sh), it gives the site's bank explorer the same numbers and
// pictures the grader computes, from the same sources (bankmodel/src/*.cpp).
//
//   const char* explore(op, width, offsets, active_mask, rows, cols)
// analyses one warp request (byte offsets of lanes 0-31, lanes outside active_mask ignored) and
// returns JSON: {"wavefronts", "ideal", "phases", "describe", "banks": [per lane],
// "phase_wavefronts", "svg" (the request picture), "tile_svg" (the tile picture when rows > 0)} or
// {"error": "..."}.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <string>

#include "bankmodel/bank_model.hpp"
#include "bankmodel/diagram.hpp"

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string g_result;  // the last answer: valid until the next call

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* explore(int op, int width, const std::uint32_t* offsets,
                                                    std::uint32_t active_mask, int rows, int cols) {
  try {
    bankmodel::Request r(op == 1 ? bankmodel::Op::kStore : bankmodel::Op::kLoad, width);
    for (int t = 0; t < bankmodel::kWarpSize; ++t) {
      if (((active_mask >> t) & 1U) != 0) r.set_lane(t, offsets[t]);
    }
    const bankmodel::Analysis a = bankmodel::analyze(r);
    std::string banks = "[";
    for (int t = 0; t < bankmodel::kWarpSize; ++t) {
      if (t > 0) banks += ",";
      banks += r.is_active(t) ? std::to_string((offsets[t] / bankmodel::kBankBytes) %
                                               static_cast<std::uint32_t>(bankmodel::kNumBanks))
                              : "null";
    }
    banks += "]";
    std::string phase_wf = "[";
    for (std::size_t p = 0; p < a.phases.size(); ++p) {
      phase_wf += (p > 0 ? "," : "") + std::to_string(a.phases[p].wavefronts);
    }
    phase_wf += "]";
    g_result = "{\"wavefronts\":" + std::to_string(a.summary.wavefronts) +
               ",\"ideal\":" + std::to_string(a.summary.ideal) +
               ",\"phases\":" + std::to_string(a.summary.phases) +
               ",\"describe\":" + json_string(bankmodel::describe(a.summary)) +
               ",\"banks\":" + banks + ",\"phase_wavefronts\":" + phase_wf +
               ",\"svg\":" + json_string(bankmodel::render_svg(a, "your request"));
    if (rows > 0 && cols > 0) {
      g_result += ",\"tile_svg\":" + json_string(bankmodel::render_tile_svg(
                                         a, bankmodel::TileShape{rows, cols, 0}, "your tile"));
    }
    g_result += "}";
  } catch (const std::exception& e) {
    g_result = "{\"error\":" + json_string(e.what()) + "}";
  }
  return g_result.c_str();
}
