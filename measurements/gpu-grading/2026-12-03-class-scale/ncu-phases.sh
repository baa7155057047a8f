#!/bin/bash
# ncu-phases.sh - where one Nsight Compute profile's seconds go (before the target's first CUDA
# call, the profile itself, after the target is done with the GPU), and whether another profile
# may run while one ncu is in its first or last phase: if so, the grader could hold the GPU for
# the middle phase only (the go word before the worker's first CUDA call, its word back after
# cudaDeviceReset), as it does for the timing run.
# The target: a kernel with a 32-way column read and conflict-free rows of float t[32][32],
# profiled with the grader's line (the eight source metrics by name, one launch); it sleeps
# BEFORE seconds before its first CUDA call and AFTER seconds after cudaDeviceReset.
#   OUT=DIR ncu-phases.sh
set -u
OUT=${OUT:-/tmp/ncu-phases}
W=$(mktemp -d)
mkdir -p "$OUT"
cat >"$W/probe.cu" <<'CU'
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
__global__ void probe(float* out) {
  __shared__ float t[32][32];
  t[threadIdx.y][threadIdx.x] = threadIdx.x;  // a row: conflict-free
  __syncthreads();
  out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] =
      t[threadIdx.x][threadIdx.y] + t[threadIdx.y][threadIdx.x];  // a column: 32-way; a row
}
static double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
int main(int argc, char** argv) {
  const double before = argc > 1 ? atof(argv[1]) : 0, after = argc > 2 ? atof(argv[2]) : 0;
  std::printf("phase main %.3f\n", now());
  std::fflush(stdout);
  usleep(static_cast<useconds_t>(before * 1e6));
  std::printf("phase cuda %.3f\n", now());
  std::fflush(stdout);
  float* out;
  cudaMalloc(&out, 264 * 1024 * sizeof(float));
  probe<<<264, dim3(32, 32)>>>(out);
  const int rc = cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
  cudaDeviceReset();
  std::printf("phase done %.3f\n", now());
  std::fflush(stdout);
  usleep(static_cast<useconds_t>(after * 1e6));
  return rc;
}
CU
nvcc -O3 -arch=sm_90 -lineinfo -o "$W/probe" "$W/probe.cu" || exit 1
M=inst_executed,thread_inst_executed_true,memory_access_size_type,memory_l1_wavefronts_shared
M=$M,memory_l1_wavefronts_shared_ideal,memory_l2_theoretical_sectors_global
M=$M,memory_l2_theoretical_sectors_global_ideal,memory_l1_tag_requests_global
now() { date +%s.%N; }
prof() {  # name before after: ncu's start and end times around the target's phases
  local s e
  s=$(now)
  ncu --clock-control none --metrics "$M" --kernel-name regex:'^probe($|[<(])' --launch-count 1 \
    -f -o "$W/$1" "$W/probe" "$2" "$3" >"$W/$1.out" 2>&1
  echo "rc $?" >>"$W/$1.out"
  e=$(now)
  echo "start $s" >>"$W/$1.out"
  echo "end $e" >>"$W/$1.out"
}
page() {  # name: the LDS/STS lines of its source page, hashed
  ncu -i "$W/$1.ncu-rep" --page source --csv --print-source sass 2>/dev/null |
    grep -E 'LDS|STS' | md5sum | cut -c1-12
}
phases() {  # name: seconds before main, main to the first CUDA call's start, CUDA, after done
  python3 - "$W/$1.out" "$3" <<'PY'
import re, sys
t = dict(re.findall(r"^(?:phase )?(start|main|cuda|done|end) ([0-9.]+)", open(sys.argv[1]).read(), re.M))
t = {k: float(v) for k, v in t.items()}
if len(t) == 5:
    print(f"ncu to the target's main {t['main'] - t['start']:.2f} s; the target's CUDA work "
          f"(its first call to cudaDeviceReset) {t['done'] - t['cuda']:.2f} s; done to ncu's end "
          f"{t['end'] - t['done'] - float(sys.argv[2]):.2f} s (its sleep taken out); "
          f"total {t['end'] - t['start']:.2f} s")
else:
    print("phases missing:", t)
PY
}
for i in 1 2 3; do prof solo$i 0 0; done
for i in 1 2 3; do echo "alone $i: $(phases solo$i 0 0)"; done
solo=$(page solo1)
# A profile while another ncu waits before its target's first CUDA call (4 s), then goes on.
prof early 4 0 &
sleep 1
prof middle 0 0
wait
# A profile that starts as soon as another target is done (cudaDeviceReset), while that ncu
# finishes (its target sleeps 0.5 s, then ncu writes its report).
prof late 0 0.5 &
for _ in $(seq 1 100); do grep -q "phase done" "$W/late.out" 2>/dev/null && break; sleep 0.05; done
prof next 0 0
wait
same=yes
for n in solo2 solo3 early middle late next; do
  [ "$(page $n)" = "$solo" ] || { same=no; echo "$n differs: $(page $n) vs $solo"; }
  grep -q "^rc 0" "$W/$n.out" || { same=no; echo "$n: $(grep -h '==ERROR==\|^rc' "$W/$n.out" | head -3)"; }
done
[ -n "$(ncu -i "$W/solo1.ncu-rep" --page source --csv --print-source sass 2>/dev/null | grep -E 'LDS|STS')" ] ||
  { same=no; echo "the profile alone gave no LDS/STS line"; tail -5 "$W/solo1.out"; }
echo "early (waits 4 s before CUDA): $(phases early 3 0)"
echo "middle (profiled during early's wait): $(phases middle 0 0)"
echo "late (sleeps 0.5 s after done): $(phases late 0 0.5)"
echo "next (profiled from late's done): $(phases next 0 0)"
echo "overlapping the first and last phases: every profile ran, same counters: $same"
grep -h "==ERROR==\|==WARNING==" "$W"/*.out | sort | uniq -c | head -5
cp "$W"/*.out "$OUT/" 2>/dev/null
