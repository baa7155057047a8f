#!/bin/bash
# ncu-cost.sh - where one Nsight Compute profile's seconds go, on the GPU box: the grader's ncu
# line (--section SourceCounters, one launch) against narrower ones, on one program with a
# conflicting kernel (ncu-overlap.sh's probe). Prints each variant's wall time, whether its source
# page has the columns the grader reads, and the SourceCounters section file ncu ships.
#   OUT=DIR ncu-cost.sh
set -u
OUT=${OUT:-/tmp/ncu-cost}
W=$(mktemp -d)
mkdir -p "$OUT"
sed -n "/^cat >\"\$W\/probe.cu\" <<'CU'/,/^CU$/p" "$(dirname "$0")/ncu-overlap.sh" | sed '1d;$d' >"$W/probe.cu"
nvcc -O3 -arch=sm_90 -lineinfo -o "$W/probe" "$W/probe.cu" || exit 1
tm() { local s=$(date +%s.%N); "$@" >"$W/last.out" 2>&1; local rc=$?; python3 -c "print(f'{$(date +%s.%N) - $s:.2f} s (rc $rc)')"; }
sec=$(find / -name SourceCounters.section -path '*sections*' 2>/dev/null | head -1)
echo "section file: $sec"; cp "$sec" "$OUT/SourceCounters.section" 2>/dev/null
K=(--kernel-name 'regex:^probe($|[<(])' --launch-count 1 -f)
cols() {  # report: the grader's columns present in its source page
  ncu -i "$1" --page source --csv --print-source sass 2>/dev/null | grep -m1 '^"Address"' >"$W/head.csv"
  local n=0
  for c in "Instructions Executed" "L1 Wavefronts Shared" "L1 Wavefronts Shared Ideal" \
    "L2 Theoretical Sectors Global" "L2 Theoretical Sectors Global Ideal" "L1 Tag Requests Global" \
    "Access Size"; do grep -q "\"$c\"" "$W/head.csv" && n=$((n + 1)); done
  echo "$n/7 columns; LDS lines $(ncu -i "$1" --page source --csv --print-source sass 2>/dev/null | grep -c 'LDS')"
}
echo "plain run: $(tm "$W/probe")"
echo "ncu --version: $(tm ncu --version)"
echo "A grader's: --section SourceCounters: $(tm ncu --clock-control none --section SourceCounters "${K[@]}" -o "$W/a" "$W/probe"); $(cols "$W/a.ncu-rep")"
echo "A again: $(tm ncu --clock-control none --section SourceCounters "${K[@]}" -o "$W/a2" "$W/probe")"
echo "  import (ncu -i --page source): $(tm ncu -i "$W/a.ncu-rep" --page source --csv --print-source sass)"
echo "B source metrics by name: $(tm ncu --clock-control none --metrics inst_executed,memory_l1_wavefronts_shared,memory_l1_wavefronts_shared_ideal,memory_l2_theoretical_sectors_global,memory_l2_theoretical_sectors_global_ideal,memory_l1_tag_requests_global,memory_access_size_type "${K[@]}" -o "$W/b" "$W/probe"); $(cols "$W/b.ncu-rep")"
tail -3 "$W/last.out"
echo "C HW totals only: $(tm ncu --clock-control none --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum "${K[@]}" -o "$W/c" "$W/probe")"
echo "D SourceCounters, no sampling (--warp-sampling-interval 31? unsupported -> rc): $(tm ncu --clock-control none --section SourceCounters --warp-sampling-max-passes 1 "${K[@]}" -o "$W/d" "$W/probe"); $(cols "$W/d.ncu-rep" 2>/dev/null)"
tail -2 "$W/last.out"
# A section of our own: SourceCounters without its sampling and display parts, if the file
# parses (ncu says so when not).
if [ -n "$sec" ]; then
  mkdir -p "$W/sec"
  python3 - "$sec" "$W/sec/Mini.section" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
names = sorted(set(re.findall(r'Name:\s*"([^"]+)"', t)))
print("metric names in SourceCounters:", " ".join(names))
keep = [n for n in names if not re.search(r"pcsamp|sampling|stall|warp_", n)]
body = "\n".join(f'Metrics {{\n  Metrics {{\n    Name: "{n}"\n  }}\n}}' for n in keep)
open(sys.argv[2], "w").write('Identifier: "Mini"\nDisplayName: "Mini"\n' + body + "\n")
PY
  echo "E own section (SourceCounters' metrics without sampling): $(tm ncu --clock-control none --section-folder "$W/sec" --section Mini "${K[@]}" -o "$W/e" "$W/probe"); $(cols "$W/e.ncu-rep" 2>/dev/null)"
  tail -3 "$W/last.out"
fi
