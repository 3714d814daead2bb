#include "formats/avro/decoder.h"

#include <bit>
#include <cstring>

namespace floe::avro {

static_assert(std::endian::native == std::endian::little,
              "Avro float/double decoding assumes a little-endian host");

AvroDecoder::AvroDecoder(std::span<const uint8_t> data)
    : data_(data), item_allowance_(static_cast<int64_t>(data.size()) + kZeroSizeItemAllowance) {}

Status AvroDecoder::Truncated(size_t wanted) const {
  return Status::Corruption("at byte " + std::to_string(pos_) + ": needs " + std::to_string(wanted) +
                            " bytes, only " + std::to_string(remaining()) + " left");
}

Result<int64_t> AvroDecoder::ReadLong() {
  uint64_t raw = 0;
  const size_t start = pos_;
  for (int shift = 0;; shift += 7) {
    if (pos_ >= data_.size()) {
      return Status::Corruption("at byte " + std::to_string(start) +
                                ": varint runs past the end of the data");
    }
    const uint8_t byte = data_[pos_++];
    // The tenth byte may only carry the top bit of a 64-bit value.
    if (shift == 63 && byte > 1) {
      return Status::Corruption("at byte " + std::to_string(start) + ": varint overflows 64 bits");
    }
    raw |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
}

Result<int32_t> AvroDecoder::ReadInt() {
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(int64_t v, ReadLong());
  if (v < INT32_MIN || v > INT32_MAX) {
    return Status::Corruption("at byte " + std::to_string(start) + ": int value " + std::to_string(v) +
                              " does not fit in 32 bits");
  }
  return static_cast<int32_t>(v);
}

Status AvroDecoder::ReadFixed(size_t size, uint8_t* out) {
  if (size > remaining()) return Truncated(size);
  if (size > 0) std::memcpy(out, data_.data() + pos_, size);
  pos_ += size;
  return Status::OK();
}

Result<std::string_view> AvroDecoder::ReadLengthPrefixed(const char* what) {
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(int64_t length, ReadLong());
  if (length < 0) {
    return Status::Corruption("at byte " + std::to_string(start) + ": negative " + what + " " +
                              std::to_string(length));
  }
  if (static_cast<uint64_t>(length) > remaining()) return Truncated(static_cast<size_t>(length));
  std::string_view view(reinterpret_cast<const char*>(data_.data()) + pos_, static_cast<size_t>(length));
  pos_ += static_cast<size_t>(length);
  return view;
}

Status AvroDecoder::ReadBytes(std::vector<uint8_t>* out) {
  FLOE_ASSIGN_OR_RETURN(std::string_view bytes, ReadLengthPrefixed("length"));
  out->assign(bytes.begin(), bytes.end());
  return Status::OK();
}

Status AvroDecoder::ReadString(std::string* out) {
  FLOE_ASSIGN_OR_RETURN(std::string_view text, ReadLengthPrefixed("string length"));
  out->assign(text);
  return Status::OK();
}

Result<std::string_view> AvroDecoder::ReadBytesView() {
  return ReadLengthPrefixed("length");
}

Status AvroDecoder::ChargeItem() {
  if (--item_allowance_ < 0) {
    return Status::Corruption("at byte " + std::to_string(pos_) +
                              ": more array/map items or records than the data can hold");
  }
  return Status::OK();
}

// Reads an array/map block count; a negative count is followed by the block's
// byte size, which is checked and otherwise ignored.
Result<int64_t> AvroDecoder::ReadBlockCount() {
  const size_t start = pos_;
  FLOE_ASSIGN_OR_RETURN(int64_t count, ReadLong());
  if (count < 0) {
    if (count == INT64_MIN)
      return Status::Corruption("at byte " + std::to_string(start) + ": invalid block count");
    count = -count;
    FLOE_ASSIGN_OR_RETURN(int64_t byte_size, ReadLong());
    if (byte_size < 0 || static_cast<uint64_t>(byte_size) > remaining()) {
      return Status::Corruption("at byte " + std::to_string(start) + ": block byte size " +
                                std::to_string(byte_size) + " exceeds the " + std::to_string(remaining()) +
                                " bytes left");
    }
  }
  return count;
}

Status AvroDecoder::Decode(const AvroNode& schema, AvroValue* out) {
  return DecodeAt(schema, out, 0);
}

Status AvroDecoder::DecodeAt(const AvroNode& schema, AvroValue* out, int depth) {
  if (depth > kMaxDepth) {
    return Status::Corruption("at byte " + std::to_string(pos_) + ": values nested deeper than " +
                              std::to_string(kMaxDepth) + " levels");
  }
  switch (schema.type) {
    case AvroType::kNull: *out = AvroValue::Null(); return Status::OK();
    case AvroType::kBoolean: {
      if (remaining() < 1) return Truncated(1);
      const uint8_t byte = data_[pos_];
      if (byte > 1)
        return Status::Corruption("at byte " + std::to_string(pos_) + ": boolean byte is " +
                                  std::to_string(byte));
      ++pos_;
      *out = AvroValue::Boolean(byte == 1);
      return Status::OK();
    }
    case AvroType::kInt: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, ReadInt());
      *out = AvroValue::Int(v);
      return Status::OK();
    }
    case AvroType::kLong: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, ReadLong());
      *out = AvroValue::Long(v);
      return Status::OK();
    }
    case AvroType::kFloat: {
      float v;
      FLOE_RETURN_IF_ERROR(ReadFixed(sizeof(v), reinterpret_cast<uint8_t*>(&v)));
      *out = AvroValue::Float(v);
      return Status::OK();
    }
    case AvroType::kDouble: {
      double v;
      FLOE_RETURN_IF_ERROR(ReadFixed(sizeof(v), reinterpret_cast<uint8_t*>(&v)));
      *out = AvroValue::Double(v);
      return Status::OK();
    }
    case AvroType::kBytes: {
      std::vector<uint8_t> bytes;
      FLOE_RETURN_IF_ERROR(ReadBytes(&bytes));
      *out = AvroValue::Bytes(std::move(bytes));
      return Status::OK();
    }
    case AvroType::kString: {
      std::string s;
      FLOE_RETURN_IF_ERROR(ReadString(&s));
      *out = AvroValue::String(std::move(s));
      return Status::OK();
    }
    case AvroType::kFixed: {
      const size_t size = static_cast<size_t>(schema.fixed_size);
      if (size > remaining()) return Truncated(size);
      std::vector<uint8_t> bytes(data_.begin() + pos_, data_.begin() + pos_ + size);
      pos_ += size;
      *out = AvroValue::Fixed(std::move(bytes));
      return Status::OK();
    }
    case AvroType::kEnum: {
      const size_t start = pos_;
      FLOE_ASSIGN_OR_RETURN(int32_t index, ReadInt());
      if (index < 0 || static_cast<size_t>(index) >= schema.symbols.size()) {
        return Status::Corruption("at byte " + std::to_string(start) + ": enum index " +
                                  std::to_string(index) + " out of range for " +
                                  std::to_string(schema.symbols.size()) + " symbols of " + schema.full_name);
      }
      *out = AvroValue::Enum(index, schema.symbols[index]);
      return Status::OK();
    }
    case AvroType::kUnion: {
      const size_t start = pos_;
      FLOE_ASSIGN_OR_RETURN(int64_t branch, ReadLong());
      if (branch < 0 || static_cast<uint64_t>(branch) >= schema.branches.size()) {
        return Status::Corruption("at byte " + std::to_string(start) + ": union branch index " +
                                  std::to_string(branch) + " out of range for " +
                                  std::to_string(schema.branches.size()) + " branches");
      }
      AvroValue value;
      FLOE_RETURN_IF_ERROR(DecodeAt(*schema.branches[branch], &value, depth + 1));
      *out = AvroValue::Union(static_cast<int32_t>(branch), std::move(value));
      return Status::OK();
    }
    case AvroType::kRecord: {
      std::vector<AvroValue> fields(schema.fields.size());
      for (size_t i = 0; i < schema.fields.size(); ++i) {
        Status st = DecodeAt(*schema.fields[i].type, &fields[i], depth + 1);
        if (!st.ok()) return st.WithContext(schema.fields[i].name);
      }
      *out = AvroValue::Record(std::move(fields));
      return Status::OK();
    }
    case AvroType::kArray: {
      std::vector<AvroValue> items;
      while (true) {
        FLOE_ASSIGN_OR_RETURN(int64_t count, ReadBlockCount());
        if (count == 0) break;
        for (int64_t i = 0; i < count; ++i) {
          FLOE_RETURN_IF_ERROR(ChargeItem());
          AvroValue item;
          Status st = DecodeAt(*schema.items, &item, depth + 1);
          if (!st.ok()) return st.WithContext("item " + std::to_string(items.size()));
          items.push_back(std::move(item));
        }
      }
      *out = AvroValue::Array(std::move(items));
      return Status::OK();
    }
    case AvroType::kMap: {
      std::vector<std::pair<std::string, AvroValue>> entries;
      while (true) {
        FLOE_ASSIGN_OR_RETURN(int64_t count, ReadBlockCount());
        if (count == 0) break;
        for (int64_t i = 0; i < count; ++i) {
          FLOE_RETURN_IF_ERROR(ChargeItem());
          std::string key;
          FLOE_RETURN_IF_ERROR(ReadString(&key));
          AvroValue value;
          Status st = DecodeAt(*schema.values, &value, depth + 1);
          if (!st.ok()) return st.WithContext("key '" + key.substr(0, 64) + "'");
          entries.emplace_back(std::move(key), std::move(value));
        }
      }
      *out = AvroValue::Map(std::move(entries));
      return Status::OK();
    }
  }
  return Status::Internal("avro decoder: unhandled schema type");
}

}  // namespace floe::avro
