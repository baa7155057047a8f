// mma.h under banksim: CUDA's warp matrix functions (nvcuda::wmma) for m16n16k16 tiles of half
// inputs and float accumulators, computed exactly (half products are exact in float; the sum is
// taken in float) and with the shared-memory requests the H200 makes for them (sm_90, nvcc 13,
// measurements/lessons/2026-12-03-tensor-core-tiles):
//  - load_matrix_sync of a matrix_a or matrix_b fragment is one LDSM.16.M88.4 (MT88.4 for a
//    col_major A or a row_major B): each lane gives the address of one 16-byte row of the 16 x 16
//    tile, lane l row l % 16 at chunk l / 16, and the hardware reads them in 4 phases of 8 rows.
//    banksim traces it as one 16-byte load per lane at that address: the bank model serves a
//    16-byte request in the same quarter-warp phases, so the wavefronts are the H200's (ldm of
//    16 to 128 halves measured: 8, 4, 16, 4, 32, 4, 8, 32 wavefronts for ldm 16, 24, 32, 40, 64,
//    72, 80, 128). ncu counts LDSM's wavefronts but not in smsp__sass_inst_executed_op_shared_ld.
//  - load_matrix_sync / store_matrix_sync of a float accumulator with mem_row_major is 4 LDS.64 /
//    STS.64: lane l (g = l / 4, q = l % 4) moves elements (g, 2q..2q+1), (g + 8, ..), (g, 2q +
//    8..) and (g + 8, 2q + 8..). mem_col_major is not measured: traced as 8 4-byte accesses.
// Each lane keeps its own slice of a fragment in x[] (as on the GPU, which slice is unspecified);
// the lanes' slices of an A or B tile are the rows they loaded. The product needs the whole tile,
// which each lane also reads at load time without tracing it (the traced 16-byte rows cover every
// byte of the tile, so races and uninitialised reads are still found). Element-wise changes to an
// A or B fragment's x[] are not modelled: mma_sync stops the kernel with a message if it finds
// one. Other shapes and types (8 x 32 x 16, bf16, tf32, int8, half accumulators) stop the compile.
#pragma once

#include <cstddef>
#include <type_traits>

#include "cuda_fp16.h"

namespace nvcuda {
namespace wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };

namespace banksim_detail {

inline unsigned lane() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32u;
}

/// Reads the 16 x 16 halves at p (16 memory rows at stride ldm) without tracing them.
#if defined(__clang__)
__attribute__((no_sanitize("address"), noinline))
#endif
inline void
read_tile_untraced(unsigned short* out, const unsigned short* p, unsigned ldm) {
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 16; ++c) out[r * 16 + c] = p[static_cast<std::size_t>(r) * ldm + c];
}

/// 16 and 8 bytes read as one access each; typed with alignment 1 so that a misaligned row
/// (an ldm that is not a multiple of 8 halves) is reported as banksim's "misaligned" problem,
/// as the GPU stops with "misaligned address", instead of faulting on the CPU.
typedef unsigned int unaligned_u32x4 __attribute__((ext_vector_type(4), aligned(1)));
typedef float unaligned_f32x2 __attribute__((ext_vector_type(2), aligned(1)));
inline void copy16(void* dst, const void* src) {
  const unaligned_u32x4 v = *static_cast<const unaligned_u32x4*>(src);
  __builtin_memcpy(dst, &v, 16);
}
inline void load8(float* dst, const float* src) {
  const unaligned_f32x2 v = *reinterpret_cast<const unaligned_f32x2*>(src);
  dst[0] = v.x;
  dst[1] = v.y;
}
inline void store8(float* dst, const float* src) {
  unaligned_f32x2 v;
  v.x = src[0];
  v.y = src[1];
  *reinterpret_cast<unaligned_f32x2*>(dst) = v;
}

template <typename Use, typename T, typename Layout>
struct check {
  static constexpr bool input =
      std::is_same<Use, matrix_a>::value || std::is_same<Use, matrix_b>::value;
  static_assert(!input || std::is_same<T, __half>::value,
                "banksim's <mma.h> models matrix_a/matrix_b fragments of half only (not bf16, "
                "tf32 or integers): convert the tile to half, or grade on the GPU");
  static_assert(input || std::is_same<T, float>::value,
                "banksim's <mma.h> models float accumulators only");
  static_assert(!input || std::is_same<Layout, row_major>::value ||
                    std::is_same<Layout, col_major>::value,
                "a matrix_a or matrix_b fragment needs wmma::row_major or wmma::col_major");
};

}  // namespace banksim_detail

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class alignas(16) fragment {
  static_assert(M == 16 && N == 16 && K == 16,
                "banksim's <mma.h> models the m16n16k16 shape only (16, 16, 16)");
  static_assert(sizeof(banksim_detail::check<Use, T, Layout>) > 0, "");

 public:
  using element_type = T;
  using storage_element_type = T;
  static constexpr int num_elements = std::is_same<Use, accumulator>::value ? 8 : 16;
  T x[num_elements];
  /// banksim's own: the whole tile as the lane read it (A: [m][k], B: [k][n]; halves' bits).
  unsigned short banksim_tile[std::is_same<Use, accumulator>::value ? 1 : 256];
};

template <typename Use, typename T, typename L>
inline void fill_fragment(fragment<Use, 16, 16, 16, T, L>& f,
                          const typename fragment<Use, 16, 16, 16, T, L>::storage_element_type& v) {
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
  if constexpr (!std::is_same<Use, accumulator>::value) {
    for (int i = 0; i < 256; ++i) f.banksim_tile[i] = v.__x;
  }
}

