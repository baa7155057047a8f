#!/bin/bash
# run.sh - shared atomics on the H200: their SASS (cuobjdump) and their wavefronts (ncu), for
# docs/bank-rules.md R6; then whether bubblewrap runs a CUDA program there (it does).
#   OUT=DIR bash run.sh   (bubblewrap's Debian package unpacked under /opt/bw first)
cd "$(dirname "$0")"
nvcc -arch=sm_90 -lineinfo -o atom atomics.cu || exit 1
cuobjdump -sass atom | grep -E "Function|ATOMS|CAS|LDS|STS|BSSY|BRA" | head -80 > $OUT/atom-sass.txt
ncu --query-metrics 2>/dev/null | grep -iE "shared_op_atom|op_shared_atom|shared_atom" > $OUT/metrics.txt
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
ncu --clock-control none --metrics $M --csv ./atom > $OUT/atom-ncu.csv 2> $OUT/atom-ncu.err
echo "== bwrap"
mkdir -p /opt/bw && dpkg -x ../../.gpu-extra/bubblewrap_*.deb /opt/bw
ls /dev/nvidia* ; ls /usr/local/nvidia 2>/dev/null; ldconfig -p | grep libcuda.so
cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null; cat /proc/sys/user/max_user_namespaces
B=/opt/bw/usr/bin/bwrap
$B --version
DEVS=""; for n in /dev/nvidia*; do [ -c $n ] && DEVS="$DEVS --dev-bind $n $n"; done
echo "-- as root, no userns"; $B --ro-bind / / --dev /dev $DEVS --proc /proc --tmpfs /tmp --unshare-pid --unshare-net --die-with-parent ./atom 2>&1 | tail -2
echo "-- userns, uid 61000"; $B --ro-bind / / --dev /dev $DEVS --proc /proc --tmpfs /tmp --unshare-all --unshare-user --uid 61000 --gid 61000 --die-with-parent --cap-drop ALL ./atom 2>&1 | tail -2
echo "-- setpriv to 61000 then bwrap userns"; setpriv --reuid 61000 --regid 61000 --clear-groups $B --ro-bind / / --dev /dev $DEVS --proc /proc --tmpfs /tmp --unshare-all --unshare-user --disable-userns --uid 61000 --gid 61000 --die-with-parent ./atom 2>&1 | tail -2
echo "-- setpriv 61000 ncu inside"; setpriv --reuid 61000 --regid 61000 --clear-groups $B --ro-bind / / --dev /dev $DEVS --proc /proc --tmpfs /tmp --unshare-all --unshare-user --uid 61000 --gid 61000 --die-with-parent ncu --metrics smsp__sass_inst_executed_op_shared_st.sum ./atom 2>&1 | tail -4
echo "-- setpriv 61000 compute-sanitizer inside"; setpriv --reuid 61000 --regid 61000 --clear-groups $B --ro-bind / / --dev /dev $DEVS --proc /proc --tmpfs /tmp --unshare-all --unshare-user --uid 61000 --gid 61000 --die-with-parent compute-sanitizer --tool memcheck ./atom 2>&1 | tail -3
