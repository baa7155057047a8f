// course_kernels.cuh - every kernel of the course, from the repository's own files, for the GPU
// programs (gpu/course_bench.cu, bench/bench_gpu.cu). Each file sits in a namespace: they share
// constant names (kTile, ...). Include after course_todo.h.
#pragma once

#include "course_todo.h"

namespace base02 {
#include "../lessons/02-column-read/column_read.cu"
}
namespace sol02 {
#include "../solutions/02-column-read/transpose_rows.cu"
}
namespace base03 {
#include "../lessons/03-strides/strides.cu"
}
namespace sol03 {
#include "../solutions/03-strides/complex_diff.cu"
}
namespace base04 {
#include "../lessons/04-padding-transpose/transpose_naive.cu"
}
namespace sol04 {
#include "../solutions/04-padding-transpose/transpose.cu"
}
namespace corpus {
#include "../tests/corpus/transpose.cu"
}
namespace base05 {
#include "../lessons/05-gemm-tile/gemm_naive.cu"
}
namespace sol05 {
#include "../solutions/05-gemm-tile/gemm_abt.cu"
}
namespace base06 {
#include "../lessons/06-xor-swizzle/transpose_float4_naive.cu"
}
namespace sol06 {
#include "../solutions/06-xor-swizzle/transpose_float4.cu"
}
namespace base07 {
#include "../lessons/07-wide-accesses/wide.cu"
}
namespace sol07 {
#include "../solutions/07-wide-accesses/transpose_double.cu"
}
namespace demo {
#include "../lessons/03-strides/stride_throughput.cu"
}

namespace fast {
#include "../lessons/04-padding-transpose/transpose_fast.cu"
}
namespace fast05 {
#include "../solutions/08-gemm-register-blocked/gemm_fast.cu"
}
