#!/usr/bin/env bash
# banksim's side of the fidelity table: every kernel the registry names, at the sizes and launch
# geometry course_bench --profile uses on the GPU (`course-registry banksim-runs`), under banksim;
# prints per kernel the shared load and store requests and wavefronts, to set beside Nsight
# Compute's (measurements/calibration/*/ncu-metrics.csv). Needs `make build`.
#   scripts/fidelity.sh > measurements/fidelity/banksim-profile-totals.txt
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin/banksim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/bin/course-registry banksim-runs | while IFS=$'\t' read -r label file kernel args; do
  # shellcheck disable=SC2086  # args is a list of flags
  "$B" profile "$file" --kernel "$kernel" $args --json "$tmp/fid.json" >/dev/null || [ $? -eq 1 ]
  python3 - "$label" "$tmp/fid.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
t = {"load": [0, 0, 0], "store": [0, 0, 0], "atomic": [0, 0, 0]}
for s in d["sites"]:
    x = t[s["op"]]; x[0] += s["requests"]; x[1] += s["wavefronts"]; x[2] += s["ideal"]
f = lambda x: "%9d req %9d wf (%5.2f/req, ideal %4.2f)" % (x[0], x[1], x[1] / max(x[0], 1), x[2] / max(x[0], 1))
print("%-56s ld %s | st %s" % (sys.argv[1][:56], f(t["load"]), f(t["store"])))
PY
done
