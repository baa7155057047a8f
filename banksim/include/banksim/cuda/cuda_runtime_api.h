// cuda_runtime_api.h under banksim: what code written for nvcc includes. Everything banksim
// provides of CUDA (keywords, built-in variables, vector types, intrinsics, the host API the course
// uses) is already declared by banksim/cuda_host.hpp, which banksim force-includes before every
// file; the CUDA toolkit's own cuda_runtime_api.h is not used (its vector types differ from
// banksim's traced ones).
#pragma once
