#!/bin/bash
# usage: ab.sh filter libdirA libdirB ... ; interleaves 3 rounds, prints best per lib
filter=$1; shift
for round in 1 2 3; do
  for d in "$@"; do
    LD_LIBRARY_PATH=$d /work/main/build/bin/bench_banksim --benchmark_filter="$filter" --benchmark_repetitions=2 --benchmark_format=json 2>/dev/null | python3 -c "
import json,sys
d=json.load(sys.stdin)
for b in d['benchmarks']:
  if b.get('run_type')=='iteration': print('$d', b['run_name'], round(b['traced_per_s']/1e6,1))"
  done
done | python3 -c "
import sys
m={}
for l in sys.stdin:
  d,n,v=l.split(); m.setdefault((n,d),[]).append(float(v))
for (n,d),v in sorted(m.items()): print(f'{n:34s} {d:16s} best {max(v):5.1f} all {v}')
"
