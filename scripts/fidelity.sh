#!/usr/bin/env bash
# banksim's side of the fidelity table: runs every kernel of gpu/course_bench.cu's --profile mode
# under banksim with the same launch and sizes, and prints per kernel the shared load and store
# requests and wavefronts (to set beside Nsight Compute's, measurements/h200-*/ncu-metrics.csv).
#   scripts/fidelity.sh > measurements/banksim-profile-totals.txt
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/bin/banksim
run() {  # label, file, kernel, banksim args...
  local label=$1 file=$2 kernel=$3
  shift 3
  "$B" profile "$file" --kernel "$kernel" "$@" --json /tmp/fid.json >/dev/null || [ $? -eq 1 ]
  python3 - "$label" /tmp/fid.json <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
t = {"load": [0, 0, 0], "store": [0, 0, 0]}
for s in d["sites"]:
    x = t[s["op"]]; x[0] += s["requests"]; x[1] += s["wavefronts"]; x[2] += s["ideal"]
f = lambda x: "%9d req %9d wf (%5.2f/req, ideal %4.2f)" % (x[0], x[1], x[1] / max(x[0], 1), x[2] / max(x[0], 1))
print("%-38s ld %s | st %s" % (sys.argv[1], f(t["load"]), f(t["store"])))
PY
}
for s in 1 2 3 4 8 16 32 33; do
  run "shared_stride_throughput s=$s" lessons/03-strides/stride_throughput.cu shared_stride_throughput \
    --grid 132 --block 1024 --arg 135168 --arg $s --arg 64
done
run "shared_column_throughput<0>" lessons/03-strides/stride_throughput.cu "shared_column_throughput<0>" --grid 132 --block 32,32 --arg 135168 --arg 64
run "shared_column_throughput<1>" lessons/03-strides/stride_throughput.cu "shared_column_throughput<1>" --grid 132 --block 32,32 --arg 135168 --arg 64
run "transpose_tiled_naive (04 base)" lessons/04-padding-transpose/transpose_naive.cu transpose_tiled_naive --grid 8,8 --block 32,8 --arg 65536 --arg 65536 --arg 256
run "transpose_tiled (04 solution)" solutions/04-padding-transpose/transpose.cu transpose_tiled --grid 8,8 --block 32,8 --arg 65536 --arg 65536 --arg 256
run "transpose_swizzled (corpus)" tests/corpus/transpose.cu transpose_swizzled --grid 8,8 --block 32,8 --arg 65536 --arg 65536 --arg 256
run "transpose_n_by_32_naive (02 base)" lessons/02-column-read/column_read.cu transpose_n_by_32_naive --grid 32 --block 32,32 --arg 32000 --arg 32000 --arg 1000
run "transpose_n_by_32 (02 solution)" solutions/02-column-read/transpose_rows.cu transpose_n_by_32 --grid 32 --block 32,32 --arg 32000 --arg 32000 --arg 1000
run "transpose_float4_naive (06 base)" lessons/06-xor-swizzle/transpose_float4_naive.cu transpose_float4_naive --grid 12,3 --block 8,32 --arg 9216 --arg 9216 --arg 96
run "transpose_float4 (06 solution)" solutions/06-xor-swizzle/transpose_float4.cu transpose_float4 --grid 12,3 --block 8,32 --arg 9216 --arg 9216 --arg 96
run "transpose_double_naive (07 base)" lessons/07-wide-accesses/wide.cu transpose_double_naive --grid 7,7 --block 32,8 --arg 40000 --arg 40000 --arg 200
run "transpose_double (07 solution)" solutions/07-wide-accesses/transpose_double.cu transpose_double --grid 7,7 --block 32,8 --arg 40000 --arg 40000 --arg 200
run "complex_..._interleaved (03 base)" lessons/03-strides/strides.cu complex_neighbour_diff_interleaved --grid 20 --block 256 --arg 4999 --arg 10000 --arg 5000
run "complex_neighbour_diff (03 solution)" solutions/03-strides/complex_diff.cu complex_neighbour_diff --grid 20 --block 256 --arg 4999 --arg 10000 --arg 5000
run "gemm_abt_naive (05 base)" lessons/05-gemm-tile/gemm_naive.cu gemm_abt_naive --grid 4,4 --block 32,32 --arg 16384 --arg 16384 --arg 16384 --arg 128 --arg 128 --arg 128
run "gemm_abt (05 solution)" solutions/05-gemm-tile/gemm_abt.cu gemm_abt --grid 4,4 --block 32,32 --arg 16384 --arg 16384 --arg 16384 --arg 128 --arg 128 --arg 128
