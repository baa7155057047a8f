#!/bin/bash
# Runs banksim on every launch of cases.txt (name|file|kernel|grid|block|smem|args[|flags], files relative
# to SRC) and writes one "name<TAB>exit status<TAB>seconds<TAB>first error" line per case to
# OUT/summary.tsv, with each run's output in OUT/NAME.log. The public sources are not in this
# repository: fetch them into SRC as README.md says. Usage:
#   measurements/archive/2026-12-01-banksim-speed/lane-switches/public-survey/run.sh SRC OUT [BANKSIM]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$1" && pwd)
mkdir -p "$2" && out=$(cd "$2" && pwd)
bin=${3:-$here/../../../build/bin/banksim}
: >"$out/summary.tsv"
grep -v "^#" "$here/cases.txt" | while IFS='|' read -r name file kernel grid block smem args flags; do
  argv=(); for a in $args; do argv+=(--arg "$a"); done
  sm=(); [ "$smem" != 0 ] && sm=(--smem "$smem")
  start=$(date +%s.%N)
  (cd "$src" && CPATH="$src/src/cuda-samples/Common" timeout 120 "$bin" profile "$file" \
     --kernel "$kernel" --grid "$grid" --block "$block" "${sm[@]}" "${argv[@]}" ${flags:-} \
     --widths clang --json "$out/$name.json") \
    >"$out/$name.log" 2>&1 </dev/null
  rc=$?
  el=$(echo "$(date +%s.%N) - $start" | bc)
  first=$(grep -m1 -E 'error:|does not compile|fatal|Segmentation|Aborted|terminate' "$out/$name.log" | cut -c1-300)
  printf '%s\t%s\t%.1f\t%s\n' "$name" "$rc" "$el" "$first" >>"$out/summary.tsv"
done
echo "public-survey: $(grep -v _cuh "$out/summary.tsv" | awk -F'\t' '$2==0 || $2==1' | wc -l) of $(grep -vc _cuh "$out/summary.tsv") kernels compiled and ran (exit status 0 or 1)"
