// The shared-memory bank model: how many passes (wavefronts) a warp's access needs when 32 banks
// of 4 bytes each serve one word per pass, and a word read by several lanes is broadcast.
#pragma once
#include <span>

namespace gd {

// offsets: the byte offset each lane reads, `width` bytes (4, 8 or 16) from there, aligned to
// width. Returns the largest number of distinct words any one bank must deliver. Throws
// std::invalid_argument on an unsupported width or a misaligned offset.
int bank_wavefronts(std::span<const unsigned> offsets, int width);

}  // namespace gd
