#!/usr/bin/env bash
# gpu/build.sh - the course's GPU programs on a bare GPU machine (the CUDA toolkit, g++, cmake,
# ninja or make, and nlohmann-json's header; none of the CPU side's libraries): configures the
# CMake project with only the registry and the GPU targets (COURSE_GPU_ONLY, gpu/CMakeLists.txt)
# and builds course_bench and, when Google Benchmark is found (or BENCHMARK_PREFIX names its
# install prefix), bench_gpu. The nvcc flags are the registry's (course-registry nvcc-flags), as
# everywhere else; ARCH defaults to the registry's (the H200's). Where the whole course is
# configured, the same targets are in build/gpu/ (`make bench` builds them).
#   gpu/build.sh OUT_DIR [ARCH]       programs in OUT_DIR/gpu/
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: gpu/build.sh OUT_DIR [ARCH]}"
args=(-S "$root" -B "$out" -DCOURSE_GPU_ONLY=ON)
[ -n "${2:-}" ] && args+=(-DCOURSE_CUDA_ARCH="$2")
[ -n "${BENCHMARK_PREFIX:-}" ] && args+=(-DCMAKE_PREFIX_PATH="$BENCHMARK_PREFIX")
command -v ninja >/dev/null && [ ! -f "$out/Makefile" ] && args+=(-G Ninja)
cmake "${args[@]}"
cmake --build "$out" -j "$(nproc 2>/dev/null || echo 4)" --target gpu_programs
for p in course_bench bench_gpu; do
  [ -x "$out/gpu/$p" ] && echo "gpu/build.sh: $out/gpu/$p"
done
exit 0
