#!/usr/bin/env python3
"""Times every kernel submission of tests/students/students.json against its exercise's baseline
on a real GPU, the way the grader's GPU mode does (the GPU timing size of the registry, median of
15 CUDA-event timings after 2 warm-ups, L2 flushed before each), without building the grader:
one small nvcc program per submission. It is the evidence behind the manifest's speed verdicts.

  tests/students/gpu_speed.py OUT_DIR [--only REGEX] [--arch 90] [--ncu REGEX]

Writes OUT_DIR/gpu_speed.jsonl (one line per submission: baseline and student ms, speed-up, the
registry's GPU threshold, whether the student's output equals the baseline's, the CUDA error if
the kernel failed) and prints a table. --ncu REGEX also runs Nsight Compute on the matching
submissions (shared-memory wavefronts and instructions of one launch at a small size).
The launch geometry, sizes and thresholds below are copied from registry/src/registry.cpp.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# id: kernel, baseline (file, kernel), GPU threshold, size kind, timing size, small (ncu) size
EXERCISES = {
    "02": dict(kernel="transpose_n_by_32", base=("lessons/02-column-read/column_read.cu",
               "transpose_n_by_32_naive"), gate=1.5, kind="n_by_32", size=(1 << 20,), small=(4096,)),
    "04": dict(kernel="transpose_tiled", base=("lessons/04-padding-transpose/transpose_naive.cu",
               "transpose_tiled_naive"), gate=1.8, kind="square_f32", size=(4096,), small=(512,)),
    "05": dict(kernel="gemm_abt", base=("lessons/05-gemm-tile/gemm_naive.cu", "gemm_abt_naive"),
               gate=4.0, kind="gemm32", size=(2048, 2048, 2048), small=(256, 256, 256)),
    "06": dict(kernel="transpose_float4", base=("lessons/06-xor-swizzle/transpose_float4_naive.cu",
               "transpose_float4_naive"), gate=1.05, kind="square_f4", size=(2048,), small=(256,)),
    "07": dict(kernel="transpose_double", base=("lessons/07-wide-accesses/wide.cu",
               "transpose_double_naive"), gate=1.2, kind="square_f64", size=(4096,), small=(512,)),
    "08": dict(kernel="gemm_abt_register_blocked", base=(
               "lessons/08-gemm-register-blocked/gemm_unpadded.cu",
               "gemm_abt_register_blocked_unpadded"), gate=0.95, kind="gemm128",
               size=(4096, 4096, 4096), small=(256, 256, 64)),
}

# Per kind: element type, buffer element counts (out first), kernel arguments, launch.
KINDS = {
    "n_by_32": dict(T="float", counts="32LL * n, 32LL * n", args="d[0], d[1], (int)n",
                    grid="dim3((n + 31) / 32)", block="dim3(32, 32)"),
    "square_f32": dict(T="float", counts="n * n, n * n", args="d[0], d[1], (int)n",
                       grid="dim3((n + 31) / 32, (n + 31) / 32)", block="dim3(32, 8)"),
    "square_f64": dict(T="double", counts="n * n, n * n", args="d[0], d[1], (int)n",
                       grid="dim3((n + 31) / 32, (n + 31) / 32)", block="dim3(32, 8)"),
    "square_f4": dict(T="float4", counts="n * n, n * n", args="d[0], d[1], (int)n",
                      grid="dim3((n + 7) / 8, (n + 31) / 32)", block="dim3(8, 32)"),
    "gemm32": dict(T="float", counts="m * nn, m * k, nn * k",
                   args="d[0], d[1], d[2], (int)m, (int)nn, (int)k",
                   grid="dim3((nn + 31) / 32, (m + 31) / 32)", block="dim3(32, 32)"),
    "gemm128": dict(T="float", counts="m * nn, m * k, nn * k",
                    args="d[0], d[1], d[2], (int)m, (int)nn, (int)k",
                    grid="dim3(nn / 128, m / 128)", block="dim3(256)"),
}

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


def ncu_summary(text):
    """ncu --csv output -> {"baseline": {metric: value}, "student": {...}}."""
    import csv
    import io
    d = {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 15 or row[0] == "ID" or row[-3] not in NCU_METRICS:
            continue
        who = "baseline" if row[4].startswith("base::") else "student"
        d.setdefault(who, {})[NCU_METRICS[row[-3]]] = int(row[-1].replace(",", ""))
    return d


PROGRAM = r"""
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include "course_todo.h"
namespace base {
#include "@BASE@"
}
namespace stu {
#include "@STUDENT@"
}
using T = @T@;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("{\"error\": \"%s\", \"where\": \"%s\"}\n", cudaGetErrorString(e_), #x); \
  std::exit(0); } } while (0)

