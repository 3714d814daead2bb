#include "formats/avro/encoder.h"

#include <bit>
#include <cstring>
#include <string>

namespace floe::avro {

static_assert(std::endian::native == std::endian::little,
              "Avro float/double encoding assumes a little-endian host");

namespace {

Status Mismatch(const AvroNode& schema, const AvroValue& value) {
  return Status::InvalidArgument(std::string("expected ") + AvroTypeName(schema.type) + ", got " +
                                 AvroTypeName(value.kind()));
}

// Whether a non-union value can be written as this union branch.
bool BranchAccepts(const AvroNode& branch, const AvroValue& value) {
  if (branch.type == value.kind()) return true;
  if (branch.type == AvroType::kLong && value.kind() == AvroType::kInt) return true;
  if (branch.type == AvroType::kDouble && value.kind() == AvroType::kFloat) return true;
  return false;
}

}  // namespace

void AvroEncoder::WriteLong(int64_t v) {
  uint64_t zigzag = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (zigzag >= 0x80) {
    out_->push_back(static_cast<uint8_t>(zigzag | 0x80));
    zigzag >>= 7;
  }
  out_->push_back(static_cast<uint8_t>(zigzag));
}

void AvroEncoder::WriteBytes(std::span<const uint8_t> bytes) {
  WriteLong(static_cast<int64_t>(bytes.size()));
  WriteRaw(bytes);
}

void AvroEncoder::WriteString(std::string_view s) {
  WriteBytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

Status AvroEncoder::Encode(const AvroNode& schema, const AvroValue& value) {
  return EncodeAt(schema, value, 0);
}

Status AvroEncoder::EncodeAt(const AvroNode& schema, const AvroValue& value, int depth) {
  if (depth > AvroSchema::kMaxDepth * 2) {
    return Status::InvalidArgument("value nested deeper than " + std::to_string(AvroSchema::kMaxDepth * 2) +
                                   " levels");
  }
  if (schema.type == AvroType::kUnion) {
    if (value.kind() == AvroType::kUnion) {
      const int32_t branch = value.union_branch();
      if (branch < 0 || static_cast<size_t>(branch) >= schema.branches.size() ||
          value.children().size() != 1) {
        return Status::InvalidArgument("union branch " + std::to_string(branch) + " out of range for " +
                                       std::to_string(schema.branches.size()) + " branches");
      }
      WriteLong(branch);
      return EncodeAt(*schema.branches[branch], value.children()[0], depth + 1);
    }
    for (size_t i = 0; i < schema.branches.size(); ++i) {
      if (BranchAccepts(*schema.branches[i], value)) {
        WriteLong(static_cast<int64_t>(i));
        return EncodeAt(*schema.branches[i], value, depth + 1);
      }
    }
    return Status::InvalidArgument(std::string("no union branch accepts a ") + AvroTypeName(value.kind()));
  }
  const bool widen = (schema.type == AvroType::kLong && value.kind() == AvroType::kInt) ||
                     (schema.type == AvroType::kDouble && value.kind() == AvroType::kFloat);
  if (schema.type != value.kind() && !widen) return Mismatch(schema, value);

  switch (schema.type) {
    case AvroType::kNull: return Status::OK();
    case AvroType::kBoolean: out_->push_back(value.boolean() ? 1 : 0); return Status::OK();
    case AvroType::kInt: WriteLong(value.int_value()); return Status::OK();
    case AvroType::kLong: WriteLong(value.long_value()); return Status::OK();
    case AvroType::kFloat: {
      const float v = value.float_value();
      uint8_t raw[sizeof(v)];
      std::memcpy(raw, &v, sizeof(v));
      WriteRaw(raw);
      return Status::OK();
    }
    case AvroType::kDouble: {
      const double v = value.double_value();
      uint8_t raw[sizeof(v)];
      std::memcpy(raw, &v, sizeof(v));
      WriteRaw(raw);
      return Status::OK();
    }
    case AvroType::kBytes: WriteBytes(value.bytes()); return Status::OK();
    case AvroType::kString: WriteString(value.string()); return Status::OK();
    case AvroType::kFixed:
      if (value.bytes().size() != static_cast<size_t>(schema.fixed_size)) {
        return Status::InvalidArgument("fixed " + schema.full_name + " needs " +
                                       std::to_string(schema.fixed_size) + " bytes, got " +
                                       std::to_string(value.bytes().size()));
      }
      WriteRaw(value.bytes());
      return Status::OK();
    case AvroType::kEnum: {
      int64_t index = value.enum_index();
      if (index < 0 || static_cast<size_t>(index) >= schema.symbols.size()) {
        return Status::InvalidArgument("enum index " + std::to_string(index) + " out of range for " +
                                       schema.full_name);
      }
      WriteLong(index);
      return Status::OK();
    }
    case AvroType::kRecord: {
      if (value.children().size() != schema.fields.size()) {
        return Status::InvalidArgument("record " + schema.full_name + " has " +
                                       std::to_string(schema.fields.size()) + " fields, value has " +
                                       std::to_string(value.children().size()));
      }
      for (size_t i = 0; i < schema.fields.size(); ++i) {
        Status st = EncodeAt(*schema.fields[i].type, value.children()[i], depth + 1);
        if (!st.ok()) return st.WithContext(schema.fields[i].name);
      }
      return Status::OK();
    }
    case AvroType::kArray: {
      if (!value.children().empty()) {
        WriteLong(static_cast<int64_t>(value.children().size()));
        for (size_t i = 0; i < value.children().size(); ++i) {
          Status st = EncodeAt(*schema.items, value.children()[i], depth + 1);
          if (!st.ok()) return st.WithContext("item " + std::to_string(i));
        }
      }
      WriteLong(0);
      return Status::OK();
    }
    case AvroType::kMap: {
      if (!value.children().empty()) {
        WriteLong(static_cast<int64_t>(value.children().size()));
        for (size_t i = 0; i < value.children().size(); ++i) {
          WriteString(value.map_keys()[i]);
          Status st = EncodeAt(*schema.values, value.children()[i], depth + 1);
          if (!st.ok()) return st.WithContext("key '" + value.map_keys()[i] + "'");
        }
      }
      WriteLong(0);
      return Status::OK();
    }
    case AvroType::kUnion: break;  // handled above
  }
  return Status::Internal("avro encoder: unhandled schema type");
}

}  // namespace floe::avro
