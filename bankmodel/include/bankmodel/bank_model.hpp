// bankmodel/bank_model.hpp - the shared-memory bank model for compute capability 7.0-9.0.
//
// Given ONE warp-level shared-memory request (operation, access width, active lanes and each
// lane's byte offset) it returns the wavefronts the hardware needs, the conflict-free ideal and,
// per phase, the distinct words each bank serves. The rules are those of
// docs/bank-rules.md; comments cite them as R0..R4.
//
// This library knows nothing of CUDA, fibers or grading: it is pure arithmetic, used by the
// emulator (banksim), the grader's reports and the lessons' figures.
//
//   bankmodel::Request r(bankmodel::Op::kLoad, 4);
//   for (int lane = 0; lane < 32; ++lane) r.set_lane(lane, 33 * 4 * lane);  // tile[lane][0], 33
//   cols bankmodel::Summary s = bankmodel::count_wavefronts(r);                   // s.wavefronts
//   == 1
/// \file
/// The shared-memory bank model for compute capability 7.0-9.0 (rules R0-R6 of docs/bank-rules.md).
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

/// The shared-memory bank model: pure arithmetic on warp-level requests (docs/bank-rules.md).
namespace bankmodel {

/// Threads per warp; lane = linear thread id mod kWarpSize (R0).
inline constexpr int kWarpSize = 32;
/// Shared-memory banks (R1).
inline constexpr int kNumBanks = 32;
/// Width of one bank word in bytes (R1).
inline constexpr int kBankBytes = 4;
/// Bytes one wavefront can move (32 banks x 4 bytes, R5).
inline constexpr int kWavefrontBytes = kNumBanks * kBankBytes;

/// The kind of shared-memory instruction (R0, R6).
enum class Op {
  kLoad,
  kStore,
  kAtomic,     ///< a native ATOMS (32-bit integer ops, exch, CAS): costed like a store (R6)
  kAtomicLoop  ///< an atomic nvcc builds as a CAS loop (float/double add, 64-bit add/min/max/
               ///< and/or/xor on sm_90): costed by its iterations (R6)
};

/// "load", "store", "atomic" or "atomic-loop". Inline: the GPU worker names ops through
/// grader/protocol.hpp without linking this library.
inline const char* to_string(Op op) {
  switch (op) {
    case Op::kLoad:
      return "load";
    case Op::kStore:
      return "store";
    case Op::kAtomic:
      return "atomic";
    case Op::kAtomicLoop:
      return "atomic-loop";
  }
  return "?";
}
/// The Op that to_string() names; false for any other text.
inline bool parse_op(const std::string& text, Op* op) {
  for (Op o : {Op::kLoad, Op::kStore, Op::kAtomic, Op::kAtomicLoop}) {
    if (text == to_string(o)) {
      *op = o;
      return true;
    }
  }
  return false;
}

/// Thrown for a request the hardware could not issue: a width not in {1,2,4,8,16}, an address
/// not aligned to the width, or a lane outside 0..31. The message says which and what to do.
class InvalidRequest : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// True for the widths a single shared-memory instruction can have: 1, 2, 4, 8, 16 bytes.
bool is_valid_width(int width_bytes);

/// Word index of a byte offset (R1): floor(a / 4).
constexpr std::uint64_t word_of(std::uint64_t byte_offset) {
  return byte_offset / kBankBytes;
}
/// Bank of a byte offset (R1): word(a) mod 32.
constexpr int bank_of(std::uint64_t byte_offset) {
  return static_cast<int>(word_of(byte_offset) % kNumBanks);
}

/// One warp-level request (R0): an operation, an access width and, for each active lane, the byte
/// offset it accesses in shared memory. Lanes that did not execute the access are inactive.
class Request {
 public:
  /// @throws InvalidRequest when width_bytes is not 1, 2, 4, 8 or 16.
  Request(Op op, int width_bytes);

