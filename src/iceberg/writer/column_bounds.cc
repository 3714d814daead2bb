#include "iceberg/writer/column_bounds.h"

#include <cstring>
#include <vector>

#include "common/utf8.h"
#include "iceberg/spec/single_value.h"

namespace floe::iceberg {

namespace {

struct CodePoint {
  size_t begin = 0;  // byte offset
  size_t size = 1;
  uint32_t value = 0;
  bool valid = false;  // a well-formed UTF-8 sequence
};

// Splits text into code points; a malformed byte becomes a one-byte unit.
std::vector<CodePoint> DecodeUtf8(std::string_view text) {
  std::vector<CodePoint> out;
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<uint8_t>(text[i]);
    CodePoint cp;
    cp.begin = i;
    size_t need = 0;
    uint32_t value = 0;
    if (lead < 0x80) {
      value = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      need = 1;
      value = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      need = 2;
      value = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      need = 3;
      value = lead & 0x07;
    } else {
      need = SIZE_MAX;
    }
    bool valid = need != SIZE_MAX;
    for (size_t k = 1; valid && k <= need; ++k) {
      if (i + k >= text.size() || (static_cast<uint8_t>(text[i + k]) & 0xC0) != 0x80) {
        valid = false;
      } else {
        value = (value << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3F);
      }
    }
    if (value > 0x10FFFF) valid = false;
    if (valid) {
      cp.size = need + 1;
      cp.value = value;
      cp.valid = true;
    }
    out.push_back(cp);
    i += cp.size;
  }
  return out;
}

Result<std::string> LittleEndianOfSize(std::string_view plain, size_t size, const Type& type) {
  if (plain.size() != size) {
    return Status::Corruption("statistic of " + type.ToString() + " has " + std::to_string(plain.size()) +
                              " bytes, expected " + std::to_string(size));
  }
  return std::string(plain);
}

}  // namespace

std::string TruncateStringLowerBound(std::string_view utf8, int32_t code_points) {
  const std::vector<CodePoint> cps = DecodeUtf8(utf8);
  if (static_cast<int64_t>(cps.size()) <= code_points) return std::string(utf8);
  return std::string(utf8.substr(0, cps[static_cast<size_t>(code_points)].begin));
}

std::optional<std::string> TruncateStringUpperBound(std::string_view utf8, int32_t code_points) {
  const std::vector<CodePoint> cps = DecodeUtf8(utf8);
  if (static_cast<int64_t>(cps.size()) <= code_points) return std::string(utf8);
  for (size_t i = static_cast<size_t>(code_points); i-- > 0;) {
    const CodePoint& cp = cps[i];
    if (!cp.valid) continue;  // a stray byte has no successor code point
    uint32_t next = cp.value + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next > 0x10FFFF) continue;
    std::string out(utf8.substr(0, cp.begin));
    AppendUtf8(next, &out);
    return out;
  }
  return std::nullopt;
}

std::string TruncateBinaryLowerBound(std::string_view bytes, int32_t length) {
  return std::string(bytes.substr(0, std::min(bytes.size(), static_cast<size_t>(length))));
}

std::optional<std::string> TruncateBinaryUpperBound(std::string_view bytes, int32_t length) {
  if (bytes.size() <= static_cast<size_t>(length)) return std::string(bytes);
  std::string out(bytes.substr(0, static_cast<size_t>(length)));
  while (!out.empty()) {
    auto last = static_cast<uint8_t>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

Result<std::string> ParquetStatisticToSingleValue(std::string_view plain, const Type& type) {
  switch (type.kind) {
    case TypeKind::kBoolean: {
      if (plain.size() != 1) return Status::Corruption("boolean statistic is not one byte");
      return std::string(1, plain[0] != 0 ? '\x01' : '\x00');
    }
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kFloat: return LittleEndianOfSize(plain, 4, type);
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs:
    case TypeKind::kDouble: return LittleEndianOfSize(plain, 8, type);
    case TypeKind::kString:
    case TypeKind::kBinary:
    case TypeKind::kFixed: return std::string(plain);
    case TypeKind::kUuid: return LittleEndianOfSize(plain, 16, type);
    case TypeKind::kDecimal: {
      Int128 unscaled = 0;
      if (type.precision <= 9 && plain.size() == 4) {
        int32_t v;
        std::memcpy(&v, plain.data(), 4);
        unscaled = v;
      } else if (type.precision <= 18 && plain.size() == 8) {
        int64_t v;
        std::memcpy(&v, plain.data(), 8);
        unscaled = v;
      } else {
        auto big_endian = DecimalFromBytes(plain);
        if (!big_endian.ok()) return big_endian.status().WithContext("decimal statistic");
        unscaled = *big_endian;
      }
      return DecimalToMinimalBytes(unscaled);
    }
    default: break;
  }
  return Status::NotSupported("bounds of type " + type.ToString());
}

}  // namespace floe::iceberg
