#!/bin/bash
# ncu on reduce5_check.cu (one short run): per kernel the shared-load requests and wavefronts,
# then per SASS instruction of reduce5 (the source page) to name the LDS with the extra ones.
#   OUT=/tmp/out measurements/fidelity/2026-12-03-reduce5/device.sh
set -u
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
ROOT=../../..
FLAGS=$($ROOT/build/bin/course-registry nvcc-flags 2>/dev/null | tr '\n' ' ')
[ -n "$FLAGS" ] || FLAGS="-O3 -std=c++17 -arch=sm_90 -lineinfo"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2; ncu --version | tail -1; echo "flags: $FLAGS"; } > "$OUT/env.txt" 2>&1
nvcc $FLAGS -I$ROOT/tests/public/cuda-samples/Common -o "$OUT/check" reduce5_check.cu || exit 1
cuobjdump -sass "$OUT/check" > "$OUT/check.sass" 2>&1 || true
M=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
timeout 120 ncu --clock-control none --metrics "$M" --csv "$OUT/check" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
timeout 180 ncu --clock-control none --section SourceCounters -k regex:reduce5 -o "$OUT/reduce5" "$OUT/check" > "$OUT/ncu-source.log" 2>&1
timeout 60 ncu --import "$OUT/reduce5.ncu-rep" --page source --print-source sass --csv > "$OUT/reduce5-sass.csv" 2>> "$OUT/ncu-source.log"
cat "$OUT/env.txt"
echo "kernel, metric, value (2 blocks of 256 threads each):"
grep -v '^==' "$OUT/ncu.csv" | awk -F'","' 'NR > 1 {print $5 ", " $13 ", " $15}' | tr -d '"'
echo "reduce5's LDS rows of the source page (columns as ncu names them in reduce5-sass.csv):"
head -1 "$OUT/reduce5-sass.csv"
grep 'LDS' "$OUT/reduce5-sass.csv"
