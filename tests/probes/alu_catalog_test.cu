// The latency.alu catalog's table itself: every row is well formed, its host reference (the same
// step the device runs) is deterministic, and its operands keep a full-length chain finite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>

#include "compute/alu_streams.cuh"
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

TEST(AluCatalog, HasAtLeastSixtyRowsWithUniqueNamesAndTags) {
  std::set<std::string> names, tags;
  int rows = 0;
  for_each_variant([&](auto* row) {
    using Op = std::remove_pointer_t<decltype(row)>;
    ++rows;
    EXPECT_TRUE(names.insert(Op::name).second) << "duplicate name " << Op::name;
    EXPECT_TRUE(tags.insert(Op::tag).second) << "duplicate tag " << Op::tag;
  });
  EXPECT_GE(rows, 60) << "issue 7: at least 60 distinct instruction types";
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
      EXPECT_GE(int(op.per_step * 32) + op.in_routine, 1) << Op::name << ": " << op.opcode << " would be expected 0 times";
    }
    if (Op::min_cc > 0 && Op::max_cc > 0) EXPECT_LE(Op::min_cc, Op::max_cc) << Op::name;
  });
}

// The bounds a kernel of `steps` steps gets: a chain of twice the steps (or a step compiled to
// twice the row's instructions) exceeds them, at every length the probes compile (the chains',
// the streams' trips and the pair kernel's). A row naming a range per step (max_per_step)
// cannot promise that and says so by the range.
TEST(AluCatalog, DoubledChainsExceedTheBounds) {
  for_each_variant([&](auto* row) {
    using Op = std::remove_pointer_t<decltype(row)>;
    for (int steps : {32, 64, 128, 256, alu_streams::steps_per_trip<Op, 8>(), alu_streams::pair_steps_per_trip<Op>()}) {
      const auto req = expected_opcodes<Op>(steps);
      const auto ops = Op::sass();
      ASSERT_EQ(req.size(), ops.size());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        EXPECT_LE(req[i].min, req[i].max) << Op::name << " " << req[i].opcode;
        if (ops[i].max_per_step >= 0) continue;
        const int doubled = 2 * int(ops[i].per_step * steps) + ops[i].in_routine;
        if (ops[i].per_step > 0) EXPECT_GT(doubled, req[i].max) << Op::name << " " << req[i].opcode << " at " << steps;
      }
    }
  });
  // The CALL step's routine is listed once: its count is exact however long the chain.
  const auto div = expected_opcodes<Udiv64>(256);
  const auto i2f = std::find_if(div.begin(), div.end(), [](const auto& r) { return r.opcode == "I2F.U64.RP"; });
  ASSERT_NE(i2f, div.end());
  EXPECT_EQ(i2f->min, 1);
  EXPECT_EQ(i2f->max, 1);
  EXPECT_TRUE(chain_sass<Udiv64>("k", 32).callees) << "the routine a CALL step runs is checked";
  EXPECT_FALSE(chain_sass<Ffma>("k", 32).callees);
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
  EXPECT_EQ(ptx::bfe_u32(0xabcd1234u, 4u, 8u), 0x23u);
  EXPECT_EQ(ptx::bfe_u32(0xabcd1234u, 40u, 8u), 0u) << "a start past bit 31 extracts nothing";
  EXPECT_EQ(ptx::bfi_b32(0x5u, 0xffffffffu, 4u), 0xfffff5ffu);
  EXPECT_EQ(ptx::clz32(1u), 31u);
  EXPECT_EQ(ptx::clz32(0u), 32u);
  EXPECT_EQ(ptx::f32_e4m3_f32(0.3f), 0.3125f) << "3 mantissa bits: 1.2 rounds to 1.25";
  EXPECT_EQ(ptx::f32_e4m3_f32(1000.0f), 448.0f) << "satfinite clamps to e4m3's largest finite value";
  EXPECT_EQ(ptx::f32_e5m2_f32(1000.0f), 1024.0f) << "2 mantissa bits: 1.95 rounds to 2";
  EXPECT_EQ(ptx::redux_add(3u), 96u) << "32 equal lanes";
  EXPECT_EQ(ptx::hmma_acc(1.0f, 1.0f, 0.5f), 5.0f) << "x + 8 a b";
  EXPECT_EQ(ptx::udiv32(100u, 7u), 14u);
  EXPECT_EQ(ptx::urem32(100u, 7u), 2u);
}

// The throughput kernels' shape: every row fills its trips with whole chains at every ILP, and
// a software sequence runs fewer steps per trip than a single instruction.
TEST(AluCatalog, StepsPerTripDivideOverEveryIlp) {
  for_each_variant([&](auto* row) {
    using Op = std::remove_pointer_t<decltype(row)>;
    EXPECT_GE(Op::steps_per_trip, 8) << Op::name;
    EXPECT_EQ(Op::steps_per_trip % 8, 0) << Op::name << ": ILP 8 would not divide a trip";
  });
  EXPECT_LT(FdivRn::steps_per_trip, Ffma::steps_per_trip);
}

// The tensor reference of the pipe probes is the pure HMMA chain: B = 0 keeps D = C, and the
// host model refuses anything else rather than guess.
TEST(AluCatalog, PureHmmaReferenceIsTheIdentityOnlyForZeroB) {
  EXPECT_EQ(ptx::hmma_f16_acc(0x3c003c003c003c00ull, 0x4000400040004000ull, 0), 0x3c003c003c003c00ull);
  EXPECT_NE(ptx::hmma_f16_acc(0x3c003c003c003c00ull, 0x4000400040004000ull, 1), 0x3c003c003c003c00ull);
}

}  // namespace
}  // namespace gd::alu_catalog
