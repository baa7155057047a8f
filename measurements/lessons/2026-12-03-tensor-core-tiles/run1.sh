set -x
export PATH=/usr/local/cuda/bin:$PATH
chmod +x fl
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt; nvcc --version | tail -2 >> $OUT/gpu.txt; ncu --version | tail -1 >> $OUT/gpu.txt
cuobjdump -sass fl > $OUT/sass.txt
grep -E "Function|LDSM|LDS|STS|HMMA" $OUT/sass.txt | grep -vE "^\s*$" | awk '/Function/{f=$0} !/Function/{split($0,a,"*/"); sub(/^ +/,"",a[2]); split(a[2],b," "); c[f" "b[1]]++} END{for(k in c) print c[k], k}' | sort -k2 > $OUT/sass-ops.txt
M=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
timeout 150 ncu --clock-control none --csv --print-units base --metrics $M ./fl profile > $OUT/ncu.csv 2> $OUT/ncu.err
./fl time | tee $OUT/time.txt
python3 summ.py $OUT/ncu.csv > $OUT/ncu-table.txt
cat $OUT/gpu.txt $OUT/ncu-table.txt $OUT/time.txt; tail -3 $OUT/ncu.err
grep -c . $OUT/sass-ops.txt
