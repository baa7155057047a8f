// diagram.cpp - SVG and text renderings of a bankmodel::Analysis.
#include "bankmodel/diagram.hpp"

#include <algorithm>
#include <sstream>

namespace bankmodel {
namespace {

// Geometry of the SVG, in pixels.
constexpr int kRowPitch = 16;  // one bank row
constexpr int kBoxHeight = 13;
constexpr int kLaneBoxWidth = 54;
constexpr int kBankBoxWidth = 78;
constexpr int kPanelWidth = 300;  // lane column + wires + bank column
constexpr int kPanelGap = 24;
constexpr int kMinWidth = 620;  // room for the caption and the legend
constexpr int kMargin = 16;
constexpr int kHeaderHeight = 64;  // title + caption
constexpr int kPanelTitleHeight = 22;
constexpr int kLegendHeight = 34;
constexpr int kPanelsPerRow = 2;  // 4-phase requests are drawn 2x2, so the picture stays narrow
constexpr int kPanelRowGap = 18;
// The tile picture: one cell per 4-byte word.
constexpr int kCellWidth = 26;
constexpr int kCellHeight = 17;
constexpr int kTileLabelWidth = 44;  // "row 31" on the left

std::string escape_xml(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string caption(const Analysis& a) {
  std::ostringstream out;
  out << to_string(a.request.op()) << ", " << a.request.width() << "-byte, "
      << a.request.active_count() << " active lanes, " << a.summary.phases
      << (a.summary.phases == 1 ? " phase" : " phases")
      << (a.summary.paired_16b ? " (16-byte load pairing)" : "") << ": " << describe(a.summary);
  return out.str();
}

std::string lane_range(const std::vector<int>& lanes) {
  // "0-31" or "0, 16" or "0-3, 8-11"
  std::ostringstream out;
  for (std::size_t i = 0; i < lanes.size();) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    if (i > 0) out << ", ";
    out << lanes[i];
    if (j > i) out << "-" << lanes[j];
    i = j + 1;
  }
  return out.str();
}

}  // namespace

const char* conflict_colour(int words) {
  if (words <= 0) return "#eeeeee";  // unused bank
  if (words == 1) return "#2e7d32";  // green: one word, no conflict
  if (words == 2) return "#f9a825";  // amber: 2-way
  if (words <= 4) return "#ef6c00";  // orange: 3- to 4-way
  if (words <= 8) return "#d84315";  // red-orange: up to 8-way
  return "#b71c1c";                  // deep red: worse
}

/// The SVG element, its tooltip title, a white background, and the two header lines: the title
/// (cut to the picture's width: file:line: source can be long) and the request's caption.
static void open_svg(std::ostringstream& svg, const Analysis& a, const std::string& title,
                     int width, int height, int font_size) {
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"" << font_size << "\">\n";
  svg << "<title>" << escape_xml(title.empty() ? caption(a) : title + ": " + caption(a))
      << "</title>\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const std::size_t max_chars = static_cast<std::size_t>(width - 2 * kMargin) / 9;
  const std::string shown =
      title.size() > max_chars ? title.substr(0, max_chars - 3) + "..." : title;
  svg << "<text x=\"" << kMargin << "\" y=\"" << kMargin + 16
      << "\" font-size=\"15\" font-weight=\"bold\">" << escape_xml(shown) << "</text>\n";
  svg << "<text x=\"" << kMargin << "\" y=\"" << kMargin + 40 << "\" font-size=\"12\">"
      << escape_xml(caption(a)) << "</text>\n";
}

/// The colour key at baseline `ly` (font_size 0: the picture's own).
static void write_legend(std::ostringstream& svg, int ly, int font_size) {
  const int counts[] = {1, 2, 4, 8, 32};
  const char* labels[] = {"1 word", "2 words", "3-4", "5-8", "9+ (k-way)"};
  for (int i = 0; i < 5; ++i) {
    const int lx = kMargin + i * 92;
    svg << "<rect x=\"" << lx << "\" y=\"" << ly - 9 << "\" width=\"12\" height=\"12\" fill=\""
        << conflict_colour(counts[i]) << "\"/><text x=\"" << lx + 16 << "\" y=\"" << ly + 1 << "\"";
    if (font_size > 0) svg << " font-size=\"" << font_size << "\"";
    svg << ">" << labels[i] << "</text>\n";
  }
}

std::string render_svg(const Analysis& a, const std::string& title) {
  const int panels = static_cast<int>(a.phases.size());
  const int cols = std::min(panels, kPanelsPerRow);
  const int rows = (panels + kPanelsPerRow - 1) / kPanelsPerRow;
  const int panel_height = kPanelTitleHeight + kNumBanks * kRowPitch;
  const int width = std::max(kMinWidth, 2 * kMargin + cols * kPanelWidth + (cols - 1) * kPanelGap);
  const int height = kMargin + kHeaderHeight + rows * panel_height + (rows - 1) * kPanelRowGap +
                     kLegendHeight + kMargin;
  std::ostringstream svg;
  open_svg(svg, a, title, width, height, 10);

  for (int p = 0; p < panels; ++p) {
    const Phase& phase = a.phases[static_cast<std::size_t>(p)];
    const int x0 = kMargin + (p % kPanelsPerRow) * (kPanelWidth + kPanelGap);
    const int body_top = kMargin + kHeaderHeight +
                         (p / kPanelsPerRow) * (panel_height + kPanelRowGap) + kPanelTitleHeight;
    const int lanes = phase.last_lane - phase.first_lane + 1;
    const double lane_pitch = static_cast<double>(kNumBanks * kRowPitch) / lanes;
    const int bank_x = x0 + kPanelWidth - kBankBoxWidth;
    svg << "<g class=\"phase\" id=\"phase" << p << "\">\n";
    svg << "<text x=\"" << x0 << "\" y=\"" << body_top - 8 << "\" font-size=\"11\">phase " << p
        << ": lanes " << phase.first_lane << "-" << phase.last_lane << ", " << phase.wavefronts
        << (phase.wavefronts == 1 ? " wavefront" : " wavefronts") << "</text>\n";
    // Wires first, so boxes sit on top of them.
    for (int b = 0; b < kNumBanks; ++b) {
      const BankLoad& bank = phase.banks[static_cast<std::size_t>(b)];
      const int words = static_cast<int>(bank.words.size());
      const double by = body_top + b * kRowPitch + kBoxHeight / 2.0;
      for (int lane : bank.lanes) {
        const double ly = body_top + (lane - phase.first_lane + 0.5) * lane_pitch;
        svg << "<line x1=\"" << x0 + kLaneBoxWidth << "\" y1=\"" << ly << "\" x2=\"" << bank_x
            << "\" y2=\"" << by << "\" stroke=\"" << conflict_colour(words)
            << "\" stroke-width=\"1.2\" stroke-opacity=\"0.8\"/>\n";
      }
    }
    for (int lane = phase.first_lane; lane <= phase.last_lane; ++lane) {
      const double cy = body_top + (lane - phase.first_lane + 0.5) * lane_pitch;
      const bool active = a.request.is_active(lane);
      svg << "<rect x=\"" << x0 << "\" y=\"" << cy - kBoxHeight / 2.0 << "\" width=\""
          << kLaneBoxWidth << "\" height=\"" << kBoxHeight << "\" rx=\"2\" fill=\""
          << (active ? "#e3f2fd" : "#fafafa") << "\" stroke=\"" << (active ? "#1565c0" : "#bbbbbb")
          << "\"/>\n";
      svg << "<text x=\"" << x0 + 4 << "\" y=\"" << cy + 3.5 << "\" fill=\""
          << (active ? "#0d47a1" : "#9e9e9e") << "\">lane " << lane << "</text>\n";
    }
    for (int b = 0; b < kNumBanks; ++b) {
      const BankLoad& bank = phase.banks[static_cast<std::size_t>(b)];
      const int words = static_cast<int>(bank.words.size());
      const int y = body_top + b * kRowPitch;
      svg << "<rect x=\"" << bank_x << "\" y=\"" << y << "\" width=\"" << kBankBoxWidth
          << "\" height=\"" << kBoxHeight << "\" rx=\"2\" fill=\"" << conflict_colour(words)
          << "\"/>\n";
      svg << "<text x=\"" << bank_x + 4 << "\" y=\"" << y + 10 << "\" fill=\""
          << (words == 0 ? "#757575" : "white") << "\">bank " << b;
      if (words > 1) svg << " x" << words;
      svg << "</text>\n";
    }
    svg << "</g>\n";
  }
  write_legend(svg, height - kMargin - 12, 0);
  svg << "</svg>\n";
  return svg.str();
}

std::string render_tile_svg(const Analysis& a, const TileShape& shape, const std::string& title) {
  const int rows = std::max(1, shape.rows);
  const int cols = std::max(1, shape.cols);
  const int grid_left = kMargin + kTileLabelWidth;
  const int grid_top = kMargin + kHeaderHeight + 18;  // room for the column numbers
  const int width = std::max(kMinWidth, grid_left + cols * kCellWidth + kMargin);
  const int height = grid_top + rows * kCellHeight + kLegendHeight + 18 + kMargin;
  // The lanes and the bank load (distinct words in its bank, in its phase) of every word touched.
  struct Touch {
    int lane = -1;
    int lanes = 0;
    int bank_words = 0;
  };
  std::vector<Touch> touched(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  std::size_t outside = 0;
  for (const Phase& phase : a.phases) {
    for (int lane = phase.first_lane; lane <= phase.last_lane; ++lane) {
      if (!a.request.is_active(lane)) continue;
      const std::uint64_t off = a.request.offset(lane);
      for (int w = 0; w < std::max(1, a.request.width() / kBankBytes); ++w) {
        const std::uint64_t byte = off + static_cast<std::uint64_t>(w) * kBankBytes;
        if (byte < shape.base || (byte - shape.base) / kBankBytes >= touched.size()) {
          ++outside;
          continue;
        }
        const std::uint64_t word = (byte - shape.base) / kBankBytes;
        Touch& t = touched[word];
        if (t.lane < 0) t.lane = lane;
        ++t.lanes;
        const int bank = static_cast<int>((byte / kBankBytes) % kNumBanks);
        t.bank_words = static_cast<int>(phase.banks[static_cast<std::size_t>(bank)].words.size());
      }
    }
  }
  std::ostringstream svg;
  open_svg(svg, a, title, width, height, 9);
  svg << "<text x=\"" << kMargin << "\" y=\"" << kMargin + 58 << "\" font-size=\"11\">"
      << "the shared array as " << rows << " rows of " << cols
      << " words: each cell is one 4-byte word, its number the bank</text>\n";
  for (int c = 0; c < cols; ++c) {
    svg << "<text x=\"" << grid_left + c * kCellWidth + kCellWidth / 2 << "\" y=\"" << grid_top - 5
        << "\" text-anchor=\"middle\" fill=\"#757575\">" << c << "</text>\n";
  }
  for (int r = 0; r < rows; ++r) {
    const int y = grid_top + r * kCellHeight;
    svg << "<text x=\"" << kMargin << "\" y=\"" << y + 12 << "\" fill=\"#757575\">row " << r
        << "</text>\n";
    for (int c = 0; c < cols; ++c) {
      const std::uint64_t word = static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(cols) +
                                 static_cast<std::uint64_t>(c);
      const int bank = static_cast<int>((shape.base / kBankBytes + word) % kNumBanks);
      const Touch& t = touched[word];
      const int x = grid_left + c * kCellWidth;
      if (t.lane < 0) {
        // Untouched: a light tint per bank, so the banks' diagonals show.
        svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCellWidth - 1
            << "\" height=\"" << kCellHeight - 1 << "\" fill=\"hsl(" << bank * 360 / kNumBanks
            << ",45%,93%)\"/><text x=\"" << x + kCellWidth / 2 << "\" y=\"" << y + 12
            << "\" text-anchor=\"middle\" fill=\"#9e9e9e\">" << bank << "</text>\n";
      } else {
        svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCellWidth - 1
            << "\" height=\"" << kCellHeight - 1 << "\" fill=\"" << conflict_colour(t.bank_words)
            << "\"/><text x=\"" << x + kCellWidth / 2 << "\" y=\"" << y + 12
            << "\" text-anchor=\"middle\" fill=\"white\" font-weight=\"bold\">"
            << (t.lanes > 1 ? "*" : "") << "t" << t.lane << "</text>\n";
      }
    }
  }
  const int ly = height - kMargin - 12;
  svg << "<text x=\"" << kMargin << "\" y=\"" << ly - 16 << "\" font-size=\"11\">"
      << "tN: the word lane N touches (*: several lanes, one broadcast word), coloured by the "
         "distinct words its bank serves in that phase"
      << (outside > 0 ? "; " + std::to_string(outside) + " words lie outside the picture" : "")
      << "</text>\n";
  write_legend(svg, ly, 10);
  svg << "</svg>\n";
  return svg.str();
}

std::string render_text(const Analysis& a, const std::string& title) {
  std::ostringstream out;
  if (!title.empty()) out << title << "\n";
  out << caption(a) << "\n";
  constexpr int kPerRow = 16;
  for (std::size_t p = 0; p < a.phases.size(); ++p) {
    const Phase& phase = a.phases[p];
    out << "phase " << p << " (lanes " << phase.first_lane << "-" << phase.last_lane
        << "): " << phase.wavefronts << (phase.wavefronts == 1 ? " wavefront" : " wavefronts")
        << "\n";
    for (int start = phase.first_lane; start <= phase.last_lane; start += kPerRow) {
      const int stop = std::min(start + kPerRow - 1, phase.last_lane);
      std::ostringstream lanes;
      std::ostringstream banks;
      lanes << "  lane ";
      banks << "  bank ";
      for (int lane = start; lane <= stop; ++lane) {
        lanes << (lane < 10 ? "  " : " ") << lane;
        if (!a.request.is_active(lane)) {
          banks << "  -";
        } else {
          const int b = bank_of(a.request.offset(lane));
          banks << (b < 10 ? "  " : " ") << b;
        }
      }
      out << lanes.str() << "\n" << banks.str() << "\n";
    }
    if (a.request.width() > kBankBytes) {
      out << "  (each lane covers " << a.request.width() / kBankBytes
          << " consecutive banks from the one shown)\n";
    }
    out << "  distinct words per bank ('.' = unused):\n";
    for (int start = 0; start < kNumBanks; start += kPerRow) {
      std::ostringstream banks;
      std::ostringstream words;
      banks << "  bank ";
      words << "  words";
      for (int b = start; b < start + kPerRow; ++b) {
        const auto n = phase.banks[static_cast<std::size_t>(b)].words.size();
        banks << (b < 10 ? "  " : " ") << b;
        if (n == 0) {
          words << "  .";
        } else {
          words << (n < 10 ? "  " : " ") << n;
        }
      }
      out << banks.str() << "\n" << words.str() << "\n";
    }
    const int worst = phase.worst_bank();
    if (worst >= 0 && phase.wavefronts > 1) {
      const BankLoad& bank = phase.banks[static_cast<std::size_t>(worst)];
      out << "  worst: bank " << worst << " serves " << bank.words.size()
          << " distinct words for lanes " << lane_range(bank.lanes) << "\n";
    }
  }
  return out.str();
}

}  // namespace bankmodel
