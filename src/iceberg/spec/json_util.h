// The JSON helpers of the Iceberg layer: common/json.h's typed getters under
// the iceberg namespace, where metadata, manifest and catalog code names them.
#pragma once

#include "common/json.h"

namespace floe::iceberg {

using json::Json;
using json::OrderedJson;

using json::FindMember;
using json::GetArray;
using json::GetBool;
using json::GetInt32;
using json::GetInt64;
using json::GetObject;
using json::GetOptionalArray;
using json::GetOptionalBool;
using json::GetOptionalInt32;
using json::GetOptionalInt64;
using json::GetOptionalObject;
using json::GetOptionalString;
using json::GetString;
using json::Int32ListFromJson;
using json::JsonDeeperThan;
using json::JsonToInt32;
using json::JsonToInt64;
using json::ParseJson;
using json::RequireObject;
using json::StringMapFromJson;

}  // namespace floe::iceberg
