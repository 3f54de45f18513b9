#include "analysis/ncu_counters.hpp"

#include <gtest/gtest.h>

namespace gd {
namespace {

TEST(NcuCounters, FindsTheMetricOfTheMatchingKernel) {
  const nlohmann::json extra = {{"ncu",
                                 {{"fill_source_kernel", {{"lts__t_sectors_op_read.sum", 5.0}}},
                                  {"void multicast_ring_kernel<2>(...)", {{"lts__t_sectors_op_read.sum", 1234.0}}}}}};
  EXPECT_EQ(ncu_counter(extra, "multicast_ring_kernel", "lts__t_sectors_op_read.sum"), 1234.0);
  EXPECT_EQ(ncu_counter(extra, "fill_source", "lts__t_sectors_op_read.sum"), 5.0);
}

TEST(NcuCounters, AbsentWhenNoCountersKernelOrMetric) {
  EXPECT_FALSE(ncu_counter(nlohmann::json::object(), "k", "m"));
  EXPECT_FALSE(ncu_counter(nlohmann::json{{"ncu", "note"}}, "k", "m"));
  const nlohmann::json extra = {{"ncu", {{"kernel_a", {{"m", "n/a"}}}}}};
  EXPECT_FALSE(ncu_counter(extra, "kernel_b", "m"));
  EXPECT_FALSE(ncu_counter(extra, "kernel_a", "other"));
  EXPECT_FALSE(ncu_counter(extra, "kernel_a", "m"));  // not a number
}

}  // namespace
}  // namespace gd
