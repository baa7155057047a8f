#!/bin/bash
# ncu on the public corpus and the model cases (drivers built with nvcc 13.0, the course's flags).
set -u
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
M=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
mkdir -p "$OUT/raw"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2; ncu --version | tail -1; } > "$OUT/raw/env.txt" 2>&1
for exe in bin/*_driver; do
  s=$(basename "$exe")
  timeout 100 ncu --clock-control none --metrics "$M" --csv "$exe" > "$OUT/raw/$s.csv" 2> "$OUT/raw/$s.err"
  echo "$s rc=$? rows=$(grep -c '^"' "$OUT/raw/$s.csv")"
done
cat "$OUT"/raw/*.csv | grep -v '^==' > "$OUT/h200-ncu.csv"
cp "$OUT/raw/env.txt" "$OUT/env.txt"
tar czf "$OUT/raw.tgz" -C "$OUT" raw && rm -rf "$OUT/raw"
cat "$OUT/env.txt"
