#include "aws/kinesis/protobuf_wire.h"

#include <cstring>

namespace floe::aws::kinesis {

Result<uint64_t> ProtoReader::ReadVarint() {
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (position_ >= bytes_.size()) {
      return Status::Corruption("protobuf: varint runs past the end at offset " + std::to_string(offset()));
    }
    const auto byte = static_cast<uint8_t>(bytes_[position_++]);
    // The 10th byte may only carry the top bit of a 64-bit value.
    if (i == 9 && byte > 1) {
      return Status::Corruption("protobuf: varint overflows 64 bits at offset " +
                                std::to_string(offset() - 1));
    }
    value |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) return value;
  }
  return Status::Corruption("protobuf: varint longer than 10 bytes at offset " + std::to_string(offset()));
}

Result<ProtoField> ProtoReader::Next() {
  const size_t start = offset();
  FLOE_ASSIGN_OR_RETURN(uint64_t key, ReadVarint());
  ProtoField field;
  const uint64_t number = key >> 3;
  if (number == 0 || number > 0x1FFFFFFF) {
    return Status::Corruption("protobuf: invalid field number " + std::to_string(number) + " at offset " +
                              std::to_string(start));
  }
  field.number = static_cast<uint32_t>(number);
  const auto wire = static_cast<uint8_t>(key & 7);
  switch (wire) {
    case 0: {
      field.type = WireType::kVarint;
      FLOE_ASSIGN_OR_RETURN(field.varint, ReadVarint());
      return field;
    }
    case 1:
    case 5: {
      const size_t width = wire == 1 ? 8 : 4;
      if (bytes_.size() - position_ < width) {
        return Status::Corruption("protobuf: fixed-width field " + std::to_string(number) +
                                  " runs past the end at offset " + std::to_string(start));
      }
      uint64_t value = 0;
      std::memcpy(&value, bytes_.data() + position_, width);  // little-endian hosts only (x86-64, arm64)
      position_ += width;
      field.type = wire == 1 ? WireType::kFixed64 : WireType::kFixed32;
      field.varint = value;
      return field;
    }
    case 2: {
      FLOE_ASSIGN_OR_RETURN(uint64_t length, ReadVarint());
      if (length > bytes_.size() - position_) {
        return Status::Corruption("protobuf: field " + std::to_string(number) + " declares " +
                                  std::to_string(length) + " bytes at offset " + std::to_string(start) +
                                  " but " + std::to_string(bytes_.size() - position_) + " remain");
      }
      field.type = WireType::kLengthDelimited;
      field.bytes = bytes_.substr(position_, static_cast<size_t>(length));
      position_ += static_cast<size_t>(length);
      return field;
    }
    default:
      return Status::Corruption("protobuf: unsupported wire type " + std::to_string(wire) + " of field " +
                                std::to_string(number) + " at offset " + std::to_string(start));
  }
}

}  // namespace floe::aws::kinesis
