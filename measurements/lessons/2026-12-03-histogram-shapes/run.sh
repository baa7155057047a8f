#!/bin/bash
# run.sh - builds shapes.cu with the registry's nvcc flags and runs it on the GPU machine (one
# call, about 30 s: 20 s of nvcc, then 2 x 11 shapes x 2 layouts x 17 launches).
#   OUT=DIR [NVCC_FLAGS_FILE=FILE] measurements/lessons/2026-12-03-histogram-shapes/run.sh [N]
# The flags are `course-registry nvcc-flags` (COURSE_REGISTRY, default build/bin/course-registry);
# where the registry is not built (the GPU machine), NVCC_FLAGS_FILE names a file holding its
# output, written on the development machine. N: bytes (default 2^27).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/histogram-shapes}
mkdir -p "$OUT"
REG=${COURSE_REGISTRY:-$HERE/../../../build/bin/course-registry}
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
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
  nvcc --version | tail -2
  echo "nvcc flags: ${FLAGS[*]}"
} >"$OUT/env.txt" 2>&1
start=$(date +%s)
nvcc "${FLAGS[@]}" -o /tmp/histogram-shapes-bin "$HERE/shapes.cu" >"$OUT/build.txt" 2>&1 || {
  cat "$OUT/build.txt"
  exit 1
}
echo "nvcc: $(($(date +%s) - start)) s" >>"$OUT/build.txt"
timeout 50 /tmp/histogram-shapes-bin "$@" 2>&1 | tee "$OUT/shapes.txt"
rc=${PIPESTATUS[0]}
cat "$OUT/env.txt" "$OUT/build.txt"
exit "$rc"
