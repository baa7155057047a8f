#!/bin/sh
# The IR banksim's module compile makes of FILE.cu with the regions pass PLUGIN (module.cpp's
# clang flags, without banksim's source rewrite): module-ir.sh FILE.cu PLUGIN > FILE.ll
inc=$(git rev-parse --show-toplevel)/banksim/include
clang++ -std=c++17 -O1 -fPIC -w -x c++ -fsanitize=address -fno-sanitize-address-use-after-scope -fsanitize-address-use-after-return=never -mllvm -asan-instrumentation-with-call-threshold=0 -mllvm -asan-opt=0 -mllvm -asan-globals=0 -mllvm -asan-stack=0 -mllvm -asan-use-private-alias=0 -mllvm -asan-mapping-scale=4 -mllvm -disable-vector-combine -mllvm -inline-threshold=2000 -I$inc -I$inc/banksim/cuda -include $inc/banksim/cuda_host.hpp -I$(git rev-parse --show-toplevel)/gpu/include -I$(dirname $1) -DBANKSIM_CUDA_ARCH=900 -fpass-plugin=$2 -S -emit-llvm -o - $1
