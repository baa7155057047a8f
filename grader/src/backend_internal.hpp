// backend_internal.hpp - helpers shared by the CPU and GPU backends (not part of the API).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "grader/backend.hpp"
#include "grader/sandbox.hpp"

namespace grader::internal {

std::string read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::vector<unsigned char>& bytes);
/// The folder of the running executable (where grade_worker lives).
std::filesystem::path self_dir();
/// Writes DIR/request.json and the runK_bufJ.in / host_cases.in input files.
void write_inputs(const WorkerJob& job, const std::filesystem::path& dir);
/// Runs argv in a child process (own process group, memory limit, stdout+stderr to DIR/log_name,
/// or to `stdout_file` alone when given), killing it after limits.seconds. With `report` set,
/// the child inherits the write end of a pipe as the fd named by the placeholder "{report_fd}"
/// in argv, and everything it writes there is decoded into out.report against `job`. Fills
/// started, timed_out, exit_status, seconds, output_tail.
void run_child(std::vector<std::string> argv, const std::filesystem::path& dir,
               const Limits& limits, WorkerOutcome& out, const std::string& log_name,
               const WorkerJob* report = nullptr);

/// Runs a worker (argv; "{report_fd}" becomes the report pipe's fd) under `spec`, in the sandbox
/// or not, reading the report pipe while it runs; fills every field of `out`.
void run_worker(std::vector<std::string> argv, SandboxSpec spec, bool sandboxed,
                const WorkerJob& job, WorkerOutcome& out);

}  // namespace grader::internal
