// calibrate.hpp - `grade calibrate`: this GPU's row of the gate table (calibrate.cpp).
#pragma once

#include <filesystem>
#include <vector>

#include "grader/backend.hpp"

/// What `grade calibrate` does.
struct CalibrateOptions {
  std::filesystem::path gates_file;  ///< the calibration file written (and read by the grader)
  std::filesystem::path work_dir;    ///< scratch space for the timing jobs
  int runs = 3;                      ///< timings of each kernel (each the median of 15)
};

/// Times the baseline and reference of every kernel exercise in `list` on `backend` (a GPU) and
/// writes the GPU's row; prints each exercise's numbers and the comparison with the committed
/// row. 0 on success, 1 when an exercise could not be timed (no row written), 2 on bad input.
int run_calibrate(const CalibrateOptions& o, const grader::Backend& backend,
                  const std::vector<const grader::ExerciseSpec*>& list);
