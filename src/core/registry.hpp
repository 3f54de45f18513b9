// The probe registry. Probes add themselves at static-initialisation time; nothing central lists them.
#pragma once
#include <string>
#include <vector>

#include "core/probe.hpp"

namespace gd {

class Registry {
 public:
  static Registry& global();
  // Validates the spec (dotted id, unique, declared metrics, run function); throws gd::Error.
  void add(ProbeSpec spec);
  const std::vector<ProbeSpec>& probes() const { return probes_; }
  const ProbeSpec* find(const std::string& id) const;
  std::vector<std::string> categories() const;  // sorted, unique
  // Registrations that failed validation (a bug in this binary); the CLI refuses to run with any.
  const std::vector<std::string>& registration_errors() const { return registration_errors_; }

 private:
  friend struct ProbeRegistration;
  std::vector<ProbeSpec> probes_;
  std::vector<std::string> registration_errors_;
};

struct ProbeRegistration {
  explicit ProbeRegistration(ProbeSpec spec);
};

}  // namespace gd

#define GD_CONCAT_INNER(a, b) a##b
#define GD_CONCAT(a, b) GD_CONCAT_INNER(a, b)
// GD_REGISTER_PROBE(make_spec()) at namespace scope in the probe's file.
#define GD_REGISTER_PROBE(...) \
  static const ::gd::ProbeRegistration GD_CONCAT(gd_probe_registration_, __COUNTER__){__VA_ARGS__}
