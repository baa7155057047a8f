// abi.cpp - where the compiled kernel meets banksim: the AddressSanitizer callbacks every load
// and store calls (split into naturally aligned pieces, then checked and traced), the C entry
// points of banksim/abi.hpp (barriers, warp exchange, atomics, device malloc), the process-wide
// globals, and the public functions of banksim/runtime.hpp.
#include "banksim/abi.hpp"

#include <cstdlib>
#include <cstring>

#include "engine.hpp"

// The built-in variables, side by side in a section of their own: a kernel reads them all the
// time and the hooks let such a read go first thing (see on_typed).
#define BANKSIM_BUILTIN __attribute__((section("banksim_builtins"), aligned(16)))
extern "C" {
BANKSIM_BUILTIN uint3 threadIdx;
BANKSIM_BUILTIN uint3 blockIdx;
BANKSIM_BUILTIN dim3 blockDim;
BANKSIM_BUILTIN dim3 gridDim;
extern char __start_banksim_builtins[];
// The running thread's frame, read by a kernel cut into regions (banksim/pass/regions.cpp) at
// each call; set by the scheduler before each call.
char* banksim_current_frame = nullptr;
// What a warp function or __syncthreads_count hands back to such a kernel as it goes on.
unsigned long long banksim_current_result = 0;
// The running thread's loop epoch: a hash of the loop iterations it is in, updated by the code
// the regions pass puts at each loop header and exit; saved and restored per thread by the
// scheduler. Stays 0 in a module built without the pass (requests then pair each lane's k-th
// execution of an instruction, as the hardware does while lanes stay converged).
std::uint32_t banksim_loop_epoch = 0;
extern char __stop_banksim_builtins[];
}

