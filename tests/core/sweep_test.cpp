#include "core/sweep.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace gd {
namespace {

std::vector<std::int64_t> ints(const Axis& a) {
  std::vector<std::int64_t> v;
  for (const auto& x : a.values) v.push_back(std::get<std::int64_t>(x));
  return v;
}

TEST(Axis, Pow2IncludesBothEnds) {
  EXPECT_EQ(ints(Axis::pow2("w", 4, 64)), (std::vector<std::int64_t>{4, 8, 16, 32, 64}));
  EXPECT_THROW(Axis::pow2("w", 3, 64), std::invalid_argument);
  EXPECT_THROW(Axis::pow2("w", 64, 4), std::invalid_argument);
}

TEST(Axis, RangeStepsUpToStop) {
  EXPECT_EQ(ints(Axis::range("r", 1, 10, 4)), (std::vector<std::int64_t>{1, 5, 9}));
  EXPECT_THROW(Axis::range("r", 1, 10, 0), std::invalid_argument);
}

TEST(Axis, LogSpacedHitsEndsAndIsStrictlyIncreasing) {
  const auto v = ints(Axis::log_spaced("bytes", 1024, 1 << 20, 11));
  ASSERT_EQ(v.size(), 11u);
  EXPECT_EQ(v.front(), 1024);
  EXPECT_EQ(v.back(), 1 << 20);
  for (std::size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i], v[i - 1] * 2);
}

TEST(Axis, LogSpacedDropsDuplicatesFromRounding) {
  const auto v = ints(Axis::log_spaced("n", 1, 3, 10));
  EXPECT_EQ(v, (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(Expand, CartesianProductFirstAxisOutermost) {
  const auto pts = expand({Axis::list("a", {1, 2}), Axis::list("b", std::vector<std::string>{"x", "y", "z"})}, false);
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(to_string(pts[0]), "a=1 b=x");
  EXPECT_EQ(to_string(pts[5]), "a=2 b=z");
}

TEST(Expand, QuickUsesQuickValuesWhereGiven) {
  const auto pts = expand({std::move(Axis::list("a", {1, 2, 3, 4})).quick({4}), Axis::list("b", {7, 8})}, true);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(to_string(pts[0]), "a=4 b=7");
}

TEST(Expand, NoAxesGivesOneEmptyPoint) {
  const auto pts = expand({}, false);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_TRUE(pts[0].empty());
}

TEST(Params, JsonRoundTripKeepsTypes) {
  const Params p{{"bytes", ParamValue{std::int64_t(4096)}}, {"variant", ParamValue{std::string("ca")}},
                 {"scale", ParamValue{0.5}}};
  const Params q = params_from_json(to_json(p));
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(std::get<std::int64_t>(*find_param(q, "bytes")), 4096);
  EXPECT_EQ(std::get<std::string>(*find_param(q, "variant")), "ca");
  EXPECT_DOUBLE_EQ(std::get<double>(*find_param(q, "scale")), 0.5);
  EXPECT_EQ(find_param(q, "missing"), nullptr);
}

TEST(Params, JsonRejectsNestedValues) {
  EXPECT_THROW(params_from_json(nlohmann::json{{"a", {1, 2}}}), std::invalid_argument);
  EXPECT_THROW(params_from_json(nlohmann::json::array()), std::invalid_argument);
}

}  // namespace
}  // namespace gd

namespace gd {
namespace {

TEST(AxisOverride, ParsesProbeAxisAndValues) {
  const AxisOverride o = parse_axis_override("memory.latency.chase:bytes=4K..64M");
  EXPECT_EQ(o.probe, "memory.latency.chase");
  EXPECT_EQ(o.axis, "bytes");
  EXPECT_EQ(o.values, "4K..64M");
  EXPECT_EQ(parse_axis_override("*.alu.*:x=1,2").probe, "*.alu.*");
  for (const char* bad : {"bytes=1", "p:=1", "p:x=", ":x=1", "p.x.1"})
    EXPECT_THROW(parse_axis_override(bad), std::invalid_argument) << bad;
}

TEST(AxisOverride, KeepsOnlyDeclaredValues) {
  const Axis bytes = Axis::pow2("bytes", 1024, 1 << 30);
  const Axis r = restrict_axis(bytes, "4K..64M");
  ASSERT_EQ(r.values.size(), 15u);  // 4 KiB ... 64 MiB in powers of two
  EXPECT_EQ(std::get<std::int64_t>(r.values.front()), 4096);
  EXPECT_EQ(std::get<std::int64_t>(r.values.back()), 64LL << 20);
  EXPECT_EQ(r.quick_values.size(), r.values.size()) << "the user's choice holds in --quick";
  EXPECT_EQ(restrict_axis(bytes, "2K, 1G").values.size(), 2u);
  EXPECT_THROW(restrict_axis(bytes, "3000"), std::invalid_argument) << "not declared: never run";
  EXPECT_THROW(restrict_axis(bytes, "2G..4G"), std::invalid_argument) << "a range that selects nothing";
  EXPECT_THROW(restrict_axis(bytes, "9..1"), std::invalid_argument);
  const Axis ops = Axis::list("op", std::vector<std::string>{"read", "write"});
  EXPECT_EQ(to_string(restrict_axis(ops, "write").values.at(0)), "write");
  try {
    restrict_axis(ops, "copy");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("declared: read, write"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gd