  /// Marks `lane` active, accessing `byte_offset`.
  /// @throws InvalidRequest when lane is not in 0..31 or the offset is not a multiple of width.
  void set_lane(int lane, std::uint64_t byte_offset) {
    if (lane < 0 || lane >= kWarpSize ||
        (byte_offset & static_cast<std::uint64_t>(width_ - 1)) != 0) {  // width: a power of 2
      bad_lane(lane, byte_offset);
    }
    offsets_[static_cast<std::size_t>(lane)] = byte_offset;
    active_ |= (1U << lane);
  }
  /// Marks `lane` inactive again. @throws InvalidRequest when lane is not in 0..31.
  void clear_lane(int lane);

  /// Builds a request with all 32 lanes active, lane t at offsets[t].
  static Request all_lanes(Op op, int width_bytes,
                           const std::array<std::uint64_t, kWarpSize>& offsets);

  /// The operation given to the constructor.
  Op op() const { return op_; }
  /// Access width in bytes per lane (1, 2, 4, 8 or 16).
  int width() const { return width_; }
  /// Bit t set when lane t is active.
  std::uint32_t active_mask() const { return active_; }
  /// True when lane `lane` (0..31, not checked) is active.
  bool is_active(int lane) const { return ((active_ >> lane) & 1U) != 0; }
  /// Number of active lanes (0..32).
  int active_count() const;
  /// Byte offset of lane t (meaningful only when the lane is active).
  std::uint64_t offset(int lane) const { return offsets_[static_cast<std::size_t>(lane)]; }

 private:
  /// Throws the InvalidRequest that set_lane's arguments deserve.
  [[noreturn]] void bad_lane(int lane, std::uint64_t byte_offset) const;

  Op op_;
  int width_;
  std::uint32_t active_ = 0;
  std::array<std::uint64_t, kWarpSize> offsets_{};
};

/// Totals of a request (R4), computed without allocating: what the emulator calls per request.
struct Summary {
  int wavefronts = 0;       ///< sum over phases of W_p (R3, R4)
  int ideal = 0;            ///< number of non-empty phases: the conflict-free minimum (R4)
  int phases = 0;           ///< phases the hardware splits the request into (R2): 1, 2 or 4
  bool paired_16b = false;  ///< the 16-byte-load pairing exception applied (R2)

  /// wavefronts - ideal: the "bank conflicts" of the request (R4).
  int excess() const { return wavefronts - ideal; }
  /// The k of "k-way conflict": wavefronts / ideal (1.0 for an empty request).
  double ways() const { return ideal == 0 ? 1.0 : static_cast<double>(wavefronts) / ideal; }
};

/// What one bank serves in one phase.
struct BankLoad {
  std::vector<std::uint64_t> words;  ///< distinct words touched in this bank, ascending
  std::vector<int> lanes;            ///< lanes that touched this bank, ascending
};

/// One phase of a request (R2, R3).
struct Phase {
  int first_lane = 0;  ///< first lane of the phase
  int last_lane = 0;   ///< last lane of the phase (inclusive)
  int wavefronts = 0;  ///< W_p = max over banks of distinct words (0 when no lane is active)
  std::array<BankLoad, kNumBanks> banks;  ///< what each bank serves, indexed by bank number
  /// Bank with the most distinct words (the lowest such bank), or -1 when the phase is empty.
  int worst_bank() const;
};

/// Full breakdown of a request: the Summary plus every phase.
struct Analysis {
  Request request;            ///< the analyzed request (a copy)
  Summary summary;            ///< its totals, as count_wavefronts() returns them
  std::vector<Phase> phases;  ///< every phase the request splits into (R2), in lane order
};

/// Totals only (fast path, no allocation). Implements R2-R4.
Summary count_wavefronts(const Request& request);

/// Totals and the per-phase, per-bank breakdown used by reports and diagrams.
Analysis analyze(const Request& request);

/// "32-way conflict, 32 wavefronts (ideal 1)" or "conflict-free, 4 wavefronts (ideal 4)".
std::string describe(const Summary& summary);

}  // namespace bankmodel
