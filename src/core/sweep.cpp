#include "core/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace gd {

Axis Axis::list(std::string name, std::vector<std::int64_t> values) {
  if (values.empty()) throw std::invalid_argument("axis " + name + ": empty value list");
  return Axis{std::move(name), {values.begin(), values.end()}, {}};
}

Axis Axis::list(std::string name, std::vector<std::string> values) {
  if (values.empty()) throw std::invalid_argument("axis " + name + ": empty value list");
  return Axis{std::move(name), {values.begin(), values.end()}, {}};
}

Axis Axis::range(std::string name, std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step <= 0) throw std::invalid_argument("axis " + name + ": range step must be positive");
  if (stop < start) throw std::invalid_argument("axis " + name + ": range stop < start");
  Axis a{std::move(name), {}, {}};
  for (std::int64_t v = start; v <= stop; v += step) a.values.emplace_back(v);
  return a;
}

static bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Axis Axis::pow2(std::string name, std::int64_t lo, std::int64_t hi) {
  if (!is_pow2(lo) || !is_pow2(hi) || lo > hi)
    throw std::invalid_argument("axis " + name + ": pow2 bounds must be powers of two, lo <= hi");
  Axis a{std::move(name), {}, {}};
  for (std::int64_t v = lo; v <= hi; v *= 2) a.values.emplace_back(v);
  return a;
}

Axis Axis::log_spaced(std::string name, std::int64_t lo, std::int64_t hi, int n) {
  if (lo <= 0 || hi < lo || n < 1)
    throw std::invalid_argument("axis " + name + ": log_spaced needs 0 < lo <= hi and n >= 1");
  Axis a{std::move(name), {}, {}};
  std::vector<std::int64_t> v;
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? 0.0 : double(i) / double(n - 1);
    v.push_back(std::llround(std::exp(std::log(double(lo)) + t * (std::log(double(hi)) - std::log(double(lo))))));
  }
  v.erase(std::unique(v.begin(), v.end()), v.end());
  a.values.assign(v.begin(), v.end());
  return a;
}

Axis&& Axis::quick_list(std::vector<ParamValue> v) && {
  quick_values = std::move(v);
  return std::move(*this);
}

Axis&& Axis::quick(std::vector<std::int64_t> v) && {
  quick_values.assign(v.begin(), v.end());
  return std::move(*this);
}

std::vector<Params> expand(const std::vector<Axis>& axes, bool quick) {
  std::vector<Params> points{Params{}};
  for (const Axis& axis : axes) {
    const auto& values = (quick && !axis.quick_values.empty()) ? axis.quick_values : axis.values;
    if (values.empty()) throw std::invalid_argument("axis " + axis.name + " has no values");
    std::vector<Params> next;
    next.reserve(points.size() * values.size());
    for (const Params& p : points)
      for (const ParamValue& v : values) {
        Params q = p;
        q.emplace_back(axis.name, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::string to_string(const ParamValue& v) {
  if (auto i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (auto d = std::get_if<double>(&v)) {
    std::ostringstream os;
    os << *d;
    return os.str();
  }
  return std::get<std::string>(v);
}

std::string to_string(const Params& p) {
  std::string s;
  for (const auto& [k, v] : p) {
    if (!s.empty()) s += ' ';
    s += k + "=" + to_string(v);
  }
  return s;
}

nlohmann::json to_json(const Params& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p) std::visit([&](const auto& x) { j[k] = x; }, v);
  return j;
}

Params params_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("params must be an object");
  Params p;
  // nlohmann's object keeps keys sorted; the order of axes is not needed to identify a point.
  for (const auto& [k, v] : j.items()) {
    if (v.is_number_integer()) p.emplace_back(k, v.get<std::int64_t>());
    else if (v.is_number()) p.emplace_back(k, v.get<double>());
    else if (v.is_string()) p.emplace_back(k, v.get<std::string>());
    else throw std::invalid_argument("param " + k + " must be a number or a string");
  }
  return p;
}

const ParamValue* find_param(const Params& p, const std::string& name) {
  for (const auto& [k, v] : p)
    if (k == name) return &v;
  return nullptr;
}

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "4K" -> 4096; nullopt when not an integer with an optional K/M/G suffix.
std::optional<std::int64_t> parse_size(const std::string& text) {
  std::string t = trim(text);
  std::int64_t scale = 1;
  if (!t.empty()) {
    switch (std::toupper(static_cast<unsigned char>(t.back()))) {
      case 'K': scale = 1LL << 10; break;
      case 'M': scale = 1LL << 20; break;
      case 'G': scale = 1LL << 30; break;
      default: break;
    }
    if (scale != 1) t.pop_back();
  }
  if (t.empty()) return std::nullopt;
  std::size_t used = 0;
  try {
    const long long v = std::stoll(t, &used);
    if (used != t.size()) return std::nullopt;
    return std::int64_t(v) * scale;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string declared_list(const Axis& axis) {
  std::string s;
  for (const auto& v : axis.values) s += (s.empty() ? "" : ", ") + to_string(v);
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

}  // namespace

AxisOverride parse_axis_override(const std::string& text) {
  const auto colon = text.rfind(':', text.find('='));
  const auto eq = text.find('=');
  if (colon == std::string::npos || eq == std::string::npos || colon > eq || colon == 0 || eq == colon + 1 ||
      eq + 1 == text.size())
    throw std::invalid_argument("--axis '" + text + "': expected PROBE:AXIS=VALUES, e.g. memory.latency.chase:bytes=4K..64M");
  return {trim(text.substr(0, colon)), trim(text.substr(colon + 1, eq - colon - 1)), trim(text.substr(eq + 1))};
}

Axis restrict_axis(const Axis& axis, const std::string& values) {
  Axis out{axis.name, {}, {}};
  const auto range_at = values.find("..");
  if (range_at != std::string::npos) {
    const auto lo = parse_size(values.substr(0, range_at)), hi = parse_size(values.substr(range_at + 2));
    if (!lo || !hi || *lo > *hi)
      throw std::invalid_argument("axis " + axis.name + ": range '" + values + "' must be LO..HI integers (K/M/G allowed)");
    for (const auto& v : axis.values)
      if (const auto* i = std::get_if<std::int64_t>(&v); i && *i >= *lo && *i <= *hi) out.values.push_back(v);
    if (out.values.empty())
      throw std::invalid_argument("axis " + axis.name + ": no declared value lies in " + values + " (declared: " +
                                  declared_list(axis) + ")");
  } else {
    for (const std::string& item : split(values, ',')) {
      const auto size = parse_size(item);
      const auto it = std::find_if(axis.values.begin(), axis.values.end(), [&](const ParamValue& v) {
        return to_string(v) == item || (size && std::holds_alternative<std::int64_t>(v) && std::get<std::int64_t>(v) == *size);
      });
      if (it == axis.values.end())
        throw std::invalid_argument("axis " + axis.name + ": '" + item + "' is not one of its values (declared: " +
                                    declared_list(axis) + ")");
      out.values.push_back(*it);
    }
  }
  out.quick_values = out.values;  // the user's choice holds in --quick too
  return out;
}

}  // namespace gd
