#!/bin/bash
# gpu-policy-check.sh - the grading policy's checks in GPU mode, in one call on the H200: builds
# the grader (scripts/gpu-integrity.sh, PART=build), grades a folder with an instructor's policy
# file (points and thresholds changed; exercise 03's shared-request floor set to 0 so that the
# shuffle-for-shared variant's speed is timed), then the student corpus's rows that measure the
# fix (NN_SKELETON, NN_BASELINE, NN_REFERENCE, one correct conflicting kernel per exercise) and
# the non-fixes, in GPU mode.
# The policy's folder also holds the correct conflicting kernels of 06-08 (their gates read
# the same under any weights). STUDENTS=0 leaves the corpus rows out.
#   OUT=DIR [STUDENTS=0] [ONLY=REGEX] [JOBS=N] [STUDENTS_TIMEOUT=S] scripts/gpu-policy-check.sh
# Needs the Debian packages of .gpu-debs/ (scripts/gpu-integrity.sh says which).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/gpu-policy}
mkdir -p "$OUT"
ROWS='^(0[1-8]_(SKELETON|BASELINE|REFERENCE)|02_pad_by_2|03_padded_interleaved|04_pad_by_2|05_padded_wrong_tile|06_swizzle_mod4|07_pad_by_2|08_pad_by_8|03_float4_select|03_shuffle_window|04_dummy_tile_strided_store|05_staged_b_unused|05_strided_b_load)$'
OUT="$OUT" PART=build bash "$SRC/scripts/gpu-integrity.sh" || exit 1
B=/tmp/cb-course
ROOT=/tmp/course
export PATH=/opt/deps/usr/bin:$PATH  # bubblewrap, unpacked by gpu-integrity.sh
start=$(date +%s)
P=/tmp/policy-check; rm -rf $P
mkdir -p $P/sub/03-strides $P/sub/04-padding-transpose $P/sub/06-xor-swizzle \
  $P/sub/07-wide-accesses $P/sub/08-gemm-register-blocked
cp "$ROOT/tests/students/03/shuffle_window.cu" $P/sub/03-strides/complex_filter.cu
cp "$ROOT/solutions/04-padding-transpose/transpose.cu" $P/sub/04-padding-transpose/
cp "$ROOT/tests/students/06/swizzle_mod4.cu" $P/sub/06-xor-swizzle/transpose_float4.cu
cp "$ROOT/tests/students/07/pad_by_2.cu" $P/sub/07-wide-accesses/transpose_double.cu
cp "$ROOT/tests/students/08/pad_by_8.cu" $P/sub/08-gemm-register-blocked/gemm_fast.cu
cat >$P/policy.toml <<'TOML'
[kernels.weights]
correct = 40
[exercises.04.weights]
speed = 50
[exercises.04.thresholds]
gpu = { "NVIDIA H200" = 100.0 }
[exercises.03.thresholds]
min_shared_fraction = 0.0
TOML
chmod -R o+rX $P
$B/bin/grade --mode gpu --submission $P/sub --exercise 03 --exercise 04 --exercise 06 \
  --exercise 07 --exercise 08 --policy $P/policy.toml --out $P/out >"$OUT/policy-gpu.txt" 2>&1
echo "policy (GPU): rc $? in $(( $(date +%s) - start )) s"
cp $P/out/results.json "$OUT/policy-gpu-results.json" 2>/dev/null
grep -E "^0[3-8]|^total" "$OUT/policy-gpu.txt"
printf '[exercises.04.weights]\nspeed = -3\n' >$P/bad.toml
$B/bin/grade --mode gpu --submission $P/sub --exercise 04 --policy $P/bad.toml --out $P/bad \
  >>"$OUT/policy-gpu.txt" 2>&1
echo "malformed policy (GPU): rc $? (2 expected); results.json written: $(test -e $P/bad/results.json && echo yes || echo no)"
tail -2 "$OUT/policy-gpu.txt"
[ "${STUDENTS:-1}" = 0 ] && exit 0
OUT="$OUT" PART=students ONLY="${ONLY:-$ROWS}" JOBS=${JOBS:-16} \
  STUDENTS_TIMEOUT=${STUDENTS_TIMEOUT:-420} bash "$SRC/scripts/gpu-integrity.sh"
