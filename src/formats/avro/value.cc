#include "formats/avro/value.h"

#include <cstring>

namespace floe::avro {

AvroValue AvroValue::Boolean(bool v) {
  AvroValue out;
  out.kind_ = AvroType::kBoolean;
  out.integer_ = v ? 1 : 0;
  return out;
}

AvroValue AvroValue::Int(int32_t v) {
  AvroValue out;
  out.kind_ = AvroType::kInt;
  out.integer_ = v;
  return out;
}

AvroValue AvroValue::Long(int64_t v) {
  AvroValue out;
  out.kind_ = AvroType::kLong;
  out.integer_ = v;
  return out;
}

AvroValue AvroValue::Float(float v) {
  AvroValue out;
  out.kind_ = AvroType::kFloat;
  out.real_ = v;
  return out;
}

AvroValue AvroValue::Double(double v) {
  AvroValue out;
  out.kind_ = AvroType::kDouble;
  out.real_ = v;
  return out;
}

AvroValue AvroValue::Bytes(std::vector<uint8_t> v) {
  AvroValue out;
  out.kind_ = AvroType::kBytes;
  out.bytes_ = std::move(v);
  return out;
}

AvroValue AvroValue::Bytes(std::string_view v) {
  return Bytes(std::vector<uint8_t>(v.begin(), v.end()));
}

AvroValue AvroValue::String(std::string v) {
  AvroValue out;
  out.kind_ = AvroType::kString;
  out.text_ = std::move(v);
  return out;
}

AvroValue AvroValue::Fixed(std::vector<uint8_t> v) {
  AvroValue out;
  out.kind_ = AvroType::kFixed;
  out.bytes_ = std::move(v);
  return out;
}

AvroValue AvroValue::Enum(int32_t index, std::string symbol) {
  AvroValue out;
  out.kind_ = AvroType::kEnum;
  out.integer_ = index;
  out.text_ = std::move(symbol);
  return out;
}

AvroValue AvroValue::Record(std::vector<AvroValue> fields) {
  AvroValue out;
  out.kind_ = AvroType::kRecord;
  out.children_ = std::move(fields);
  return out;
}

AvroValue AvroValue::Array(std::vector<AvroValue> items) {
  AvroValue out;
  out.kind_ = AvroType::kArray;
  out.children_ = std::move(items);
  return out;
}

AvroValue AvroValue::Map(std::vector<std::pair<std::string, AvroValue>> entries) {
  AvroValue out;
  out.kind_ = AvroType::kMap;
  out.keys_.reserve(entries.size());
  out.children_.reserve(entries.size());
  for (auto& [key, value] : entries) {
    out.keys_.push_back(std::move(key));
    out.children_.push_back(std::move(value));
  }
  return out;
}

AvroValue AvroValue::Union(int32_t branch, AvroValue value) {
  AvroValue out;
  out.kind_ = AvroType::kUnion;
  out.integer_ = branch;
  out.children_.push_back(std::move(value));
  return out;
}

const AvroValue& AvroValue::Unwrapped() const {
  const AvroValue* v = this;
  while (v->kind_ == AvroType::kUnion && !v->children_.empty()) v = &v->children_[0];
  return *v;
}

bool AvroValue::operator==(const AvroValue& other) const {
  if (kind_ != other.kind_ || integer_ != other.integer_) return false;
  // Bitwise comparison so that NaN equals NaN and -0.0 differs from 0.0.
  if (std::memcmp(&real_, &other.real_, sizeof(real_)) != 0) return false;
  if (bytes_ != other.bytes_ || keys_ != other.keys_ || children_ != other.children_) return false;
  // Enum symbols are optional on built values; the index decides.
  return kind_ == AvroType::kEnum || text_ == other.text_;
}

}  // namespace floe::avro
