// gradebook.cpp - the class's gradebook: OUT/gradebook.csv (RFC 4180, no formulas), one row per
// student folder from its results.json.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <map>
#include <nlohmann/json.hpp>
#include "grade_cli.hpp"

namespace grade_cli {

using nlohmann::json;

/// One CSV field per RFC 4180 (quoted when it holds a comma, quote or line break; quotes
/// doubled), with a leading ' before =, +, -, @ so that spreadsheets never run it as a formula.
std::string csv_field(const std::string& v) {
  std::string f = v;
  if (!f.empty() &&
      (f[0] == '=' || f[0] == '+' || f[0] == '-' || f[0] == '@' || f[0] == '\t' || f[0] == '\r')) {
    f = "'" + f;
  }
  if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void write_gradebook(const Options& o, const std::vector<const grader::ExerciseSpec*>& list,
                     const std::vector<fs::path>& students) {
  // The gradebook (RFC 4180), from every student's results.json (fresh or kept): a row for
  // every folder, empty scores when its results are missing.
  const fs::path tmp = o.out / "gradebook.csv.tmp";
  {
    std::ofstream csv(tmp, std::ios::binary);
    csv << "student,total,max";
    for (const auto* e : list) csv << "," << csv_field(e->slug);
    csv << "\r\n";
    for (const auto& s : students) {
      const std::string raw = s.filename().string();
      const json j =
          json::parse(read_text(o.out / output_name(raw) / "results.json"), nullptr, false);
      csv << csv_field(display_name(raw));
      if (!j.is_object()) {
        csv << ",,";
        for (std::size_t k = 0; k < list.size(); ++k) csv << ",";
        csv << "\r\n";
        continue;
      }
      std::map<std::string, int> per;
      for (const auto& t : j.value("tests", json::array())) {
        per[t.value("name", "").substr(0, 2)] += t.value("score", 0);
      }
      csv << "," << j.value("score", 0) << "," << j["extra_data"].value("max_score", 0);
      for (const auto* e : list) csv << "," << per[e->id];
      csv << "\r\n";
    }
  }
  fs::rename(tmp, o.out / "gradebook.csv");
}

}  // namespace grade_cli
