// AvroValue: a generic Avro datum tree (one record of a manifest, say).
//
// Contract: a value knows its own kind (the AvroType it was built as) but not
// its schema; schemas give records their field names and enums their symbol
// list. Records hold fields by position in schema order, unions hold the
// branch index plus the branch's value, enums hold the symbol index (and the
// symbol when decoded or built with one), maps keep entry order. Accessors for
// a different kind return an empty/zero value instead of failing, so callers
// check kind() (or use the schema) first. Clarity over speed: manifests are small.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/avro/schema.h"

namespace floe::avro {

class AvroValue {
 public:
  AvroValue() = default;  // null

  static AvroValue Null() { return AvroValue(); }
  static AvroValue Boolean(bool v);
  static AvroValue Int(int32_t v);
  static AvroValue Long(int64_t v);
  static AvroValue Float(float v);
  static AvroValue Double(double v);
  static AvroValue Bytes(std::vector<uint8_t> v);
  static AvroValue Bytes(std::string_view v);
  static AvroValue String(std::string v);
  static AvroValue Fixed(std::vector<uint8_t> v);
  static AvroValue Enum(int32_t index, std::string symbol = "");
  static AvroValue Record(std::vector<AvroValue> fields);
  static AvroValue Array(std::vector<AvroValue> items);
  static AvroValue Map(std::vector<std::pair<std::string, AvroValue>> entries);
  static AvroValue Union(int32_t branch, AvroValue value);

  AvroType kind() const { return kind_; }
  bool is_null() const { return kind_ == AvroType::kNull; }

  bool boolean() const { return kind_ == AvroType::kBoolean && integer_ != 0; }
  int32_t int_value() const { return kind_ == AvroType::kInt ? static_cast<int32_t>(integer_) : 0; }
  // long, or int widened.
  int64_t long_value() const { return (kind_ == AvroType::kLong || kind_ == AvroType::kInt) ? integer_ : 0; }
  float float_value() const { return kind_ == AvroType::kFloat ? static_cast<float>(real_) : 0.0f; }
  // double, or float widened.
  double double_value() const {
    return (kind_ == AvroType::kDouble || kind_ == AvroType::kFloat) ? real_ : 0.0;
  }
  // bytes and fixed content.
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  // string content, or the enum symbol.
  const std::string& string() const { return text_; }
  int32_t enum_index() const { return kind_ == AvroType::kEnum ? static_cast<int32_t>(integer_) : -1; }
  int32_t union_branch() const { return kind_ == AvroType::kUnion ? static_cast<int32_t>(integer_) : -1; }

  // Record fields, array items, or the single value of a union.
  const std::vector<AvroValue>& children() const { return children_; }
  std::vector<AvroValue>& mutable_children() { return children_; }
  const AvroValue& field(size_t i) const { return children_[i]; }
  // Map keys, parallel to children().
  const std::vector<std::string>& map_keys() const { return keys_; }

  // The union's value (recursively), or this value when it is not a union.
  const AvroValue& Unwrapped() const;

  bool operator==(const AvroValue& other) const;

 private:
  AvroType kind_ = AvroType::kNull;
  int64_t integer_ = 0;  // boolean, int, long, enum index, union branch
  double real_ = 0;      // float, double
  std::vector<uint8_t> bytes_;
  std::string text_;
  std::vector<AvroValue> children_;
  std::vector<std::string> keys_;
};

}  // namespace floe::avro
