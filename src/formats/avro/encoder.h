// AvroEncoder: AvroValue -> Avro binary encoding, driven by a schema.
//
// Contract: the value must match the schema; a mismatch is InvalidArgument
// naming the field path and the expected and actual kinds, and the output is
// then unspecified. Conveniences: an int value is accepted for a long, a float
// for a double, and a value that is not a union for a union schema goes to the
// first branch of its kind (so `null` picks the "null" branch). Arrays and maps
// are written as one block followed by the zero terminator.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "formats/avro/schema.h"
#include "formats/avro/value.h"

namespace floe::avro {

class AvroEncoder {
 public:
  // Appends to *out.
  explicit AvroEncoder(std::vector<uint8_t>* out) : out_(out) {}

  Status Encode(const AvroNode& schema, const AvroValue& value);

  void WriteLong(int64_t v);
  void WriteInt(int32_t v) { WriteLong(v); }
  void WriteBytes(std::span<const uint8_t> bytes);
  void WriteString(std::string_view s);
  void WriteRaw(std::span<const uint8_t> bytes) { out_->insert(out_->end(), bytes.begin(), bytes.end()); }

 private:
  Status EncodeAt(const AvroNode& schema, const AvroValue& value, int depth);

  std::vector<uint8_t>* out_;
};

}  // namespace floe::avro
