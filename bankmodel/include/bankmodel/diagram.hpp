// bankmodel/diagram.hpp - pictures of one warp request: SVG for lessons and reports, text for
// terminals. Both show lanes, the banks they hit, the phases, and colour banks by how many
// distinct words they must serve (1 = no conflict).
//
//   std::string svg = bankmodel::render_svg(bankmodel::analyze(r), "tile[lane][0], 32x32 floats");
#pragma once

#include <string>

#include "bankmodel/bank_model.hpp"

namespace bankmodel {

/// A standalone SVG document: one panel per phase (lanes on the left, the 32 banks on the right,
/// one line per lane and word, coloured by the bank's distinct-word count), a title and a caption
/// "load, 4-byte: 32-way conflict, 32 wavefronts (ideal 1)".
std::string render_svg(const Analysis& analysis, const std::string& title = "");

/// A compact text picture for terminals (about 60 columns): per phase, the bank of every lane and
/// the distinct words per bank, then the worst bank and the lanes that meet there.
std::string render_text(const Analysis& analysis, const std::string& title = "");

/// The colour the diagrams give a bank that serves `words` distinct words (0 = unused).
const char* conflict_colour(int words);

}  // namespace bankmodel
