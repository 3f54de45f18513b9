// Checked access to fields of JSON documents gpudissect reads back (run files, databases).
// Every failure names the field and what was expected, so a damaged file can be located by
// its message alone; callers add where the object sits ("record 3: metric 'x': ...").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/json.hpp"

namespace gd::json_fields {

// The value of `key` in `obj`. Throws std::invalid_argument "missing field 'key'".
const nlohmann::json& required(const nlohmann::json& obj, std::string_view key);
// The value of `key`, or nullptr when absent.
const nlohmann::json* optional(const nlohmann::json& obj, std::string_view key);

std::string string_at(const nlohmann::json& obj, std::string_view key);
std::string string_or(const nlohmann::json& obj, std::string_view key, std::string fallback);
// Numbers that may be unknown: JSON has no NaN, so null stands for it.
double number_at(const nlohmann::json& obj, std::string_view key);
double number_or(const nlohmann::json& obj, std::string_view key, double fallback);
std::int64_t integer_at(const nlohmann::json& obj, std::string_view key);
bool bool_or(const nlohmann::json& obj, std::string_view key, bool fallback);
const nlohmann::json& object_at(const nlohmann::json& obj, std::string_view key);
const nlohmann::json& array_at(const nlohmann::json& obj, std::string_view key);

// Lenient readers for rendering documents that may be hand-made or older: absent, null or the
// wrong type all read as "not known" (nullptr / nullopt) instead of throwing.
const nlohmann::json* present(const nlohmann::json& obj, std::string_view key);  // absent or null: nullptr
std::optional<std::string> nonempty_string(const nlohmann::json& obj, std::string_view key);
// Zero and negative are how the driver and NVML say "not known".
std::optional<double> positive_number(const nlohmann::json& obj, std::string_view key);
std::optional<std::int64_t> integer_if(const nlohmann::json& obj, std::string_view key);

// The writing side of number_at: non-finite values become null.
nlohmann::json number_or_null(double v);

// Runs f(); an std::invalid_argument it throws is rethrown with "context: " in front.
template <class F>
auto with_context(const std::string& context, F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(context + ": " + e.what());
  }
}

}  // namespace gd::json_fields
