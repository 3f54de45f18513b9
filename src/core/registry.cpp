#include "core/registry.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "core/error.hpp"

namespace gd {

Registry& Registry::global() {
  static Registry instance;
  return instance;
}

std::string ProbeSpec::category() const { return id.substr(0, id.find('.')); }

void Registry::add(ProbeSpec spec) {
  static const std::regex kId(R"([a-z0-9_]+(\.[a-z0-9_]+)+)");
  const std::string where = "probe '" + spec.id + "': ";
  if (!std::regex_match(spec.id, kId))
    throw Error(where + "id must be dotted lowercase words, e.g. latency.alu.ffma");
  if (find(spec.id)) throw Error(where + "registered twice");
  if (spec.description.empty()) throw Error(where + "needs a description");
  if (!spec.run) throw Error(where + "has no run function");
  if (spec.metrics.empty()) throw Error(where + "declares no metrics");
  std::set<std::string> axis_names;
  for (const Axis& a : spec.axes) {
    if (a.values.empty()) throw Error(where + "axis '" + a.name + "' has no values");
    if (!axis_names.insert(a.name).second) throw Error(where + "axis '" + a.name + "' declared twice");
  }
  for (const SassExpectation& e : spec.sass)
    if (e.kernel.empty() || e.require.empty())
      throw Error(where + "a SASS expectation needs a kernel glob and required opcodes");
  probes_.push_back(std::move(spec));
}

const ProbeSpec* Registry::find(const std::string& id) const {
  for (const auto& p : probes_)
    if (p.id == id) return &p;
  return nullptr;
}

std::vector<std::string> Registry::categories() const {
  std::set<std::string> s;
  for (const auto& p : probes_) s.insert(p.category());
  return {s.begin(), s.end()};
}

ProbeRegistration::ProbeRegistration(ProbeSpec spec) {
  try {
    Registry::global().add(std::move(spec));
  } catch (const std::exception& e) {
    // Static initialisation cannot throw usefully; the CLI reports these before doing anything.
    Registry::global().registration_errors_.push_back(e.what());
  }
}

}  // namespace gd
