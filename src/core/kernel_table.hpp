// Kernels one translation unit instantiates and others launch. A kernel template named in two
// units is compiled in both, for every target; so a catalog's kernel that several families launch
// is instantiated by one unit, which registers it here at static initialisation, and the others
// find it by name at run time (compute/alu_throughput.cu's ILP-4 stream kernels, launched by the
// pipes' families: 28 s of interference.cu's 120 s of compile work on one core, issue 35).
#pragma once
#include <map>
#include <string>

#include "core/error.hpp"

namespace gd {

namespace detail {
// nullptr marks a key two units registered for different kernels (a bug, reported on lookup:
// static initialisation cannot throw usefully).
inline std::map<std::string, const void*>& kernel_table() {
  static std::map<std::string, const void*> table;
  return table;
}
}  // namespace detail

inline void register_kernel(const std::string& key, const void* kernel) {
  auto [it, added] = detail::kernel_table().emplace(key, kernel);
  if (!added && it->second != kernel) it->second = nullptr;
}

// The kernel registered as `key`; throws gd::Error when none was, or two different ones were.
inline const void* registered_kernel(const std::string& key) {
  const auto& table = detail::kernel_table();
  const auto it = table.find(key);
  if (it == table.end()) throw Error("no translation unit of this binary registered the kernel '" + key + "'");
  if (!it->second) throw Error("two different kernels were registered as '" + key + "'");
  return it->second;
}

}  // namespace gd
