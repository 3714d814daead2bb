#include "formats/parquet/thrift/compact_protocol.h"

#include <bit>
#include <cstring>
#include <limits>

namespace floe::parquet::thrift {

namespace {

constexpr bool IsKnownType(uint8_t nibble) {
  return nibble <= static_cast<uint8_t>(CompactType::kStruct);
}

uint64_t ZigZagEncode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}

int64_t ZigZagDecode(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

// Smallest number of bytes a value of this type occupies as a container
// element; used to bound container sizes by the remaining input.
size_t MinElementBytes(CompactType type) {
  return type == CompactType::kDouble ? 8 : 1;
}

}  // namespace

const char* CompactTypeName(CompactType type) {
  switch (type) {
    case CompactType::kStop: return "stop";
    case CompactType::kBoolTrue: return "bool";
    case CompactType::kBoolFalse: return "bool";
    case CompactType::kByte: return "byte";
    case CompactType::kI16: return "i16";
    case CompactType::kI32: return "i32";
    case CompactType::kI64: return "i64";
    case CompactType::kDouble: return "double";
    case CompactType::kBinary: return "binary";
    case CompactType::kList: return "list";
    case CompactType::kSet: return "set";
    case CompactType::kMap: return "map";
    case CompactType::kStruct: return "struct";
  }
  return "invalid type";
}

// ---- CompactReader ----

Status CompactReader::Truncated(const char* what) const {
  return Status::Corruption(std::string("truncated input (") + what + ")");
}

Status CompactReader::Malformed(const std::string& what) const {
  return Status::Corruption(what);
}

Status CompactReader::EnterNesting() {
  if (depth_ >= kMaxNestingDepth) {
    return Malformed("nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
  ++depth_;
  return Status::OK();
}

Status CompactReader::BeginStruct() {
  FLOE_RETURN_IF_ERROR(EnterNesting());
  last_field_ids_.push_back(0);
  return Status::OK();
}

void CompactReader::EndStruct() {
  if (!last_field_ids_.empty()) last_field_ids_.pop_back();
  if (depth_ > 0) --depth_;
}

void CompactReader::EndContainer() {
  if (depth_ > 0) --depth_;
}

Result<uint64_t> CompactReader::ReadVarint(int max_bits) {
  uint64_t value = 0;
  const size_t start = position_;
  for (int shift = 0;; shift += 7) {
    if (position_ >= bytes_.size()) {
      position_ = start;
      return Truncated("varint");
    }
    const uint8_t byte = bytes_[position_++];
    const uint64_t payload = byte & 0x7F;
    // Reject bits beyond max_bits (and any 11th byte of a 64-bit varint).
    if (shift >= max_bits || (max_bits - shift < 7 && (payload >> (max_bits - shift)) != 0)) {
      position_ = start;
      return Malformed("varint overflows " + std::to_string(max_bits) + " bits");
    }
    value |= payload << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

Result<FieldHeader> CompactReader::ReadFieldHeader() {
  if (position_ >= bytes_.size()) return Truncated("field header");
  const size_t start = position_;
  const uint8_t byte = bytes_[position_++];
  FieldHeader header;
  const uint8_t type_nibble = byte & 0x0F;
  if (type_nibble == 0) {
    if (byte != 0) {
      position_ = start;
      return Malformed("stop byte with nonzero high bits");
    }
    return header;  // kStop
  }
  if (!IsKnownType(type_nibble)) {
    position_ = start;
    return Malformed("unknown field type " + std::to_string(type_nibble));
  }
  header.type = static_cast<CompactType>(type_nibble);
  const int delta = byte >> 4;
  int16_t& last_id = last_field_ids_.empty() ? header.id : last_field_ids_.back();
  if (delta != 0) {
    const int id = last_id + delta;
    if (id > std::numeric_limits<int16_t>::max()) {
      position_ = start;
      return Malformed("field id overflows i16");
    }
    header.id = static_cast<int16_t>(id);
  } else {
    auto id = ReadI16();
    if (!id.ok()) return id.status();
    header.id = *id;
  }
  last_id = header.id;
  if (IsBoolType(header.type)) {
    header.bool_value = header.type == CompactType::kBoolTrue;
  }
  return header;
}

Result<bool> CompactReader::ReadBoolElement() {
  if (position_ >= bytes_.size()) return Truncated("bool");
  // Writers use 1 for true and 2 (older ones 0) for false.
  return bytes_[position_++] == static_cast<uint8_t>(CompactType::kBoolTrue);
}

Result<int8_t> CompactReader::ReadByte() {
  if (position_ >= bytes_.size()) return Truncated("byte");
  return static_cast<int8_t>(bytes_[position_++]);
}

Result<int16_t> CompactReader::ReadI16() {
  const size_t start = position_;
  FLOE_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint(32));
  const int64_t value = ZigZagDecode(raw);
  if (value < std::numeric_limits<int16_t>::min() || value > std::numeric_limits<int16_t>::max()) {
    position_ = start;
    return Malformed("i16 value " + std::to_string(value) + " out of range");
  }
  return static_cast<int16_t>(value);
}

Result<int32_t> CompactReader::ReadI32() {
  FLOE_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint(32));
  return static_cast<int32_t>(ZigZagDecode(raw));
}

Result<int64_t> CompactReader::ReadI64() {
  FLOE_ASSIGN_OR_RETURN(uint64_t raw, ReadVarint(64));
  return ZigZagDecode(raw);
}

Result<double> CompactReader::ReadDouble() {
  if (remaining() < 8) return Truncated("double");
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(bytes_[position_ + i]) << (8 * i);
  position_ += 8;
  return std::bit_cast<double>(bits);
}

Result<std::string> CompactReader::ReadBinary() {
  const size_t start = position_;
  FLOE_ASSIGN_OR_RETURN(uint64_t length, ReadVarint(32));
  if (length > std::numeric_limits<int32_t>::max()) {
    position_ = start;
    return Malformed("negative binary length");
  }
  if (length > remaining()) {
    return Malformed("binary length " + std::to_string(length) + " exceeds the " +
                     std::to_string(remaining()) + " bytes left");
  }
  std::string value(reinterpret_cast<const char*>(bytes_.data() + position_), length);
  position_ += length;
  return value;
}

Result<ListHeader> CompactReader::ReadListHeader() {
  if (position_ >= bytes_.size()) return Truncated("list header");
  const size_t start = position_;
  const uint8_t byte = bytes_[position_++];
  ListHeader header;
  const uint8_t type_nibble = byte & 0x0F;
  uint64_t size = byte >> 4;
  if (size == 15) {
    FLOE_ASSIGN_OR_RETURN(size, ReadVarint(32));
    if (size > std::numeric_limits<int32_t>::max()) {
      position_ = start;
      return Malformed("negative list size");
    }
  }
  if (size > 0 && (type_nibble == 0 || !IsKnownType(type_nibble))) {
    position_ = start;
    return Malformed("invalid list element type " + std::to_string(type_nibble));
  }
  header.element_type = static_cast<CompactType>(type_nibble);
  if (size > remaining() / MinElementBytes(header.element_type)) {
    return Malformed("list size " + std::to_string(size) + " exceeds the " + std::to_string(remaining()) +
                     " bytes left");
  }
  header.size = static_cast<uint32_t>(size);
  FLOE_RETURN_IF_ERROR(EnterNesting());
  return header;
}

Result<MapHeader> CompactReader::ReadMapHeader() {
  const size_t start = position_;
  FLOE_ASSIGN_OR_RETURN(uint64_t size, ReadVarint(32));
  if (size > std::numeric_limits<int32_t>::max()) {
    position_ = start;
    return Malformed("negative map size");
  }
  MapHeader header;
  if (size > 0) {
    if (position_ >= bytes_.size()) return Truncated("map types");
    const uint8_t types = bytes_[position_++];
    const uint8_t key_nibble = types >> 4;
    const uint8_t value_nibble = types & 0x0F;
    if (key_nibble == 0 || !IsKnownType(key_nibble) || value_nibble == 0 || !IsKnownType(value_nibble)) {
      position_ = start;
      return Malformed("invalid map key/value types " + std::to_string(types));
    }
    header.key_type = static_cast<CompactType>(key_nibble);
    header.value_type = static_cast<CompactType>(value_nibble);
    const size_t entry_bytes = MinElementBytes(header.key_type) + MinElementBytes(header.value_type);
    if (size > remaining() / entry_bytes) {
      return Malformed("map size " + std::to_string(size) + " exceeds the " + std::to_string(remaining()) +
                       " bytes left");
    }
  }
  header.size = static_cast<uint32_t>(size);
  FLOE_RETURN_IF_ERROR(EnterNesting());
  return header;
}

Status CompactReader::SkipFieldValue(CompactType type) {
  return SkipValue(type, /*in_field=*/true);
}

Status CompactReader::SkipValue(CompactType type, bool in_field) {
  switch (type) {
    case CompactType::kStop: return Malformed("cannot skip a value of type stop");
    case CompactType::kBoolTrue:
    case CompactType::kBoolFalse:
      if (in_field) return Status::OK();  // the value is in the field header
      return ReadBoolElement().status();
    case CompactType::kByte: return ReadByte().status();
    case CompactType::kI16: return ReadI16().status();
    case CompactType::kI32: return ReadI32().status();
    case CompactType::kI64: return ReadI64().status();
    case CompactType::kDouble: return ReadDouble().status();
    case CompactType::kBinary: {
      const size_t start = position_;
      FLOE_ASSIGN_OR_RETURN(uint64_t length, ReadVarint(32));
      if (length > remaining()) {
        position_ = start;
        return Malformed("binary length " + std::to_string(length) + " exceeds the input");
      }
      position_ += length;
      return Status::OK();
    }
    case CompactType::kList:
    case CompactType::kSet: {
      FLOE_ASSIGN_OR_RETURN(ListHeader list, ReadListHeader());
      for (uint32_t i = 0; i < list.size; ++i) {
        FLOE_RETURN_IF_ERROR(SkipValue(list.element_type, /*in_field=*/false));
      }
      EndContainer();
      return Status::OK();
    }
    case CompactType::kMap: {
      FLOE_ASSIGN_OR_RETURN(MapHeader map, ReadMapHeader());
      for (uint32_t i = 0; i < map.size; ++i) {
        FLOE_RETURN_IF_ERROR(SkipValue(map.key_type, /*in_field=*/false));
        FLOE_RETURN_IF_ERROR(SkipValue(map.value_type, /*in_field=*/false));
      }
      EndContainer();
      return Status::OK();
    }
    case CompactType::kStruct: {
      FLOE_RETURN_IF_ERROR(BeginStruct());
      while (true) {
        FLOE_ASSIGN_OR_RETURN(FieldHeader field, ReadFieldHeader());
        if (field.type == CompactType::kStop) break;
        FLOE_RETURN_IF_ERROR(SkipValue(field.type, /*in_field=*/true));
      }
      EndStruct();
      return Status::OK();
    }
  }
  return Malformed("cannot skip a value of unknown type");
}

// ---- CompactWriter ----

void CompactWriter::WriteVarint(uint64_t value) {
  while (value >= 0x80) {
    out_->push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out_->push_back(static_cast<uint8_t>(value));
}

void CompactWriter::BeginStruct() {
  last_field_ids_.push_back(0);
}

void CompactWriter::EndStruct() {
  out_->push_back(0);
  if (!last_field_ids_.empty()) last_field_ids_.pop_back();
}

void CompactWriter::WriteFieldHeader(int16_t id, CompactType type) {
  int16_t dummy = 0;
  int16_t& last_id = last_field_ids_.empty() ? dummy : last_field_ids_.back();
  const int delta = static_cast<int>(id) - static_cast<int>(last_id);
  if (delta > 0 && delta <= 15) {
    out_->push_back(static_cast<uint8_t>((delta << 4) | static_cast<uint8_t>(type)));
  } else {
    out_->push_back(static_cast<uint8_t>(type));
    WriteI16(id);
  }
  last_id = id;
}

void CompactWriter::WriteBoolField(int16_t id, bool value) {
  WriteFieldHeader(id, value ? CompactType::kBoolTrue : CompactType::kBoolFalse);
}

void CompactWriter::WriteI32Field(int16_t id, int32_t value) {
  WriteFieldHeader(id, CompactType::kI32);
  WriteI32(value);
}

void CompactWriter::WriteI64Field(int16_t id, int64_t value) {
  WriteFieldHeader(id, CompactType::kI64);
  WriteI64(value);
}

void CompactWriter::WriteBinaryField(int16_t id, std::string_view value) {
  WriteFieldHeader(id, CompactType::kBinary);
  WriteBinary(value);
}

void CompactWriter::WriteBoolElement(bool value) {
  out_->push_back(static_cast<uint8_t>(value ? CompactType::kBoolTrue : CompactType::kBoolFalse));
}

void CompactWriter::WriteByte(int8_t value) {
  out_->push_back(static_cast<uint8_t>(value));
}
void CompactWriter::WriteI16(int16_t value) {
  WriteVarint(ZigZagEncode(value) & 0xFFFFFFFFu);
}
void CompactWriter::WriteI32(int32_t value) {
  WriteVarint(ZigZagEncode(value) & 0xFFFFFFFFu);
}
void CompactWriter::WriteI64(int64_t value) {
  WriteVarint(ZigZagEncode(value));
}

void CompactWriter::WriteDouble(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) out_->push_back(static_cast<uint8_t>(bits >> (8 * i)));
}

void CompactWriter::WriteBinary(std::string_view value) {
  WriteVarint(value.size());
  out_->insert(out_->end(), value.begin(), value.end());
}

void CompactWriter::WriteListHeader(CompactType element_type, uint32_t size) {
  const uint8_t type = static_cast<uint8_t>(element_type);
  if (size < 15) {
    out_->push_back(static_cast<uint8_t>((size << 4) | type));
  } else {
    out_->push_back(static_cast<uint8_t>(0xF0 | type));
    WriteVarint(size);
  }
}

void CompactWriter::WriteMapHeader(CompactType key_type, CompactType value_type, uint32_t size) {
  WriteVarint(size);
  if (size > 0) {
    out_->push_back(
        static_cast<uint8_t>((static_cast<uint8_t>(key_type) << 4) | static_cast<uint8_t>(value_type)));
  }
}

}  // namespace floe::parquet::thrift
