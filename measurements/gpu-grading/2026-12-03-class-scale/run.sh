#!/bin/bash
# run.sh - GPU mode at class scale on a GPU box in one call: installs the course's Debian
# libraries (/opt/deps) and Debian 12's clang-14 (as `apt-get install clang-14` would), builds
# the grader with banksim's region pass built elsewhere (.gpu-regions/banksim_regions.so, from
# `make regions-plugin`: the box has no LLVM development files) and the GPU harness (CMake target
# gpu_harness), then runs the PARTs asked for, each timed, with everything under $OUT:
#   probe      ncu-overlap.sh: may ncu profiles overlap (same counters alone and 4 at once)?
#   lesson     measurements/lessons/2026-12-03-histogram-exercise/run.sh (exercise 10 timed)
#   ncucost    ncu-cost.sh: one profile's seconds, the grader's ncu line against narrower ones
#   phases     ncu-phases.sh: one profile's phases (before the target's CUDA work, during, after),
#              and whether another profile may run during the first or the last
#   solutions  solutions/ in GPU mode twice (a cold grader: the GPU harness is built; then warm,
#              its time including the grader's rebuild with nothing to do; SOL_RUNS="cold" for
#              one run)
#   costs      gpu-costs.sh on the solutions' work folders: each GPU process's seconds, and each
#              tool over all the exercises' workers in one process
#   fake       a GPU name without a gate row (COURSE_GPU_NAME): the message and exit status
#   calibrate  `grade calibrate` (what `make calibrate` runs): this GPU's row, against the
#              committed one; later parts grade with it (build/gpu-gates.json); CAL_EX: only
#              these exercises
#   gaps       the corpus rows that were known gaps of GPU mode (tests/students), graded
#   corpus     the whole corpus of student submissions (tests/students) in GPU mode; CORPUS_ONLY:
#              a regex over the rows' names; STUDENT_JOBS the corpus parts' --jobs (default 8)
#   GATES=FILE  a gate file (`make calibrate`'s gpu-gates.json) the grader reads from its build:
#              every part grades with that file's row for this GPU
#   new        the corpus rows of exercises 09, 10 and 11 (their solutions and skeletons included);
#              NEW_ONLY: a regex over the rows' names instead
#   shapes     measurements/lessons/2026-12-03-histogram-shapes (exercise 10's kernel shapes)
#   steps      what one GPU process costs: a CUDA context, ncu and memcheck on a one-launch
#              program, and exercise 04 graded alone (--jobs 1), each timed
#   class      CLASS_N distinct copies of solutions/ (each file differs by a comment) as a class,
#              the exercises CLASS_EX (default 01..08), --jobs CLASS_JOBS; per-student times
#   CLASS_FIRST  the first student's number (default 1): a class measured in parts on fresh boxes
#              (CLASS_N=15 CLASS_FIRST=1, then CLASS_FIRST=16) grades distinct students
#   CLASS_RESUME=1  keep the previous class output (/tmp/grade-out/class): the class resumes
#   CLASS_DETACH=1  the class runs in its own process session, on past this call's end;
#              class-wait.sh (the next call, on the box still lent) waits for it and sums it up
#   SOL_EX     the exercises of the solutions part (default: all); SOL_JOBS its --jobs (11)
#   OUT=DIR PART="probe solutions class" CLASS_N=30 DEADLINE=SECONDS run.sh
# DEADLINE (seconds since the start): a part is not started past it; the class is cut there.
set -u
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${OUT:-/tmp/hybrid-out}
PART=${PART:-solutions fake calibrate gaps}
CLASS_N=${CLASS_N:-30}
CLASS_JOBS=${CLASS_JOBS:-8}
CLASS_FIRST=${CLASS_FIRST:-1}
DEADLINE=${DEADLINE:-540}
CLASS_EX=${CLASS_EX:-01 02 03 04 05 06 07 08}
SOL_EX=${SOL_EX:-}
SOL_JOBS=${SOL_JOBS:-11}
SOL_RUNS=${SOL_RUNS:-cold warm}
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
has() { [[ " $PART " == *" $1 "* ]]; }
left() { echo $(( DEADLINE - $(el) )); }
mkdir -p "$OUT"
# As root the sandboxes run as other uids, who must be able to enter the course's folders.
ROOT=/tmp/course
rm -rf $ROOT && cp -a "$SRC" $ROOT && chmod -R o+rX $ROOT
# shellcheck source=../gpu-box-setup.sh
source "$SRC/measurements/gpu-grading/gpu-box-setup.sh"
clang++ --version | head -1 || echo "clang++ does not start"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
nvcc --version | tail -2 | head -1
echo "setup: $(el) s"
B=/tmp/cb
s=$(date +%s)
cmake -S $ROOT -B $B -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF \
  -DCOURSE_CUDA_ARCH=90 ${REGIONS:+-DBANKSIM_REGIONS_PREBUILT=$REGIONS} >"$OUT/build.txt" 2>&1 &&
  cmake --build $B -j16 --target grade grade_worker banksim course-registry gpu_harness \
    >>"$OUT/build.txt" 2>&1 || { tail -30 "$OUT/build.txt"; exit 1; }
