#include "common/json.h"

#include <limits>

namespace floe::json {

namespace {

std::string Quoted(std::string_view key) {
  return "field '" + std::string(key) + "'";
}

const char* JsonTypeName(const Json& value) {
  return value.type_name();
}

}  // namespace

bool JsonDeeperThan(const Json& value, int max_depth) {
  std::vector<std::pair<const Json*, int>> pending{{&value, 0}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    if (!node->is_structured()) continue;
    if (depth >= max_depth) return true;
    for (const Json& child : *node) pending.emplace_back(&child, depth + 1);
  }
  return false;
}

Result<Json> ParseJson(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    return Status::Corruption(std::string("invalid JSON: ") + e.what());
  } catch (const std::bad_alloc&) {
    return Status::Corruption("invalid JSON: document too large to parse");
  }
}

Status RequireObject(const Json& value, std::string_view what) {
  if (!value.is_object()) {
    return Status::Corruption(std::string(what) + " must be a JSON object, got " + JsonTypeName(value));
  }
  return Status::OK();
}

const Json* FindMember(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

Result<int64_t> JsonToInt64(const Json& value, std::string_view what) {
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::Corruption(std::string(what) + " is out of the long range: " + std::to_string(u));
    }
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  return Status::Corruption(std::string(what) + " must be an integer, got " + JsonTypeName(value));
}

Result<int32_t> JsonToInt32(const Json& value, std::string_view what) {
  FLOE_ASSIGN_OR_RETURN(int64_t v, JsonToInt64(value, what));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::Corruption(std::string(what) + " is out of the int range: " + std::to_string(v));
  }
  return static_cast<int32_t>(v);
}

namespace {

Result<const Json*> Required(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) {
    return Status::Corruption("missing required " + Quoted(key));
  }
  return member;
}

}  // namespace

Result<int64_t> GetInt64(const Json& object, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* member, Required(object, key));
  return JsonToInt64(*member, Quoted(key));
}

Result<int32_t> GetInt32(const Json& object, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* member, Required(object, key));
  return JsonToInt32(*member, Quoted(key));
}

Result<std::string> GetString(const Json& object, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* member, Required(object, key));
  if (!member->is_string()) {
    return Status::Corruption(Quoted(key) + " must be a string, got " + JsonTypeName(*member));
  }
  return member->get<std::string>();
}

Result<bool> GetBool(const Json& object, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* member, Required(object, key));
  if (!member->is_boolean()) {
    return Status::Corruption(Quoted(key) + " must be a boolean, got " + JsonTypeName(*member));
  }
  return member->get<bool>();
}

Result<const Json*> GetArray(const Json& object, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* member, Required(object, key));
  if (!member->is_array()) {
    return Status::Corruption(Quoted(key) + " must be an array, got " + JsonTypeName(*member));
  }
  return member;
}

Result<const Json*> GetObject(const Json& object, std::string_view key) {
  FLOE_ASSIGN_OR_RETURN(const Json* member, Required(object, key));
  if (!member->is_object()) {
    return Status::Corruption(Quoted(key) + " must be an object, got " + JsonTypeName(*member));
  }
  return member;
}

Result<std::optional<int64_t>> GetOptionalInt64(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(int64_t v, JsonToInt64(*member, Quoted(key)));
  return std::optional<int64_t>(v);
}

Result<std::optional<int32_t>> GetOptionalInt32(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::optional<int32_t>();
  FLOE_ASSIGN_OR_RETURN(int32_t v, JsonToInt32(*member, Quoted(key)));
  return std::optional<int32_t>(v);
}

Result<std::optional<std::string>> GetOptionalString(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::optional<std::string>();
  if (!member->is_string()) {
    return Status::Corruption(Quoted(key) + " must be a string, got " + JsonTypeName(*member));
  }
  return std::optional<std::string>(member->get<std::string>());
}

Result<std::optional<bool>> GetOptionalBool(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::optional<bool>();
  if (!member->is_boolean()) {
    return Status::Corruption(Quoted(key) + " must be a boolean, got " + JsonTypeName(*member));
  }
  return std::optional<bool>(member->get<bool>());
}

Result<const Json*> GetOptionalArray(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) return static_cast<const Json*>(nullptr);
  if (!member->is_array()) {
    return Status::Corruption(Quoted(key) + " must be an array, got " + JsonTypeName(*member));
  }
  return member;
}

Result<const Json*> GetOptionalObject(const Json& object, std::string_view key) {
  const Json* member = FindMember(object, key);
  if (member == nullptr || member->is_null()) return static_cast<const Json*>(nullptr);
  if (!member->is_object()) {
    return Status::Corruption(Quoted(key) + " must be an object, got " + JsonTypeName(*member));
  }
  return member;
}

Result<std::map<std::string, std::string>> StringMapFromJson(const Json& value, std::string_view what) {
  FLOE_RETURN_IF_ERROR(RequireObject(value, what));
  std::map<std::string, std::string> out;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it.value().is_string()) {
      return Status::Corruption(std::string(what) + " value of '" + it.key() + "' must be a string, got " +
                                JsonTypeName(it.value()));
    }
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

Result<std::vector<int32_t>> Int32ListFromJson(const Json& value, std::string_view what) {
  if (!value.is_array()) {
    return Status::Corruption(std::string(what) + " must be an array, got " + JsonTypeName(value));
  }
  std::vector<int32_t> out;
  out.reserve(value.size());
  for (const Json& item : value) {
    FLOE_ASSIGN_OR_RETURN(int32_t v, JsonToInt32(item, std::string(what) + " element"));
    out.push_back(v);
  }
  return out;
}

}  // namespace floe::json
