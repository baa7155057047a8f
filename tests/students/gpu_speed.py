#!/usr/bin/env python3
"""Times every kernel submission of tests/students/students.json against its exercise's reference
on a real GPU, the way the grader's GPU mode does, without building the grader: one small nvcc
program per submission, built on the course's own GPU code. It is the evidence behind the
manifest's speed verdicts.

  tests/students/gpu_speed.py OUT_DIR [--only REGEX] [--arch 90] [--ncu REGEX] [--build-only]
                                      [--registry BUILD/bin/course-registry]

Every fact comes from the registry: the exercises, their kernels and baselines, the sizes and
launch geometry, the speed reference and its GPU threshold (`course-registry export --json` for
the list and the nvcc flags; the program itself links the registry and asks it with
`course::find_exercise`). Inputs, timing and comparison are gpu/harness.cuh's and
gpu/registry_jobs.cuh's (make_job, run_once, median_ms_fresh: median of 15 CUDA-event timings
after 2 warm-ups, fresh inputs and a flushed L2 before each; compare_outputs), the ceilings
gpu/ceilings.cuh's (cudaMemcpy of the outputs' bytes, cuBLAS SGEMM).

Writes OUT_DIR/gpu_speed.jsonl (one line per submission: reference, baseline and student ms, the
speed-up against the reference and against the baseline, the registry's GPU threshold for this
GPU, whether the student's output equals the baseline's, the CUDA error if the kernel failed)
and prints a table. --ncu REGEX also runs Nsight Compute on the matching submissions (shared
wavefronts and instructions, global sectors and requests of one launch each at sizes[0]).
"""
import argparse
import concurrent.futures
import csv
import io
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

NCU_METRICS = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "shared_ld_wavefronts",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "shared_st_wavefronts",
    "smsp__sass_inst_executed_op_shared_ld.sum": "shared_ld_inst",
    "smsp__sass_inst_executed_op_shared_st.sum": "shared_st_inst",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "global_ld_sectors",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "global_st_sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "global_ld_requests",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "global_st_requests",
}

# The program: the baseline's and the student's files each in a namespace of their own, the
# registry's workload at the exercise's GPU timing size (or sizes[0] with --small, for ncu).
PROGRAM = r"""
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "ceilings.cuh"
#include "course_todo.h"
#include "harness.cuh"
#include "registry_jobs.cuh"

namespace base {
#include "@BASE@"
}
namespace stu {
#include "@STUDENT@"
}

namespace {
void stop(const std::string& what, const std::string& error) {
  std::printf("{\"error\": \"%s: %s\"}\n", what.c_str(), error.c_str());
  std::exit(0);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace course::gpu;
  const bool small = argc > 1 && std::string(argv[1]) == "--small";
  const course::ExerciseSpec& e = *course::find_exercise("@ID@");
  const course::Size s = small ? e.sizes[0] : e.gpu_timing_size;
  const Job initial = make_job(e.workload, s, e.workload.launch(s), 1);
  const void* kb = reinterpret_cast<const void*>(&base::@BASEK@);
  const void* ks = reinterpret_cast<const void*>(&stu::@STUK@);
  Job base_run = initial, stu_run = initial;
  std::string error;
  if (!run_once(kb, base_run, &error)) stop("baseline", error);
  if (!run_once(ks, stu_run, &error)) stop("student", error);
  const std::string diff = compare_outputs(e.workload, stu_run, base_run);
  if (small) {
    std::printf("{\"same_as_baseline\": %s}\n", diff.empty() ? "true" : "false");
    return 0;
  }
  cudaDeviceProp prop;
  COURSE_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double base_ms = median_ms_fresh(kb, initial, &error);
  if (base_ms < 0) stop("baseline", error);
  const double stu_ms = median_ms_fresh(ks, initial, &error);
  if (stu_ms < 0) stop("student", error);
  double ref_ms = base_ms;
  if (e.thresholds.reference == course::SpeedReference::kMemcpy) {
    std::size_t bytes = 0;
    for (const course::BufferSpec& b : e.workload.buffers) {
      if (b.output) bytes += b.count(s) * course::elem_bytes(b.elem);
    }
    const CopyCeiling copy(bytes);
    ref_ms = median_ms([&] { copy(); });
  } else if (e.thresholds.reference == course::SpeedReference::kSgemm) {
    const SgemmCeiling sgemm(static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k));
    ref_ms = median_ms([&] { sgemm(); });
  }
  const course::GpuGate* gate = e.thresholds.gpu_gate(prop.name);
  std::printf(
      "{\"device\": \"%s\", \"size\": \"%s\", \"reference\": \"%s\", \"reference_ms\": %.5f, "
      "\"baseline_ms\": %.5f, \"student_ms\": %.5f, \"speedup\": %.4f, \"speedup_vs_baseline\": "
      "%.4f, \"gate\": %s, \"same_as_baseline\": %s, \"difference\": \"%s\"}\n",
      prop.name, s.label.c_str(), course::to_string(e.thresholds.reference), ref_ms, base_ms,
      stu_ms, ref_ms / stu_ms, base_ms / stu_ms,
      gate != nullptr ? std::to_string(gate->min_ratio).c_str() : "null",
      diff.empty() ? "true" : "false", diff.c_str());
  return 0;
}
"""


