#include "analysis/bank_model.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

std::vector<unsigned> strided(unsigned stride_bytes) {
  std::vector<unsigned> v;
  for (unsigned l = 0; l < 32; ++l) v.push_back(l * stride_bytes);
  return v;
}

TEST(BankModel, ThirtyTwoBitStrideGivesItsConflictDegree) {
  EXPECT_EQ(bank_wavefronts(strided(4), 4), 1);
  EXPECT_EQ(bank_wavefronts(strided(8), 4), 2);
  EXPECT_EQ(bank_wavefronts(strided(4 * 32), 4), 32);
  EXPECT_EQ(bank_wavefronts(strided(4 * 6), 4), 2);  // stride 6 words: gcd(6, 32) = 2
}

TEST(BankModel, WideAccessesNeedTheirNaturalPassesAndBroadcastIsOne) {
  EXPECT_EQ(bank_wavefronts(strided(8), 8), 2);
  EXPECT_EQ(bank_wavefronts(strided(16), 16), 4);
  EXPECT_EQ(bank_wavefronts(strided(0), 16), 1);
  EXPECT_EQ(bank_wavefronts(strided(128), 16), 32);
}

TEST(BankModel, RejectsBadWidthAndAlignment) {
  EXPECT_THROW(bank_wavefronts(strided(4), 2), std::invalid_argument);
  EXPECT_THROW(bank_wavefronts(strided(4), 8), std::invalid_argument);
}

}  // namespace
}  // namespace gd
