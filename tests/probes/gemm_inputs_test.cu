// The GEMM-ceiling probe's host side: shape names, the precision table, and matrices drawn from
// the pool that the reference check reads back by index.
#include "system/gemm_inputs.hpp"

#include <gtest/gtest.h>

namespace gd::gemm {
namespace {

TEST(GemmShape, SquareAndSkinnyNamesParseOthersAreErrors) {
  const Shape sq = parse_shape("sq8192");
  EXPECT_EQ(sq.m, 8192);
  EXPECT_EQ(sq.n, 8192);
  EXPECT_EQ(sq.k, 8192);
  const Shape sk = parse_shape("m128_n8192_k4096");
  EXPECT_EQ(sk.m, 128);
  EXPECT_EQ(sk.n, 8192);
  EXPECT_EQ(sk.k, 4096);
  EXPECT_THROW(parse_shape("8192"), Error);
  EXPECT_THROW(parse_shape("m128_n8192"), Error);
  EXPECT_THROW(gemm_type("fp4"), Error);
}

// The pool's value for each entry is what its stored bytes mean in the type, so the host
// reference computes what the GPU was given.
TEST(GemmPool, ValuesAreTheStoredBytesDecoded) {
  const Pool bf = make_pool(gemm_type("bf16"), 3);
  for (std::size_t i : {std::size_t(0), std::size_t(17), kPool - 1}) {
    __nv_bfloat16 h;
    std::memcpy(&h, &bf.bytes[i * 2], 2);
    EXPECT_EQ(double(__bfloat162float(h)), bf.values[i]);
  }
  const Pool f8 = make_pool(gemm_type("fp8_e4m3"), 3);
  __nv_fp8_e4m3 q;
  std::memcpy(&q, &f8.bytes[5], 1);
  EXPECT_EQ(double(float(q)), f8.values[5]);
  const Pool i8 = make_pool(gemm_type("int8"), 3);
  EXPECT_EQ(double(std::int8_t(i8.bytes[9])), i8.values[9]);
  EXPECT_LE(std::fabs(i8.values[9]), 64);
}

// Zero operands (the power probe's idle datapath) are all-zero bytes in every type, so the
// reference of every output is exactly 0.
TEST(GemmPool, ZeroPoolsAreZeroBytesAndValues) {
  for (const auto& t : kTypes) {
    const Pool z = make_pool(t, 5, true);
    for (std::size_t i : {std::size_t(0), std::size_t(999), kPool - 1}) {
      EXPECT_EQ(z.values[i], 0.0) << t.name;
      for (int b = 0; b < t.ab_bytes; ++b) EXPECT_EQ(z.bytes[i * t.ab_bytes + b], 0) << t.name;
    }
  }
  EXPECT_NE(make_pool(gemm_type("fp16"), 5).values[1], 0.0);
}

TEST(GemmTypes, ElementSizesMatchTheTable) {
  for (const auto& t : kTypes) {
    EXPECT_EQ(data_type_bytes(t.ab), std::size_t(t.ab_bytes)) << t.name;
    EXPECT_EQ(data_type_bytes(t.c), std::size_t(t.c_bytes)) << t.name;
  }
  EXPECT_EQ(data_type_bytes(CUDA_R_8F_E4M3), 1u);
  EXPECT_THROW(data_type_bytes(CUDA_R_8F_E5M2), Error);
}

TEST(GemmPool, MatricesWrapAroundThePoolFromTheirOffset) {
  const GemmType& t = gemm_type("fp16");
  const Pool p = make_pool(t, 4);
  std::vector<unsigned char> host;
  const std::size_t count = kPool + 10, offset = 12345;
  fill_from_pool(host, p, count, offset, t.ab_bytes);
  ASSERT_EQ(host.size(), count * 2);
  for (std::size_t e : {std::size_t(0), kPool - offset - 1, kPool - offset, count - 1})
    EXPECT_EQ(std::memcmp(&host[e * 2], &p.bytes[((e + offset) % kPool) * 2], 2), 0) << e;
}

}  // namespace
}  // namespace gd::gemm