namespace banksim::rt::detail {

using bankmodel::Op;

BANKSIM_HIDDEN Launch* g_launch = nullptr;
BANKSIM_HIDDEN std::uintptr_t g_arena_lo = 0;
BANKSIM_HIDDEN std::uint64_t g_arena_size = 0;
BANKSIM_HIDDEN std::atomic<bool> g_abort_requested{false};
BANKSIM_HIDDEN std::uint64_t g_last_pc = 0;
extern BANKSIM_HIDDEN std::uint32_t g_loop_epoch __attribute__((alias("banksim_loop_epoch")));
EmergencyHandler g_emergency = nullptr;

// ---- Splitting accesses into naturally aligned pieces (memcpy, packed structs) ---------------

template <typename F>
void for_each_piece(std::uintptr_t address, std::size_t size, F f) {
  std::uint16_t sub = 0;
  while (size > 0) {
    std::size_t w = 16;
    while (w > 1 && (address % w != 0 || w > size)) w /= 2;
    f(address, static_cast<std::uint32_t>(w), sub++);
    address += w;
    size -= w;
  }
}

/// kTyped, kSized: a load or store (not a memcpy). A fixed-width one (kTyped: clang believes it
/// aligned to its size) and an 8- or 16-byte one must be aligned to its size,
/// as nvcc's LDS.64 / LDS.128 / LDG.E.128 need: a float2 view of an odd word or a float4 view
/// 8 bytes into a row stops the GPU with "misaligned address". clang cannot be asked: it lowers
/// a float4 store into a row of 34 floats to `align 8` (it knows the array) and splits it, where
/// nvcc keeps the type's 16 and faults. (A struct of 4-byte fields copied whole from an odd
/// word is held to the rule too, though nvcc would split it: rare, and said in the README.)
/// Memcpy and packed data are split into naturally aligned pieces, as nvcc would emit them.
enum class Check { kTyped, kSized, kCopy };
__attribute__((noinline)) void on_access(std::uintptr_t address, std::size_t size, Op op,
                                         std::uint64_t pc, Check check);

/// The fixed-width hooks' fast path: an aligned shared access, or any global one; the rest (a
/// misaligned access) takes on_access.
template <std::uint32_t N, Op kOp>
__attribute__((always_inline)) inline void on_typed(std::uintptr_t address, std::uint64_t pc) {
  Launch* launch = g_launch;
  if (launch == nullptr) return;
  const std::uintptr_t off = address - g_arena_lo;
  if (off < g_arena_size) {
    if (off % N == 0) {
      if constexpr (N >= 4) {
        if (launch->try_shared_access<N, kOp>(static_cast<std::uint32_t>(off), pc)) return;
      }
      return launch->shared_access_out(static_cast<std::uint32_t>(off), N, kOp, pc);
    }
  } else if (address % N == 0 && launch->try_global_access<N, kOp>(address, pc)) {
    return;  // a device buffer, or memory checked before
  } else if (address - reinterpret_cast<std::uintptr_t>(__start_banksim_builtins) <
             static_cast<std::uintptr_t>(__stop_banksim_builtins - __start_banksim_builtins)) {
    return;  // threadIdx, blockIdx, blockDim, gridDim: neither shared nor device memory
  } else if (address % N == 0) {
    return launch->global_access_out(address, N, kOp, pc);
  }
  return on_access(address, N, kOp, pc, Check::kTyped);
}

void Launch::shared_access_out(std::uint32_t offset, std::uint32_t size, Op op, std::uint64_t pc) {
  shared_access(offset, size, op, pc, 0);
}

void Launch::global_access_out(std::uintptr_t address, std::uint32_t size, Op op,
                               std::uint64_t pc) {
  global_access(address, size, op, pc);
}

void on_access(std::uintptr_t address, std::size_t size, Op op, std::uint64_t pc, Check check) {
  Launch* launch = g_launch;
  if (launch == nullptr) return;
  // A fixed-width hook: clang knows the access is aligned to its size, unless the pointer lies.
  const bool checked =
      check == Check::kTyped || (check == Check::kSized && (size == 8 || size == 16));
  const std::uintptr_t off = address - g_arena_lo;
  if (off < g_arena_size) {
    if (checked && off % size != 0) {
      launch->misaligned_access(off, static_cast<std::uint32_t>(size), op, pc, true,
                                check == Check::kSized);
    }
    if (size <= 16 && (size & (size - 1)) == 0 && off % size == 0) {
      launch->shared_access(static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(size), op,
                            pc, 0);
    } else {
      launch->pieces_traced();
      for_each_piece(address, size, [&](std::uintptr_t a, std::uint32_t w, std::uint16_t sub) {
        launch->shared_access(static_cast<std::uint32_t>(a - g_arena_lo), w, op, pc, sub);
      });
    }
    return;
  }
  if (checked && address % size != 0) {
    launch->misaligned_access(address, static_cast<std::uint32_t>(size), op, pc, false,
                              check == Check::kSized);
  }
  launch->global_access(address, static_cast<std::uint32_t>(size), op, pc);
}

}  // namespace banksim::rt::detail

namespace banksim::rt {
using namespace detail;

// ---- Public functions -----------------------------------------------------------------------

RunResult run_kernel(const ModuleLayout& layout, const KernelEntry& entry, void** args,
                     const RunOptions& options) {
  if (g_launch != nullptr) throw std::logic_error("banksim: run_kernel is not reentrant");
  install_process_guards();
  Launch launch(layout, entry, args, options);
  g_arena_lo = layout.arena_lo;
  g_arena_size = layout.arena_size;
  g_abort_requested = false;
  g_last_pc = 0;
  RunResult result;
  {
    Watchdog watchdog(options.timeout_s);
    g_launch = &launch;
    try {
      result = launch.run();
    } catch (...) {
      g_launch = nullptr;
      throw;
    }
    g_launch = nullptr;
  }
  return result;
}

void* device_alloc(std::size_t bytes) {
  const std::size_t total = bytes + 2 * kGuardBytes;
  void* p = std::aligned_alloc(4096, (total + 4095) / 4096 * 4096);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, total);
  const auto lo = reinterpret_cast<std::uintptr_t>(p) + kGuardBytes;
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  g_buffers[lo] = Buffer{lo, bytes, p};
  return reinterpret_cast<void*>(lo);
}

