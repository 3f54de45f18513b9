// A probe family's variants as types over one kernel template: the axis values they answer to,
// dispatch from an axis value to the row's type, and one SASS expectation per instantiation.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/probe.hpp"

namespace gd::async {

// Each Row has `name` (its axis value), `tag` (its type's name, as it appears among the kernel's
// demangled template arguments) and `sass` (the opcodes one of its steps issues, '+'-separated).
template <class... Rows>
struct VariantTable {
  static std::vector<std::string> names() { return {Rows::name...}; }

  // Calls f(Row{}) for the row named `name`.
  template <class F>
  static void with(const std::string& name, F&& f) {
    if (!((name == Rows::name ? (f(Rows{}), true) : false) || ...))
      throw UserError("unknown variant '" + name + "'");
  }

  // For kernel template `kernel` (e.g. "copy_chase_kernel"): each row's opcodes, exactly
  // `per_kernel` of each in the region (the steps of one unrolled trip: a chain of twice the
  // steps, or a step compiled to two, is a mismatch).
  static std::vector<SassExpectation> sass(const std::string& kernel, SassRegion region, int per_kernel) {
    return {expect_sass("*" + kernel + "<*::" + Rows::tag + ">*", region, opcodes(Rows::sass, per_kernel))...};
  }

 private:
  static std::vector<OpcodeExpectation> opcodes(const std::string& ops, int n) {
    std::vector<OpcodeExpectation> v;
    for (std::size_t at = 0, plus; at <= ops.size(); at = plus + 1) {
      plus = std::min(ops.find('+', at), ops.size());
      v.push_back({ops.substr(at, plus - at), n, n});
    }
    return v;
  }
};

}  // namespace gd::async