namespace banksim_detail {
/// Whether memory row r of an A or B tile is a column of the fragment's matrix (A col_major:
/// memory rows are k; B row_major: memory rows are k, as banksim_tile's [k][n] rows).
template <typename Use, typename L>
constexpr bool rows_are_columns() {
  return std::is_same<Use, matrix_a>::value ? std::is_same<L, col_major>::value
                                            : std::is_same<L, col_major>::value;
}
/// Where element (memory row r, column c) of the tile lives in banksim_tile.
template <typename Use, typename L>
constexpr int tile_index(int r, int c) {
  return rows_are_columns<Use, L>() ? c * 16 + r : r * 16 + c;
}
}  // namespace banksim_detail

/// A or B: one 16-byte row per lane (the LDSM.x4 the GPU issues), the whole tile untraced.
template <typename Use, typename L>
inline void load_matrix_sync(fragment<Use, 16, 16, 16, __half, L>& f, const __half* p,
                             unsigned ldm) {
  const unsigned l = banksim_detail::lane();
  // Lane l's row address: memory row l % 16, 16-byte chunk l / 16 (ldmatrix's 4 matrices).
  banksim_detail::copy16(&f.x[0], p + static_cast<std::size_t>(l % 16) * ldm + (l / 16) * 8);
  for (int i = 0; i < 8; ++i) f.x[8 + i] = f.x[i];
  unsigned short mem[256];
  banksim_detail::read_tile_untraced(mem, reinterpret_cast<const unsigned short*>(p), ldm);
  // Memory row r holds A[r][:] (row-major A), A[:][r] (col-major A), B[r][:] (row-major B),
  // B[:][r] (col-major B); banksim_tile is A as [m][k] and B as [k][n].
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      f.banksim_tile[banksim_detail::tile_index<Use, L>(r, c)] = mem[r * 16 + c];
}

namespace banksim_detail {
/// Element e (0..7) of lane l's accumulator slice: its row and column in the 16 x 16 tile.
inline void acc_position(unsigned l, int e, int* row, int* col) {
  const int g = static_cast<int>(l / 4), q = static_cast<int>(l % 4);
  *row = g + 8 * ((e / 2) % 2);
  *col = 2 * q + (e % 2) + 8 * (e / 4);
}
/// A or B fragment whose x[] no longer matches the tile it holds: stop (not modelled). The
/// lane's slice is memory row l % 16, chunk l / 16, twice (fill_fragment makes all equal).
template <typename Use, typename L>
inline void check_unchanged(const fragment<Use, 16, 16, 16, __half, L>& f) {
  const unsigned l = lane();
  const int r = static_cast<int>(l % 16), c0 = static_cast<int>(l / 16) * 8;
  for (int i = 0; i < 8; ++i) {
    const unsigned short want = f.banksim_tile[tile_index<Use, L>(r, c0 + i)];
    if (f.x[i].__x != want || f.x[8 + i].__x != want) {
      banksim_stop(
          "mma_sync: an element of a matrix_a/matrix_b fragment's x[] was changed after "
          "load_matrix_sync or fill_fragment; banksim's <mma.h> does not model element-wise "
          "changes to A or B fragments (change the tile in shared memory instead, or grade on "
          "the GPU)");
    }
  }
}
}  // namespace banksim_detail

/// C: 4 LDS.64 per lane (mem_row_major), as the GPU.
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float>& f, const float* p,
                             unsigned ldm, layout_t layout) {
  const unsigned l = banksim_detail::lane();
  for (int e = 0; e < 8; e += 2) {
    int r, c;
    banksim_detail::acc_position(l, e, &r, &c);
    if (layout == mem_row_major) {
      banksim_detail::load8(&f.x[e], p + static_cast<std::size_t>(r) * ldm + c);
    } else {
      f.x[e] = p[static_cast<std::size_t>(c) * ldm + r];
      f.x[e + 1] = p[static_cast<std::size_t>(c + 1) * ldm + r];
    }
  }
}

/// C: 4 STS.64 per lane (mem_row_major), as the GPU.
inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& f,
                              unsigned ldm, layout_t layout) {
  const unsigned l = banksim_detail::lane();
  for (int e = 0; e < 8; e += 2) {
    int r, c;
    banksim_detail::acc_position(l, e, &r, &c);
    if (layout == mem_row_major) {
      banksim_detail::store8(p + static_cast<std::size_t>(r) * ldm + c, &f.x[e]);
    } else {
      p[static_cast<std::size_t>(c) * ldm + r] = f.x[e];
      p[static_cast<std::size_t>(c + 1) * ldm + r] = f.x[e + 1];
    }
  }
}

/// d = a b + c, each lane its own 8 elements of d (float products of halves, summed in k order).
template <typename LA, typename LB>
inline void mma_sync(fragment<accumulator, 16, 16, 16, float>& d,
                     const fragment<matrix_a, 16, 16, 16, __half, LA>& a,
                     const fragment<matrix_b, 16, 16, 16, __half, LB>& b,
                     const fragment<accumulator, 16, 16, 16, float>& c) {
  banksim_detail::check_unchanged(a);
  banksim_detail::check_unchanged(b);
  const unsigned l = banksim_detail::lane();
  float out[8];
  for (int e = 0; e < 8; ++e) {
    int r, col;
    banksim_detail::acc_position(l, e, &r, &col);
    float acc = c.x[e];
    for (int k = 0; k < 16; ++k) {
      acc += banksim_fp16::to_float(a.banksim_tile[r * 16 + k]) *
             banksim_fp16::to_float(b.banksim_tile[k * 16 + col]);
    }
    out[e] = acc;
  }
  for (int e = 0; e < 8; ++e) d.x[e] = out[e];
}

}  // namespace wmma
}  // namespace nvcuda
