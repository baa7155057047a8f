// The bank pictures: the SVGs of the 32-way column read and of the padded read are written to
// build/figures/ (open them to look), and their content is checked here.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include "course_catch.hpp"

#include "bankmodel/diagram.hpp"

namespace {

bankmodel::Analysis column_read(int row_floats) {
  bankmodel::Request r(bankmodel::Op::kLoad, 4);
  for (int t = 0; t < bankmodel::kWarpSize; ++t) r.set_lane(t, 4U * (row_floats * t + 0));
  return bankmodel::analyze(r);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

std::filesystem::path figures_dir() {
  const char* build = std::getenv("COURSE_BUILD_DIR");
  std::filesystem::path dir = std::filesystem::path(build ? build : "build") / "figures";
  std::filesystem::create_directories(dir);
  return dir;
}

void save(const std::string& name, const std::string& svg) {
  std::ofstream(figures_dir() / name) << svg;
}

}  // namespace

TEST_CASE("SVG of the 32-way column read of float tile[32][32]", "[diagram]") {
  const std::string svg =
      bankmodel::render_svg(column_read(32), "float tile[32][32], lane t reads tile[t][0]");
  save("column-read-32x32.svg", svg);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("32-way conflict, 32 wavefronts (ideal 1)") != std::string::npos);
  CHECK(count(svg, "<line ") == 32);  // one wire per lane
  // Every wire is deep red (bank 0 serves 32 words) and goes to bank 0's row.
  CHECK(count(svg, std::string("stroke=\"") + bankmodel::conflict_colour(32) + "\"") == 32);
  CHECK(svg.find("bank 0 x32") != std::string::npos);
  CHECK(count(svg, "fill=\"#eeeeee\"") == 31);  // the 31 idle banks
  CHECK(svg.find("tile[32][32]") != std::string::npos);
}

TEST_CASE("SVG of the padded column read of float tile[32][33]", "[diagram]") {
  const std::string svg =
      bankmodel::render_svg(column_read(33), "float tile[32][33], lane t reads tile[t][0]");
  save("column-read-32x33.svg", svg);
  CHECK(svg.find("conflict-free, 1 wavefront (ideal 1)") != std::string::npos);
  CHECK(count(svg, "<line ") == 32);
  CHECK(count(svg, std::string("stroke=\"") + bankmodel::conflict_colour(1) + "\"") == 32);
  CHECK(count(svg, "fill=\"#eeeeee\"") == 0);  // every bank used once
  CHECK(svg.find(" x2<") == std::string::npos);
}

TEST_CASE("SVG separates the four phases of a 16-byte access", "[diagram]") {
  bankmodel::Request r(bankmodel::Op::kLoad, 16);
  for (int t = 0; t < 32; ++t) r.set_lane(t, 32U * (t % 16));
  const std::string svg = bankmodel::render_svg(bankmodel::analyze(r), "float4, 32 B apart");
  save("float4-stride-32B.svg", svg);
  CHECK(count(svg, "class=\"phase\"") == 4);
  CHECK(svg.find("phase 3: lanes 24-31, 2 wavefronts") != std::string::npos);
  CHECK(count(svg, "<line ") == 32 * 4);  // each lane covers 4 banks
  CHECK(svg.find("2-way conflict, 8 wavefronts (ideal 4)") != std::string::npos);
}

TEST_CASE("titles are escaped in SVG", "[diagram]") {
  const std::string svg = bankmodel::render_svg(column_read(33), "a<b & \"c\"");
  CHECK(svg.find("a&lt;b &amp; &quot;c&quot;") != std::string::npos);
  CHECK(svg.find("a<b") == std::string::npos);
}

TEST_CASE("text picture of the column read names bank 0 and all lanes", "[diagram]") {
  const std::string text = bankmodel::render_text(column_read(32), "tile[t][0]");
  CHECK(text.find("32-way conflict, 32 wavefronts (ideal 1)") != std::string::npos);
  CHECK(text.find("worst: bank 0 serves 32 distinct words for lanes 0-31") != std::string::npos);
  CHECK(std::regex_search(text, std::regex("words 32  \\.  \\.")));
  const std::string padded = bankmodel::render_text(column_read(33), "");
  CHECK(padded.find("worst:") == std::string::npos);
  CHECK(padded.find("bank   0  1  2  3") != std::string::npos);
}

TEST_CASE("the tile picture shows the column in one bank, and the padded diagonal", "[diagram]") {
  // float tile[32][32], lane t reads tile[t][0]: 32 cells of column 0, each labelled with its
  // lane and coloured 32-way; 992 untouched cells keep their bank number. (The legend adds one
  // swatch of each colour.)
  const std::string naive =
      bankmodel::render_tile_svg(column_read(32), {32, 32, 0}, "tile[32][32]");
  save("tile-column-read.svg", naive);
  CHECK(count(naive, "fill=\"#b71c1c\"/><text") == 32 + 1);  // 32-way red per touched word
  CHECK(count(naive, ">t0</text>") == 1);
  CHECK(count(naive, ">t31</text>") == 1);
  CHECK(count(naive, "fill=\"#9e9e9e\">") == 32 * 32 - 32);
  // float tile[32][33], the same column: a diagonal of 32 banks, every word green.
  const std::string padded = bankmodel::render_tile_svg(column_read(33), {32, 33, 0}, "");
  save("tile-padded.svg", padded);
  CHECK(count(padded, "fill=\"#2e7d32\"/><text") == 32 + 1);
  CHECK(count(padded, "fill=\"#b71c1c\"/><text") == 0 + 1);
  // Drawn with too few rows, the words left out are said, not silently dropped.
  const std::string cut = bankmodel::render_tile_svg(column_read(32), {8, 32, 0}, "");
  CHECK(cut.find("24 words lie outside the picture") != std::string::npos);
  // A 16-byte request covers 4 cells per lane.
  bankmodel::Request v(bankmodel::Op::kLoad, 16);
  for (int t = 0; t < bankmodel::kWarpSize; ++t) v.set_lane(t, 128U * static_cast<unsigned>(t));
  const std::string wide = bankmodel::render_tile_svg(bankmodel::analyze(v), {32, 32, 0}, "");
  CHECK(count(wide, ">t5</text>") == 4);
}

TEST_CASE("a 4-phase request is drawn 2x2, not 4 panels wide", "[diagram]") {
  bankmodel::Request v(bankmodel::Op::kLoad, 16);
  for (int t = 0; t < bankmodel::kWarpSize; ++t) v.set_lane(t, 128U * static_cast<unsigned>(t));
  const std::string svg = bankmodel::render_svg(bankmodel::analyze(v), "float4 column");
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, std::regex("width=\"(\\d+)\" height=\"(\\d+)\"")));
  CHECK(std::stoi(m[1].str()) <= 700);   // two panels across
  CHECK(std::stoi(m[2].str()) >= 1100);  // two rows of 32 banks
  CHECK(count(svg, "class=\"phase\"") == 4);
}