int main(int argc, char** argv) {
  const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
  const long long S0 = small ? @SMALL0@ : @SIZE0@, S1 = small ? @SMALL1@ : @SIZE1@,
                  S2 = small ? @SMALL2@ : @SIZE2@;
  const long long n = S0, m = S0, nn = S1, k = S2;
  (void)n; (void)m; (void)nn; (void)k;
  const long long counts[] = {@COUNTS@};
  const int nbuf = sizeof(counts) / sizeof(counts[0]);
  std::vector<T*> d(nbuf);
  std::vector<std::vector<unsigned char>> host(nbuf);
  uint64_t s = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < nbuf; ++i) {
    const size_t bytes = counts[i] * sizeof(T);
    CK(cudaMalloc(&d[i], bytes));
    host[i].resize(bytes);
    float* f = reinterpret_cast<float*>(host[i].data());
    if (sizeof(T) == 8) {
      double* g = reinterpret_cast<double*>(host[i].data());
      for (size_t j = 0; j < bytes / 8; ++j) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; g[j] = (double)(s >> 11) / 9007199254740992.0 * 2 - 1; }
    } else {
      for (size_t j = 0; j < bytes / 4; ++j) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; f[j] = (float)((s >> 40) / 16777216.0 * 2 - 1); }
    }
    CK(cudaMemcpy(d[i], host[i].data(), bytes, cudaMemcpyHostToDevice));
  }
  const dim3 grid = @GRID@, block = @BLOCK@;
  void* flush = nullptr;
  const size_t flush_bytes = 256u << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<unsigned char> outs[2];
  double med[2] = {0, 0};
  for (int who = 0; who < 2; ++who) {
    CK(cudaMemset(d[0], 0xff, counts[0] * sizeof(T)));
    std::vector<float> ms;
    const int reps = small ? 1 : 17;
    for (int r = 0; r < reps; ++r) {
      if (!small) CK(cudaMemset(flush, r, flush_bytes));
      CK(cudaEventRecord(e0));
      if (who == 0) base::@BASEK@<<<grid, block>>>(@ARGS@);
      else stu::@STUK@<<<grid, block>>>(@ARGS@);
      CK(cudaEventRecord(e1));
      CK(cudaGetLastError());
      CK(cudaEventSynchronize(e1));
      float t = 0;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 2 || small) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    med[who] = ms[ms.size() / 2];
    outs[who].resize(counts[0] * sizeof(T));
    CK(cudaMemcpy(outs[who].data(), d[0], outs[who].size(), cudaMemcpyDeviceToHost));
  }
  bool same;
  double rel = 0;
  if (@GEMM@) {
    const float* a = reinterpret_cast<const float*>(outs[0].data());
    const float* b = reinterpret_cast<const float*>(outs[1].data());
    double num = 0, den = 0;
    for (long long i = 0; i < counts[0]; ++i) { num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]); den += double(a[i]) * a[i]; }
    rel = std::sqrt(num / (den > 0 ? den : 1));
    same = rel < 1e-5;
  } else {
    same = outs[0] == outs[1];
  }
  std::printf("{\"baseline_ms\": %.5f, \"student_ms\": %.5f, \"speedup\": %.4f, \"same_as_baseline\": %s, \"rel\": %.3g}\n",
              med[0], med[1], med[0] / med[1], same ? "true" : "false", rel);
  return 0;
}
"""


def program(ex_id, student_path):
    e = EXERCISES[ex_id]
    kd = KINDS[e["kind"]]
    size = list(e["size"]) + [0] * (3 - len(e["size"]))
    small = list(e["small"]) + [0] * (3 - len(e["small"]))
    rep = {"@BASE@": os.path.join(ROOT, e["base"][0]), "@STUDENT@": student_path,
           "@T@": kd["T"], "@COUNTS@": kd["counts"], "@GRID@": kd["grid"],
           "@BLOCK@": kd["block"], "@ARGS@": kd["args"], "@BASEK@": e["base"][1],
           "@STUK@": e["kernel"], "@GEMM@": "true" if e["kind"].startswith("gemm") else "false"}
    for i in range(3):
        rep[f"@SIZE{i}@"] = f"{size[i]}LL"
        rep[f"@SMALL{i}@"] = f"{small[i]}LL"
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
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--only", default=None)
    ap.add_argument("--arch", default="90")
    ap.add_argument("--ncu", default=None)
    ap.add_argument("--build-only", action="store_true", help="compile, do not run")
    ap.add_argument("--build-jobs", type=int, default=os.cpu_count() or 4)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join("/tmp", "gpu-speed-work")
    os.makedirs(work, exist_ok=True)
    manifest = json.load(open(os.path.join(HERE, "students.json")))
    jobs = []
    for ex_id, e in EXERCISES.items():  # the reference solutions first, as a calibration
        slug = [d for d in os.listdir(os.path.join(ROOT, "solutions")) if d.startswith(ex_id + "-")][0]
        f = [x for x in os.listdir(os.path.join(ROOT, "solutions", slug)) if x.endswith(".cu")][0]
        jobs.append((f"{ex_id}_SOLUTION", ex_id, os.path.join(ROOT, "solutions", slug, f)))
    for s in manifest["students"]:
        if s["exercise"] in EXERCISES:
            jobs.append((s["name"], s["exercise"], os.path.join(HERE, s["file"])))
    if args.only:
        jobs = [j for j in jobs if re.search(args.only, j[0])]

    def build(job):
        name, ex_id, path = job
        src = os.path.join(work, name + ".cu")
        open(src, "w").write(program(ex_id, path))
        exe = os.path.join(work, name)
        p = subprocess.run(["nvcc", "-O3", "-std=c++17", f"-arch=sm_{args.arch}", "-lineinfo",
                            "-I" + os.path.join(ROOT, "gpu", "include"), src, "-o", exe],
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
    rows = []
    with open(os.path.join(args.out, "gpu_speed.jsonl"), "w") as out:
        for name, ex_id, _ in jobs:
            exe, err = built[name]
            row = {"name": name, "exercise": ex_id, "gate": EXERCISES[ex_id]["gate"]}
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
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
            sp = row.get("speedup")
            print(f"{name:<32} {ex_id}  "
                  + (f"base {row['baseline_ms']:.4f} ms  student {row['student_ms']:.4f} ms  "
                     f"{sp:.2f}x (gate {row['gate']})  {'PASS' if sp >= row['gate'] else 'fail'}"
                     f"  same={row['same_as_baseline']}" if sp is not None
                     else "ERROR " + row.get("error", "")[:200].replace("\n", " ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
