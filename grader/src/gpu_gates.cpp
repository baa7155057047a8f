// gpu_gates.cpp - the GPU gate table: reading and writing the calibration file, choosing the row
// GPU mode grades with, and comparing a calibrated row with a committed one.
#include "grader/gpu_gates.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace grader {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "course-gpu-gates/1";

/// Exercises GPU mode times (kernel exercises).
bool timed(const course::ExerciseSpec& spec) {
  return spec.kind == course::ExerciseSpec::Kind::kKernel;
}

}  // namespace

json GateRow::to_json() const {
  json j = {{"gpu", gpu}, {"compute_capability", compute_capability}, {"origin", origin}};
  for (const auto& [id, r] : min_ratio) j["min_ratio"][id] = r;
  for (const auto& [id, r] : measured_ratio) j["measured_ratio"][id] = r;
  return j;
}

std::optional<GateTable> GateTable::load(const fs::path& file, std::string* error) {
  GateTable t;
  t.file = file;
  std::error_code ec;
  if (!fs::exists(file, ec)) return t;
  std::ifstream in(file);
  const json j = json::parse(in, nullptr, false);
  const auto bad = [&](const std::string& what) {
    *error = fmt::format(
        "{}: {}; expected the file `make calibrate` writes ({{\"format\": \"{}\", \"rows\": "
        "[...]}}): run `make calibrate` again on this GPU, or delete the file",
        file.string(), what, kFormat);
    return std::nullopt;
  };
  if (!j.is_object()) return bad("not JSON");
  if (j.value("format", "") != kFormat)
    return bad("format is not \"" + std::string(kFormat) + "\"");
  if (!j.contains("rows") || !j["rows"].is_array()) return bad("no \"rows\" list");
  std::size_t k = 0;
  for (const json& r : j["rows"]) {
    const std::string where = fmt::format("row {}", k++);
    if (!r.is_object() || !r.contains("gpu") || !r["gpu"].is_string() ||
        !r.contains("compute_capability") || !r["compute_capability"].is_string() ||
        !r.contains("exercises") || !r["exercises"].is_object()) {
      return bad(where + " lacks \"gpu\", \"compute_capability\" or \"exercises\"");
    }
    GateRow row;
    row.gpu = r["gpu"].get<std::string>();
    row.compute_capability = r["compute_capability"].get<std::string>();
    row.origin =
        fmt::format("calibrated: {} ({}, driver {}, CUDA {})", file.string(),
                    r.value("measured", "?"), r.value("driver", "?"), r.value("cuda", "?"));
    for (const auto& [id, e] : r["exercises"].items()) {
      if (!e.is_object() || !e.contains("min_ratio") || !e["min_ratio"].is_number() ||
          !(e["min_ratio"].get<double>() > 0)) {
        return bad(where + ", exercise " + id + ": no positive \"min_ratio\"");
      }
      row.min_ratio[id] = e["min_ratio"].get<double>();
      if (e.contains("measured_ratio") && e["measured_ratio"].is_number()) {
        row.measured_ratio[id] = e["measured_ratio"].get<double>();
      }
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

const GateRow* GateTable::find(const std::string& gpu, const std::string& cc) const {
  for (const GateRow& r : rows) {
    if (r.gpu == gpu && r.compute_capability == cc) return &r;
  }
  return nullptr;
}

void GateTable::put(const GateRow& row) {
  for (GateRow& r : rows) {
    if (r.gpu == row.gpu && r.compute_capability == row.compute_capability) {
      r = row;
      return;
    }
  }
  rows.push_back(row);
}

json GateTable::to_json() const {
  json j = {{"format", kFormat}, {"rows", json::array()}};
  for (const GateRow& r : rows) {
    json row = {{"gpu", r.gpu}, {"compute_capability", r.compute_capability}};
    json ex = json::object();
    for (const auto& [id, ratio] : r.min_ratio) {
      ex[id] = {{"min_ratio", ratio}};
      if (const auto it = r.measured_ratio.find(id); it != r.measured_ratio.end())
        ex[id]["measured_ratio"] = it->second;
      if (const course::ExerciseSpec* spec = course::find_exercise(id); spec != nullptr) {
        ex[id]["fraction"] = calibration_fraction(*spec);
        ex[id]["reference"] = course::to_string(spec->thresholds.reference);
      }
    }
    row["exercises"] = ex;
    j["rows"].push_back(row);
  }
  return j;
}

std::optional<GateRow> committed_row(const std::string& gpu,
                                     const std::vector<const course::ExerciseSpec*>& exercises) {
  GateRow row;
  row.gpu = gpu;
  for (const course::ExerciseSpec* spec : exercises) {
    if (!timed(*spec)) continue;
    const course::GpuGate* g = spec->thresholds.gpu_gate(gpu);
    if (g == nullptr) return std::nullopt;
    row.min_ratio[spec->id] = g->min_ratio;
    row.origin = "committed: the registry's " + g->gpu + " row";
  }
  if (row.origin.empty()) row.origin = "committed: no timed exercise selected";
  return row;
}

std::string missing_row_message(const std::string& gpu, const std::string& cc,
                                const fs::path& file) {
  return fmt::format(
      "MODE=gpu: no speed gates for {} (compute capability {}): the registry has rows for the "
      "GPUs the course was measured on, and {} has none for this GPU. Run `make calibrate` on this "
      "machine once (it times the baseline and the reference solution of every exercise and "
      "writes this GPU's row there), then grade again; or grade with MODE=cpu",
      gpu.empty() ? "this GPU" : gpu, cc.empty() ? "unknown" : cc, file.string());
}

std::optional<GateRow> choose_gate_row(const GateTable& table, const std::string& gpu,
                                       const std::string& cc,
                                       const std::vector<const course::ExerciseSpec*>& exercises,
                                       std::string* message) {
  if (const GateRow* r = table.find(gpu, cc); r != nullptr) {
    // A calibrated row must cover every exercise graded (a row from an older course may not).
    for (const course::ExerciseSpec* spec : exercises) {
      if (timed(*spec) && r->min_ratio.count(spec->id) == 0) {
        *message = fmt::format(
            "{}: the row for {} (compute capability {}) has no gate for exercise {}: run `make "
            "calibrate` again (the course has exercises the row was not measured for)",
            table.file.string(), gpu, cc, spec->id);
        return std::nullopt;
      }
    }
    return *r;
  }
  if (auto committed = committed_row(gpu, exercises)) return committed;
  *message = missing_row_message(gpu, cc, table.file);
  return std::nullopt;
}

double calibration_fraction(const course::ExerciseSpec& spec) {
  if (!timed(spec)) return 0.0;
  // The registry's H200 row: its gate over what the reference measured there (GpuGate::measured).
  const course::GpuGate* g = spec.thresholds.gpu_gate("NVIDIA H200");
  if (g == nullptr || g->measured <= 0) return 0.8;  // an exercise never timed there
  return g->min_ratio / g->measured;
}

std::vector<std::string> rows_differ(const GateRow& calibrated, const GateRow& committed,
                                     double tolerance) {
  std::vector<std::string> out;
  for (const auto& [id, want] : committed.min_ratio) {
    const auto it = calibrated.min_ratio.find(id);
    if (it == calibrated.min_ratio.end()) {
      out.push_back(id + ": not calibrated");
      continue;
    }
    const double rel = it->second / want - 1.0;
    if (std::abs(rel) > tolerance + 1e-12) {
      out.push_back(fmt::format("{}: calibrated {:.3f}, committed {:.3f} ({:+.1f}%)", id,
                                it->second, want, 100 * rel));
    }
  }
  return out;
}

}  // namespace grader
