#!/bin/bash
# Instructions a launch of one benchmark executes, under callgrind (exact and repeatable where
# this machine's timings are not): the benchmark run once (one launch), and the instructions
# inside Launch::run(), divided by the launch's threads. Usage, from a source tree with a build:
#   measurements/banksim-speed/2026-12-02-banksim-speed/instructions.sh [BUILD] [FILTER]
#   (BUILD default build; FILTER default transpose_1024/block_32x32)
set -eu
build=${1:-build}
filter=${2:-transpose_1024/block_32x32}
out=$(mktemp)
valgrind --tool=callgrind --callgrind-out-file="$out" "$build/bin/bench_banksim" \
  --benchmark_filter="$filter" --benchmark_min_time=0.01 >"$out.log" 2>&1
threads=$(grep -o 'threads=[0-9.]*k' "$out.log" | head -1 | tr -dc '0-9.')
callgrind_annotate --inclusive=yes "$out" 2>/dev/null | grep -E "Launch::run\(\)" | head -1 |
  awk -v t="$threads" '{gsub(",", "", $1); printf "%s: %d instructions in Launch::run(), %.0f a thread\n", "'"$filter"'", $1, $1 / (t * 1000)}'
rm -f "$out" "$out.log"
