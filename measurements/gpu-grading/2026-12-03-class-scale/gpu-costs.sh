#!/bin/bash
# gpu-costs.sh - what each GPU process of a grading costs, and what running a student's
# exercises in one tool process would save: on the work folders a GPU-mode grading of
# solutions/ left (each exercise's `*-profile` and `*-timing-student` folders, with their built
# worker and request), times, unsandboxed, one exercise at a time and all at once:
#   the worker alone (--once, and timed as the grader times it), memcheck on it,
#   ncu with the grader's line (--section SourceCounters) and with the source metrics named,
#   and each tool over one shell that runs every exercise's worker in turn.
#   OUT=DIR gpu-costs.sh GRADE_OUT
set -u
G=$1
OUT=${OUT:-/tmp/gpu-costs}
mkdir -p "$OUT"
W=$(mktemp -d)
tm() { local s=$(date +%s.%N); "$@" >"$W/last.out" 2>&1; local rc=$?; python3 -c "print(f'{$(date +%s.%N) - $s:.2f}', end='')"; [ $rc = 0 ] || echo -n " (rc $rc)"; }
mapfile -t P < <(find "$G" -type d -name '*-profile' | sort)
mapfile -t T < <(find "$G" -type d -name '*-timing-student' | sort)
echo "profile folders: ${#P[@]}, timing folders: ${#T[@]}"
METRICS=inst_executed,memory_l1_wavefronts_shared,memory_l1_wavefronts_shared_ideal,memory_l2_theoretical_sectors_global,memory_l2_theoretical_sectors_global_ideal,memory_l1_tag_requests_global,memory_access_size_type
printf '%-34s %8s %8s %8s %8s %8s %8s\n' folder once timed memcheck ncu-A ncu-B import-A
for d in "${P[@]}"; do
  t=${d%-profile}-timing-student
  [ -x "$d/worker" ] || continue
  once=$(tm "$d/worker" "$d" --report-fd -1 --once)
  timed=-; mc=-
  if [ -x "$t/worker" ]; then
    timed=$(tm "$t/worker" "$t" --report-fd -1)
    mc=$(tm compute-sanitizer --tool memcheck --print-limit 5 "$t/worker" "$t" --report-fd -1 --once)
  fi
  a=$(tm ncu --clock-control none --section SourceCounters -f -o "$W/a" "$d/worker" "$d" --report-fd -1 --once)
  b=$(tm ncu --clock-control none --metrics $METRICS -f -o "$W/b" "$d/worker" "$d" --report-fd -1 --once)
  ia=$(tm ncu -i "$W/a.ncu-rep" --page source --csv --print-source sass)
  printf '%-34s %8s %8s %8s %8s %8s %8s\n' "$(basename "$d")" "$once" "$timed" "$mc" "$a" "$b" "$ia"
done
# Every exercise's worker in turn, under one tool process.
: >"$W/all-profile.sh"; : >"$W/all-timed.sh"; : >"$W/all-memcheck.sh"
for d in "${P[@]}"; do [ -x "$d/worker" ] && echo "'$d/worker' '$d' --report-fd -1 --once" >>"$W/all-profile.sh"; done
for t in "${T[@]}"; do
  [ -x "$t/worker" ] || continue
  echo "'$t/worker' '$t' --report-fd -1" >>"$W/all-timed.sh"
  echo "'$t/worker' '$t' --report-fd -1 --once" >>"$W/all-memcheck.sh"
done
n=$(wc -l <"$W/all-profile.sh")
echo "all $n profile workers in turn, plain: $(tm sh "$W/all-profile.sh") s"
echo "  under one ncu (--section SourceCounters): $(tm ncu --clock-control none --section SourceCounters -f -o "$W/allA" sh "$W/all-profile.sh") s"
grep -c "Profiling" "$W/last.out" | sed 's/^/    kernels profiled: /'
echo "  under one ncu (source metrics named): $(tm ncu --clock-control none --metrics $METRICS -f -o "$W/allB" sh "$W/all-profile.sh") s"
echo "  import of the first's report: $(tm ncu -i "$W/allA.ncu-rep" --page source --csv --print-source sass) s; kernels on the page: $(grep -c '^"Kernel Name"\|^Kernel' "$W/last.out" 2>/dev/null)"
ncu -i "$W/allA.ncu-rep" --page source --csv --print-source sass 2>/dev/null | head -c 3000 >"$OUT/all-source-head.csv"
ncu -i "$W/allA.ncu-rep" --page source --csv --print-source sass 2>/dev/null | grep -v '^"0x\|^"Address' | head -40 >"$OUT/all-source-nonrows.txt"
ncu -i "$W/allB.ncu-rep" --page source --csv --print-source sass 2>/dev/null | head -c 3000 >"$OUT/allB-source-head.csv"
n=$(wc -l <"$W/all-timed.sh")
echo "all $n timed workers in turn: $(tm sh "$W/all-timed.sh") s"
echo "  memcheck, each --once, under one compute-sanitizer: $(tm compute-sanitizer --tool memcheck --print-limit 5 sh "$W/all-memcheck.sh") s"
grep -c "ERROR SUMMARY" "$W/last.out" | sed 's/^/    summaries: /'
echo "  the same workers --once, plain: $(tm sh "$W/all-memcheck.sh") s"
echo "ncu --version: $(tm ncu --version) s; $(head -2 "$W/last.out" | tail -1)"
rm -rf "$W"
