#!/bin/bash
# class-wait.sh - waits up to WAIT seconds for the class that run.sh started in its own session
# (CLASS_DETACH=1, /tmp/class-run), then sums it up: still running, or its exit status and
# wall time from its own start to its end; the log and gradebook are copied to $OUT.
#   OUT=DIR WAIT=SECONDS class-wait.sh
set -u
OUT=${OUT:-/tmp/hybrid-out}
WAIT=${WAIT:-560}
D=/tmp/class-run
G=/tmp/grade-out/class
mkdir -p "$OUT"
[ -f $D/start ] || { echo "no class was started on this box ($D/start is missing)"; exit 1; }
T0=$(date +%s)
while [ ! -f $D/end ] && [ $(( $(date +%s) - T0 )) -lt "$WAIT" ]; do sleep 2; done
cp $D/class.txt "$OUT/class.txt" 2>/dev/null
cp $G/gradebook.csv "$OUT/" 2>/dev/null
graded=$(grep -c "\] graded" $D/class.txt)
if [ -f $D/end ]; then
  t=$(python3 -c "print(round($(cat $D/end) - $(cat $D/start), 1))")
  echo "class ended: rc $(cat $D/rc), $graded students graded in $t s (its own start to its end)"
else
  t=$(python3 -c "import time; print(round(time.time() - $(cat $D/start), 1))")
  echo "class still running: $graded students graded, $t s since it started"
fi
python3 "$(dirname "$0")/class-summary.py" $D/class.txt $G/gradebook.csv