void device_free(void* pointer) {
  if (pointer == nullptr) return;
  std::lock_guard<std::mutex> lock(g_buffers_mutex);
  auto it = g_buffers.find(reinterpret_cast<std::uintptr_t>(pointer));
  if (it == g_buffers.end()) return;
  if (g_launch != nullptr) g_launch->forget_buffers();
  std::free(it->second.allocation);
  g_buffers.erase(it);
}

void set_emergency_handler(EmergencyHandler handler) {
  g_emergency = handler;
}

std::uint64_t last_pc() {
  return g_last_pc;
}

const char* current_execution() {
  if (g_launch == nullptr) return "";
  return g_launch->regions() ? "regions" : "fibers";
}

}  // namespace banksim::rt

// ---- The hooks the instrumented kernel calls ------------------------------------------------
// AddressSanitizer in callback mode (-asan-instrumentation-with-call-threshold=0) calls these
// before every load and store; no ASan runtime is linked.

using banksim::rt::detail::Check;
using banksim::rt::detail::on_access;
using banksim::rt::detail::on_typed;

#define BANKSIM_PC reinterpret_cast<std::uint64_t>(__builtin_return_address(0))
#define BANKSIM_HOOKS(n)                                                       \
  extern "C" __attribute__((flatten)) void __asan_load##n(std::uintptr_t a) {  \
    on_typed<n, bankmodel::Op::kLoad>(a, BANKSIM_PC);                          \
  }                                                                            \
  extern "C" __attribute__((flatten)) void __asan_store##n(std::uintptr_t a) { \
    on_typed<n, bankmodel::Op::kStore>(a, BANKSIM_PC);                         \
  }                                                                            \
  extern "C" void __asan_report_load##n(std::uintptr_t) {}                     \
  extern "C" void __asan_report_store##n(std::uintptr_t) {}
BANKSIM_HOOKS(1)
BANKSIM_HOOKS(2)
BANKSIM_HOOKS(4)
BANKSIM_HOOKS(8)
BANKSIM_HOOKS(16)
#undef BANKSIM_HOOKS

extern "C" void __asan_loadN(std::uintptr_t a, std::size_t n) {
  on_access(a, n, bankmodel::Op::kLoad, BANKSIM_PC, Check::kSized);
}
extern "C" void __asan_storeN(std::uintptr_t a, std::size_t n) {
  on_access(a, n, bankmodel::Op::kStore, BANKSIM_PC, Check::kSized);
}
extern "C" void __asan_report_load_n(std::uintptr_t, std::size_t) {}
extern "C" void __asan_report_store_n(std::uintptr_t, std::size_t) {}
extern "C" void* __asan_memcpy(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, bankmodel::Op::kLoad, BANKSIM_PC, Check::kCopy);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, bankmodel::Op::kStore, BANKSIM_PC,
            Check::kCopy);
  return std::memcpy(d, s, n);
}
extern "C" void* __asan_memmove(void* d, const void* s, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(s), n, bankmodel::Op::kLoad, BANKSIM_PC, Check::kCopy);
  on_access(reinterpret_cast<std::uintptr_t>(d), n, bankmodel::Op::kStore, BANKSIM_PC,
            Check::kCopy);
  return std::memmove(d, s, n);
}
extern "C" void* __asan_memset(void* d, int v, std::size_t n) {
  on_access(reinterpret_cast<std::uintptr_t>(d), n, bankmodel::Op::kStore, BANKSIM_PC,
            Check::kCopy);
  return std::memset(d, v, n);
}
extern "C" void __asan_init() {}
extern "C" void __asan_version_mismatch_check_v8() {}
extern "C" void __asan_handle_no_return() {}
extern "C" void __asan_register_globals(void*, std::size_t) {}
extern "C" void __asan_unregister_globals(void*, std::size_t) {}
extern "C" void __asan_register_elf_globals(void*, void*, void*) {}
extern "C" void __asan_unregister_elf_globals(void*, void*, void*) {}
extern "C" void __asan_before_dynamic_init(const char*) {}
extern "C" void __asan_after_dynamic_init() {}

