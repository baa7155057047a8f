// bankmodel/diagram.hpp - pictures of one warp request: SVG for lessons and reports, text for
// terminals. Both show lanes, the banks they hit, the phases, and colour banks by how many
// distinct words they must serve (1 = no conflict).
//
//   std::string svg = bankmodel::render_svg(bankmodel::analyze(r), "tile[lane][0], 32x32 floats");
/// \file
/// Pictures of one warp request (SVG and text) and of the shared array it touches.
#pragma once

#include <cstdint>
#include <string>

#include "bankmodel/bank_model.hpp"

namespace bankmodel {

/// A standalone SVG document: one panel per phase (lanes on the left, the 32 banks on the right,
/// one line per lane and word, coloured by the bank's distinct-word count), a title and a caption
/// "load, 4-byte: 32-way conflict, 32 wavefronts (ideal 1)".
std::string render_svg(const Analysis& analysis, const std::string& title = "");

/// Where the tile picture finds the shared array: `rows` x `cols` 4-byte words starting at byte
/// `base` of the request's offsets (0: the block's first shared variable).
struct TileShape {
  int rows = 32;           ///< rows of the array, as declared (`tile[32][33]`: 32)
  int cols = 32;           ///< words per row, padding included (`tile[32][33]`: 33)
  std::uint64_t base = 0;  ///< byte offset of element [0][0]
};

/// A standalone SVG of the shared array itself: a grid of words, each labelled with its bank and
/// tinted by it, the words the request touches filled with the colour of their bank's conflict
/// and labelled with the lane (the column of one bank, the pad column's diagonal, an XOR
/// permutation, a 16-byte chunk per lane). Words outside the grid are counted in the legend.
std::string render_tile_svg(const Analysis& analysis, const TileShape& shape,
                            const std::string& title = "");

/// A compact text picture for terminals (about 60 columns): per phase, the bank of every lane and
/// the distinct words per bank, then the worst bank and the lanes that meet there.
std::string render_text(const Analysis& analysis, const std::string& title = "");

/// The colour the diagrams give a bank that serves `words` distinct words (0 = unused).
const char* conflict_colour(int words);

}  // namespace bankmodel