echo "build (configure + grade grade_worker banksim course-registry gpu_harness, 16 cores): $(( $(date +%s) - s )) s"
ls $B/gpu-harness/ 2>/dev/null | tr '\n' ' '; echo
grep -i "banksim:" "$OUT/build.txt" | head -2
if [ -n "${GATES:-}" ]; then
  cp "$SRC/$GATES" $B/gpu-gates.json && echo "gate file: $GATES (as $B/gpu-gates.json)"
fi
chmod -R o+rX $B
# CLASS_RESUME=1 keeps the last class's output: a class cut at a call's deadline goes on from
# the students it graded (each kept by its record) on a box still warm.
G=/tmp/grade-out
if [ -z "${CLASS_RESUME:-}" ]; then rm -rf $G; fi
mkdir -p $G; chmod 755 $G
if has probe; then
  OUT=$OUT/probe N=4 bash "$SRC/measurements/gpu-grading/2026-12-03-class-scale/ncu-overlap.sh" \
    >"$OUT/probe.txt" 2>&1
  head -14 "$OUT/probe.txt"
fi
if has lesson; then  # exercise 10 measured as the lesson quotes it (about a minute)
  COURSE_REGISTRY=$B/bin/course-registry OUT=$OUT/hist \
    bash "$SRC/measurements/lessons/2026-12-03-histogram-exercise/run.sh" >"$OUT/hist.txt" 2>&1
  echo "lesson 10 measurement: rc $?"; tail -40 "$OUT/hist.txt"
fi
if has phases; then
  OUT=$OUT/phases bash "$SRC/measurements/gpu-grading/2026-12-03-class-scale/ncu-phases.sh" \
    >"$OUT/ncu-phases.txt" 2>&1
  cat "$OUT/ncu-phases.txt"
fi
if has ncucost; then
  OUT=$OUT/ncucost bash "$SRC/measurements/gpu-grading/2026-12-03-class-scale/ncu-cost.sh" \
    >"$OUT/ncu-cost.txt" 2>&1
  cut -c1-600 "$OUT/ncu-cost.txt"