// ---- The runtime entry points of banksim/cuda_host.hpp --------------------------------------

namespace {

template <typename T>
T apply_atomic(int op, T* address, T value, T compare) {
  const T old = *address;
  switch (op) {
    case banksim_atomic::kAdd:
      *address = old + value;
      break;  // add
    case banksim_atomic::kSub:
      *address = old - value;
      break;  // sub
    case banksim_atomic::kExch:
      *address = value;
      break;  // exch
    case banksim_atomic::kMin:
      *address = value < old ? value : old;
      break;  // min
    case banksim_atomic::kMax:
      *address = value > old ? value : old;
      break;                    // max
    case banksim_atomic::kInc:  // inc (wrapping at value)
      if constexpr (std::is_integral<T>::value) *address = old >= value ? 0 : old + 1;
      break;
    case banksim_atomic::kDec:  // dec
      if constexpr (std::is_integral<T>::value) {
        *address = (old == 0 || old > value) ? value : old - 1;
      }
      break;
    case banksim_atomic::kCas:
      *address = old == compare ? value : old;
      break;  // cas
    case banksim_atomic::kAnd:
      if constexpr (std::is_integral<T>::value) *address = old & value;
      break;
    case banksim_atomic::kOr:
      if constexpr (std::is_integral<T>::value) *address = old | value;
      break;
    case banksim_atomic::kXor:
      if constexpr (std::is_integral<T>::value) *address = old ^ value;
      break;
    default:
      break;
  }
  return old;
}

/// How nvcc 13 builds this atomic for sm_90 (docs/bank-rules.md R6, read from its SASS): a
/// native ATOMS for 32-bit integers, exch and CAS; a compare-and-swap loop for float and double
/// add and the other 64-bit operations.
template <typename T>
bankmodel::Op atomic_kind(int op) {
  if (op == banksim_atomic::kExch || op == banksim_atomic::kCas) return bankmodel::Op::kAtomic;
  if (std::is_integral<T>::value && sizeof(T) == 4) return bankmodel::Op::kAtomic;
  return bankmodel::Op::kAtomicLoop;
}

template <typename T>
T atomic_entry(int op, void* address, T value, T compare, std::uint64_t pc) {
  if (banksim::rt::detail::g_launch != nullptr) {
    banksim::rt::detail::g_launch->atomic_access(reinterpret_cast<std::uintptr_t>(address),
                                                 sizeof(T), atomic_kind<T>(op), pc);
  }
  return apply_atomic(op, static_cast<T*>(address), value, compare);
}

}  // namespace

