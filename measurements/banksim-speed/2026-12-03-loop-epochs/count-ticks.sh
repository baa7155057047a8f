#!/bin/sh
# Loops that keep a loop epoch (the hash's multiply, one per ticked loop header), per file, for
# two builds of banksim's regions pass: files as clang compiles them for banksim (no rewrite:
# files that need banksim's rewrite, templates never instantiated, are left out or count less).
#   A=OLD/lib/banksim_regions.so B=NEW/lib/banksim_regions.so count-ticks.sh FILE.cu...
# saving_epoch: region kernels whose table entry asks the scheduler to save the epoch per thread.
for f in "$@"; do
  a=$("$(dirname "$0")/module-ir.sh" "$f" "$A" 2>/dev/null) || continue
  b=$("$(dirname "$0")/module-ir.sh" "$f" "$B" 2>/dev/null) || continue
  ka=$(printf '%s\n' "$a" | grep -c -- '-1640531535')
  kb=$(printf '%s\n' "$b" | grep -c -- '-1640531535')
  sa=$(printf '%s\n' "$a" | grep '^@__banksim_region_kernels' | grep -o 'bitcast' | wc -l)
  sb=$(printf '%s\n' "$b" | grep '^@__banksim_region_kernels' | grep -o 'i64 [0-9]*, i64 1 }' | wc -l)
  echo "$f main_ticked_loops=$ka branch_ticked_loops=$kb region_kernels=$sa saving_epoch=$sb"
done
