#include "core/json_fields.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gd::json_fields {

using nlohmann::json;

static std::invalid_argument wrong_type(std::string_view key, const char* expected, const json& v) {
  return std::invalid_argument("field '" + std::string(key) + "' must be " + expected + ", not " +
                               v.type_name());
}

const json* optional(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json* present(const json& obj, std::string_view key) {
  const json* v = optional(obj, key);
  return v && !v->is_null() ? v : nullptr;
}

std::optional<std::string> nonempty_string(const json& obj, std::string_view key) {
  const json* v = present(obj, key);
  if (!v || !v->is_string() || v->get<std::string>().empty()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<double> positive_number(const json& obj, std::string_view key) {
  const json* v = present(obj, key);
  if (!v || !v->is_number() || v->get<double>() <= 0) return std::nullopt;
  return v->get<double>();
}

std::optional<std::int64_t> integer_if(const json& obj, std::string_view key) {
  const json* v = present(obj, key);
  if (!v || !v->is_number_integer()) return std::nullopt;
  return v->get<std::int64_t>();
}

const json& required(const json& obj, std::string_view key) {
  const json* v = optional(obj, key);
  if (!v) throw std::invalid_argument("missing field '" + std::string(key) + "'");
  return *v;
}

static std::string as_string(std::string_view key, const json& v) {
  if (!v.is_string()) throw wrong_type(key, "a string", v);
  return v.get<std::string>();
}

std::string string_at(const json& obj, std::string_view key) { return as_string(key, required(obj, key)); }

std::string string_or(const json& obj, std::string_view key, std::string fallback) {
  const json* v = optional(obj, key);
  return v ? as_string(key, *v) : std::move(fallback);
}

static double as_number(std::string_view key, const json& v) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!v.is_number()) throw wrong_type(key, "a number or null", v);
  return v.get<double>();
}

double number_at(const json& obj, std::string_view key) { return as_number(key, required(obj, key)); }

double number_or(const json& obj, std::string_view key, double fallback) {
  const json* v = optional(obj, key);
  return v ? as_number(key, *v) : fallback;
}

std::int64_t integer_at(const json& obj, std::string_view key) {
  const json& v = required(obj, key);
  if (!v.is_number_integer()) throw wrong_type(key, "an integer", v);
  return v.get<std::int64_t>();
}

bool bool_or(const json& obj, std::string_view key, bool fallback) {
  const json* v = optional(obj, key);
  if (!v) return fallback;
  if (!v->is_boolean()) throw wrong_type(key, "true or false", *v);
  return v->get<bool>();
}

const json& object_at(const json& obj, std::string_view key) {
  const json& v = required(obj, key);
  if (!v.is_object()) throw wrong_type(key, "an object", v);
  return v;
}

const json& array_at(const json& obj, std::string_view key) {
  const json& v = required(obj, key);
  if (!v.is_array()) throw wrong_type(key, "an array", v);
  return v;
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace gd::json_fields
