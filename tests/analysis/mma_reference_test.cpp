#include "analysis/mma_reference.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(MmaElement, DecodesKnownEncodings) {
  EXPECT_EQ(decode_element(MmaType::f16, 0x3C00), 1.0);
  EXPECT_EQ(decode_element(MmaType::f16, 0xC000), -2.0);
  EXPECT_EQ(decode_element(MmaType::f16, 0x7BFF), 65504.0);
  EXPECT_EQ(decode_element(MmaType::f16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(decode_element(MmaType::f16, 0x7C00)));
  EXPECT_TRUE(std::isnan(decode_element(MmaType::f16, 0x7E00)));
  EXPECT_EQ(decode_element(MmaType::bf16, 0x3F80), 1.0);
  EXPECT_EQ(decode_element(MmaType::bf16, 0xC0A0), -5.0);
  EXPECT_EQ(decode_element(MmaType::tf32, 0x3F800000), 1.0);
  EXPECT_EQ(decode_element(MmaType::tf32, 0x3F801FFF), 1.0) << "the 13 bits below tf32 are ignored";
  EXPECT_EQ(decode_element(MmaType::tf32, 0x3F802000), 1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(decode_element(MmaType::f32, 0x3F800001), 1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(decode_element(MmaType::f64, 0x3FF8000000000000ull), 1.5);
  EXPECT_EQ(decode_element(MmaType::e4m3, 0x38), 1.0);
  EXPECT_EQ(decode_element(MmaType::e4m3, 0x7E), 448.0);
  EXPECT_EQ(decode_element(MmaType::e4m3, 0xFE), -448.0);
  EXPECT_TRUE(std::isnan(decode_element(MmaType::e4m3, 0x7F)));
  EXPECT_EQ(decode_element(MmaType::e4m3, 0x78), 256.0) << "e4m3 has no infinity";
  EXPECT_EQ(decode_element(MmaType::e4m3, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(decode_element(MmaType::e5m2, 0x3C), 1.0);
  EXPECT_EQ(decode_element(MmaType::e5m2, 0x7B), 57344.0);
  EXPECT_TRUE(std::isinf(decode_element(MmaType::e5m2, 0x7C)));
  EXPECT_EQ(decode_element(MmaType::e3m2, 0x1F), 28.0);
  EXPECT_EQ(decode_element(MmaType::e3m2, 0x01), 0.0625);
  EXPECT_EQ(decode_element(MmaType::e2m3, 0x1F), 7.5);
  EXPECT_EQ(decode_element(MmaType::e2m3, 0x3F), -7.5);
  EXPECT_EQ(decode_element(MmaType::e2m1, 0x7), 6.0);
  EXPECT_EQ(decode_element(MmaType::e2m1, 0x1), 0.5);
  EXPECT_EQ(decode_element(MmaType::e2m1, 0xA), -1.0);
  EXPECT_EQ(decode_element(MmaType::ue8m0, 127), 1.0);
  EXPECT_EQ(decode_element(MmaType::ue8m0, 130), 8.0);
  EXPECT_TRUE(std::isnan(decode_element(MmaType::ue8m0, 0xFF)));
  EXPECT_EQ(decode_element(MmaType::ue4m3, 0x38), 1.0);
  EXPECT_EQ(decode_element(MmaType::s8, 0x80), -128.0);
  EXPECT_EQ(decode_element(MmaType::s8, 0x7F), 127.0);
  EXPECT_EQ(decode_element(MmaType::u8, 0xFF), 255.0);
  EXPECT_EQ(decode_element(MmaType::s4, 0x8), -8.0);
  EXPECT_EQ(decode_element(MmaType::s4, 0xF), -1.0);
  EXPECT_EQ(decode_element(MmaType::u4, 0xF), 15.0);
  EXPECT_EQ(decode_element(MmaType::s32, 0xFFFFFFFF), -1.0);
  EXPECT_EQ(decode_element(MmaType::b1, 1), 1.0);
}

TEST(MmaElement, EncodingRoundTripsEveryNarrowEncoding) {
  for (MmaType t : {MmaType::f16, MmaType::bf16, MmaType::e4m3, MmaType::e5m2, MmaType::e3m2, MmaType::e2m3,
                    MmaType::e2m1, MmaType::ue4m3, MmaType::ue8m0, MmaType::s8, MmaType::u8, MmaType::s4, MmaType::u4}) {
    const uint64_t n = uint64_t{1} << mma_type_bits(t);
    for (uint64_t bits = 0; bits < n; ++bits) {
      const double v = decode_element(t, bits);
      if (std::isnan(v)) continue;
      ASSERT_EQ(encode_element(t, v), bits) << mma_type_name(t) << " bits " << bits << " value " << v;
    }
  }
}

TEST(MmaElement, EncodingRoundsToNearestEvenAndSaturatesWhereNoInfinity) {
  EXPECT_EQ(encode_element(MmaType::f16, 1 + std::ldexp(1.0, -11)), 0x3C00u) << "tie to even (down)";
  EXPECT_EQ(encode_element(MmaType::f16, 1 + 3 * std::ldexp(1.0, -11)), 0x3C02u) << "tie to even (up)";
  EXPECT_EQ(encode_element(MmaType::f16, 1e6), 0x7C00u) << "f16 overflows to infinity";
  EXPECT_EQ(encode_element(MmaType::f16, std::ldexp(1.0, -25) * 3), 0x0002u) << "subnormal, tie to even";
  EXPECT_EQ(encode_element(MmaType::e4m3, 1000.0), 0x7Eu) << "e4m3 saturates at 448";
  EXPECT_EQ(encode_element(MmaType::e4m3, -1000.0), 0xFEu);
  EXPECT_EQ(encode_element(MmaType::e5m2, 1e6), 0x7Cu);
  EXPECT_EQ(encode_element(MmaType::e2m1, 100.0), 0x7u);
  EXPECT_EQ(encode_element(MmaType::e2m1, 2.5), 0x4u) << "2.5 lies between 2 and 3: tie to even (2)";
  EXPECT_EQ(encode_element(MmaType::tf32, 1 + std::ldexp(1.0, -11)), 0x3F800000u);
  EXPECT_EQ(encode_element(MmaType::tf32, 1 + 3 * std::ldexp(1.0, -11)), 0x3F804000u);
  EXPECT_EQ(encode_element(MmaType::s8, 300.0), 0x7Fu);
  EXPECT_EQ(encode_element(MmaType::s8, -3.0), 0xFDu);
  EXPECT_EQ(encode_element(MmaType::u4, -3.0), 0x0u);
  EXPECT_EQ(encode_element(MmaType::ue8m0, 0.25), 125u);
  EXPECT_THROW(encode_element(MmaType::s8, std::nan("")), std::invalid_argument);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e5, 1e5);
  for (int i = 0; i < 1000; ++i) {
    const double v = u(rng);
    EXPECT_EQ(decode_element(MmaType::f32, encode_element(MmaType::f32, v)), double(float(v))) << v;
  }
}

TEST(MmaElement, RandomElementsAreFiniteAndVaried) {
  std::mt19937_64 rng(1);
  for (MmaType t : {MmaType::f16, MmaType::bf16, MmaType::tf32, MmaType::f64, MmaType::e4m3, MmaType::e5m2,
                    MmaType::e2m1, MmaType::s8, MmaType::u4, MmaType::b1, MmaType::ue8m0}) {
    std::vector<double> seen;
    for (int i = 0; i < 64; ++i) {
      const double v = decode_element(t, random_element(t, rng));
      ASSERT_TRUE(std::isfinite(v)) << mma_type_name(t);
      seen.push_back(v);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_GT(std::unique(seen.begin(), seen.end()) - seen.begin(), 1) << mma_type_name(t);
  }
}

TEST(MmaElement, NamesParseBack) {
  for (MmaType t : {MmaType::f16, MmaType::tf32, MmaType::e5m2, MmaType::u4, MmaType::b1, MmaType::ue8m0})
    EXPECT_EQ(parse_mma_type(mma_type_name(t)), t);
  EXPECT_FALSE(parse_mma_type("fp16").has_value());
}

TEST(MatrixLayout, PacksSubByteElementsLowBitsFirst) {
  HostMatrix m = make_matrix(row_major(MmaType::s4, 2, 4));
  ASSERT_EQ(m.bytes.size(), 4u);
  m.set(0, 0, 0x3);
  m.set(0, 1, 0xC);
  m.set(1, 3, 0x9);
  EXPECT_EQ(m.bytes[0], 0xC3);
  EXPECT_EQ(m.bytes[3], 0x90);
  EXPECT_EQ(m.value(0, 1), -4.0);
  HostMatrix bits = make_matrix(row_major(MmaType::b1, 1, 16));
  bits.set(0, 9, 1);
  EXPECT_EQ(bits.bytes[1], 0x02);
  // FP4 in an 8-bit container at bit 2 (the kind::f8f6f4 layout).
  MatrixDesc d = row_major(MmaType::e2m1, 1, 2);
  d.container_bits = 8;
  d.bit_offset = 2;
  HostMatrix c = make_matrix(d);
  c.set(0, 1, 0x7);
  EXPECT_EQ(c.bytes[1], 0x1C);
  EXPECT_EQ(c.value(0, 1), 6.0);
  EXPECT_THROW(c.value(1, 0), std::invalid_argument);
  d.bit_offset = 6;
  EXPECT_THROW(make_matrix(d).value(0, 0), std::invalid_argument) << "4 bits at offset 6 do not fit 8";
}

TEST(MmaReference, SmallFloatProductByHand) {
  // A = [1 2; 3 4], B = [5 6; 7 8] (col-major storage), C = [1 0; 0 -1].
  HostMatrix a = make_matrix(row_major(MmaType::f16, 2, 2)), b = make_matrix(col_major(MmaType::f16, 2, 2)),
             c = make_matrix(row_major(MmaType::f32, 2, 2));
  const double av[2][2]{{1, 2}, {3, 4}}, bv[2][2]{{5, 6}, {7, 8}}, cv[2][2]{{1, 0}, {0, -1}};
  for (int r = 0; r < 2; ++r)
    for (int col = 0; col < 2; ++col) {
      a.set(r, col, encode_element(MmaType::f16, av[r][col]));
      b.set(r, col, encode_element(MmaType::f16, bv[r][col]));
      c.set(r, col, encode_element(MmaType::f32, cv[r][col]));
    }
  EXPECT_EQ(b.bytes[2], 0x00) << "col-major: B(1,0) = 7 is the second element";
  EXPECT_EQ(decode_element(MmaType::f16, b.bytes[2] | (b.bytes[3] << 8)), 7.0);
  MmaProblem p{2, 2, 2, a.desc, a.bytes.data(), b.desc, b.bytes.data(), c.desc, c.bytes.data()};
  const ReferenceTile d = mma_reference(p);
  EXPECT_EQ(d.at(0, 0), 20.0);
  EXPECT_EQ(d.at(0, 1), 22.0);
  EXPECT_EQ(d.at(1, 0), 43.0);
  EXPECT_EQ(d.at(1, 1), 49.0);
  EXPECT_EQ(d.magnitude[0], 20.0);
  p.c_data = nullptr;
  EXPECT_EQ(mma_reference(p).at(1, 1), 50.0);
}

TEST(MmaReference, IntegerAndBinaryAreExact) {
  HostMatrix a = make_matrix(row_major(MmaType::s8, 1, 2)), b = make_matrix(row_major(MmaType::u8, 2, 1));
  a.set(0, 0, encode_element(MmaType::s8, -128));
  a.set(0, 1, encode_element(MmaType::s8, 127));
  b.set(0, 0, 255);
  b.set(1, 0, 3);
  MmaProblem p{1, 1, 2, a.desc, a.bytes.data(), b.desc, b.bytes.data()};
  EXPECT_EQ(mma_reference(p).at(0, 0), -128.0 * 255 + 127 * 3);

  HostMatrix x = make_matrix(row_major(MmaType::b1, 1, 8)), y = make_matrix(col_major(MmaType::b1, 8, 1));
  x.bytes[0] = 0b10110010;
  y.bytes[0] = 0b01110100;
  MmaProblem q{1, 1, 8, x.desc, x.bytes.data(), y.desc, y.bytes.data()};
  EXPECT_THROW(mma_reference(q), std::invalid_argument) << "b1 needs an operation";
  q.binary_op = BinaryOp::xor_popc;
  EXPECT_EQ(mma_reference(q).at(0, 0), 4.0);  // 0b11000110
  q.binary_op = BinaryOp::and_popc;
  EXPECT_EQ(mma_reference(q).at(0, 0), 2.0);  // 0b00110000
}

TEST(MmaReference, IntegerAccumulatorWrapsLikeS32) {
  HostMatrix a = make_matrix(row_major(MmaType::u8, 1, 2)), b = make_matrix(row_major(MmaType::u8, 2, 1));
  HostMatrix c = make_matrix(row_major(MmaType::s32, 1, 1));
  a.set(0, 0, 255);
  a.set(0, 1, 2);
  b.set(0, 0, 255);
  b.set(1, 0, 1);
  c.set(0, 0, encode_element(MmaType::s32, 2147483647.0 - 65025));  // INT32_MAX minus 255 * 255
  MmaProblem p{1, 1, 2, a.desc, a.bytes.data(), b.desc, b.bytes.data(), c.desc, c.bytes.data()};
  EXPECT_EQ(mma_reference(p).at(0, 0), -2147483647.0) << "INT32_MAX + 2 wraps to INT32_MIN + 1";
}

TEST(MmaReference, BlockScalesMultiplyTheirKBlocks) {
  HostMatrix a = make_matrix(row_major(MmaType::e2m1, 1, 4)), b = make_matrix(col_major(MmaType::e2m1, 4, 1));
  for (int k = 0; k < 4; ++k) {
    a.set(0, k, encode_element(MmaType::e2m1, 1.0));
    b.set(k, 0, encode_element(MmaType::e2m1, 2.0));
  }
  HostMatrix sa = make_matrix(row_major(MmaType::ue8m0, 1, 2)), sb = make_matrix(row_major(MmaType::ue8m0, 2, 1));
  sa.set(0, 0, 127);  // 1
  sa.set(0, 1, 128);  // 2
  sb.set(0, 0, 126);  // 0.5
  sb.set(1, 0, 129);  // 4
  MmaProblem p{1, 1, 4, a.desc, a.bytes.data(), b.desc, b.bytes.data()};
  p.scale_block = 2;
  p.scale_a = sa.desc;
  p.scale_a_data = sa.bytes.data();
  p.scale_b = sb.desc;
  p.scale_b_data = sb.bytes.data();
  // block 0: 2 * (1*2) * 1 * 0.5 = 2; block 1: 2 * (1*2) * 2 * 4 = 32
  EXPECT_EQ(mma_reference(p).at(0, 0), 34.0);
  p.scale_block = 3;
  EXPECT_THROW(mma_reference(p), std::invalid_argument);
}

TEST(MmaReference, RejectsMismatchedShapesAndTypes) {
  const HostMatrix a = random_matrix(row_major(MmaType::f16, 16, 16), 1), b = random_matrix(row_major(MmaType::f16, 16, 8), 2);
  MmaProblem p{16, 8, 16, a.desc, a.bytes.data(), b.desc, b.bytes.data()};
  EXPECT_NO_THROW(mma_reference(p));
  p.k = 8;
  EXPECT_THROW(mma_reference(p), std::invalid_argument);
  p.k = 16;
  const HostMatrix s = random_matrix(row_major(MmaType::s8, 16, 8), 3);
  p.b = s.desc;
  p.b_data = s.bytes.data();
  EXPECT_THROW(mma_reference(p), std::invalid_argument) << "f16 x s8";
  p.b = b.desc;
  p.b_data = b.bytes.data();
  p.binary_op = BinaryOp::xor_popc;
  EXPECT_THROW(mma_reference(p), std::invalid_argument) << "popc on f16";
}

TEST(TileCheck, NamesTheFirstBadElementAndCountsAll) {
  const HostMatrix a = random_matrix(row_major(MmaType::bf16, 4, 8), 11), b = random_matrix(row_major(MmaType::bf16, 8, 4), 12);
  const ReferenceTile ref = mma_reference(MmaProblem{4, 4, 8, a.desc, a.bytes.data(), b.desc, b.bytes.data()});
  std::vector<double> got = ref.value;
  const Tolerance tol = default_tolerance(MmaType::bf16, MmaType::f32, 8);
  EXPECT_TRUE(check_tile(ref, got, tol).ok);
  // A float-rounded result (what an f32 accumulator gives) passes.
  for (double& g : got) g = double(float(g));
  EXPECT_TRUE(check_tile(ref, got, tol).ok);
  got[6] += 0.25;
  got[9] = std::nan("");
  const TileCheck c = check_tile(ref, got, tol);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.bad, 2);
  EXPECT_EQ(c.row, 1);
  EXPECT_EQ(c.col, 2);
  EXPECT_NE(c.message.find("D[1][2]"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("2 of 16"), std::string::npos) << c.message;
  EXPECT_THROW(check_tile(ref, std::vector<double>(3), tol), std::invalid_argument);
}

TEST(TileCheck, ReadsADeviceTileThroughItsLayout) {
  const HostMatrix a = random_matrix(row_major(MmaType::s8, 2, 4), 5), b = random_matrix(col_major(MmaType::s8, 4, 2), 6);
  const ReferenceTile ref = mma_reference(MmaProblem{2, 2, 4, a.desc, a.bytes.data(), b.desc, b.bytes.data()});
  HostMatrix d = make_matrix(col_major(MmaType::s32, 2, 2));
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c) d.set(r, c, encode_element(MmaType::s32, ref.at(r, c)));
  const Tolerance exact = default_tolerance(MmaType::s8, MmaType::s32, 4);
  EXPECT_TRUE(check_tile(ref, d.desc, d.bytes.data(), exact).ok);
  d.set(1, 0, encode_element(MmaType::s32, ref.at(1, 0) + 1));
  const TileCheck c = check_tile(ref, d.desc, d.bytes.data(), exact);
  EXPECT_FALSE(c.ok) << "integers are exact: off by one fails";
  EXPECT_EQ(c.row, 1);
  EXPECT_EQ(c.col, 0);
}

TEST(Tolerance, Fp16AccumulatorIsLooserThanFp32) {
  EXPECT_EQ(default_tolerance(MmaType::s8, MmaType::s32, 32).rel, 0);
  EXPECT_GT(default_tolerance(MmaType::f16, MmaType::f16, 16).rel, default_tolerance(MmaType::f16, MmaType::f32, 16).rel);
  EXPECT_LT(default_tolerance(MmaType::f64, MmaType::f64, 4).rel, 1e-14);
}

}  // namespace
}  // namespace gd
