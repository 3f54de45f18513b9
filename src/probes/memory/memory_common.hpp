// Shared by the memory probes: picking a compile-time instantiation from a run-time axis value,
// and the SASS opcode names of an access width.
#pragma once
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace gd::memory {

// Calls f(std::integral_constant<int, V>) for the value of `v` among Vs; throws gd::Error naming
// `what` for a value that was not instantiated.
template <int... Vs, class F>
void with_value(int v, const char* what, F&& f) {
  bool hit = false;
  ((v == Vs ? (f(std::integral_constant<int, Vs>{}), hit = true) : false), ...);
  if (!hit) throw Error(std::string("unsupported ") + what + " " + std::to_string(v));
}

// "", ".64", ".128": the width modifier of LDG/STG/LDS for 4, 8, 16 bytes.
inline std::string width_suffix(int w) { return w == 4 ? "" : w == 8 ? ".64" : ".128"; }

// A pattern for a narrow access also matches the wider opcodes (modifiers are a subsequence),
// so an expectation for width w forbids op.64 / op.128 where wider; plus `more`, LDL and STL.
inline std::vector<std::string> forbid_wider(const std::string& op, int w, std::vector<std::string> more = {}) {
  if (w < 8) more.push_back(op + ".64");
  if (w < 16) more.push_back(op + ".128");
  more.push_back("LDL");
  more.push_back("STL");
  return more;
}

}  // namespace gd::memory
