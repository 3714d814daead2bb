// AvroDecoder: Avro binary encoding -> AvroValue, driven by the writer's schema.
//
// Contract: the input is untrusted. Every length and count is checked against
// the bytes that remain, varints longer than their type allows are rejected,
// union and enum indexes are bounds-checked, value nesting is limited, and the
// number of array/map items and records that occupy zero bytes is capped, so a
// few bytes can never claim unbounded memory or time. Errors are Corruption
// naming the byte offset and the field path.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "formats/avro/schema.h"
#include "formats/avro/value.h"

namespace floe::avro {

class AvroDecoder {
 public:
  static constexpr int kMaxDepth = 128;
  // Items beyond one per input byte that may decode from zero bytes (arrays
  // of null or of empty records).
  static constexpr int64_t kZeroSizeItemAllowance = int64_t{1} << 20;

  explicit AvroDecoder(std::span<const uint8_t> data);

  // Decodes one datum of `schema` into *out.
  Status Decode(const AvroNode& schema, AvroValue* out);

  Result<int64_t> ReadLong();
  Result<int32_t> ReadInt();
  // A long length followed by that many bytes.
  Status ReadBytes(std::vector<uint8_t>* out);
  Status ReadString(std::string* out);
  // A long length and that many bytes, as a view into the data (no copy).
  Result<std::string_view> ReadBytesView();
  Status ReadFixed(size_t size, uint8_t* out);

  // Charges one zero-or-more-byte item (array/map entry, record of a block)
  // against the allowance; Corruption once it is used up.
  Status ChargeItem();

  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  Status DecodeAt(const AvroNode& schema, AvroValue* out, int depth);
  Result<int64_t> ReadBlockCount();
  // A long length and that many bytes; `what` names the length in errors.
  Result<std::string_view> ReadLengthPrefixed(const char* what);
  Status Truncated(size_t wanted) const;

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  int64_t item_allowance_;
};

}  // namespace floe::avro
