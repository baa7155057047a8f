// grader/gpu_gates.hpp - the GPU speed gate's rows per GPU: the rows the registry commits (one per
// GPU model measured, course::Thresholds::gpu) and the rows `make calibrate` measures on an
// instructor's own GPU and writes to a file the grader reads (gpu-gates.json), keyed by the GPU's
// name and compute capability. GPU mode grades with exactly one row, says which, and refuses a GPU
// that has none, naming the command that makes one.
/// \file
/// The GPU gate table: committed rows, calibrated rows (the calibration file), the row used.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "course/registry.hpp"

namespace grader {

/// One GPU's row: every timed exercise's speed threshold on that GPU.
struct GateRow {
  std::string gpu;                 ///< the device name as the driver reports it: "NVIDIA H200"
  std::string compute_capability;  ///< "9.0"; empty for a committed row (matched by name alone)
  /// Where it comes from: "calibrated: FILE (DATE, driver D, CUDA C)" or "committed: the
  /// registry's NVIDIA H200 row".
  std::string origin;
  /// Exercise id -> the reference's ms / student's ms needed (the registry's GpuGate::min_ratio).
  std::map<std::string, double> min_ratio;
  /// Exercise id -> what calibration measured: the reference solution's ratio (median of runs).
  std::map<std::string, double> measured_ratio;
  /// The row as results.json records it (extra_data.gate_row).
  nlohmann::json to_json() const;
};

/// The calibration file: rows measured by `make calibrate`, one per (GPU name, compute
/// capability). Format {"format": "course-gpu-gates/1", "rows": [{"gpu", "compute_capability",
/// "measured", "driver", "cuda", "runs", "exercises": {"04": {"min_ratio", "measured_ratio",
/// "fraction", "reference"}}}]}.
struct GateTable {
  std::filesystem::path file;  ///< where the table was read from (named in messages)
  std::vector<GateRow> rows;   ///< one per (GPU name, compute capability)
  /// Reads `file`; a missing file is an empty table. On a malformed file returns nullopt and sets
  /// `error` to a message naming the file, what was expected and what to do.
  static std::optional<GateTable> load(const std::filesystem::path& file, std::string* error);
  /// The row for exactly this GPU name and compute capability, or nullptr.
  const GateRow* find(const std::string& gpu, const std::string& compute_capability) const;
  /// Adds or replaces the row of (row.gpu, row.compute_capability).
  void put(const GateRow& row);
  /// The file's contents.
  nlohmann::json to_json() const;
};

/// The registry's committed row for `gpu` (by name prefix, as course::Thresholds::gpu_gate
/// matches), when every exercise in `exercises` that GPU mode times has one; else nullopt.
std::optional<GateRow> committed_row(const std::string& gpu,
                                     const std::vector<const course::ExerciseSpec*>& exercises);

/// The row GPU mode grades with: the calibration file's row for (gpu, compute capability), else
/// the registry's committed row; nullopt with `message` set (missing_row_message) when neither.
std::optional<GateRow> choose_gate_row(const GateTable& table, const std::string& gpu,
                                       const std::string& compute_capability,
                                       const std::vector<const course::ExerciseSpec*>& exercises,
                                       std::string* message);

/// "MODE=gpu: no speed gates for NVIDIA L4 (compute capability 8.9): ... run `make calibrate`".
std::string missing_row_message(const std::string& gpu, const std::string& compute_capability,
                                const std::filesystem::path& file);

/// The fraction of the reference solution's measured speed-up that calibration sets as the gate
/// (for the ceilings of 06 and 08: of its measured fraction of cudaMemcpy's / cuBLAS's speed):
/// the committed H200 gate over the H200's measured ratio, so that a GPU's row asks of its
/// students what the H200's asks of them. 0 when the exercise is not timed.
double calibration_fraction(const course::ExerciseSpec& spec);

/// How far a calibrated row may lie from the committed one on the GPU the committed one was
/// measured on: |calibrated / committed - 1| <= this (a stated tolerance: run-to-run spread of the
/// reference's ratio on the H200 was under 1%
/// (measurements/calibration/2026-12-01-h200-thresholds), the margin covers a different driver and
/// clocks).
inline constexpr double kCalibrationTolerance = 0.10;

/// Exercises whose calibrated threshold lies outside `tolerance` of the committed row's, as
/// "04: calibrated 1.62, committed 1.80 (-10.0%)"; empty when all lie within.
std::vector<std::string> rows_differ(const GateRow& calibrated, const GateRow& committed,
                                     double tolerance = kCalibrationTolerance);

}  // namespace grader