fi
summary() {  # results.json junit.xml label seconds
  python3 - "$@" <<'PY'
import json, sys, re
r = json.load(open(sys.argv[1]))
mx = sum(t["max_score"] for t in r["tests"])
per = re.findall(r'testsuite name="([^"]+)" tests="\d+" time="([0-9.]+)"', open(sys.argv[2]).read())
print(f"{sys.argv[3]}: {r['score']:g}/{mx} in {sys.argv[4]} s; per exercise: " +
      ", ".join(f"{n[:2]} {float(t):.1f}" for n, t in per))
print("  gate row:", json.dumps(r["extra_data"].get("gate_row", {}).get("origin")))
for t in r["tests"]:
    if t["score"] < t["max_score"]:
        print("  LOST", t["name"], t.get("output", "")[:300])
PY
}
if has solutions; then
  for run in $SOL_RUNS; do
    if [ "$run" = warm ]; then
      # A warm box: the grader's build is brought up to date first (nothing to rebuild), as
      # `make grade` does before it grades; the run's time below includes it.
      s=$(date +%s.%N)
      cmake --build $B -j16 --target grade grade_worker banksim course-registry gpu_harness \
        >>"$OUT/build.txt" 2>&1
      echo "rebuild on the warm box (rc $?): $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"
    else
      s=$(date +%s.%N)
    fi
    # --keep-inputs: the costs part runs the workers again from these folders.
    $B/bin/grade --mode gpu --submission $ROOT/solutions --jobs $SOL_JOBS --format gradescope,junit \
      --keep-inputs \
      ${SOL_EX:+--exercise $SOL_EX} --out $G/sol-$run >"$OUT/solutions-$run.txt" 2>&1
    rc=$?
    t=$(python3 -c "print(round($(date +%s.%N) - $s, 1))")
    echo "solutions ($run, hybrid, --jobs $SOL_JOBS, baselines on disk: $(ls $B/gpu-baselines 2>/dev/null | wc -l)): rc $rc"
    summary $G/sol-$run/results.json $G/sol-$run/junit.xml "solutions $run" $t
    python3 - $G/sol-$run/results.json <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["extra_data"].get("steps", {})
for ex, ss in sorted(steps.items()):
    print(f"  {ex}: " + "; ".join(f"{s['step']} {s['seconds']:.1f}" for s in ss))
PY
    cp $G/sol-$run/results.json "$OUT/results-solutions-$run.json"
  done
  tail -14 "$OUT/solutions-${SOL_RUNS##* }.txt" | head -11
fi
if has costs; then
  OUT=$OUT/costs bash "$SRC/measurements/gpu-grading/2026-12-03-class-scale/gpu-costs.sh" \
    "$G/sol-${SOL_RUNS##* }" >"$OUT/gpu-costs.txt" 2>&1
  cat "$OUT/gpu-costs.txt"
fi
if has fake; then
  COURSE_GPU_NAME="NVIDIA L4" $B/bin/grade --mode gpu --submission $ROOT/solutions \
    --exercise 04 --out $G/fake >"$OUT/fake.txt" 2>&1
  echo "fake GPU name 'NVIDIA L4': rc $?: $(head -c 600 "$OUT/fake.txt")"
fi
if has calibrate && [ "$(left)" -gt 60 ]; then
  s=$(date +%s)
  $B/bin/grade --mode gpu --out $G/cal ${CAL_EX:+--exercise $CAL_EX} calibrate --runs 3 \
    >"$OUT/calibrate.txt" 2>&1
  echo "calibrate: rc $? in $(( $(date +%s) - s )) s"
  cat "$OUT/calibrate.txt"
  cp $B/gpu-gates.json "$OUT/gpu-gates.json" 2>/dev/null
fi
students() {  # label only-regex extra-args
  s=$(date +%s)
  # --deadline: the rows graded by then are compared, the rest listed as not graded.
  python3 $ROOT/tests/students/run_students.py $B --deadline $(( $(left) > 30 ? $(left) - 15 : 30 )) \
    --mode gpu --jobs "${STUDENT_JOBS:-8}" ${2:+--only "$2"} $3 --json "$OUT/$1.json" >"$OUT/$1.txt" 2>&1
  echo "$1: rc $? in $(( $(date +%s) - s )) s"
  grep -E "MISMATCH|known gap|not graded|as a fair grader" "$OUT/$1.txt" | tail -12
}
if has gaps && [ "$(left)" -gt 40 ]; then
  students gaps '^(03_lane_pairs|04_sync_inside_guard|04_tile_not_transposed|05_no_zero_fill|06_swizzle_store_only|06_swizzle_full_row)$' --no-reference
