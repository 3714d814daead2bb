// KeyEncoder: see key_index.h. The hashed encoding is, per key column in key
// order, a one-byte type family tag followed by a fixed-size or
// length-prefixed payload, so two different keys never share an encoding:
//   integers (int8..int64, uint8..uint32, uint64 < 2^63): 'i' + int64 LE
//   uint64 >= 2^63: 'u' + uint64 LE;  date: 'd' + int64 LE days
//   timestamp: 't' + unit + utc + int64 LE;  time: 'T' + unit + int64 LE
//   decimal: 'D' + 16-byte LE unscaled + int32 LE scale (precision left out, so
//   a widened decimal keeps its keys);  bool: 'B' + 0/1
//   string 's' / binary 'b' / fixed 'f': uint64 LE length + bytes;  uuid: 'g' + 16 bytes
// Integers of every width share one family so a key column promoted from int
// to long keeps its key ids. The 128 bits are MurmurHash3 x64_128 (seed 0).
#include <cstring>
#include <string>

#include "columnar/integer_cells.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/murmur3_128.h"

namespace floe::ingest {
namespace {

// Keys held exactly as an int64: every integer but uint64 (whose upper half
// does not fit), and dates.
bool IsExactKeyType(TypeId id) {
  return (IsIntegerType(id) && id != TypeId::kUInt64) || id == TypeId::kDate;
}

bool IsHashableKeyType(TypeId id) {
  if (IsExactKeyType(id)) return true;
  switch (id) {
    case TypeId::kUInt64:
    case TypeId::kBool:
    case TypeId::kDecimal:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedBinary:
    case TypeId::kUuid: return true;
    default: return false;
  }
}

void AppendLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

void AppendLengthPrefixed(std::string& out, char tag, std::string_view bytes) {
  out.push_back(tag);
  AppendLittleEndian(out, bytes.size(), 8);
  out.append(bytes);
}

std::string Where(const std::string& name, int64_t row) {
  return "key column " + name + " row " + std::to_string(row);
}

// Appends the canonical encoding of one non-null cell (see the file comment).
Status AppendCanonical(std::string& out, const Column& column, int64_t row, const std::string& name) {
  const DataType& type = column.type;
  const int32_t width = type.fixed_width();
  if (width > 0 && column.values.size() < static_cast<size_t>(row + 1) * static_cast<size_t>(width)) {
    return Status::Internal(Where(name, row) + ": column has too few values");
  }
  if (type.is_binary_like() && column.offsets.size() <= static_cast<size_t>(row) + 1) {
    return Status::Internal(Where(name, row) + ": column has too few offsets");
  }
  switch (type.id) {
    case TypeId::kDate:
      out.push_back('d');
      AppendLittleEndian(out, static_cast<uint64_t>(IntegerCellAt(column, row)), 8);
      return Status::OK();
    case TypeId::kUInt64: {
      uint64_t v = column.Value<uint64_t>(row);
      out.push_back(v >> 63 ? 'u' : 'i');
      AppendLittleEndian(out, v, 8);
      return Status::OK();
    }
    case TypeId::kBool:
      out.push_back('B');
      out.push_back(column.Value<uint8_t>(row) ? 1 : 0);
      return Status::OK();
    case TypeId::kDecimal: {
      out.push_back('D');
      out.append(reinterpret_cast<const char*>(column.values.data()) + 16 * row, 16);
      AppendLittleEndian(out, static_cast<uint32_t>(type.scale), 4);
      return Status::OK();
    }
    case TypeId::kTimestamp:
      out.push_back('t');
      out.push_back(static_cast<char>(type.unit));
      out.push_back(type.utc ? 1 : 0);
      AppendLittleEndian(out, static_cast<uint64_t>(column.Value<int64_t>(row)), 8);
      return Status::OK();
    case TypeId::kTime:
      out.push_back('T');
      out.push_back(static_cast<char>(type.unit));
      AppendLittleEndian(out, static_cast<uint64_t>(column.Value<int64_t>(row)), 8);
      return Status::OK();
    case TypeId::kString: AppendLengthPrefixed(out, 's', column.StringAt(row)); return Status::OK();
    case TypeId::kBinary: AppendLengthPrefixed(out, 'b', column.StringAt(row)); return Status::OK();
    case TypeId::kFixedBinary:
      AppendLengthPrefixed(out, 'f',
                           std::string_view(reinterpret_cast<const char*>(column.values.data()) +
                                                static_cast<size_t>(row) * static_cast<size_t>(width),
                                            static_cast<size_t>(width)));
      return Status::OK();
    case TypeId::kUuid:
      out.push_back('g');
      out.append(reinterpret_cast<const char*>(column.values.data()) + 16 * row, 16);
      return Status::OK();
    default:
      if (IsExactKeyType(type.id)) {
        out.push_back('i');
        AppendLittleEndian(out, static_cast<uint64_t>(IntegerCellAt(column, row)), 8);
        return Status::OK();
      }
      return Status::InvalidArgument(Where(name, row) + ": type " + type.ToString() + " cannot be a key");
  }
}

}  // namespace

Result<KeyEncoder> KeyEncoder::Make(const std::vector<DataType>& types, std::vector<std::string> names) {
  if (types.empty()) return Status::InvalidArgument("a primary key needs at least one column");
  if (names.size() != types.size()) {
    return Status::InvalidArgument("key encoder: " + std::to_string(types.size()) + " key types but " +
                                   std::to_string(names.size()) + " names");
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (!IsHashableKeyType(types[i].id)) {
      return Status::InvalidArgument("key column " + names[i] + " has type " + types[i].ToString() +
                                     ", which cannot be a key (use integers, dates, timestamps, decimals, "
                                     "strings, binary, uuid or booleans)");
    }
  }
  KeyEncoder encoder;
  encoder.exact_integer_ = types.size() == 1 && IsExactKeyType(types[0].id);
  encoder.types_ = types;
  encoder.names_ = std::move(names);
  return encoder;
}

Result<KeyId> KeyEncoder::KeyAt(const std::vector<const Column*>& columns, int64_t row) const {
  if (columns.size() != types_.size()) {
    return Status::InvalidArgument("key encoder: got " + std::to_string(columns.size()) +
                                   " key columns, expected " + std::to_string(types_.size()));
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (row < 0 || row >= columns[i]->length) {
      return Status::OutOfRange(Where(names_[i], row) + ": row outside the column's " +
                                std::to_string(columns[i]->length) + " rows");
    }
    if (columns[i]->IsNull(row)) return Status::InvalidArgument(Where(names_[i], row) + " is null");
  }
  if (exact_integer_) {
    const Column& column = *columns[0];
    if (!IsExactKeyType(column.type.id)) {
      return Status::InvalidArgument(Where(names_[0], row) + ": type " + column.type.ToString() +
                                     " where an integer key was expected");
    }
    const size_t width = static_cast<size_t>(column.type.fixed_width());
    if (column.values.size() < static_cast<size_t>(row + 1) * width) {
      return Status::Internal(Where(names_[0], row) + ": column has too few values");
    }
    return KeyId{0, static_cast<uint64_t>(IntegerCellAt(column, row))};
  }
  std::string encoded;
  encoded.reserve(32 * columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    FLOE_RETURN_IF_ERROR(AppendCanonical(encoded, *columns[i], row, names_[i]));
  }
  Hash128 hash = Murmur3x64_128(encoded);
  return KeyId{hash.h1, hash.h2};
}

}  // namespace floe::ingest
