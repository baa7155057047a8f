// cost_model.hpp - CPU mode's estimate of a kernel's time from what banksim counts: shared-memory
// wavefronts and the 32-byte global-memory sectors of each warp request. Fitted to the H200
// (measurements/h200-2026-12-01-redesign/README.md, "The cost model"): with W the shared
// wavefronts and G = 2 sectors + 2 excess sectors (sectors beyond the request's ideal),
//   cost = max(W, G) + 0.33 min(W, G)
// in units of one shared wavefront. One SM serves one wavefront per clock and, for a kernel
// that streams DRAM, about one sector every 2 clocks; an uncoalesced sector (a 4-byte store in
// a 32-byte sector) costs twice as much as a full one; the two pipes overlap, but not fully.
// It ranks the course's kernels as the H200 does; it knows nothing of arithmetic or caches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace grader::internal {

struct CostModel {
  static constexpr double kSector = 2.0;    ///< wavefronts' worth of time per global sector
  static constexpr double kExcess = 2.0;    ///< extra per sector beyond the request's ideal
  static constexpr double kOverlap = 0.33;  ///< share of the smaller part that does not overlap
};

/// What a run did, as the cost model sees it.
struct Counts {
  std::uint64_t wavefronts = 0;  ///< shared memory
  std::uint64_t sectors = 0;     ///< global loads and stores
  std::uint64_t ideal_sectors = 0;
  double shared_part() const { return static_cast<double>(wavefronts); }
  double global_part() const {
    const double excess = static_cast<double>(sectors - std::min(sectors, ideal_sectors));
    return CostModel::kSector * static_cast<double>(sectors) + CostModel::kExcess * excess;
  }
  double cost() const {
    const double w = shared_part(), g = global_part();
    return std::max(w, g) + CostModel::kOverlap * std::min(w, g);
  }
  /// "1234 shared wavefronts + 567 global sectors (89 beyond ideal)"
  std::string describe() const {
    return fmt::format("{} shared wavefronts, {} global sectors ({} beyond ideal)", wavefronts,
                       sectors, sectors - std::min(sectors, ideal_sectors));
  }
};

}  // namespace grader::internal
