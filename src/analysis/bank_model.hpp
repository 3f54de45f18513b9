// The shared-memory bank model: how many passes (wavefronts) a warp's access needs when 32 banks
// of 4 bytes each serve one word per pass, and a word read by several lanes is broadcast.
#pragma once
#include <span>

namespace gd {

// offsets: the byte offset each lane reads, `width` bytes (4, 8 or 16) from there, aligned to
// width. Returns the largest number of distinct words any one bank must deliver. Throws
// std::invalid_argument on an unsupported width or a misaligned offset.
int bank_wavefronts(std::span<const unsigned> offsets, int width);

// The banks the measurement shows, from 32-bit loads by a full warp at lane strides (in words):
// the conflict degree at a stride is its cycles per warp load over stride 1's (conflict-free by
// the model). With B banks a power-of-two stride s hits min(32, B / gcd(s, B)) banks, so at the
// smallest stride whose degree d exceeds 1, B = 32 * s / d. The bank width is stride 1's bytes
// per clock over B (one word per bank per clock). Throws std::invalid_argument when stride 1 is
// missing, a stride or time is not positive, or no stride shows a conflict.
struct BankInference {
  double banks = 0;
  double bank_width_bytes = 0;
  long long conflict_stride = 0;  // the stride that showed it
  double conflict_degree = 0;
};
BankInference infer_banks(std::span<const long long> strides_words, std::span<const double> cycles_per_warp_load,
                          double bytes_per_clk_at_stride_1);

}  // namespace gd
