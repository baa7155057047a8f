// sass_widths.cpp - reading nvdisasm's SASS listing for the widths of shared-memory instructions
// per source line (see banksim/sass_widths.hpp).
#include "banksim/sass_widths.hpp"

#include <filesystem>
#include <regex>
#include <sstream>
#include <vector>

namespace banksim {

namespace {

struct Frame {
  std::string file;
  int line = 0;
};

/// One `//## File "F", line N [inlined at "G", line M]` comment.
struct LocComment {
  Frame at;
  bool inlined = false;
  Frame caller;
};

bool parse_comment(const std::string& s, LocComment* c) {
  static const std::regex re(
      R"re(//## File "([^"]*)", line (\d+)(?: inlined at "([^"]*)", line (\d+))?)re");
  std::smatch m;
  if (!std::regex_search(s, m, re)) return false;
  c->at = {m[1].str(), std::stoi(m[2].str())};
  c->inlined = m[3].matched;
  if (c->inlined) c->caller = {m[3].str(), std::stoi(m[4].str())};
  return true;
}

std::string normal(const std::string& f) {
  return std::filesystem::path(f).lexically_normal().string();
}

/// The width in bytes named by an instruction's modifiers (LDS.64, STS.U8, ATOMS.CAS.64), 4 when
/// none names one.
int width_of(const std::vector<std::string>& mods) {
  for (const std::string& m : mods) {
    if (m == "U8" || m == "S8") return 1;
    if (m == "U16" || m == "S16") return 2;
    if (m == "32") return 4;
    if (m == "64") return 8;
    if (m == "128") return 16;
  }
  return 4;
}

}  // namespace

std::uint8_t width_bit(int bytes) {
  switch (bytes) {
    case 1:
      return 1;
    case 2:
      return 2;
    case 4:
      return 4;
    case 8:
      return 8;
    case 16:
      return 16;
    default:
      return 0;
  }
}

std::string width_mask_text(std::uint8_t mask) {
  std::string out;
  for (int k = 0; k < 5; ++k) {
    if ((mask & (1U << k)) == 0) continue;
    if (!out.empty()) out += "+";
    out += std::to_string(1 << k);
  }
  return out;
}

SassWidths parse_sass_widths(const std::string& disassembly, const std::string& file) {
  SassWidths out;
  const std::string want = normal(file);
  // The location comments since the last instruction. An "inlined at G, line M" comment is
  // followed by G:M's own comment (its caller's frame), so a chain is a run of comments each
  // naming the next; the instruction's location is the last chain, innermost frame first.
  std::vector<LocComment> pending;
  int line_here = 0;  // the line of the student's file the following instructions belong to
  auto settle = [&]() {
    if (pending.empty()) return;
    // The last chain: walk back while a comment is the caller named by the one before it.
    std::size_t start = pending.size() - 1;
    while (start > 0) {
      const LocComment& prev = pending[start - 1];
      const LocComment& cur = pending[start];
      if (prev.inlined && normal(prev.caller.file) == normal(cur.at.file) &&
          prev.caller.line == cur.at.line) {
        --start;
      } else {
        break;
      }
    }
    line_here = 0;
    for (std::size_t i = start; i < pending.size() && line_here == 0; ++i) {
      if (normal(pending[i].at.file) == want) line_here = pending[i].at.line;
      if (line_here == 0 && pending[i].inlined && normal(pending[i].caller.file) == want) {
        line_here = pending[i].caller.line;
      }
    }
    pending.clear();
  };
  static const std::regex insn(
      R"(^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s)");
  std::istringstream in(disassembly);
  std::string s;
  while (std::getline(in, s)) {
    LocComment c;
    if (s.find("//##") != std::string::npos) {
      if (parse_comment(s, &c)) pending.push_back(c);
      continue;
    }
    if (s.find("/*") == std::string::npos) {
      // A new function (a label or directive line) starts without a location.
      if (s.find(".text.") != std::string::npos) {
        pending.clear();
        line_here = 0;
      }
      continue;
    }
    std::smatch m;
    if (!std::regex_search(s, m, insn)) continue;
    settle();
    std::vector<std::string> parts;
    std::istringstream name(m[1].str());
    std::string p;
    while (std::getline(name, p, '.')) parts.push_back(p);
    if (parts.empty()) continue;
    const std::string& opc = parts[0];
    const std::vector<std::string> mods(parts.begin() + 1, parts.end());
    std::uint8_t* slot = nullptr;    // a shared-memory width
    std::uint8_t* global = nullptr;  // a global-memory width (generic LD/ST: both)
    LineWidths& lw = out.lines[line_here];
    if (opc == "LDS" || opc == "LD") {
      slot = &lw.load;
      if (opc == "LD") global = &lw.global_load;
    } else if (opc == "STS" || opc == "ST") {
      slot = &lw.store;
      if (opc == "ST") global = &lw.global_store;
    } else if (opc == "ATOMS") {
      slot = &lw.atomic;
      if (!mods.empty() && mods[0] == "ADD") lw.atomic_add = 1;
    } else if (opc == "LDG") {
      global = &lw.global_load;
    } else if (opc == "STG") {
      global = &lw.global_store;
    }
    if ((slot == nullptr && global == nullptr) || line_here == 0) {
      if (lw.load == 0 && lw.store == 0 && lw.atomic == 0 && lw.global_load == 0 &&
          lw.global_store == 0) {
        out.lines.erase(line_here);
      }
      continue;
    }
    if (global != nullptr) *global |= width_bit(width_of(mods));
    if (slot == nullptr) continue;
    *slot |= width_bit(width_of(mods));
    ++out.instructions;
  }
  return out;
}

std::string to_text(const SassWidths& w) {
  std::ostringstream o;
  for (const auto& [line, lw] : w.lines) {
    o << line << ' ' << int(lw.load) << ' ' << int(lw.store) << ' ' << int(lw.atomic) << ' '
      << int(lw.global_load) << ' ' << int(lw.global_store) << ' ' << int(lw.atomic_add) << '\n';
  }
  return o.str();
}

SassWidths sass_widths_from_text(const std::string& text) {
  SassWidths w;
  std::istringstream in(text);
  std::string s;
  while (std::getline(in, s)) {
    std::istringstream f(s);
    int line = 0, ld = 0, st = 0, at = 0, gld = 0, gst = 0;
    if (!(f >> line >> ld >> st >> at >> gld >> gst) || line <= 0) continue;
    int add = 0;
    f >> add;  // absent in older caches: 0
    w.lines[line] = LineWidths{static_cast<std::uint8_t>(ld),  static_cast<std::uint8_t>(st),
                               static_cast<std::uint8_t>(at),  static_cast<std::uint8_t>(gld),
                               static_cast<std::uint8_t>(gst), static_cast<std::uint8_t>(add)};
    w.instructions += (ld != 0) + (st != 0) + (at != 0);
  }
  return w;
}

}  // namespace banksim
