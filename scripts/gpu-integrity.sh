#!/bin/bash
# gpu-integrity.sh - the GPU-mode checks of grading integrity, in one call on the H200:
# builds the grader, records the sanitizers' and ncu's real output for the parsers' fixtures,
# grades solutions/ in GPU mode inside the sandbox, then (PART=attacks) the attack corpus.
#   OUT=DIR PART=solutions|fixtures|attacks|students|ncu|all scripts/gpu-integrity.sh
# PART=students grades exercises/ (the skeletons: no correctness points) and the corpus of
# student submissions (tests/students, one class run with --jobs 8) in GPU mode.
# Needs the Debian packages of .gpu-debs/ and bubblewrap's (.gpu-extra/) unpacked: done here.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
# As root the sandboxes run as other uids, who must be able to enter the course's folders: a copy
# under /tmp (the checkout may sit under /root, mode 700).
ROOT=/tmp/course
rm -rf $ROOT && cp -a "$SRC" $ROOT && chmod -R o+rX $ROOT
OUT=${OUT:-/tmp/gpu-integrity}
PART=${PART:-solutions}
# PART is one part or several ("students attacks"); "all" is solutions, attacks and students.
has_part() { [[ " $PART " == *" $1 "* ]] || { [ "$PART" = all ] && [ "$1" != ncu ]; }; }
mkdir -p "$OUT" /opt/deps
for f in "$ROOT"/.gpu-debs/*.deb "$ROOT"/.gpu-extra/*.deb; do dpkg -x "$f" /opt/deps; done
export PATH=/opt/deps/usr/bin:$PATH CMAKE_PREFIX_PATH=/opt/deps/usr
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu CPATH=/opt/deps/usr/include
chmod 755 /opt /opt/deps
B=/tmp/cb-course
start=$(date +%s)
cmake -S "$ROOT" -B $B -G Ninja -DCOURSE_BUILD_TESTS=OFF -DCOURSE_BUILD_BENCH=OFF \
  >"$OUT/build.txt" 2>&1 &&
  cmake --build $B -j16 --target grade grade_worker course-registry >>"$OUT/build.txt" 2>&1 || {
  tail -30 "$OUT/build.txt"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
# The registry's nvcc flags (what the GPU grader builds kernels with).
mapfile -t NVCC_FLAGS < <($B/bin/course-registry nvcc-flags)
chmod -R o+rX $B
if has_part ncu; then
  # Can ncu read counters inside the sandbox the grader uses for it (root, CAP_SYS_ADMIN only)?
  nvcc "${NVCC_FLAGS[@]}" -o /tmp/bad "$ROOT/tests/gpu-fixtures/bad_kernels.cu"
  DEVS=""; for n in /dev/nvidia* /dev/nvidia-caps/*; do [ -c $n ] && DEVS="$DEVS --dev-bind $n $n"; done
  NCU=$(command -v ncu)
  mkdir -p /tmp/ncu-home && chmod 777 /tmp/ncu-home
  for caps in "--cap-drop ALL --cap-add CAP_SYS_ADMIN" "--cap-drop ALL --cap-add CAP_SYS_ADMIN --cap-add CAP_SYS_PTRACE" ""; do
    echo "-- ncu in bwrap, root, caps: ${caps:-all}"
    bwrap --unshare-all --die-with-parent --new-session $caps --proc /proc --dev /dev $DEVS \
      --tmpfs /tmp --tmpfs /dev/shm --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
      --symlink usr/bin /bin --ro-bind-try /opt /opt --ro-bind /etc/ld.so.cache /etc/ld.so.cache --ro-bind-try /etc/alternatives /etc/alternatives \
      --bind /tmp/ncu-home /tmp/ncu-home --ro-bind /tmp/bad /tmp/bad --chdir /tmp/ncu-home \
      --setenv HOME /tmp/ncu-home -- $NCU --clock-control none --section SourceCounters -f \
      -o /tmp/ncu-home/p /tmp/bad atomics 2>&1 | tail -4
  done
fi
if has_part solutions || has_part fixtures; then
  # The parsers' fixtures: each sanitizer on its known-bad kernel, ncu's source page.
  F=/tmp/fixtures; rm -rf $F; mkdir -p $F
  nvcc "${NVCC_FLAGS[@]}" -o /tmp/bad "$ROOT/tests/gpu-fixtures/bad_kernels.cu"
  for pair in memcheck:oob memcheck:misaligned racecheck:race initcheck:uninit \
              synccheck:divergent memcheck:atomics; do
    compute-sanitizer --tool ${pair%%:*} --print-limit 5 /tmp/bad ${pair##*:} \
      >"$F/sanitizer-${pair%%:*}-${pair##*:}.txt" 2>&1
  done
  (cd /tmp && ncu --clock-control none --section SourceCounters -f -o /tmp/atom /tmp/bad atomics \
     >/dev/null 2>&1 && ncu -i /tmp/atom.ncu-rep --page source --csv --print-source sass \
     >"$F/ncu-source-atomics.csv" 2>"$F/ncu-source-atomics.err")
  (cd /tmp && ncu --clock-control none --section SourceCounters -f -o /tmp/p16 /tmp/bad partial16 \
     >/dev/null 2>&1 && ncu -i /tmp/p16.ncu-rep --page source --csv --print-source sass \
     >"$F/ncu-source-partial16.csv" 2>"$F/ncu-source-partial16.err")
  tar -C /tmp -cf "$OUT/fixtures.tar" fixtures
fi
if has_part solutions; then
  start=$(date +%s)
  # As root the sandboxes run as other uids: the results go where they may enter.
  G=/tmp/grade-out; rm -rf $G; mkdir -p $G; chmod 755 $G
  $B/bin/grade --mode gpu --submission "$ROOT/solutions" --out "$G/solutions-sandboxed" \
    >"$OUT/grade-solutions.txt" 2>&1
  echo "grade solutions (GPU, sandboxed): rc $? in $(( $(date +%s) - start )) s"
  tail -15 "$OUT/grade-solutions.txt"
  cp "$G/solutions-sandboxed/results.json" "$OUT/results-solutions.json"
  python3 - "$OUT/results-solutions.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("score", r["score"], "of", sum(t["max_score"] for t in r["tests"]))
for t in r["tests"]:
    if t["score"] < t["max_score"] or "conflict" in t["name"]:
        print(f'{t["name"]}: {t["score"]}/{t["max_score"]}: {t["output"][:160]}')
PY
fi
if has_part attacks; then
  start=$(date +%s)
  if [ -n "${ATTACKS:-}" ]; then  # a chosen few: ATTACKS="name name ..."
    rc=0
    for a in $ATTACKS; do
      TMPDIR=/tmp python3 "$ROOT/tests/attacks/run_attack.py" $B $a --mode gpu \
        >>"$OUT/attacks-gpu.txt" 2>&1 || rc=1
    done
  else
    TMPDIR=/tmp python3 "$ROOT/tests/attacks/run_attack.py" $B all --mode gpu >"$OUT/attacks-gpu.txt" 2>&1
    rc=$?
  fi
  echo "attacks (GPU): rc $rc in $(( $(date +%s) - start )) s"
  grep -E "^attack " "$OUT/attacks-gpu.txt" | cut -c1-150
  grep -E "^FAIL|^attacks in" "$OUT/attacks-gpu.txt"
fi
if has_part students; then
  # The skeletons and solutions are rows of the corpus run (NN_SKELETON, NN_REFERENCE).
  start=$(date +%s)
  rm -rf /tmp/students-*
  TMPDIR=/tmp timeout ${STUDENTS_TIMEOUT:-480} python3 "$ROOT/tests/students/run_students.py" $B \
    --mode gpu --jobs ${JOBS:-8} ${ONLY:+--only "$ONLY"} --keep --json "$OUT/students-gpu.json" \
    >"$OUT/students-gpu.txt" 2>&1
  echo "students (GPU): rc $? in $(( $(date +%s) - start )) s"
  # Every student's results.json (not the work folders), also when the time ran out first.
  (cd /tmp && find students-*/out -name results.json | tar -czf "$OUT/students-results.tgz" -T -)
  grep -E "MISMATCH|as a fair grader" "$OUT/students-gpu.txt"
fi
if [ -n "${DIAG:-}" ]; then
  # DIAG="student ...": each sanitizer run by hand on a kept student's worker (after PART=students).
  compute-sanitizer --help | grep -A2 -- --padding
  for s in $DIAG; do
    for w in $(find /tmp/students-*/out -path "*$s*" -name worker -type f 2>/dev/null | head -2); do
      for t in racecheck memcheck "memcheck --padding 1048576"; do
        echo "-- $s: $t $w"
        (cd "$(dirname "$w")" && timeout 200 compute-sanitizer --tool $t --print-limit 3 "$w" \
          "$(dirname "$w")" --once 2>&1 | tail -8)
      done
    done
  done
fi
