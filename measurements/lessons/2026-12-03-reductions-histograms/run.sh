#!/bin/bash
# run.sh - the H200 measurements behind lessons 09 and 10 and exercises 09 and 10, in one call on
# the GPU machine (about 3 minutes):
#   1. builds the grader (as scripts/gpu-integrity.sh does) while measure.cu checks and times the
#      baselines, solutions and corpus variants (`measure time`) and the histogram kernels on
#      three kinds of bytes and lesson 10's bin_updates at five strides (`measure bytes`);
#   2. grades the reference solutions, the skeletons and the baselines (the skeletons with their
#      course_todo() lines deleted) of exercises 09 and 10 in GPU mode;
#   3. reads Nsight Compute's shared-memory counters (wavefronts and instructions of loads,
#      stores and atomics) of every kernel at the exercise's sizes[0].
#   OUT=DIR DEADLINE_S=190 [PART="measure grade ncu"] measurements/lessons/2026-12-03-reductions-histograms/run.sh
# PART=grade alone builds the grader and grades (about 2-3 minutes; the step the first call's
# build missed, see README.md).
# Each step is cut off in time so that what finished comes back. ncu runs with
# --clock-control none (the GPU's settings are never changed).
set -u
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=measurements/lessons/2026-12-03-reductions-histograms
start=$(date +%s)
since() { echo $(( $(date +%s) - start )); }
ROOT=/tmp/course
# -L: .gpu-debs and .gpu-extra may be links (a staged copy of a checkout), resolved here.
rm -rf $ROOT && cp -aL "$SRC" $ROOT && chmod -R o+rX $ROOT
OUT=${OUT:-/tmp/lessons-out}
DEADLINE=${DEADLINE_S:-190}
PART=${PART:-measure grade ncu}
has_part() { [[ " $PART " == *" $1 "* ]]; }
mkdir -p "$OUT" /opt/deps
for f in "$ROOT"/.gpu-debs/*.deb "$ROOT"/.gpu-extra/*.deb; do dpkg -x "$f" /opt/deps; done
export PATH=/opt/deps/usr/bin:/usr/local/cuda/bin:$PATH CMAKE_PREFIX_PATH=/opt/deps/usr
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu CPATH=/opt/deps/usr/include
chmod 755 /opt /opt/deps
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; ncu --version | tail -1; } >"$OUT/env.txt" 2>&1
B=/tmp/cb-course
has_part grade && (cmake -S $ROOT -B $B -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF \
  -DCOURSE_CUDA_ARCH=90 >"$OUT/build.txt" 2>&1 &&
  cmake --build $B -j14 --target grade grade_worker course-registry >>"$OUT/build.txt" 2>&1
 echo "grader build rc $? at $(since) s" >>"$OUT/build.txt") &
BUILD=$!
has_part grade || BUILD=""
cd $ROOT
T="$OUT/timing.txt"
: >>"$T"
if has_part measure || has_part ncu; then
bash $HERE/gen-corpus.sh >/tmp/corpus.inc
nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -I. -I/tmp -Igpu -Igpu/include -Iregistry/include \
  $HERE/measure.cu registry/src/registry.cpp -o /tmp/measure >"$OUT/measure-build.txt" 2>&1
echo "# measure built at $(since) s" >"$T"
fi
if has_part measure; then
timeout 25 /tmp/measure time 09 >>"$T" 2>&1
timeout 10 /tmp/measure time 09 array_not_grown >>"$T" 2>&1
timeout 30 /tmp/measure time 10 >>"$T" 2>&1
timeout 25 /tmp/measure bytes >>"$T" 2>&1
echo "# timed at $(since) s" >>"$T"
fi
[ -n "$BUILD" ] && wait $BUILD
if has_part grade; then
echo "# grader built at $(since) s" >>"$T"
chmod -R o+rX $B
# 2. the grader in GPU mode: references, skeletons, baselines
C=/tmp/class; G=/tmp/grade-out; rm -rf $C $G; mkdir -p $G
for ex in 09:09-reductions-scans:scan_blocks.cu 10:10-histograms:histogram256.cu; do
  IFS=: read -r id slug file <<<"$ex"
  for who in REFERENCE SKELETON BASELINE; do mkdir -p $C/${id}_$who/$slug; done
  cp solutions/$slug/$file $C/${id}_REFERENCE/$slug/$file
  cp exercises/$slug/$file $C/${id}_SKELETON/$slug/$file
  grep -v 'course_todo(' exercises/$slug/$file >$C/${id}_BASELINE/$slug/$file
done
chmod -R 755 $C $G
left=$(( DEADLINE - 45 - $(since) ))
timeout $left $B/bin/grade --submissions $C --out $G --seed 1 --jobs 6 --mode gpu --exercise 09 \
  --exercise 10 >"$OUT/grade-gpu.txt" 2>&1
echo "# graded (rc $?) at $(since) s" >>"$T"
(cd $G && tar -cf "$OUT/grade-gpu.tar" $(find . -name results.json) 2>/dev/null)
fi
# 3. Nsight Compute: the main kernels, then the corpus
if has_part ncu; then
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum
M=$M,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum
left=$(( DEADLINE - 15 - $(since) ))
timeout $left ncu --clock-control none --metrics $M --csv /tmp/measure profile main >"$OUT/ncu-main.csv" 2>&1
left=$(( DEADLINE - $(since) ))
[ $left -gt 8 ] && timeout $left ncu --clock-control none --metrics $M --csv /tmp/measure profile corpus >"$OUT/ncu-corpus.csv" 2>&1
echo "# ncu done at $(since) s" >>"$T"
fi
cat "$T"
grep -E '^[0-9]{2}-|^total' "$OUT/grade-gpu.txt" 2>/dev/null | head -20
for f in "$OUT"/ncu-*.csv; do python3 $HERE/ncu-table.py "$f"; done
