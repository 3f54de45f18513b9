// Parameter axes and their cartesian product: a probe declares axes, the executor walks points.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace gd {

using ParamValue = std::variant<std::int64_t, double, std::string>;

struct Axis {
  std::string name;
  std::vector<ParamValue> values;
  std::vector<ParamValue> quick_values;  // used by --quick; empty means "same as values"

  static Axis list(std::string name, std::vector<std::int64_t> values);
  static Axis list(std::string name, std::vector<std::string> values);
  // start, start+step, ... <= stop. step must be positive.
  static Axis range(std::string name, std::int64_t start, std::int64_t stop, std::int64_t step);
  // Powers of two from lo to hi inclusive; both must be powers of two with lo <= hi.
  static Axis pow2(std::string name, std::int64_t lo, std::int64_t hi);
  // n values log-spaced from lo to hi (inclusive), rounded to integers, duplicates removed.
  static Axis log_spaced(std::string name, std::int64_t lo, std::int64_t hi, int n);

  Axis&& quick(std::vector<std::int64_t> v) &&;
  Axis&& quick_list(std::vector<ParamValue> v) &&;
};

// One sweep point: ordered (name, value) pairs, in axis order.
using Params = std::vector<std::pair<std::string, ParamValue>>;

// Cartesian product of the axes, first axis outermost. No axes gives one empty point.
std::vector<Params> expand(const std::vector<Axis>& axes, bool quick);

std::string to_string(const ParamValue& v);
std::string to_string(const Params& p);  // "ilp=4 warps=8"
nlohmann::json to_json(const Params& p);
Params params_from_json(const nlohmann::json& j);  // throws std::invalid_argument
const ParamValue* find_param(const Params& p, const std::string& name);

}  // namespace gd
