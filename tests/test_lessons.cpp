// The lessons are executable: every "Try it" command of lessons/*/README.md is run and its output
// compared with the expected block that follows it (each expected line, whitespace-collapsed,
// must appear in the output, in order; a block that leaves lines out says so with
// `<!-- expect shortened -->`, and the site labels it "shortened"); every figure is committed;
// every lesson has its parts.
// The README's own "Try" commands are checked the same way.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "course_catch.hpp"

#include "course/registry.hpp"

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string collapse(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      space = true;
    } else {
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = popen(
      ("bash -c '" + std::regex_replace(command, std::regex("'"), "'\\''") + "' 2>&1").c_str(),
      "r");
  std::array<char, 4096> buf{};
  while (p != nullptr && std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  if (p != nullptr) pclose(p);
  return out;
}

struct Try {
  std::string command;
  std::vector<std::string> expected;
  bool shortened = false;  ///< marked `<!-- expect shortened -->`: the block leaves lines out
};

std::vector<Try> tries(const std::string& md) {
  static const std::regex block(
      R"(<!-- try -->\s*```sh\n([\s\S]*?)```\s*<!-- expect( shortened)? -->\s*```text\n([\s\S]*?)```)");
  std::vector<Try> out;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), block); it != std::sregex_iterator();
       ++it) {
    Try t;
    t.command = (*it)[1].str();
    t.shortened = (*it)[2].matched;
    std::istringstream lines((*it)[3].str());
    std::string line;
    while (std::getline(lines, line)) {
      if (!collapse(line).empty()) t.expected.push_back(collapse(line));
    }
    out.push_back(t);
  }
  return out;
}

void check_try(const Try& t, const std::string& where) {
  const std::string output = run(t.command);
  std::istringstream lines(output);
  std::vector<std::string> got;
  std::string line;
  while (std::getline(lines, line)) got.push_back(collapse(line));
  // The block shows every line of the output, or says it does not.
  const auto shown = static_cast<std::size_t>(
      std::count_if(got.begin(), got.end(), [](const std::string& l) { return !l.empty(); }));
  {
    INFO(where << ": `" << t.command << "` prints " << shown << " lines, the block shows "
               << t.expected.size()
               << (t.shortened ? ", marked <!-- expect shortened -->: drop the marker"
                               : ": mark the block <!-- expect shortened -->"));
    CHECK((shown > t.expected.size()) == t.shortened);
  }
  std::size_t at = 0;
  for (const std::string& want : t.expected) {
    bool found = false;
    for (; at < got.size() && !found; ++at) found = got[at].find(want) != std::string::npos;
    INFO(where << ": `" << t.command << "`\nexpected line: " << want << "\noutput:\n" << output);
    CHECK(found);
    if (!found) return;
  }
}

}  // namespace

TEST_CASE("lessons: every Try it command prints what the lesson says", "[lessons]") {
  int total = 0;
  for (const auto& e : course::exercises()) {
    const fs::path readme = fs::path("lessons") / e.slug / "README.md";
    REQUIRE(fs::exists(readme));
    const auto ts = tries(read(readme));
    INFO(readme.string());
    CHECK(!ts.empty());
    for (const auto& t : ts) check_try(t, readme.string());
    total += static_cast<int>(ts.size());
  }
  CHECK(total >= 7);
}

TEST_CASE("lessons: each has its parts, formulas, a generated figure and navigation", "[lessons]") {
  const std::vector<std::string> parts = {"**Goal:**", "## Symptom",  "## The idea", "## The code",
                                          "## Try it", "## Exercise", "\n$$\n"};
  const auto& list = course::exercises();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const fs::path readme = fs::path("lessons") / list[i].slug / "README.md";
    const std::string md = read(readme);
    INFO(readme.string());
    for (const auto& p : parts) CHECK(md.find(p) != std::string::npos);
    CHECK(md.find("make grade EXERCISE=" + list[i].id) != std::string::npos);
    CHECK(std::regex_search(md, std::regex("<!-- figure [a-z0-9-]+\\.svg: profile ")));
    CHECK(std::regex_search(md, std::regex("!\\[[^\\]]+\\]\\([a-z0-9-]+\\.svg\\)")));
    if (i > 0) CHECK(md.find("(../" + list[i - 1].slug + "/README.md)") != std::string::npos);
    if (i + 1 < list.size())
      CHECK(md.find("(../" + list[i + 1].slug + "/README.md)") != std::string::npos);
    // GPU numbers are labelled with the GPU and link to a dated measurements folder that exists:
    // measurements/h200-DATE[-what]/ or a topic's page folder, measurements/TOPIC/DATE-what/.
    CHECK(md.find("H200") != std::string::npos);
    std::smatch m;
    REQUIRE(std::regex_search(
        md, m,
        std::regex(
            R"(measurements/(h200-\d{4}-\d{2}-\d{2}|[a-z-]+/\d{4}-\d{2}-\d{2}-[a-z0-9-]+)/)")));
    CHECK(fs::is_directory(fs::path("measurements") / m[1].str()));
  }
}

TEST_CASE("lessons: every figure is committed next to its lesson", "[lessons]") {
  // Whether each equals what banksim draws now is the lessons_figures_current test.
  int n = 0;
  for (const auto& e : course::exercises()) {
    const fs::path dir = fs::path("lessons") / e.slug;
    const std::string md = read(dir / "README.md");
    static const std::regex figure(R"(!\[[^\]]+\]\(([a-z0-9-]+\.svg)\))");
    for (auto it = std::sregex_iterator(md.begin(), md.end(), figure); it != std::sregex_iterator();
         ++it) {
      INFO((dir / (*it)[1].str()).string());
      CHECK(read(dir / (*it)[1].str()).rfind("<svg", 0) == 0);
      ++n;
    }
  }
  CHECK(n >= 8);
}

TEST_CASE("README: its Try commands print what it says", "[lessons][readme]") {
  const std::string md = read("README.md");
  const auto ts = tries(md);
  CHECK(!ts.empty());
  for (const auto& t : ts) check_try(t, "README.md");
}
