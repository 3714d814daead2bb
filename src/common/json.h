// Typed access to JSON documents from files and services (Iceberg metadata,
// catalog and AWS answers).
//
// Contract: every getter checks the member's JSON type and range and returns
// Corruption naming the member ("field 'schema-id' must be an int") instead of
// throwing; integers are read from nlohmann's int64/uint64 storage, never via
// double, so 64-bit ids stay exact. Optional getters return nullopt when the
// member is absent or JSON null.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::json {

// Parsed documents use std::map objects: member lookup is O(log n) and a
// hostile file with many keys cannot make parsing quadratic (ordered_json
// would). Written documents keep insertion order, as Java writes them.
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Whether `value` nests arrays/objects deeper than `max_depth` (checked
// without recursion, so it is safe on any parsed document). Values kept
// verbatim must pass this before being copied or written, both recursive.
bool JsonDeeperThan(const Json& value, int max_depth);

// Parses JSON text; syntax errors become Corruption with the byte offset.
Result<Json> ParseJson(std::string_view text);

// Checks that `value` is an object; `what` names it in the error.
Status RequireObject(const Json& value, std::string_view what);

// Member lookup on an object; nullptr when absent.
const Json* FindMember(const Json& object, std::string_view key);

// Converts a JSON integer to int64/int32 without going through double.
Result<int64_t> JsonToInt64(const Json& value, std::string_view what);
Result<int32_t> JsonToInt32(const Json& value, std::string_view what);

Result<int64_t> GetInt64(const Json& object, std::string_view key);
Result<int32_t> GetInt32(const Json& object, std::string_view key);
Result<std::string> GetString(const Json& object, std::string_view key);
Result<bool> GetBool(const Json& object, std::string_view key);
// The member, which must be present and be an array / object.
Result<const Json*> GetArray(const Json& object, std::string_view key);
Result<const Json*> GetObject(const Json& object, std::string_view key);

Result<std::optional<int64_t>> GetOptionalInt64(const Json& object, std::string_view key);
Result<std::optional<int32_t>> GetOptionalInt32(const Json& object, std::string_view key);
Result<std::optional<std::string>> GetOptionalString(const Json& object, std::string_view key);
Result<std::optional<bool>> GetOptionalBool(const Json& object, std::string_view key);
// nullptr when absent or null; error when present but not an array/object.
Result<const Json*> GetOptionalArray(const Json& object, std::string_view key);
Result<const Json*> GetOptionalObject(const Json& object, std::string_view key);

// A JSON object whose values are all strings (properties, summaries).
Result<std::map<std::string, std::string>> StringMapFromJson(const Json& value, std::string_view what);
Result<std::vector<int32_t>> Int32ListFromJson(const Json& value, std::string_view what);

}  // namespace floe::json
