#!/bin/bash
# run.sh - exercise 10 on the H200 in one call (about a minute): builds measure.cu with the
# registry's nvcc flags, then
#   1. `measure time`: baseline, solution, lesson 10's per-warp tables and every corpus variant
#      (tests/students/10) checked and timed against the baseline at the GPU timing size;
#   2. `measure bytes`: baseline, per-warp tables and solution on five kinds of bytes;
#   3. Nsight Compute's shared-memory counters (instructions and wavefronts of loads, stores and
#      atomics) of the baseline and the solution at sizes[0], seed 11 (tests/test_registry.cpp's
#      rows), with --clock-control none (the GPU's settings are never changed).
#   OUT=DIR [NVCC_FLAGS_FILE=FILE] measurements/lessons/2026-12-03-histogram-exercise/run.sh
# The flags are `course-registry nvcc-flags` (COURSE_REGISTRY, default build/bin/course-registry);
# where the registry is not built (the GPU machine), NVCC_FLAGS_FILE names a file holding its
# output, written on the development machine. Writes env.txt, build.txt, time.txt, bytes.txt and
# ncu.csv under $OUT and prints the tables last.
set -u
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=measurements/lessons/2026-12-03-histogram-exercise
OUT=${OUT:-/tmp/histogram-exercise}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)  # absolute: the script works from the repository root
REG=${COURSE_REGISTRY:-$SRC/build/bin/course-registry}
if [ -n "${NVCC_FLAGS_FILE:-}" ]; then
  mapfile -t FLAGS <"$NVCC_FLAGS_FILE"
elif [ -x "$REG" ]; then
  mapfile -t FLAGS < <("$REG" nvcc-flags)
else
  echo "run.sh: no nvcc flags: $REG is not built (cmake --build build --target course-registry);" \
    "or pass NVCC_FLAGS_FILE=FILE holding the output of course-registry nvcc-flags" >&2
  exit 2
fi
export PATH=/usr/local/cuda/bin:$PATH
cd "$SRC"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  nvcc --version | tail -2
  ncu --version 2>/dev/null | tail -1
  echo "nvcc flags: ${FLAGS[*]}"
  git rev-parse HEAD 2>/dev/null
} >"$OUT/env.txt" 2>&1
# corpus.inc: every tests/students/10 variant in a namespace of its own, and the table.
GEN=$(mktemp -d)
{
  entries=()
  for f in tests/students/10/*.cu; do
    ns="c10_$(basename "$f" .cu)"
    printf 'namespace %s {\n#include "%s"\n}\n' "$ns" "$f"
    entries+=("  {\"$(basename "$f" .cu)\", (const void*)$ns::histogram256},")
  done
  echo "const CorpusEntry kCorpus[] = {"
  printf '%s\n' "${entries[@]}"
  echo "};"
} >"$GEN/corpus.inc"
start=$(date +%s)
nvcc "${FLAGS[@]}" -I. -I"$GEN" -Igpu -Igpu/include -Iregistry/include "$HERE/measure.cu" \
  registry/src/registry.cpp -o "$GEN/measure" >"$OUT/build.txt" 2>&1 || {
  cat "$OUT/build.txt"
  exit 1
}
echo "nvcc: $(($(date +%s) - start)) s" >>"$OUT/build.txt"
timeout 120 "$GEN/measure" time >"$OUT/time.txt" 2>&1
timeout 60 "$GEN/measure" bytes >"$OUT/bytes.txt" 2>&1
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum
M=$M,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum
timeout 120 ncu --clock-control none --metrics "$M" --csv "$GEN/measure" profile >"$OUT/ncu.csv" 2>&1
# The counters, one line per kernel (the metric's last word and its value).
ncu_table() {
  python3 - "$1" <<'PY'
import csv, sys
rows = {}
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 15 or r[0] == "ID":
        continue
    rows.setdefault(r[4].split("(")[0], {})[r[-3]] = r[-1]
for k, m in rows.items():
    print(k, " ".join(f"{n.split('__')[1].replace('data_pipe_lsu_wavefronts_mem_shared_', 'wf_').replace('sass_inst_executed_', 'inst_').replace('.sum', '')}={v}" for n, v in sorted(m.items())))
PY
}
cat "$OUT/env.txt" "$OUT/build.txt"
ncu_table "$OUT/ncu.csv"
cat "$OUT/bytes.txt" "$OUT/time.txt"
