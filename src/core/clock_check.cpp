#include "core/clock_check.hpp"

#include <algorithm>

#include "core/device.hpp"

namespace gd {

namespace {
double application_setting(const nlohmann::json& gpu_state) {
  if (!gpu_state.is_object()) return 0;
  const nlohmann::json* settings = &gpu_state;
  if (const auto b = gpu_state.find("before"); b != gpu_state.end() && b->is_object()) {
    const auto s = b->find("settings");
    if (s == b->end() || !s->is_object()) return 0;
    settings = &*s;
  }
  const auto a = settings->find("application_sm_clock_mhz");
  return a != settings->end() && a->is_number() && a->get<double>() > 0 ? a->get<double>() : 0;
}
}  // namespace

double application_sm_clock_mhz(const nlohmann::json& gpu_state, const DeviceInfo& device) {
  const double a = application_setting(gpu_state);
  return a > 0 ? a : std::max(0.0, device.max_sm_clock_mhz);
}

double application_sm_clock_mhz(const nlohmann::json& gpu_state, const nlohmann::json& device) {
  const double a = application_setting(gpu_state);
  if (a > 0 || !device.is_object()) return a;
  const auto m = device.find("max_sm_clock_mhz");
  return m != device.end() && m->is_number() && m->get<double>() > 0 ? m->get<double>() : 0;
}

std::vector<std::string> record_flags(const Record& r) {
  std::vector<std::string> out;
  const auto f = r.extra.find("flags");
  if (f == r.extra.end() || !f->is_array()) return out;
  for (const auto& v : *f)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

bool has_flag(const Record& r, const std::string& flag) {
  const auto flags = record_flags(r);
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

void add_flag(Record& r, const std::string& flag) {
  if (has_flag(r, flag)) return;
  if (!r.extra.contains("flags") || !r.extra["flags"].is_array()) r.extra["flags"] = nlohmann::json::array();
  r.extra["flags"].push_back(flag);
}

void check_clock(Record& r, double application_mhz) {
  if (application_mhz <= 0 || r.sm_clock_mhz <= 0 || r.sm_clock_source == ClockSource::None) return;
  const double ratio = r.sm_clock_mhz / application_mhz;
  r.extra["clock_check"] = {{"application_mhz", application_mhz}, {"observed_mhz", r.sm_clock_mhz}, {"ratio", ratio}};
  if (ratio < 1 - kClockBelowApplicationFraction) add_flag(r, kClockBelowApplicationFlag);
}

void inherit_flags(Record& derived, const std::vector<const Record*>& sources) {
  std::vector<std::string> by;
  bool any_throttle = false;
  for (const Record* s : sources) {
    for (const auto& f : record_flags(*s)) add_flag(derived, f);
    if (const auto t = throttled_by(*s)) {
      any_throttle = true;
      for (const auto& name : *t)
        if (std::find(by.begin(), by.end(), name) == by.end()) by.push_back(name);
    }
  }
  if (any_throttle) derived.extra["throttle"] = {{"by", by}, {"inherited_from_points", true}};
}

}  // namespace gd
