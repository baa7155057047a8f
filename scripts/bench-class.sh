#!/usr/bin/env bash
# Times grading a class in CPU mode: N students (default 20), each a copy of solutions/ whose
# files differ by a comment (so no two share a compiled module), all 8 exercises, JOBS at a time
# (default 2); then a warm re-grade of one student. Prints the seconds of each and checks that
# every student got full marks. Needs `make build`.
#   scripts/bench-class.sh [N] [WIDTHS]      WIDTHS: auto (default), nvcc or clang
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-20}"
widths="${2:-auto}"
jobs="${JOBS:-2}"
work=$(mktemp -d)
chmod 755 "$work"  # as root the sandboxes run as other uids, who must enter it
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/class"
for i in $(seq -w 1 "$n"); do
  cp -r solutions "$work/class/s$i"
  for f in "$work/class/s$i"/*/*.cu "$work/class/s$i"/*/*.cpp; do
    [ -f "$f" ] && echo "// student $i" >>"$f"
  done
done
start=$(date +%s.%N)
build/bin/grade --submissions "$work/class" --jobs "$jobs" --mode cpu --widths "$widths" \
  --out "$work/out" >"$work/log" 2>&1 || { tail -20 "$work/log" >&2; exit 1; }
end=$(date +%s.%N)
python3 - "$work/out/gradebook.csv" "$n" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
bad = [r[0] for r in rows if r[1] != r[2]]
if len(rows) != int(sys.argv[2]) or bad:
    sys.exit(f"bench-class: {len(rows)} rows, not at full marks: {bad}")
PY
echo "class of $n (all exercises, JOBS=$jobs, widths $widths): $(printf %.1f "$(echo "$end - $start" | bc)") s"
build/bin/grade --submission "$work/class/s01" --mode cpu --widths "$widths" --jobs "$jobs" \
  --out "$work/one" >/dev/null 2>&1
start=$(date +%s.%N)
build/bin/grade --submission "$work/class/s01" --mode cpu --widths "$widths" --jobs "$jobs" \
  --out "$work/one" >/dev/null 2>&1
end=$(date +%s.%N)
echo "warm re-grade of one student (all exercises): $(printf %.2f "$(echo "$end - $start" | bc)") s"
