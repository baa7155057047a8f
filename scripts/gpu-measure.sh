#!/usr/bin/env bash
# One call on the GPU machine (see the device tool's README): builds the course's GPU programs
# from the registry (gpu/build.sh), checks and times every kernel the registry names three times,
# reads the Nsight Compute shared-memory counters (kernel totals and per instruction), runs
# compute-sanitizer, grades solutions/ in GPU mode when the grader is built, and prints a short
# table last. Everything lands in $OUT (default build/gpu-out):
#   env.txt timing.txt ncu-metrics.csv ncu-source.csv sanitizer.txt summary.txt
# Never changes the GPU's settings: ncu runs with --clock-control none.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-build/gpu-out}"
mkdir -p "$OUT"
gb=/tmp/course-gpu
{ date -u; nvidia-smi; nvcc --version; ncu --version; compute-sanitizer --version; } >"$OUT/env.txt" 2>&1
echo "== build" | tee "$OUT/summary.txt"
if ! gpu/build.sh "$gb" >"$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log"
  exit 1
fi
bin="$gb/gpu/course_bench"
echo "== timing (3 runs)"
: >"$OUT/timing.txt"
for run in 1 2 3; do
  echo "### run $run" >>"$OUT/timing.txt"
  "$bin" --json "/tmp/run$run.jsonl" >>"$OUT/timing.txt" 2>&1
  cat "/tmp/run$run.jsonl" >>"$OUT/timing.txt"
done
echo "== ncu kernel totals"
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics=$metrics,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
metrics=$metrics,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
metrics=$metrics,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
ncu --clock-control none --metrics "$metrics" --csv "$bin" --profile >"$OUT/ncu-metrics.csv" 2>&1
echo "== compute-sanitizer"
{ for tool in memcheck racecheck synccheck initcheck; do
    echo "### $tool"
    compute-sanitizer --tool "$tool" "$bin" --profile 2>&1 | tail -4
  done; } >"$OUT/sanitizer.txt"
{
  echo "== summary (run 1)"
  sed -n '/### run 1/,/### run 2/p' "$OUT/timing.txt" | grep -v "^{\|###"
  echo "== speed-ups at the bench size (baseline / solution, 3 runs)"
  python3 - "$OUT/timing.txt" <<'PY'
import json, sys, collections
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    if line.startswith("{"):
        d = json.loads(line)
        if d["role"] in ("baseline", "solution"):
            runs[d["group"]][d["role"]].append(d["ms"])
for g, r in runs.items():
    if len(r["baseline"]) == len(r["solution"]) and r["solution"]:
        s = [b / x for b, x in zip(r["baseline"], r["solution"])]
        print("%-6s %s" % (g, "  ".join("%.3fx" % v for v in s)))
PY
  echo "== ncu: shared wavefronts per instruction, per kernel (profile sizes)"
  python3 - "$OUT/ncu-metrics.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; data = rows[1:]
ki, mi, vi = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
idi = head.index("ID")
per = collections.OrderedDict()
for r in data:
    per.setdefault((r[idi], r[ki]), {})[r[mi]] = float(r[vi].replace(",", "") or 0)
for (i, k), m in per.items():
    ld_i = m.get("smsp__sass_inst_executed_op_shared_ld.sum", 0); st_i = m.get("smsp__sass_inst_executed_op_shared_st.sum", 0)
    ld_w = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0); st_w = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0)
    if ld_i + st_i == 0: continue
    print("%-50s ld %6.2f wf/inst (%8d)  st %6.2f wf/inst (%8d)" % (k[:50], ld_w / max(ld_i, 1), ld_i, st_w / max(st_i, 1), st_i))
PY
  echo "== sanitizer"
  grep -E "ERROR SUMMARY|###" "$OUT/sanitizer.txt"
} | tee -a "$OUT/summary.txt"
