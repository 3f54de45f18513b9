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

// The H200's 32-bit sweep (cycles per warp load at strides 1..32, 127.7 B/clk at stride 1).
TEST(BankInference, ThirtyTwoFourByteBanksFromTheStrideSweep) {
  const std::vector<long long> s = {1, 2, 4, 8, 16, 32};
  const BankInference b = infer_banks(s, std::vector<double>{1.002, 2.001, 4.001, 8.0, 16.0, 32.0}, 127.7);
  EXPECT_DOUBLE_EQ(b.banks, 32);
  EXPECT_NEAR(b.bank_width_bytes, 3.99, 0.01);
  EXPECT_EQ(b.conflict_stride, 2);
}

TEST(BankInference, OtherBankCountsShowAtOtherStrides) {
  const std::vector<long long> s = {1, 2, 4, 8, 16, 32};
  // 64 banks: stride 2 still hits 32 banks; stride 4 is the first 2-way conflict.
  EXPECT_DOUBLE_EQ(infer_banks(s, std::vector<double>{1, 1, 2, 4, 8, 16}, 256).banks, 64);
  // 128 banks: the first conflict is at stride 8.
  EXPECT_DOUBLE_EQ(infer_banks(s, std::vector<double>{1, 1, 1, 2, 4, 8}, 512).banks, 128);
}

TEST(BankInference, RejectsSweepsThatCannotTell) {
  const std::vector<long long> s = {1, 2};
  EXPECT_THROW(infer_banks(s, std::vector<double>{1, 1}, 128), std::invalid_argument);  // no conflict
  EXPECT_THROW(infer_banks(std::vector<long long>{2, 4}, std::vector<double>{2, 4}, 128), std::invalid_argument);
  EXPECT_THROW(infer_banks(s, std::vector<double>{1}, 128), std::invalid_argument);
  EXPECT_THROW(infer_banks(s, std::vector<double>{1, 0}, 128), std::invalid_argument);
}

}  // namespace
}  // namespace gd
