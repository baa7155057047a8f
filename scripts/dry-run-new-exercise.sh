#!/usr/bin/env bash
# Dry run of CONTRIBUTING.md "Adding an exercise": in a scratch copy of the repository (the
# working tree as committed), adds a throw-away exercise with the next free number NN (from
# `course-registry export --json`) in exactly the four steps (lesson folder with its baseline,
# solution file, one registry entry, generated skeleton), builds the grader, checks the registry,
# grades the solution (must get 100) and the skeleton (must get no correctness points), and lists
# every file the new exercise touched (`git status`): lessons/, solutions/, exercises/, README.md's
# generated course table and the registry, never a script. The registry entry goes into
# registry/src/local_exercises.inc, written whole (registry.cpp's table is not edited).
#   scripts/dry-run-new-exercise.sh [SCRATCH_DIR]     (minutes: it builds the grader)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-/tmp/course-dry-run}"
rm -rf "$work"
git -C "$root" worktree prune
git clone -q --no-hardlinks "$root" "$work"
cd "$work"
git config user.email dry-run@example.invalid
git config user.name dry-run

# The next free exercise number and the lesson before it, from the registry.
cmake -S . -B build -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF >/dev/null
cmake --build build -j "$(nproc)" --target course-registry >/dev/null
read -r NN PREV_SLUG < <(build/bin/course-registry export --json | python3 -c '
import json, sys
ex = json.load(sys.stdin)["exercises"]
print("%02d %s" % (max(int(e["id"]) for e in ex) + 1, ex[-1]["slug"]))')
SLUG="$NN-dry-run"
echo "== the dry run adds exercise $NN ($SLUG)"

# Step 1: the lesson, with its conflicting baseline.
mkdir -p "lessons/$SLUG" "solutions/$SLUG"
cat > lessons/$SLUG/README.md <<'MD'
# @NN@ — Dry run {#lesson-@NN@}

**Goal:** a throw-away exercise that shows which files a new exercise touches.

## Symptom
The baseline reads a column of `tile[32][32]`: 32-way (H200 numbers: see
[measurements](../../measurements/lessons/2026-11-30-h200-kernels/README.md)).

## The idea
Pad the row: \f$\mathrm{bank} = (33 r + c) \bmod 32\f$.

## The code
`lessons/@SLUG@/scale_naive.cu`.

## Try it
Nothing to try.

## Exercise
`make grade EXERCISE=@NN@`. Previous: [@PREV_ID@](../@PREV_SLUG@/README.md).
MD
cat > lessons/$SLUG/scale_naive.cu <<'CU'
// Lesson @NN@ (dry run) - the baseline: the column read of tile[32][32] is 32-way.
constexpr int kTile = 32;
__global__ void transpose@NN@_naive(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile];
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
CU

# Step 2: the solution.
cat > solutions/$SLUG/transpose$NN.cu <<'CU'
// Exercise @NN@ (dry run) - the tiled transpose without conflicts.
#include "course_todo.h"
constexpr int kTile = 32;
__global__ void transpose@NN@(float* out, const float* in, int n) {
  // BEGIN SOLUTION ex@NN@.1: declare the tile (~1 line)
  __shared__ float tile[kTile][kTile + 1];
  // SKELETON: __shared__ float tile[kTile][kTile];
  // SKELETON: course_todo("TODO(ex@NN@.1)");
  // END SOLUTION
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += 8) {
    if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}
CU

# Step 3: one registry entry, in a file of its own (registry.cpp includes it; its table is not
# edited).
cat > registry/src/local_exercises.inc <<'CPP'
// local_exercises.inc - the dry run's throw-away exercise (scripts/dry-run-new-exercise.sh).
ExerciseSpec ex_dry_run() {
  ExerciseSpec e;
  e.id = "@NN@";
  e.slug = "@SLUG@";
  e.title = "Dry run";
  e.summary = "a throw-away exercise";
  e.file = "transpose@NN@.cu";
  e.kernel = "transpose@NN@";
  e.baseline = {"lessons/@SLUG@/scale_naive.cu", "transpose@NN@_naive"};
  e.workload = square_transpose<float>(1, kTile, kTile, kTile, 8);
  e.sizes = {n_size(128), n_size(45)};
  e.gpu_timing_size = n_size(4096);
  e.bench_size = n_size(4096);
  e.thresholds.cpu_min_cost_ratio = 1.9;
  e.thresholds.gpu = {{"NVIDIA H200", 1.8, "a dry run: not measured"}};
  e.conflict_hint = "pad the tile";
  e.hints = {"Which access of the tile reads a column?",
             "tile[tx][ty + j] is word 32 tx + ty + j: all 32 lanes in one bank.",
             "Only the tile's declaration changes: its row length."};
  return e;
}

std::vector<ExerciseSpec> local_exercises() {
  return {ex_dry_run()};
}
CPP

# The files above name the new exercise by placeholders: fill them in.
sed -i -e "s/@NN@/$NN/g" -e "s/@SLUG@/$SLUG/g" -e "s/@PREV_SLUG@/$PREV_SLUG/g" \
  -e "s/@PREV_ID@/${PREV_SLUG%%-*}/g" "lessons/$SLUG/README.md" "lessons/$SLUG/scale_naive.cu" \
  "solutions/$SLUG/transpose$NN.cu" registry/src/local_exercises.inc

# Build, step 4 (the skeleton, and README's course table, both generated), check, grade.
cmake --build build -j "$(nproc)" --target grade grade_worker course-registry >/dev/null
build/bin/grade skeletons
build/bin/course-registry check .
build/bin/grade --mode cpu --submission solutions --exercise "$NN" --out build/g-sol | grep -E "^$NN|^total"
build/bin/grade --mode cpu --submission exercises --exercise "$NN" --out build/g-skel | grep -E "^$NN"
echo "== files the new exercise touched"
git status --porcelain --untracked-files=all
if git status --porcelain --untracked-files=all | grep -E ' (scripts|platforms|tests|gpu|grader|banksim|bankmodel)/'; then
  echo "dry run: adding an exercise touched the files above outside the course's content" >&2
  exit 1
fi
