# Step 4: exercise 11 in GPU mode on the H200 (prebuilt grade + harness), the GEMMs timed again,
# ncu's source page of an LDSM kernel. Everything lands in /tmp/res, tarred into $OUT.
set -u
T0=$(date +%s)
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd ../.. && pwd)
ROOT=/tmp/course
rm -rf $ROOT && cp -a "$(pwd)" $ROOT
mkdir -p /opt/deps /tmp/res
for f in $D/.gpu-debs/*.deb $D/.gpu-extra/*.deb; do dpkg -x "$f" /opt/deps; done
export PATH=/opt/deps/usr/bin:$PATH LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
export LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu CPATH=/opt/deps/usr/include COURSE_ROOT=$ROOT
chmod 755 /opt /opt/deps; chmod -R o+rX $ROOT
B=$ROOT/build-gpu/bin
S=/tmp/subs; rm -rf $S
mk() { mkdir -p $S/$1/11-tensor-core-tiles; cp "$2" $S/$1/11-tensor-core-tiles/gemm_wmma.cu; }
mk 11_REFERENCE $ROOT/solutions/11-tensor-core-tiles/gemm_wmma.cu
mk 11_SKELETON $ROOT/exercises/11-tensor-core-tiles/gemm_wmma.cu
mk 11_BASELINE $ROOT/exercises/11-tensor-core-tiles/gemm_wmma.cu
sed -i '/course_todo(/d' $S/11_BASELINE/11-tensor-core-tiles/gemm_wmma.cu
for f in $ROOT/tests/students/11/*.cu; do n=$(basename $f .cu); mk 11_$n $f; done
chmod -R o+rX $S
echo "setup $(( $(date +%s) - T0 )) s"
ls $S | timeout 50 xargs -P 7 -I{} sh -c "$B/grade --mode gpu --exercise 11 --seed 1 --submission $S/{} --out /tmp/res/{} > /tmp/res/{}.txt 2>&1"
echo "graded $(( $(date +%s) - T0 )) s"
timeout 9 $ROOT/fl2 time > /tmp/res/time2.txt 2>&1
(cd /tmp && timeout 12 ncu --clock-control none --section SourceCounters -f -o /tmp/gemm $ROOT/fl2 gemm > /tmp/res/ncu-gemm.log 2>&1 && ncu -i /tmp/gemm.ncu-rep --page source --csv --print-source sass > /tmp/res/ncu-source-ldsm.csv 2>>/tmp/res/ncu-gemm.log)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > /tmp/res/gpu.txt
echo "done $(( $(date +%s) - T0 )) s"
for f in /tmp/res/11_*.txt; do echo "== $(basename $f .txt)"; grep -E "^11-tensor|^11 (speed|conflicts|correct|no_problems|uses)" $f | cut -c1-260; done
cat /tmp/res/time2.txt
tar -czf $OUT/res.tgz -C /tmp res
