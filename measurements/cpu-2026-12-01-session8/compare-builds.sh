#!/bin/bash
# Interleaves the bench of two builds: old (session start, 125fc63) and new; 4 rounds, 2 reps each.
for round in 1 2 3 4; do
  for v in old new; do
    dir=/tmp/old; [ $v = new ] && dir=/work/main
    (cd $dir && build/bin/bench_banksim --benchmark_repetitions=2 --benchmark_format=json 2>/dev/null) | python3 -c "
import json,sys
d=json.load(sys.stdin)
for b in d['benchmarks']:
  if b.get('run_type')=='iteration':
    v=b['traced_per_s']/1e6 if 'traced_per_s' in b else b['s_per_thread']*1e9
    print('$v', b['run_name'], round(v,2))"
  done
done | python3 -c "
import sys
m={}
for l in sys.stdin:
  v,n,r=l.split(); m.setdefault(n,{}).setdefault(v,[]).append(float(r))
for n,d in m.items():
  o=sorted(d['old']); w=sorted(d['new']); unit='ns/thread' if 'floor' in n else 'M/s'
  print(f'| {n} | {o[len(o)//2]:.1f} ({o[0]:.1f}-{o[-1]:.1f}) | {w[len(w)//2]:.1f} ({w[0]:.1f}-{w[-1]:.1f}) | {unit} | {w[len(w)//2]/o[len(o)//2]:.2f} |')
"
