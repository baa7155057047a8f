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
