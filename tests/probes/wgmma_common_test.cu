// The host side of the wgmma probes: the shared-memory layouts and descriptors of
// core/ptx_wgmma.cuh, the accumulator fragment map, and the tile check, which must pass a tile
// made from the reference itself and fail one with a single wrong element.
#include <algorithm>

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tensor/wgmma_common.cuh"

namespace gd::wgmma_probe {
namespace {

TEST(WgmmaLayout, EveryByteOfATileHasItsOwnPlace) {
  for (Swizzle s : {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128})
    for (unsigned rows : {8u, 64u, 256u}) {
      const unsigned row_bytes = 256;
      std::set<unsigned> seen;
      for (unsigned r = 0; r < rows; ++r)
        for (unsigned kb = 0; kb < row_bytes; ++kb) {
          const unsigned o = wgmma::kmajor_offset(r, kb, rows, s);
          EXPECT_LT(o, rows * row_bytes);
          seen.insert(o);
        }
      EXPECT_EQ(seen.size(), std::size_t(rows) * row_bytes) << "swizzle " << unsigned(s) << ", rows " << rows;
    }
}

TEST(WgmmaLayout, SwizzleXorsTheChunkWithTheRow) {
  // 128B: row r's 16-byte chunk c lands at chunk c ^ (r % 8) of the row's 128 bytes.
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 8; ++c)
      EXPECT_EQ(wgmma::kmajor_offset(r, 16 * c + 3, 64, Swizzle::B128), (r / 8) * 1024 + (r % 8) * 128 + 16 * (c ^ (r % 8)) + 3);
  // 64B: chunk c (0..3) of row r moves by (r / 2) % 4; 32B: by (r / 4) % 2.
  EXPECT_EQ(wgmma::kmajor_offset(2, 0, 64, Swizzle::B64), 2 * 64 + 16 * 1);
  EXPECT_EQ(wgmma::kmajor_offset(4, 16, 64, Swizzle::B32), 4 * 32 + 16 * 0);
  // None: 8 x 16-byte core matrices, 8-row groups 128 bytes apart, K chunks rows x 16 apart.
  EXPECT_EQ(wgmma::kmajor_offset(9, 17, 64, Swizzle::None), 1 * 64 * 16 + 1 * 128 + 1 * 16 + 1);
}

TEST(WgmmaLayout, DescriptorFields) {
  const std::uint64_t d = wgmma::kmajor_desc(0x400, 64, 64, Swizzle::B128);
  EXPECT_EQ(d & 0x3FFF, (0x400u + 64) >> 4);      // start: within the first atom column
  EXPECT_EQ((d >> 16) & 0x3FFF, 1u);             // LBO unused for swizzled K-major
  EXPECT_EQ((d >> 32) & 0x3FFF, 1024u >> 4);     // SBO: one 8-row atom
  EXPECT_EQ(d >> 62, 1u);                        // 128B swizzle
  const std::uint64_t n = wgmma::kmajor_desc(0x400, 32, 64, Swizzle::None);
  EXPECT_EQ(n & 0x3FFF, (0x400u + 2 * 64 * 16) >> 4);
  EXPECT_EQ((n >> 16) & 0x3FFF, (64u * 16) >> 4);
  EXPECT_EQ((n >> 32) & 0x3FFF, 128u >> 4);
  EXPECT_TRUE(wgmma::kmajor_slice_fits(96, 32, Swizzle::B128));
  EXPECT_FALSE(wgmma::kmajor_slice_fits(64, 64, Swizzle::B32));
}

TEST(WgmmaFragment, AccumulatorRegistersCoverTheTileOnce) {
  for (int per8 : {4, 2}) {
    const int n = 256, regs = n / 8 * per8;
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < kWarpgroupThreads; ++t)
      for (int i = 0; i < regs; ++i) {
        const auto [r, c] = fragment_coord(t, i, per8);
        ASSERT_LT(r, 64);
        ASSERT_LT(c, n);
        seen.insert({r, c});
        if (per8 == 2) seen.insert({r, c + 1});
      }
    EXPECT_EQ(seen.size(), std::size_t(64) * n);
  }
}

