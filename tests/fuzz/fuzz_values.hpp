// Shared by the structure-aware fuzz targets: values drawn from the fuzz input with a bias to the
// edges (extreme numbers, long and odd strings, values of the wrong type, deep nesting).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

namespace gd_fuzz {

using nlohmann::json;

inline double edge_double(FuzzedDataProvider& in) {
  static constexpr double kEdges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 262.0, 1980.0, 1e-300, 4.9e-324, 1e300,
                                      std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(), 9007199254740993.0, 1e15, -1e-9};
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return in.PickValueInArray(kEdges);
    case 1: return in.ConsumeFloatingPoint<double>();
    case 2: return double(in.ConsumeIntegralInRange<int>(-4, 4096));
    default: return in.ConsumeFloatingPointInRange<double>(0, 5000);
  }
}

inline std::int64_t edge_int(FuzzedDataProvider& in) {
  static constexpr std::int64_t kEdges[] = {0, 1, -1, 2, 32, 64, 132, 1024, 4096, 1 << 20,
                                            std::numeric_limits<std::int32_t>::max(),
                                            std::numeric_limits<std::int32_t>::min(),
                                            std::int64_t(1) << 31, std::int64_t(1) << 32, std::int64_t(1) << 53,
                                            std::numeric_limits<std::int64_t>::max(),
                                            std::numeric_limits<std::int64_t>::min()};
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: return in.PickValueInArray(kEdges);
    case 1: return in.ConsumeIntegral<std::int64_t>();
    default: return in.ConsumeIntegralInRange<std::int64_t>(-2, 4096);
  }
}

// Short text from the input, sometimes very long, sometimes not valid UTF-8 (the writers must
// replace, not throw), sometimes one of the characters Markdown tables and CSV treat specially.
inline std::string edge_string(FuzzedDataProvider& in) {
  static constexpr const char* kSpecial[] = {"", "|", "\"", ",", "\n", "=cmd()", "-1.5", "+", "@x", "\t", "\r\n",
                                             "a|b\nc", "\xff\xfe", "\xc3", "<script>", "`", "#", "nan", "inf",
                                             "{}", "[]", "null", "../x"};
  switch (in.ConsumeIntegralInRange<int>(0, 23)) {
    case 0: case 1: case 2: case 3: return in.PickValueInArray(kSpecial);
    case 4: {
      const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 1 << 16);
      return std::string(n, char(in.ConsumeIntegral<char>()));
    }
    default: return in.ConsumeRandomLengthString(64);
  }
}

// Any JSON value, nested at most `depth` levels; containers stay small so that an input costs
// what it says. `budget` bounds the nodes of one value.
inline json any_json(FuzzedDataProvider& in, int depth, int& budget) {
  if (--budget <= 0) return nullptr;
  const int kind = in.ConsumeIntegralInRange<int>(0, depth > 0 ? 8 : 5);
  switch (kind) {
    case 0: return nullptr;
    case 1: return in.ConsumeBool();
    case 2: return edge_int(in);
    case 3: return edge_double(in);
    case 4: return std::numeric_limits<std::uint64_t>::max() - in.ConsumeIntegralInRange<std::uint64_t>(0, 3);
    case 5: return edge_string(in);
    case 6: {  // a chain: one value nested `depth` deep (run files nest 8; the reader refuses past 64)
      const int levels = in.ConsumeIntegralInRange<int>(1, depth);
      json leaf = edge_string(in);
      for (int i = 0; i < levels; ++i) leaf = (i % 2) ? json::array({std::move(leaf)}) : json{{"k", std::move(leaf)}};
      return leaf;
    }
    case 7: {
      json a = json::array();
      const int n = in.ConsumeIntegralInRange<int>(0, 6);
      for (int i = 0; i < n && budget > 0; ++i) a.push_back(any_json(in, depth - 1, budget));
      return a;
    }
    default: {
      json o = json::object();
      const int n = in.ConsumeIntegralInRange<int>(0, 6);
      for (int i = 0; i < n && budget > 0; ++i) o[edge_string(in)] = any_json(in, depth - 1, budget);
      return o;
    }
  }
}

// `good` most of the time; otherwise a value of any type in its place.
inline json maybe_mutate(FuzzedDataProvider& in, json good, int depth, int& budget) {
  if (in.ConsumeIntegralInRange<int>(0, 15) != 0) return good;
  return any_json(in, depth, budget);
}

}  // namespace gd_fuzz