extern "C" void banksim_syncthreads(void) {
  banksim::rt::detail::Launch* launch = banksim::rt::detail::g_launch;
  if (launch == nullptr) return;
  if (launch->regions()) {
    launch->region_barrier(BANKSIM_PC);
  } else {
    launch->syncthreads(BANKSIM_PC, 0);
  }
}
extern "C" int banksim_syncthreads_count(int predicate) {
  if (banksim::rt::detail::g_launch == nullptr) return predicate != 0;
  return banksim::rt::detail::g_launch->syncthreads(BANKSIM_PC, predicate);
}
extern "C" void banksim_syncwarp(unsigned mask) {
  if (banksim::rt::detail::g_launch != nullptr) {
    banksim::rt::detail::g_launch->warp_rendezvous(mask, 0, 0, banksim_exchange::kSyncOnly,
                                                   BANKSIM_PC);
  }
}
extern "C" unsigned long long banksim_warp_exchange(unsigned mask, unsigned long long value,
                                                    int src_lane, int mode) {
  if (banksim::rt::detail::g_launch == nullptr) return value;
  return banksim::rt::detail::g_launch->warp_rendezvous(mask, value, src_lane, mode, BANKSIM_PC);
}
// A bulk copy global -> shared (sm_90's cp.async.bulk, which cuda::memcpy_async with a block's
// cuda::barrier compiles to: UBLKCP, done by the TMA unit, not by load/store instructions). Its
// bytes are checked as accesses (bounds, races, initialisation) but not traced: the GPU's
// shared-memory requests and global sectors (what banksim counts, as ncu's LSU metrics) do not
// include them. Chunks of the widest width the addresses and the length allow.
extern "C" void banksim_bulk_copy(void* dst, const void* src, std::size_t bytes) {
  using namespace banksim::rt::detail;
  using bankmodel::Op;
  Launch* launch = g_launch;
  Thread* t = launch != nullptr ? launch->current() : nullptr;
  if (t == nullptr) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const std::uint64_t pc = BANKSIM_PC;
  static thread_local TraceBuffer<Access> no_trace;
  static thread_local TraceBuffer<GlobalAccess> no_global_trace;
  TraceBuffer<Access>* trace = t->trace;
  TraceBuffer<GlobalAccess>* global_trace = t->global_trace;
  t->trace = &no_trace;
  t->global_trace = &no_global_trace;
  const auto d = reinterpret_cast<std::uintptr_t>(dst);
  const auto s = reinterpret_cast<std::uintptr_t>(src);
  bool inside = true;  // the destination lies within its shared variable (or is not shared)
  for (std::size_t i = 0; i < bytes;) {
    std::size_t w = 16;
    while (w > 1 && ((d + i) % w != 0 || (s + i) % w != 0 || bytes - i < w)) w /= 2;
    launch->global_access(s + i, static_cast<std::uint32_t>(w), Op::kLoad, pc);
    const std::uintptr_t off = d + i - g_arena_lo;
    if (off < g_arena_size) {
      launch->shared_access(static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(w),
                            Op::kStore, pc, 0);
      // Past its variable: reported as out of bounds, and not copied (the red zone stays).
      inside = inside && launch->shared_var_at(static_cast<std::uint32_t>(off)) >= 0 &&
               launch->shared_var_at(static_cast<std::uint32_t>(off + w - 1)) ==
                   launch->shared_var_at(static_cast<std::uint32_t>(off));
    } else {
      launch->global_access(d + i, static_cast<std::uint32_t>(w), Op::kStore, pc);
    }
    i += w;
  }
  t->trace = trace;
  t->global_trace = global_trace;
  no_trace.clear();
  no_global_trace.clear();
  if (inside) std::memcpy(dst, src, bytes);
}

extern "C" int banksim_atomic_i32(int op, void* address, int value, int compare) {
  return atomic_entry<int>(op, address, value, compare, BANKSIM_PC);
}
extern "C" unsigned banksim_atomic_u32(int op, void* address, unsigned value, unsigned compare) {
  return atomic_entry<unsigned>(op, address, value, compare, BANKSIM_PC);
}
extern "C" unsigned long long banksim_atomic_u64(int op, void* address, unsigned long long value,
                                                 unsigned long long compare) {
  return atomic_entry<unsigned long long>(op, address, value, compare, BANKSIM_PC);
}
extern "C" float banksim_atomic_f32(int op, void* address, float value) {
  return atomic_entry<float>(op, address, value, 0.0f, BANKSIM_PC);
}
extern "C" double banksim_atomic_f64(int op, void* address, double value) {
  return atomic_entry<double>(op, address, value, 0.0, BANKSIM_PC);
}
extern "C" void* banksim_device_malloc(std::size_t bytes) {
  return banksim::rt::device_alloc(bytes);
}
extern "C" void banksim_device_free(void* pointer) {
  banksim::rt::device_free(pointer);
}
