// gradebook.cpp - the class's gradebook: OUT/gradebook.csv (RFC 4180, no formulas), one row per
// student folder from the typed summary in the grader's record of it (never from results.json).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "grade_cli.hpp"

namespace grade_cli {

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
  // The gradebook (RFC 4180), from every student's record (fresh or kept), the typed summary
  // the grader wrote: a row for every folder, empty scores where there is no record.
  const fs::path tmp = o.out / "gradebook.csv.tmp";
  {
    std::ofstream csv(tmp, std::ios::binary);
    csv << "student,total,max";
    for (const auto* e : list) csv << "," << csv_field(e->slug);
    csv << "\r\n";
    for (const auto& s : students) {
      const std::string raw = s.filename().string();
      std::string why;
      const std::optional<Record> record = read_record(o.out / output_name(raw), why);
      csv << csv_field(display_name(raw));
      if (!record) {
        std::cerr << "grade: the gradebook's row for " << display_name(raw) << " is empty: " << why
                  << "; grade the class again to fill it\n";
        csv << ",,";
        for (std::size_t k = 0; k < list.size(); ++k) csv << ",";
        csv << "\r\n";
        continue;
      }
      const grader::StudentSummary& sum = record->summary;
      csv << "," << sum.score << "," << sum.max_score;
      for (const auto* e : list) {
        const grader::ExerciseScore* line = sum.find(e->id);
        csv << ",";
        if (line != nullptr) csv << line->score;
      }
      csv << "\r\n";
    }
  }
  fs::rename(tmp, o.out / "gradebook.csv");
}

}  // namespace grade_cli
