#!/bin/bash
# gpu-as-written.sh - the README's GPU commands checked as written on a GPU grading box: with the course's libraries installed
# the ordinary way (here: Debian 12's .debs of .gpu-debs/ and bubblewrap's, `dpkg -i`, as an
# administrator would; the box is offline), `make grade MODE=gpu SUBMISSION=solutions` runs as the
# README writes it: no library paths, no CPATH, nothing set by hand. Prints the score.
#   OUT=DIR bash scripts/gpu-as-written.sh
set -u
OUT=${OUT:-/tmp/as-written}
mkdir -p "$OUT"
echo "== box: $(. /etc/os-release; echo "$PRETTY_NAME"), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), uid $(id -u), in $(pwd)"
echo "== clang: $(command -v clang++ || echo none); nvcc: $(command -v nvcc); ncu: $(command -v ncu)"
# The administrator's step (not the course's): install what the box lacks. The lent H200 (Ubuntu
# 24.04) has nlohmann-json, CLI11, Google Benchmark and Boost 1.83's headers from Ubuntu, but not
# fmt, Boost.Context's library or bubblewrap, and no network: .gpu-extra/box/ holds Debian 12's
# fmt 9 and bubblewrap and Debian 13's libboost-context1.83 (matching the box's Boost 1.83
# headers). --force-depends: Debian's exact-version dependencies name Debian's builds.
echo "== before: deps.sh grade-gpu says:"; scripts/deps.sh grade-gpu --dry-run 2>&1 | sed 's/^/   /'
dpkg -i --force-depends .gpu-extra/box/*.deb >"$OUT/dpkg.txt" 2>&1
echo "== dpkg -i: rc $? ($(grep -c '^Setting up' "$OUT/dpkg.txt") packages set up)"
unset CPATH LIBRARY_PATH CMAKE_PREFIX_PATH
start=$(date +%s)
make grade MODE=gpu SUBMISSION=solutions >"$OUT/make-grade.txt" 2>&1
rc=$?
echo "== make grade MODE=gpu SUBMISSION=solutions: rc $rc in $(( $(date +%s) - start )) s"
tail -25 "$OUT/make-grade.txt"
cp build/grade/results.json "$OUT/results.json" 2>/dev/null
cp build/logs/*.log "$OUT/" 2>/dev/null
python3 - "$OUT/results.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except OSError as e:
    sys.exit(f"no results.json: {e}")
print("== score", r["score"], "of", sum(t["max_score"] for t in r["tests"]),
      "| isolation:", r.get("extra_data", {}).get("isolation"))
for t in r["tests"]:
    if t["score"] < t["max_score"]:
        print("  LOST", t["name"], t["score"], "/", t["max_score"], t.get("output", "")[:300])
PY
