#!/bin/bash
# ncu-overlap.sh - may Nsight Compute profiles overlap one another and other processes' kernels on
# one GPU? (If they could, the grader's GPU lock could let them share it.) Profiles a kernel with known
# conflicts (a 32-way column read and a conflict-free row read of float t[32][32]) the way the
# grader does (--section SourceCounters, one launch, the source page as SASS), first alone, then
# N at once while other processes run conflict-heavy kernels, and compares every LDS/STS line of
# the source pages. Prints the wall times and "same counters: yes/no".
#   OUT=DIR N=4 ncu-overlap.sh
set -u
OUT=${OUT:-/tmp/ncu-overlap}
N=${N:-4}
W=$(mktemp -d)
mkdir -p "$OUT"
cat >"$W/probe.cu" <<'CU'
#include <chrono>
#include <cstdio>
#include <cstdlib>
__global__ void probe(float* out, int reps) {
  __shared__ float t[32][32];
  float acc = 0;
  for (int r = 0; r < reps; ++r) {
    t[threadIdx.y][threadIdx.x] = threadIdx.x + r;  // a row: conflict-free
    __syncthreads();
    acc += t[threadIdx.x][threadIdx.y];             // a column: 32-way
    acc += t[threadIdx.y][threadIdx.x];             // a row: conflict-free
    __syncthreads();
  }
  out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = acc;
}
__global__ void noise(float* out, int reps) {  // another process's conflicts
  __shared__ float t[32][33];
  float acc = 0;
  for (int r = 0; r < reps; ++r) {
    t[threadIdx.x][threadIdx.y] = r;
    __syncthreads();
    acc += t[(threadIdx.x * 2) % 32][threadIdx.y];
    __syncthreads();
  }
  out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = acc;
}
int main(int argc, char** argv) {
  const bool is_noise = argc > 1;
  const int blocks = 264, reps = 200;
  float* out;
  cudaMalloc(&out, blocks * 1024 * sizeof(float));
  if (is_noise) {  // launches for the seconds given
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(atoi(argv[1]));
    while (std::chrono::steady_clock::now() < end) {
      noise<<<blocks, dim3(32, 32)>>>(out, 2000);
      cudaDeviceSynchronize();
    }
  } else {
    probe<<<blocks, dim3(32, 32)>>>(out, reps);
  }
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
CU
nvcc -O3 -arch=sm_90 -lineinfo -o "$W/probe" "$W/probe.cu" || exit 1
prof() {  # name
  ncu --clock-control none --section SourceCounters --kernel-name regex:'^probe($|[<(])' \
    --launch-count 1 -f -o "$W/$1" "$W/probe" >"$W/$1.out" 2>&1
  ncu -i "$W/$1.ncu-rep" --page source --csv --print-source sass 2>/dev/null |
    grep -E 'LDS|STS' | md5sum | cut -c1-12
}
now() { date +%s.%N; }
s=$(now); solo=$(prof solo); t_solo=$(python3 -c "print(f'{$(now) - $s:.2f}')")
ncu -i "$W/solo.ncu-rep" --page source --csv --print-source sass 2>/dev/null | grep -E 'LDS|STS' \
  >"$OUT/solo-lines.csv"
# The noise: two processes of conflict-heavy kernels, running through the profiles.
noise=()
for i in 1 2; do "$W/probe" 60 & noise+=($!); done
sleep 1
s=$(now)
pids=()
for i in $(seq 1 "$N"); do (prof c$i >"$W/c$i.sum") & pids+=($!); done
wait "${pids[@]}"
kill "${noise[@]}" 2>/dev/null; wait 2>/dev/null
t_conc=$(python3 -c "print(f'{$(now) - $s:.2f}')")
same=yes
# No source lines alone: nothing to compare, the check cannot say yes.
[ -s "$OUT/solo-lines.csv" ] || { same=no; echo "the profile alone gave no LDS/STS line"; tail -5 "$W/solo.out"; }
for i in $(seq 1 "$N"); do
  [ "$(cat "$W/c$i.sum")" = "$solo" ] || { same=no; echo "profile $i differs: $(cat "$W/c$i.sum") vs $solo"; tail -3 "$W/c$i.out"; }
done
echo "ncu overlap: one profile alone ${t_solo} s; $N at once beside 2 noise processes ${t_conc} s; same counters: $same"
echo "solo LDS/STS lines: $(wc -l <"$OUT/solo-lines.csv")"; head -c 600 "$OUT/solo-lines.csv"; echo
grep -h "==ERROR==\|==WARNING==" "$W"/*.out | sort | uniq -c | head -5
