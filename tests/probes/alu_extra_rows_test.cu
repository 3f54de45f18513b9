// Rows kept beside the catalog (latency/alu_extra_rows.cuh): their host references stay finite
// over the longest chain the latency probes run, so the device result is checked against a number.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "latency/alu_extra_rows.cuh"

namespace gd::alu_extra_rows {
namespace {

TEST(AluExtraRows, ExpfChainContractsToItsFixedPoint) {
  Rng rng(7);
  const auto [x0, a, b] = Expf::inputs(rng);
  float x = x0;
  for (int i = 0; i < 64 * 256; ++i) x = Expf::step(x, a, b);
  ASSERT_TRUE(std::isfinite(x));
  EXPECT_NEAR(x, 0.567143f, 1e-5) << "x = e^-x converges to the omega constant";
}

TEST(AluExtraRows, ExpfNamesTheSfuInstructionItCompilesTo) {
  bool ex2 = false;
  for (const auto& o : Expf::sass()) ex2 |= std::string(o.opcode) == "MUFU.EX2";
  EXPECT_TRUE(ex2);
}

}  // namespace
}  // namespace gd::alu_extra_rows
