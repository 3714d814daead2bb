// A reader of the protocol buffers wire format (varints, fixed 32/64-bit
// values, length-delimited fields), enough to decode the KPL's
// AggregatedRecord without a protobuf library.
//
// Contract: every read checks the bytes left and fails with Corruption
// naming the offset; a varint longer than 10 bytes or overflowing 64 bits, a
// length past the end, field number 0 and the deprecated group wire types
// are errors. Nothing is allocated: length-delimited values are views into
// the input, which must outlive them. Not thread-safe (a cursor); cheap to
// create per message.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace floe::aws::kinesis {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct ProtoField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;     // kVarint, and the value of kFixed64 / kFixed32
  std::string_view bytes;  // kLengthDelimited
};

class ProtoReader {
 public:
  explicit ProtoReader(std::string_view bytes, size_t base_offset = 0) : bytes_(bytes), base_(base_offset) {}

  bool AtEnd() const { return position_ >= bytes_.size(); }
  // Where the reader stands, counted from the start of the outermost message.
  size_t offset() const { return base_ + position_; }
  // The next field, whatever its type.
  Result<ProtoField> Next();

 private:
  Result<uint64_t> ReadVarint();

  std::string_view bytes_;
  size_t base_ = 0;
  size_t position_ = 0;
};

}  // namespace floe::aws::kinesis
