// The host side of the warp-specialized producer/consumer probe (sass.setmaxnreg.producer_consumer):
// each consumer warp group's result depends on exactly the tiles it takes (every C-th of its
// CTA's), so the probe's bit-for-bit check tells a wrong ring (a stage read by the wrong group,
// a stale tile) from a right one.
#include <gtest/gtest.h>

#include <vector>

#include "sass/warp_specialized.cuh"

namespace gd::warp_specialized {
namespace {

constexpr int kSrcTiles = 8, kTilesPerConsumer = 3;

std::vector<float> source() {
  std::vector<float> s(std::size_t(kSrcTiles) * kTileFloats);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = i % 2 ? float(int(i % 7) - 3) * 0.125f : 0.5f + float(i % 5) * 0.0625f;
  return s;
}

TEST(WarpSpecializedReference, EachConsumerDependsOnlyOnItsOwnTiles) {
  const std::vector<float> base = source();
  // CTA 1 with two consumers streams tiles (6 + t) % 8 for t = 0..5: consumer 0 takes t = 0, 2, 4
  // (source tiles 6, 0, 2), consumer 1 takes t = 1, 3, 5 (7, 1, 3).
  EXPECT_EQ(ws_tile(1, 6, 0, kSrcTiles), 6);
  EXPECT_EQ(ws_tile(1, 6, 3, kSrcTiles), 1);
  const int lane = 5;
  const unsigned c0 = ws_reference<2>(base, kSrcTiles, kTilesPerConsumer, 1, 0, lane);
  const unsigned c1 = ws_reference<2>(base, kSrcTiles, kTilesPerConsumer, 1, 1, lane);
  std::vector<float> changed = base;
  changed[std::size_t(7) * kTileFloats + lane * 4] *= 0.75f;  // source tile 7: consumer 1's, lane 5's first float
  EXPECT_EQ(ws_reference<2>(changed, kSrcTiles, kTilesPerConsumer, 1, 0, lane), c0);
  EXPECT_NE(ws_reference<2>(changed, kSrcTiles, kTilesPerConsumer, 1, 1, lane), c1);
  // Another lane's float of the same tile leaves lane 5 alone.
  std::vector<float> other = base;
  other[std::size_t(7) * kTileFloats + 6 * 4] *= 0.75f;
  EXPECT_EQ(ws_reference<2>(other, kSrcTiles, kTilesPerConsumer, 1, 1, lane), c1);
  // A tile no consumer of CTA 1 streams (4 and 5) changes nothing.
  std::vector<float> unused = base;
  unused[std::size_t(4) * kTileFloats + lane * 4] *= 0.75f;
  EXPECT_EQ(ws_reference<2>(unused, kSrcTiles, kTilesPerConsumer, 1, 0, lane), c0);
  EXPECT_EQ(ws_reference<2>(unused, kSrcTiles, kTilesPerConsumer, 1, 1, lane), c1);
}

TEST(WarpSpecializedReference, OneConsumerTakesEveryTileAndTheBudgetsAddUp) {
  const std::vector<float> base = source();
  const unsigned all = ws_reference<1>(base, kSrcTiles, kTilesPerConsumer, 0, 0, 0);
  std::vector<float> changed = base;
  changed[std::size_t(2) * kTileFloats + 3] *= 0.5f;  // tile 2, lane 0's second pair's addend
  EXPECT_NE(ws_reference<1>(changed, kSrcTiles, kTilesPerConsumer, 0, 0, 0), all);
  // setmaxnreg moves registers within the CTA's pool: producer + consumers = warp groups x launch budget.
  EXPECT_EQ(WsShape<1>::producer_regs + WsShape<1>::consumer_regs, 2 * (65536 / (WsShape<1>::threads * WsShape<1>::ctas_per_sm)));
  EXPECT_EQ(WsShape<2>::producer_regs + 2 * WsShape<2>::consumer_regs, 3 * 168);
  // The accumulators fit the consumer budget after setmaxnreg (with room for 16 tile floats and
  // addresses) and not the launch budget: the comparison is spills against none.
  EXPECT_LE(WsShape<2>::acc + 16 + 8, WsShape<2>::consumer_regs);
  EXPECT_GT(WsShape<2>::acc, 168 - 16);
  EXPECT_LE(WsShape<1>::acc + 16 + 8, WsShape<1>::consumer_regs);
  EXPECT_GT(WsShape<1>::acc, 128 - 16);
}

}  // namespace
}  // namespace gd::warp_specialized