def registry_export(path):
    out = subprocess.run([path, "export", "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def ncu_summary(text):
    """ncu --csv output -> {"baseline": {metric: value}, "student": {...}} (the harness's own
    kernels, such as the L2 flush, are left out)."""
    d = {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 15 or row[0] == "ID" or row[-3] not in NCU_METRICS:
            continue
        who = ("baseline" if row[4].startswith("base::") else
               "student" if row[4].startswith("stu::") else None)
        if who:
            d.setdefault(who, {})[NCU_METRICS[row[-3]]] = int(row[-1].replace(",", ""))
    return d


def program(ex, student_path):
    rep = {"@BASE@": os.path.join(ROOT, ex["baseline"]["file"]), "@STUDENT@": student_path,
           "@ID@": ex["id"], "@BASEK@": ex["baseline"]["kernel"], "@STUK@": ex["kernel"]}
    text = PROGRAM
    for k, v in rep.items():
        text = text.replace(k, v)
    # The files are included inside namespaces (base, stu): their system headers (<cuda/std/...>)
    # must come first, at global scope; inside the namespace their include guards skip them.
    hoisted = []
    for path in (rep["@BASE@"], student_path):
        for line in open(path, encoding="utf-8"):
            if re.match(r"\s*#\s*include\s*<", line) and line not in hoisted:
                hoisted.append(line)
    return "".join(hoisted) + text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only", default=None)
    ap.add_argument("--arch", default=None, help="compute capability (default: the registry's)")
    ap.add_argument("--ncu", default=None)
    ap.add_argument("--build-only", action="store_true", help="compile, do not run")
    ap.add_argument("--build-jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--registry", default=os.path.join(ROOT, "build", "bin", "course-registry"),
                    help="course-registry (make builds it; gpu/build.sh OUT builds OUT/course-registry)")
    args = ap.parse_args()
    if not os.access(args.registry, os.X_OK):
        sys.exit(f"gpu_speed.py: {args.registry} not found: build it (`cmake --build build "
                 "--target course-registry`, or gpu/build.sh OUT) or pass --registry")
    reg = registry_export(args.registry)
    arch = args.arch or reg["nvcc"]["default_arch"]
    flags = [f.replace("{arch}", arch) for f in reg["nvcc"]["flags_template"]]
    exercises = {e["id"]: e for e in reg["exercises"] if e["kind"] == "kernel" and e["thresholds"]["gpu"]}
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(os.path.abspath(args.out), "work")
    os.makedirs(work, exist_ok=True)
    manifest = json.load(open(os.path.join(HERE, "students.json")))
    jobs = [(f"{i}_SOLUTION", i, os.path.join(ROOT, e["solution"]))  # a calibration first
            for i, e in exercises.items()]
    jobs += [(s["name"], s["exercise"], os.path.join(HERE, s["file"]))
             for s in manifest["students"] if s["exercise"] in exercises]
    if args.only:
        jobs = [j for j in jobs if re.search(args.only, j[0])]
    includes = ["-I" + os.path.join(ROOT, d) for d in ("gpu", "gpu/include", "registry/include")]

    # The registry once (nvcc compiles it as CUDA, as gpu/build.sh does), linked into every program.
    reg_objs = []
    for src in ("registry.cpp", "registry_check.cpp"):
        obj = os.path.join(work, src + ".o")
        subprocess.run(["nvcc", *flags, *includes, "-x", "cu", "-c",
                        os.path.join(ROOT, "registry", "src", src), "-o", obj], check=True)
        reg_objs.append(obj)

    def build(job):
        name, ex_id, path = job
        src = os.path.join(work, name + ".cu")
        with open(src, "w", encoding="utf-8") as f:
            f.write(program(exercises[ex_id], path))
        exe = os.path.join(work, name)
        p = subprocess.run(["nvcc", *flags, *includes, src, *reg_objs, "-lcublas", "-o", exe],
                           capture_output=True, text=True)
        return name, (exe if p.returncode == 0 else None), p.stderr[-800:]

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.build_jobs) as pool:
        built = {n: (exe, err) for n, exe, err in pool.map(build, jobs)}
    if args.build_only:
        bad = [n for n, (exe, _) in built.items() if exe is None]
        for n in bad:
            print(n, built[n][1])
        print(f"{len(built) - len(bad)}/{len(built)} built")
        return 1 if bad else 0
    with open(os.path.join(args.out, "gpu_speed.jsonl"), "w") as out:
        for name, ex_id, _ in jobs:
            exe, err = built[name]
            row = {"name": name, "exercise": ex_id}
            if exe is None:
                row["error"] = "nvcc: " + err
            else:
                p = subprocess.run([exe], capture_output=True, text=True, timeout=300)
                try:
                    row.update(json.loads(p.stdout.strip().splitlines()[-1]))
                except (ValueError, IndexError):
                    row["error"] = (p.stdout + p.stderr)[-400:]
                if args.ncu and re.search(args.ncu, name):
                    q = subprocess.run(["ncu", "--clock-control", "none", "--csv", "--metrics",
                                        ",".join(NCU_METRICS), exe, "--small"],
                                       capture_output=True, text=True, timeout=300)
                    row["ncu_small_size"] = ncu_summary(q.stdout)
            out.write(json.dumps(row) + "\n")
            out.flush()
            sp, gate = row.get("speedup"), row.get("gate")
            verdict = "no gate for this GPU" if gate is None else ("PASS" if sp and sp >= gate else "fail")
            print(f"{name:<32} {ex_id}  "
                  + (f"{row['reference']} {row['reference_ms']:.4f} ms  student "
                     f"{row['student_ms']:.4f} ms  {sp:.2f}x (gate {gate})  {verdict}  "
                     f"vs baseline {row['speedup_vs_baseline']:.2f}x  same={row['same_as_baseline']}"
                     if sp is not None
                     else "ERROR " + row.get("error", "")[:200].replace("\n", " ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
