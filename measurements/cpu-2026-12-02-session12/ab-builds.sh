#!/bin/bash
# Google Benchmark (bench/bench_banksim.cpp) of two builds of banksim, and of the second with
# fibers (BANKSIM_FIBERS=1), ROUNDS rounds alternating the three in one sitting (this machine's
# speed drifts by up to 2x within minutes: only numbers of one sitting compare); prints each
# benchmark's median of the rounds' medians. A build is a build folder with bin/bench_banksim
# (e.g. a `git worktree` of an older commit built with `cmake --build B --target bench_banksim
# banksim_regions`). Usage:
#   measurements/cpu-2026-12-02-session12/ab-builds.sh OLD_BUILD NEW_BUILD [ROUNDS] [FILTER]
set -eu
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
rounds=${3:-3}
filter=${4:-.}
out=$(mktemp)
for r in $(seq "$rounds"); do
  for way in old new fibers; do
    case $way in
      old) bin=$old/bin/bench_banksim; dir=$(dirname "$old") ;;
      *) bin=$new/bin/bench_banksim; dir=$(dirname "$new") ;;
    esac
    # Each build's benchmarks read their kernels from its own source tree.
    (cd "$dir" && env $([ $way = fibers ] && echo BANKSIM_FIBERS=1) "$bin" \
      --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1) |
      grep _median | awk -v w=$way '{print w, $1, $NF}' >>"$out"
  done
done
"$(dirname "$0")/../bench-medians.py" "$out" old new fibers
rm -f "$out"
