// backend_internal.hpp - helpers shared by the CPU and GPU backends (not part of the API).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "grader/backend.hpp"

namespace grader::internal {

std::string read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::vector<unsigned char>& bytes);
/// The folder of the running executable (where grade_worker lives).
std::filesystem::path self_dir();
/// Writes DIR/request.json and the runK_bufJ.in / host_cases.in files of the worker protocol.
void write_request(const WorkerRequest& r, const std::filesystem::path& dir);
/// Reads compile.json, runK.report.json, runK_bufJ.out, runK.time_ms, host_results.out.
void read_outcome(const WorkerRequest& r, const std::filesystem::path& dir, WorkerOutcome& out);
/// Runs argv in a child process (own process group, memory limit, stdout+stderr to DIR/log_name),
/// killing it after limits.seconds; fills started, timed_out, exit_status, seconds, output_tail.
void run_child(const std::vector<std::string>& argv, const std::filesystem::path& dir,
               const Limits& limits, WorkerOutcome& out,
               const std::string& log_name = "output.log");

}  // namespace grader::internal
