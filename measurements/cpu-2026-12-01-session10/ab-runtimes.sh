#!/bin/bash
# usage: build/ab/ab.sh ROUNDS dirA dirB ... : interleaved runs of bench_banksim with each runtime
rounds=$1; shift
for round in $(seq $rounds); do
  for d in "$@"; do
    LD_LIBRARY_PATH=$d /work/main/build/bin/bench_banksim --benchmark_repetitions=1 --benchmark_format=json 2>/dev/null | python3 -c "
import json,sys
d=json.load(sys.stdin)
for b in d['benchmarks']:
  v = b.get('traced_per_s', 0)/1e6 if 'traced_per_s' in b else b['s_per_thread']*1e9
  print('$d', b['run_name'], round(v,1))"
  done
done | python3 -c "
import sys, statistics
m={}
for l in sys.stdin:
  d,n,v=l.split(); m.setdefault((n,d),[]).append(float(v))
for (n,d),v in sorted(m.items()): print(f'{n:36s} {d:14s} median {statistics.median(v):6.1f} all {v}')
"
