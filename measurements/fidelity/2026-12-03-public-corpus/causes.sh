#!/bin/bash
# Runs banksim (BANKSIM, default build/bin/banksim) on one case of each cause that public code
# showed, from the repository root, and prints the lines that decide (the CTest of each case
# names the expected row). Usage: measurements/fidelity/2026-12-03-public-corpus/causes.sh [BANKSIM]
b=${1:-build/bin/banksim}
export BANKSIM_CACHE=${BANKSIM_CACHE:-$(mktemp -d)}
sg() { "$b" profile "$@" --widths nvcc 2>&1; }
echo "== 1 template header (cli_template_header_gets_nvcc_widths): line 50's load"
sg tests/public/SGEMM_CUDA/3_kernel_shared_mem_blocking.cuh --kernel 'sgemm_shared_mem_block<32>' \
  --grid 2,2 --block 1024 --arg 64 --arg 64 --arg 64 --arg 1.0 --arg 4096 --arg 4096 --arg 0.5 \
  --arg 4096 | grep -E "access widths|^ +50 "
echo "== 2 statement over three lines (cli_statement_over_lines_gets_nvcc_widths): line 60's load"
sg tests/public/SGEMM_CUDA/10_kernel_warptiling.cuh --kernel 'sgemmWarptiling<128,128,16,64,64,4,8,4,128>' \
  --grid 2,2 --block 128 --arg 256 --arg 256 --arg 32 --arg 1.0 --arg 8192 --arg 8192 --arg 0.5 \
  --arg 65536 | grep -E "^ +60 "
echo "== 3 merge across lines (cli_merge_across_lines): lines 10 and 11"
sg tests/corpus/merge_across_lines.cu --kernel pairs --block 32 --arg 64 --arg 32 | grep -E "^ +1[01] "
echo "== 4 kernel pointers, profiler header, toolkit header, non-kernel launch (cli_kernel_pointer_launches, cli_profiler_api_stand_in, cli_toolkit_header_said, cli_launch_not_a_kernel_said)"
sg tests/corpus/kernel_pointers.cu --kernel row --block 32 --arg 1024 --arg 32 | grep -m2 -E '^banksim|candidate'
sg tests/corpus/kernel_pointers.cu --kernel 'tiles::column<1>' --block 32 --arg 1024 --arg 32 | head -1
sg tests/corpus/profiler_api.cu --kernel copy_tile --block 32 --arg 32 --arg 32 | head -1
sg tests/corpus/toolkit_header.nocompile.cu --kernel fill --block 32 --arg 32 | head -1
sg tests/corpus/launch_not_a_kernel.nocompile.cu --kernel twice --block 32 --arg 32 | grep -m2 -E "error|banksim::"
echo "== 5 compile once (test_banksim 'module cache: ...'): a second kernel of reduction_kernel.cu"
for k in 'reduce0<float>' 'reduce1<float>'; do
  s=$(date +%s.%N)
  sg tests/public/cuda-samples/reduction_kernel.cu --kernel "$k" --grid 2 --block 256 --smem 1024 \
    --arg 1024 --arg 2 --arg 1024 >/dev/null
  printf '%s: %.2f s\n' "$k" "$(echo "$(date +%s.%N) - $s" | bc)"
done
echo "== 6 atomics: 8 lanes of a warp on one bin, per-lane value (everyday_model_cases_match_h200)"
sg tests/everyday/atomics_bins.cu --kernel eight_on_one_add --grid 2 --block 256 --arg 512 --arg 512 | grep -E "atomic"
