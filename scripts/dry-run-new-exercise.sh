#!/usr/bin/env bash
# Dry run of CONTRIBUTING.md "Adding an exercise": in a scratch copy of the repository (the
# working tree as committed), adds a throw-away exercise 09 with exactly the four steps (lesson
# folder with its baseline, solution file, one registry entry, generated skeleton), builds the
# grader, checks the registry, grades the solution (must get 100) and the skeleton (must get no
# correctness points), and lists every file the new exercise touched (`git status`).
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

# Step 1: the lesson, with its conflicting baseline.
mkdir -p lessons/09-dry-run solutions/09-dry-run
cat > lessons/09-dry-run/README.md <<'MD'
# 09 — Dry run {#lesson-09}

**Goal:** a throw-away exercise that shows which files a new exercise touches.

## Symptom
The baseline reads a column of `tile[32][32]`: 32-way (H200 numbers: see
[measurements](../../measurements/lessons/2026-11-30-h200-kernels/README.md)).

## The idea
Pad the row: \f$\mathrm{bank} = (33 r + c) \bmod 32\f$.

## The code
`lessons/09-dry-run/scale_naive.cu`.

## Try it
Nothing to try.

## Exercise
`make grade EXERCISE=09`. Previous: [08](../08-gemm-register-blocked/README.md).
MD
cat > lessons/09-dry-run/scale_naive.cu <<'CU'
// Lesson 09 (dry run) - the baseline: the column read of tile[32][32] is 32-way.
constexpr int kTile = 32;
__global__ void transpose09_naive(float* out, const float* in, int n) {
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
cat > solutions/09-dry-run/transpose09.cu <<'CU'
// Exercise 09 (dry run) - the tiled transpose without conflicts.
#include "course_todo.h"
constexpr int kTile = 32;
__global__ void transpose09(float* out, const float* in, int n) {
  // BEGIN SOLUTION ex09.1: declare the tile (~1 line)
  __shared__ float tile[kTile][kTile + 1];
  // SKELETON: __shared__ float tile[kTile][kTile];
  // SKELETON: course_todo("TODO(ex09.1)");
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

# Step 3: one registry entry.
python3 - <<'PY'
p = "registry/src/registry.cpp"
s = open(p).read()
entry = '''
ExerciseSpec ex09() {  // dry run of CONTRIBUTING.md
  ExerciseSpec e;
  e.id = "09";
  e.slug = "09-dry-run";
  e.title = "Dry run";
  e.summary = "a throw-away exercise";
  e.file = "transpose09.cu";
  e.kernel = "transpose09";
  e.baseline = {"lessons/09-dry-run/scale_naive.cu", "transpose09_naive"};
  e.workload = square_transpose<float>(1, kTile, kTile, kTile, 8);
  e.sizes = {n_size(128), n_size(45)};
  e.gpu_timing_size = n_size(4096);
  e.bench_size = n_size(4096);
  e.thresholds.cpu_min_cost_ratio = 1.9;
  e.thresholds.gpu = {{"NVIDIA H200", 1.8, "a dry run: not measured"}};
  e.conflict_hint = "pad the tile";
  return e;
}
'''
s = s.replace("/// Lessons 02 and 03: shared-memory throughput", entry + "\n/// Lessons 02 and 03: shared-memory throughput", 1)
s = s.replace("ex05(), ex06(), ex07(), ex08()};", "ex05(), ex06(), ex07(), ex08(), ex09()};", 1)
open(p, "w").write(s)
PY

# Build, step 4 (the skeleton, and README's course table, both generated), check, grade.
cmake -S . -B build -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF >/dev/null
cmake --build build -j "$(nproc)" --target grade grade_worker course-registry >/dev/null
build/bin/grade skeletons
build/bin/course-registry check .
build/bin/grade --mode cpu --submission solutions --exercise 09 --out build/g-sol | grep -E "^09|^total"
build/bin/grade --mode cpu --submission exercises --exercise 09 --out build/g-skel | grep -E "^09"
echo "== files the new exercise touched"
git status --porcelain --untracked-files=all
