#!/bin/bash
# bench_banksim of two builds, ROUNDS rounds alternating old and new (the machine's speed drifts:
# only interleaved numbers compare), each way's median of its rounds' medians. The numbers of
# 2026-12-03-module-cache.md were taken with this script's earlier form, which did the same with
# measurements/bench-medians.py (now scripts/bench-ab.py). Usage:
#   measurements/banksim-speed/2026-12-03-module-cache/ab.sh OLD_BUILD NEW_BUILD [ROUNDS] [FILTER]
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
exec python3 "$root/scripts/bench-ab.py" --rounds "${3:-3}" --repetitions 3 --filter "${4:-.}" \
  old="$1" new="$2"
