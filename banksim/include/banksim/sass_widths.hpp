// banksim/sass_widths.hpp - the shared-memory access widths nvcc emits, read from its SASS.
//
// clang (which compiles kernels for banksim) and nvcc (which compiles them for the GPU) do not
// always give one source access the same width: nvcc's ptxas merges bs[tx][kk] and bs[tx][kk + 1]
// into one LDS.64 when it can prove 8-byte alignment, and the bank model's answer for one 8-byte
// request differs from two 4-byte ones. banksim therefore reads what nvcc emits for sm_90, per
// source line, from `nvdisasm -gi` (line info from -lineinfo), and regroups its per-lane trace into
// requests of those widths (runtime.hpp, WidthPlan). This file only parses; Module runs the tools.
/// \file
/// Per-source-line access widths from nvcc's SASS (nvdisasm output).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace banksim {

/// The widths of one source line's shared-memory instructions: bit k set = an access of 2^k bytes
/// (bit 0: 1 byte ... bit 4: 16 bytes).
struct LineWidths {
  std::uint8_t load = 0;    ///< LDS (and generic LD) widths
  std::uint8_t store = 0;   ///< STS (and generic ST) widths
  std::uint8_t atomic = 0;  ///< ATOMS widths
  /// LDG (and generic LD) widths: only for telling whether nvcc made one wide global access
  /// where clang did (a misaligned one faults), not for regrouping.
  std::uint8_t global_load = 0;
  std::uint8_t global_store = 0;  ///< STG (and generic ST) widths, as global_load
  /// 1: an ATOMS.ADD (each lane adds its own value): lanes on one word cost a wavefront each, as
  /// measured on the H200 (8 lanes on one word: 8 wavefronts; ATOMS.POPC.INC, a constant 1,
  /// costs 1 for them).
  std::uint8_t atomic_add = 0;
};

/// What nvcc emits for one file: widths per line of that file.
struct SassWidths {
  std::map<int, LineWidths> lines;  ///< by 1-based source line of the file
  int instructions = 0;             ///< shared-memory instructions read
};

/// The width bit of an access of `bytes` bytes (1, 2, 4, 8 or 16), 0 for other sizes.
std::uint8_t width_bit(int bytes);
/// "4+8" for a mask of 4- and 8-byte widths ("" for none).
std::string width_mask_text(std::uint8_t mask);

/// Parses `nvdisasm -c -gi` output: each shared-memory instruction (LDS, STS, ATOMS, and generic
/// LD/ST, which may reach shared memory) with its width, at the innermost line of its inlining
/// chain that lies in `file` (an absolute path, as nvcc was given it); instructions from other
/// files only (a CUDA header's own code) are skipped.
SassWidths parse_sass_widths(const std::string& disassembly, const std::string& file);

/// Serialises widths for the compile cache: one "line load store atomic global_load global_store
/// atomic_add" per line.
std::string to_text(const SassWidths& w);
/// Reads to_text()'s format back; lines that do not parse are skipped.
SassWidths sass_widths_from_text(const std::string& text);

}  // namespace banksim
