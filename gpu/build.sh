#!/usr/bin/env bash
# Builds the course's GPU programs from the registry: course-registry (g++ alone), the generated
# kernel table (one translation unit per kernel file), then with nvcc course_bench and, when
# Google Benchmark is found, bench_gpu. Works on a bare GPU machine (CUDA toolkit + g++) and is
# what `make bench` and scripts/gpu-measure.sh run. No GPU needed to build.
#   gpu/build.sh OUT_DIR [ARCH]        ARCH defaults to 90 (H100/H200)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
arch="${2:-90}"
cxx="${CXX:-$(command -v g++ || command -v c++)}"
"$cxx" -std=c++17 -O1 -I"$root/registry/include" "$root"/registry/src/*.cpp \
  "$root/registry/tools/course_registry.cpp" -o "$out/course-registry"
rm -rf "$out/gen"
"$out/course-registry" kernel-table "$out/gen" "$root" >/dev/null
flags=(-O3 -std=c++17 -arch=sm_"$arch" -lineinfo -I"$root/gpu" -I"$root/gpu/include"
       -I"$root/registry/include")
objs=()
for f in "$out"/gen/*.cu "$root"/registry/src/*.cpp; do
  o="$out/gen/$(basename "$f").o"
  nvcc "${flags[@]}" -x cu -c "$f" -o "$o"
  objs+=("$o")
done
nvcc "${flags[@]}" "$root/gpu/course_bench.cu" "${objs[@]}" -lcublas -o "$out/course_bench"
echo "gpu/build.sh: $out/course_bench"
if [ -f /usr/include/benchmark/benchmark.h ] || [ -n "${BENCHMARK_PREFIX:-}" ]; then
  extra=()
  [ -n "${BENCHMARK_PREFIX:-}" ] && extra=(-I"$BENCHMARK_PREFIX/include" -L"$BENCHMARK_PREFIX/lib")
  nvcc "${flags[@]}" "${extra[@]}" "$root/gpu/bench_gpu.cu" "${objs[@]}" -lbenchmark -lcublas \
    -o "$out/bench_gpu"
  echo "gpu/build.sh: $out/bench_gpu"
fi
