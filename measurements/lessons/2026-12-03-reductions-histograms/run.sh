#!/bin/bash
# run.sh - the H200 measurements behind lessons 09 and 10, in one call on the GPU machine: builds
# the grader (as scripts/gpu-integrity.sh does), times the scan and the histograms (measure.cu),
# reads Nsight Compute's shared-memory counters for them, and grades exercises 09 and 10 in GPU
# mode: reference solutions, skeletons, baselines and the student corpus (run_students.py).
#   OUT=DIR measurements/lessons/2026-12-03-reductions-histograms/run.sh
# Never changes the GPU's settings (ncu --clock-control none).
set -u
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=measurements/lessons/2026-12-03-reductions-histograms
ROOT=/tmp/course
rm -rf $ROOT && cp -a "$SRC" $ROOT && chmod -R o+rX $ROOT
OUT=${OUT:-/tmp/lessons-out}
mkdir -p "$OUT" /opt/deps
for f in "$ROOT"/.gpu-debs/*.deb "$ROOT"/.gpu-extra/*.deb; do dpkg -x "$f" /opt/deps; done
export PATH=/opt/deps/usr/bin:/usr/local/cuda/bin:$PATH CMAKE_PREFIX_PATH=/opt/deps/usr
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu CPATH=/opt/deps/usr/include
chmod 755 /opt /opt/deps
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2; ncu --version | tail -1; } >"$OUT/env.txt" 2>&1
start=$(date +%s)
B=/tmp/cb-course
(cmake -S $ROOT -B $B -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF \
  -DCOURSE_CUDA_ARCH=90 >"$OUT/build.txt" 2>&1 &&
  cmake --build $B -j16 --target grade grade_worker course-registry >>"$OUT/build.txt" 2>&1; echo "grader build rc $?" >>"$OUT/build.txt") &
BUILD=$!
cd $ROOT
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I. -Igpu -Igpu/include -Iregistry/include \
  $HERE/measure.cu registry/src/registry.cpp -o /tmp/measure >"$OUT/measure-build.txt" 2>&1
/tmp/measure time >"$OUT/timing.txt" 2>&1
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum
M=$M,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum
timeout 60 ncu --clock-control none --metrics $M --csv /tmp/measure profile >"$OUT/ncu.csv" 2>&1
wait $BUILD
echo "prep: $(( $(date +%s) - start )) s" >>"$OUT/timing.txt"
chmod -R o+rX $B
# Two class runs, each cut off in time: the references, skeletons and baselines (with three
# honest fixes) first, then the rest of the corpus; whatever finished comes back.
timeout ${GRADE1_S:-65} python3 tests/students/run_students.py $B --mode gpu --jobs 8 \
  --only '^(09|10)_(REFERENCE|SKELETON|BASELINE|xor_swizzle|warp_shuffle|shuffle_merge)$' --json "$OUT/students-gpu-1.json" \
  >"$OUT/students-gpu-1.txt" 2>&1
echo "students run 1 rc $? at $(( $(date +%s) - start )) s" >>"$OUT/timing.txt"
left=$(( ${DEADLINE_S:-188} - ($(date +%s) - start) ))
[ $left -gt 20 ] && timeout $left python3 tests/students/run_students.py $B --mode gpu --jobs 8 \
  --only '^(09|10)_(?!(REFERENCE|SKELETON|BASELINE|xor_swizzle|warp_shuffle|shuffle_merge)$)' --json "$OUT/students-gpu-2.json" >"$OUT/students-gpu-2.txt" 2>&1
echo "students run 2 rc $? at $(( $(date +%s) - start )) s" >>"$OUT/timing.txt"
cat "$OUT/timing.txt"
python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no ncu rows"); sys.exit()
h = rows[0]; K = h.index("Kernel Name"); MN = h.index("Metric Name"); MV = h.index("Metric Value"); I = h.index("ID")
t = collections.OrderedDict()
for r in rows[1:]:
    t.setdefault((r[I], r[K][:40]), {})[r[MN].split("__")[1][:60]] = float(r[MV].replace(",", ""))
for (i, k), m in t.items():
    g = lambda s: sum(v for n, v in m.items() if s in n)
    print("%-40s ld %8d inst %8d wf | st %8d inst %8d wf | atom %8d inst %8d wf" % (k,
      g("inst_executed_op_shared_ld"), g("wavefronts_mem_shared_op_ld"), g("inst_executed_op_shared_st"),
      g("wavefronts_mem_shared_op_st"), g("inst_executed_op_shared_atom"), g("wavefronts_mem_shared_op_atom")))
PY
cat "$OUT"/students-gpu-*.txt | grep -E 'OK$|MISMATCH|as a fair|^ +- ' | cut -c1-220
ls $OUT