// The registers a correct wgmma loop leaves: C + A B over `u` steps, from the reference.
std::vector<std::uint32_t> ideal_registers(const OpRow& r, int n, const Operands& o, int u) {
  const ReferenceTile ref = reference_tile(r, n, o, u);
  const int regs = n / 8 * r.regs_per_8_cols;
  std::vector<std::uint32_t> out(std::size_t(kWarpgroupThreads) * regs);
  for (int t = 0; t < kWarpgroupThreads; ++t)
    for (int i = 0; i < regs; ++i) {
      const auto [row, col] = fragment_coord(t, i, r.regs_per_8_cols);
      if (r.regs_per_8_cols == 2) {
        out[t * regs + i] = std::uint32_t(encode_element(MmaType::f16, ref.at(row, col)) |
                                          encode_element(MmaType::f16, ref.at(row, col + 1)) << 16);
      } else if (r.acc == MmaType::s32) {
        out[t * regs + i] = std::uint32_t(std::int32_t(ref.at(row, col)));
      } else {
        const float f = float(ref.at(row, col));
        std::memcpy(&out[t * regs + i], &f, 4);
      }
    }
  return out;
}

TEST(WgmmaCheck, ReferenceRegistersPassAndOneWrongElementFails) {
  for (const OpRow& r : op_rows()) {
    const int n = 32;
    const Operands o = make_operands(r, n, Swizzle::B128, Fill::Random, 7);
    for (int u : {1, kSteps}) {
      std::vector<std::uint32_t> regs = ideal_registers(r, n, o, u);
      EXPECT_EQ(tile_mismatch(r, n, o, regs, u), "") << r.name << " u=" << u;
      regs[5] ^= 0x40000000u;  // a large change in one element, whatever its type
      EXPECT_NE(tile_mismatch(r, n, o, regs, u), "") << r.name << " u=" << u;
    }
  }
}

TEST(WgmmaOperands, SparseAKeepsElementsOneAndThreeOfEachGroup) {
  const OpRow& r = op_named("f16_f32_sparse");
  const Operands o = make_operands(r, 16, Swizzle::B128, Fill::Random, 3);
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < kSteps * r.k; ++k)
      if (k % 4 == 0 || k % 4 == 2) EXPECT_EQ(o.a.bits(i, k), 0u) << i << "," << k;
}

TEST(WgmmaOperands, MirroredStepsCancel) {
  // Steps 2 and 3 repeat A's steps 0 and 1 against B negated: A B over all four steps is 0.
  const OpRow& r = op_named("f16_f32");
  const Operands o = make_operands(r, 16, Swizzle::B128, Fill::Mirrored, 11);
  MmaProblem pb;
  pb.m = 64;
  pb.n = 16;
  pb.k = kSteps * r.k;
  pb.a = o.a.desc;
  pb.a_data = o.a.bytes.data();
  pb.b = o.b.desc;
  pb.b_data = o.b.bytes.data();
  // Zero operands would cancel too: the test needs non-zero A and B and a full tile.
  const auto nonzero = [](const std::vector<std::uint8_t>& b) {
    return std::any_of(b.begin(), b.end(), [](std::uint8_t x) { return x != 0; });
  };
  ASSERT_TRUE(nonzero(o.a.bytes));
  ASSERT_TRUE(nonzero(o.b.bytes));
  const ReferenceTile ref = mma_reference(pb);
  ASSERT_EQ(ref.value.size(), std::size_t(pb.m * pb.n));
  for (double v : ref.value) EXPECT_NEAR(v, 0.0, 1e-9);
}

TEST(WgmmaOperands, RepeatHoldsOneKStepInAllFour) {
  const OpRow& r = op_named("e4m3_f32");
  const Operands o = make_operands(r, 16, Swizzle::B128, Fill::Repeat, 5);
  bool varied = false;
  for (int i = 0; i < 64; ++i)
    for (int k = 0; k < kSteps * r.k; ++k) {
      EXPECT_EQ(o.a.bits(i, k), o.a.bits(i, k % r.k));
      varied |= o.a.bits(i, k) != o.a.bits(0, 0);
    }
  for (int j = 0; j < 16; ++j)
    for (int k = 0; k < kSteps * r.k; ++k) EXPECT_EQ(o.b.bits(k, j), o.b.bits(k % r.k, j));
  EXPECT_TRUE(varied);  // still random within the step
}

TEST(WgmmaOperands, UnknownNamesAreClearErrors) {
  EXPECT_THROW(op_named("f8"), UserError);
}

}  // namespace
}  // namespace gd::wgmma_probe
