// The latency.alu catalog's table itself: every row is well formed, its host reference (the same
// step the device runs) is deterministic, and its operands keep a full-length chain finite.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>

#include "latency/alu_catalog.cuh"

namespace gd::alu_catalog {
namespace {

constexpr int kLongestChain = 64 * 256;  // alu.cu's trips times its largest unroll

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class Op>
typename Op::T run_chain(std::uint64_t seed, int steps) {
  Rng rng(seed);
  const auto [x0, a, b] = Op::inputs(rng);
  typename Op::T x = x0;
  for (int i = 0; i < steps; ++i) x = Op::step(x, a, b);
  return x;
}

TEST(AluCatalog, HasAtLeastFortyRowsWithUniqueNamesAndTags) {
  std::set<std::string> names, tags;
  int rows = 0;
  for_each_variant([&](auto* row) {
    using Op = std::remove_pointer_t<decltype(row)>;
    ++rows;
    EXPECT_TRUE(names.insert(Op::name).second) << "duplicate name " << Op::name;
    EXPECT_TRUE(tags.insert(Op::tag).second) << "duplicate tag " << Op::tag;
  });
  EXPECT_GE(rows, 40);
  for (const char* kept : {"ffma", "iadd3", "imad", "lop3"}) EXPECT_TRUE(names.count(kept)) << kept << " must stay";
}

TEST(AluCatalog, EveryRowDeclaresItsSassAndARange) {
  for_each_variant([&](auto* row) {
    using Op = std::remove_pointer_t<decltype(row)>;
    EXPECT_NE(std::string(Op::description), "") << Op::name;
    const auto ops = Op::sass();
    EXPECT_FALSE(ops.empty()) << Op::name << " names no opcode for its chain";
    for (const auto& op : ops) {
      EXPECT_NE(std::string(op.opcode), "") << Op::name;
      EXPECT_GE(int(op.per_step * 32), 1) << Op::name << ": " << op.opcode << " would be expected 0 times";
    }
    if (Op::min_cc > 0 && Op::max_cc > 0) EXPECT_LE(Op::min_cc, Op::max_cc) << Op::name;
  });
}

TEST(AluCatalog, HostReferenceIsDeterministicAndStaysFinite) {
  for_each_variant([&](auto* row) {
    using Op = std::remove_pointer_t<decltype(row)>;
    using T = typename Op::T;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const T first = run_chain<Op>(seed, kLongestChain);
      EXPECT_TRUE(same_bits(first, run_chain<Op>(seed, kLongestChain))) << Op::name << " seed " << seed;
      bool finite = true;  // (an assertion inside `if constexpr` here trips nvcc's front end)
      if constexpr (std::is_floating_point_v<T>) finite = std::isfinite(first);
      EXPECT_TRUE(finite) << Op::name << " seed " << seed << " ends at " << first;
    }
  });
}

// Spot checks of host models against values worked out by hand, so a model cannot drift into
// agreeing with a wrong device result.
TEST(AluCatalog, HostModelsMatchHandWorkedValues) {
  EXPECT_EQ(ptx::prmt(0x44332211u, 0x88776655u, 0x7340u), 0x88445511u);
  EXPECT_EQ(ptx::prmt(0x00000080u, 0u, 0x4448u), 0xffu) << "bit 3 replicates the sign";
  EXPECT_EQ(ptx::shf_l_wrap(0x80000001u, 0xf0000000u, 4u), 0x1fu);
  EXPECT_EQ(ptx::shf_r_wrap(0x0000000fu, 0x00000010u, 4u), 0xf0000001u);
  EXPECT_EQ(ptx::bmsk_wrap(4u, 3u), 0x70u);
  EXPECT_EQ(ptx::bfind(0u), 0xffffffffu);
  EXPECT_EQ(ptx::bfind(0x10u), 4u);
  EXPECT_EQ(ptx::dp4a_u32(0x01020304u, 0x01010101u, 5u), 15u);
  EXPECT_EQ(ptx::vabsdiffu4(0x0510ff00u, 0x10050001u), 0x0b0bff01u);
  EXPECT_EQ(ptx::hadd2(0x3c003c00u, 0x3c00bc00u, 0u), 0x40000000u) << "1+1 = 2 and 1-1 = 0, per lane";
}

}  // namespace
}  // namespace gd::alu_catalog
