// Small accessors for projected manifest records: optional Avro fields arrive
// as ["null", T] unions (or bare values) and read as std::optional here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/avro/value.h"

namespace floe::iceberg {

inline std::optional<int64_t> OptionalLong(const avro::AvroValue& value) {
  const avro::AvroValue& v = value.Unwrapped();
  if (v.kind() != avro::AvroType::kLong && v.kind() != avro::AvroType::kInt) return std::nullopt;
  return v.long_value();
}

inline std::optional<bool> OptionalBool(const avro::AvroValue& value) {
  const avro::AvroValue& v = value.Unwrapped();
  if (v.kind() != avro::AvroType::kBoolean) return std::nullopt;
  return v.boolean();
}

inline std::optional<std::string> OptionalBytes(const avro::AvroValue& value) {
  const avro::AvroValue& v = value.Unwrapped();
  if (v.kind() == avro::AvroType::kString) return v.string();
  if (v.kind() != avro::AvroType::kBytes && v.kind() != avro::AvroType::kFixed) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(v.bytes().data()), v.bytes().size());
}

}  // namespace floe::iceberg
