// banksim/abi.hpp - the C entry points of libbanksim_runtime that compiled kernels call, and the
// codes they pass: included by cuda_host.hpp (the CUDA surface force-included into every kernel
// file) and by the runtime that implements them (banksim/src/abi.cpp), so both use the same enums.
#pragma once

#include <cstddef>

#include "banksim/cuda_types.hpp"
#include "banksim/kernel_entry.hpp"

/// The operation of banksim_atomic_*.
namespace banksim_atomic {
enum Op { kAdd, kSub, kExch, kMin, kMax, kInc, kDec, kCas, kAnd, kOr, kXor };
}

/// What banksim_warp_exchange computes.
namespace banksim_exchange {
enum Mode {
  kShuffle = 0,     ///< every lane gets the value of lane src_lane
  kBallot = 1,      ///< every lane gets the mask of lanes whose value is non-zero
  kSyncOnly = 2,    ///< a plain __syncwarp (runtime-internal)
  kActiveMask = 3,  ///< every lane gets the mask of the lanes waiting at the same call site
  // __reduce_*_sync: every lane gets the reduction of the values of the lanes of its mask.
  kReduceAdd = 4,
  kReduceMinU = 5,
  kReduceMaxU = 6,
  kReduceMinS = 7,  ///< values as signed 32-bit integers
  kReduceMaxS = 8,
  kReduceAnd = 9,
  kReduceOr = 10,
  kReduceXor = 11,
  kMatchAny = 12,  ///< every lane gets the lanes of its mask whose value equals its own
  kMatchAll = 13   ///< every lane gets its mask if all of its lanes' values are equal, else 0
};
}

// Barriers and warp exchanges must not be moved across control flow by the optimiser (clang's
// attribute; the runtime itself is compiled by any compiler).
#if defined(__clang__)
#define BANKSIM_CONVERGENT __attribute__((convergent))
#else
#define BANKSIM_CONVERGENT
#endif

extern "C" {
void banksim_syncthreads(void) BANKSIM_CONVERGENT;
int banksim_syncthreads_count(int predicate) BANKSIM_CONVERGENT;
void banksim_syncwarp(unsigned mask) BANKSIM_CONVERGENT;
/// Warp exchange: every lane in `mask` contributes `value`; returns what `mode`
/// (banksim_exchange::Mode) says. Lanes outside `mask` must not call it.
unsigned long long banksim_warp_exchange(unsigned mask, unsigned long long value, int src_lane,
                                         int mode) BANKSIM_CONVERGENT;
// Atomics (op: banksim_atomic::Op): performed by the runtime so that shared-memory atomics are
// bounds- and race-checked as atomics (they do not race with each other) and attributed to the
// calling line.
int banksim_atomic_i32(int op, void* address, int value, int compare);
unsigned banksim_atomic_u32(int op, void* address, unsigned value, unsigned compare);
unsigned long long banksim_atomic_u64(int op, void* address, unsigned long long value,
                                      unsigned long long compare);
float banksim_atomic_f32(int op, void* address, float value);
double banksim_atomic_f64(int op, void* address, double value);
/// A bulk copy global -> shared (cp.async.bulk, done by the TMA unit on sm_90): checked, not
/// counted as shared-memory requests or global sectors (ncu's LSU counts leave it out too).
void banksim_bulk_copy(void* dst, const void* src, std::size_t bytes);
/// Stops the launch on purpose: what the kernel did that banksim cannot run (a grid.sync(), a
/// function nothing defines...). The report's problem (kind "crash", exit status 134, as abort())
/// carries `what`; outside a launch it prints it and aborts.
[[noreturn]] void banksim_stop(const char* what);
void* banksim_device_malloc(std::size_t bytes);
void banksim_device_free(void* pointer);
void banksim_launch(const banksim::KernelEntry* entry, dim3 grid, dim3 block,
                    std::size_t dynamic_smem, void** args);
}
