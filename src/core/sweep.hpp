// Parameter axes and their cartesian product: a probe declares axes, the executor walks points.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/json.hpp"

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

// A command-line restriction of one probe's axis (gpudissect run --axis PROBE:AXIS=VALUES, as
// nvbench's -a): PROBE is an id or glob, VALUES a comma list of declared values or a range
// LO..HI (integers, K/M/G = 2^10/2^20/2^30) selecting the declared values within it.
struct AxisOverride {
  std::string probe, axis, values;
};
AxisOverride parse_axis_override(const std::string& text);  // throws std::invalid_argument
// The axis keeping only the declared values `values` selects (for --quick too). Never adds a
// value the probe did not declare: a probe may only support what it instantiated. Throws
// std::invalid_argument naming the axis and its declared values when a value is not declared
// or a range selects nothing.
Axis restrict_axis(const Axis& axis, const std::string& values);

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
