// ReadJson, and a validator for the subset of JSON Schema (draft 2020-12) that slotguard's
// report schemas use: type, enum, required, properties, items,
// additionalProperties. Shared by the JSON report and SARIF tests.
#ifndef SLOTGUARD_TESTS_TESTING_JSON_SCHEMA_H_
#define SLOTGUARD_TESTS_TESTING_JSON_SCHEMA_H_

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace slotguard {

using nlohmann::json;

inline json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

inline bool HasType(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  ADD_FAILURE() << "unknown type " << type;
  return false;
}

/// The subset of draft 2020-12 the schema uses; errors as "where: problem".
inline void Validate(const json& schema, const json& v, const std::string& where, std::vector<std::string>* errors) {
  if (schema.contains("type")) {
    bool ok = false;
    if (schema["type"].is_string()) ok = HasType(v, schema["type"]);
    else
      for (const json& t : schema["type"]) ok = ok || HasType(v, t);
    if (!ok) {
      errors->push_back(where + ": not of type " + schema["type"].dump());
      return;
    }
  }
  if (schema.contains("enum")) {
    bool ok = false;
    for (const json& e : schema["enum"]) ok = ok || e == v;
    if (!ok) errors->push_back(where + ": " + v.dump() + " not in " + schema["enum"].dump());
  }
  if (v.is_object()) {
    for (const json& key : schema.value("required", json::array()))
      if (!v.contains(key.get<std::string>())) errors->push_back(where + ": no " + key.get<std::string>());
    const json properties = schema.value("properties", json::object());
    for (const auto& [key, value] : v.items()) {
      const std::string at = where + "/" + key;
      if (properties.contains(key)) {
        Validate(properties[key], value, at, errors);
      } else if (schema.contains("additionalProperties")) {
        const json& extra = schema["additionalProperties"];
        if (extra.is_boolean()) {
          if (!extra.get<bool>()) errors->push_back(at + ": not allowed");
        } else {
          Validate(extra, value, at, errors);
        }
      }
    }
  }
  if (v.is_array() && schema.contains("items"))
    for (size_t i = 0; i < v.size(); ++i) Validate(schema["items"], v[i], where + "/" + std::to_string(i), errors);
}

inline std::vector<std::string> Errors(const json& schema, const json& report) {
  std::vector<std::string> errors;
  Validate(schema, report, "", &errors);
  return errors;
}

/// The schema keeps to what Validate knows (annotations aside), so a
/// keyword it would silently ignore cannot creep in.
inline void KeywordsKnown(const json& schema, const std::string& where) {
  static const std::set<std::string> known = {"$schema", "$id", "title", "description", "type", "required",
                                              "properties", "items", "enum", "additionalProperties"};
  ASSERT_TRUE(schema.is_object()) << where;
  for (const auto& [key, value] : schema.items()) {
    EXPECT_TRUE(known.count(key)) << where << ": keyword " << key << " not validated by this test";
    if (key == "properties")
      for (const auto& [name, sub] : value.items()) KeywordsKnown(sub, where + "/properties/" + name);
    if (key == "items" || (key == "additionalProperties" && value.is_object())) KeywordsKnown(value, where + "/" + key);
  }
}

}  // namespace slotguard

#endif  // SLOTGUARD_TESTS_TESTING_JSON_SCHEMA_H_
