// A validator for the part of JSON Schema (draft 2020-12) that schemas/*.json use, so the tests
// need no Python: type (one or a list), properties, required, additionalProperties (boolean),
// items, enum, minimum, and $ref to "#/$defs/NAME" (applied with its sibling keywords). A keyword it does not know is reported as an
// error: a schema must not seem to say something that nothing checks.
#pragma once
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gd::test_support {

class SchemaValidator {
 public:
  explicit SchemaValidator(nlohmann::json schema) : root_(std::move(schema)) {}

  static SchemaValidator from_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read schema " + path);
    return SchemaValidator(nlohmann::json::parse(in));
  }

  // Every violation, each as "$<JSON pointer>: <what>"; empty when the document is valid.
  std::vector<std::string> errors(const nlohmann::json& doc) const {
    std::vector<std::string> out;
    check(root_, doc, "$", out);
    return out;
  }

  // The same against one of the schema's $defs (e.g. "device" of info.schema.json).
  std::vector<std::string> errors_against(const std::string& def, const nlohmann::json& doc) const {
    std::vector<std::string> out;
    check(resolve("#/$defs/" + def), doc, "$", out);
    return out;
  }

 private:
  nlohmann::json root_;

  static bool has_type(const nlohmann::json& v, const std::string& t) {
    if (t == "null") return v.is_null();
    if (t == "boolean") return v.is_boolean();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "string") return v.is_string();
    if (t == "array") return v.is_array();
    if (t == "object") return v.is_object();
    throw std::runtime_error("schema: unknown type " + t);
  }

  const nlohmann::json& resolve(const std::string& ref) const {
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("schema: only #/$defs/ references are supported: " + ref);
    return root_.at("$defs").at(ref.substr(prefix.size()));
  }

  void check(const nlohmann::json& schema, const nlohmann::json& v, const std::string& at,
             std::vector<std::string>& out) const {
    static const std::set<std::string> known = {"$schema", "$id", "$defs", "title", "description", "type",
                                                "properties", "required", "additionalProperties", "items",
                                                "enum", "minimum", "$ref"};
    for (const auto& [key, _] : schema.items())
      if (!known.count(key)) out.push_back(at + ": schema keyword '" + key + "' is not supported by this validator");
    // As in draft 2020-12, a $ref applies alongside the keywords next to it.
    if (schema.contains("$ref")) check(resolve(schema["$ref"]), v, at, out);
    if (schema.contains("type")) {
      const auto& t = schema["type"];
      const std::vector<std::string> types = t.is_array() ? t.get<std::vector<std::string>>()
                                                          : std::vector<std::string>{t.get<std::string>()};
      bool ok = false;
      for (const auto& one : types) ok = ok || has_type(v, one);
      if (!ok) {
        out.push_back(at + ": is " + v.type_name() + ", expected " + t.dump());
        return;
      }
    }
    if (schema.contains("enum")) {
      bool found = false;
      for (const auto& e : schema["enum"]) found = found || e == v;
      if (!found) out.push_back(at + ": " + v.dump() + " is not one of " + schema["enum"].dump());
    }
    if (schema.contains("minimum") && v.is_number() && v.get<double>() < schema["minimum"].get<double>())
      out.push_back(at + ": " + v.dump() + " is below the minimum " + schema["minimum"].dump());
    if (v.is_object()) {
      for (const auto& name : schema.value("required", nlohmann::json::array()))
        if (!v.contains(name.get<std::string>())) out.push_back(at + ": missing required field '" + name.get<std::string>() + "'");
      const auto props = schema.value("properties", nlohmann::json::object());
      for (const auto& [key, value] : v.items()) {
        if (props.contains(key)) check(props[key], value, at + "/" + key, out);
        else if (schema.value("additionalProperties", true) == false) out.push_back(at + ": unexpected field '" + key + "'");
      }
    }
    if (v.is_array() && schema.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i) check(schema["items"], v[i], at + "/" + std::to_string(i), out);
  }
};

}  // namespace gd::test_support