fi
if has corpus && [ "$(left)" -gt 60 ]; then students corpus "${CORPUS_ONLY:-}" ""; fi
if has shapes && [ "$(left)" -gt 60 ]; then
  "$B/bin/course-registry" nvcc-flags >/tmp/nvcc-flags.txt
  OUT=$OUT/shapes NVCC_FLAGS_FILE=/tmp/nvcc-flags.txt \
    bash $ROOT/measurements/lessons/2026-12-03-histogram-shapes/run.sh >/dev/null 2>&1
  echo "shapes: rc $?"; tail -30 "$OUT/shapes/shapes.txt"
fi
if has steps && [ "$(left)" -gt 40 ]; then
  printf '__global__ void k(float* p) { p[threadIdx.x] += 1; }\nint main() { float* p; cudaMalloc(&p, 128); k<<<1, 32>>>(p); return cudaDeviceSynchronize(); }\n' >/tmp/one.cu
  nvcc -arch=sm_90 -o /tmp/one /tmp/one.cu
  tm() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; python3 -c "print(f'{$(date +%s.%N) - $s:.2f}')"; }
  echo "steps (s): one-launch program $(tm /tmp/one) $(tm /tmp/one);" \
    "ncu --version $(tm ncu --version);" \
    "ncu one metric $(tm ncu --clock-control none --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum /tmp/one)" \
    "$(tm ncu --clock-control none --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum /tmp/one);" \
    "memcheck $(tm compute-sanitizer --tool memcheck /tmp/one)"
  s=$(date +%s.%N)
  $B/bin/grade --mode gpu --submission $ROOT/solutions --exercise 04 --jobs 1 --verbose \
    --out $G/steps >"$OUT/steps-04.txt" 2>&1
  echo "exercise 04 alone (--jobs 1): rc $? in $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"
fi
if has new && [ "$(left)" -gt 40 ]; then students new "${NEW_ONLY:-^(09|10|11)_}" ""; fi
if has class && [ "$(left)" -gt 60 ]; then
  C=/tmp/class; rm -rf $C; mkdir -p $C
  for i in $(seq -f %02g "$CLASS_FIRST" $(( CLASS_FIRST + CLASS_N - 1 ))); do
    cp -r $ROOT/solutions $C/s$i
    for f in $C/s$i/*/*.cu $C/s$i/*/*.cpp; do [ -f "$f" ] && echo "// student $i" >>"$f"; done
  done
  chmod -R o+rX $C
  if [ -n "${CLASS_DETACH:-}" ]; then
    # The class in its own process session: it runs on past this call (the box stays lent while
    # calls follow); class-wait.sh, in the next call, waits for its end and summarises it.
    D=/tmp/class-run; rm -rf $D; mkdir -p $D
    date +%s.%N >$D/start
    setsid bash -c "$B/bin/grade --mode gpu --submissions $C \
      --jobs $CLASS_JOBS --exercise $CLASS_EX --out $G/class >$D/class.txt 2>&1; echo \$? >$D/rc; \
      date +%s.%N >$D/end" </dev/null >/dev/null 2>&1 &
    echo "class of $CLASS_N x exercises $CLASS_EX (--jobs $CLASS_JOBS) started in its own session"
    OUT=$OUT WAIT=$(left) bash "$SRC/measurements/gpu-grading/2026-12-03-class-scale/class-wait.sh"
  else
    s=$(date +%s.%N)
    timeout $(left) $B/bin/grade --mode gpu --submissions $C --jobs $CLASS_JOBS \
      --exercise $CLASS_EX --out $G/class >"$OUT/class.txt" 2>&1
    rc=$?
    t=$(python3 -c "print(round($(date +%s.%N) - $s, 1))")
    graded=$(grep -c "\] graded" "$OUT/class.txt")
    echo "class of $CLASS_N x exercises $CLASS_EX (--jobs $CLASS_JOBS): rc $rc, $graded students graded in $t s"
    python3 "$SRC/measurements/gpu-grading/2026-12-03-class-scale/class-summary.py" "$OUT/class.txt" \
      $G/class/gradebook.csv
    cp $G/class/gradebook.csv "$OUT/" 2>/dev/null
  fi
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
echo "total: $(el) s"
