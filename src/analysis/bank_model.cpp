#include "analysis/bank_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace gd {

int bank_wavefronts(std::span<const unsigned> offsets, int width) {
  if (width != 4 && width != 8 && width != 16) throw std::invalid_argument("bank_wavefronts: width must be 4, 8 or 16");
  std::set<unsigned> words[32];
  for (unsigned off : offsets) {
    if (off % unsigned(width) != 0) throw std::invalid_argument("bank_wavefronts: offset not aligned to the width");
    for (unsigned w = off / 4; w < (off + unsigned(width)) / 4; ++w) words[w % 32].insert(w);
  }
  std::size_t most = 0;
  for (const auto& b : words) most = std::max(most, b.size());
  return int(most);
}

BankInference infer_banks(std::span<const long long> strides_words, std::span<const double> cycles_per_warp_load,
                          double bytes_per_clk_at_stride_1) {
  if (strides_words.size() != cycles_per_warp_load.size())
    throw std::invalid_argument("infer_banks: strides and times must pair up");
  double base = 0;
  for (std::size_t i = 0; i < strides_words.size(); ++i) {
    if (strides_words[i] < 1 || !(cycles_per_warp_load[i] > 0))
      throw std::invalid_argument("infer_banks: strides and times must be positive");
    if (strides_words[i] == 1) base = cycles_per_warp_load[i];
  }
  if (base <= 0 || !(bytes_per_clk_at_stride_1 > 0))
    throw std::invalid_argument("infer_banks: stride 1 (the conflict-free baseline) is missing");
  BankInference best;
  for (std::size_t i = 0; i < strides_words.size(); ++i) {
    const double degree = std::round(cycles_per_warp_load[i] / base);
    if (degree < 2 || (best.conflict_stride && strides_words[i] >= best.conflict_stride)) continue;
    best.conflict_stride = strides_words[i];
    best.conflict_degree = degree;
  }
  if (!best.conflict_stride) throw std::invalid_argument("infer_banks: no stride shows a bank conflict");
  best.banks = 32.0 * double(best.conflict_stride) / best.conflict_degree;
  best.bank_width_bytes = bytes_per_clk_at_stride_1 / best.banks;
  return best;
}

}  // namespace gd
