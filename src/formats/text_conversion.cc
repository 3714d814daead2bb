#include "formats/text_conversion.h"

#include <cstring>
#include <limits>
#include <utility>

#include "columnar/uuid_text.h"
#include "common/base64.h"
#include "formats/ascii_text.h"

namespace floe::formats {
namespace {

template <typename T>
bool AppendInteger(std::string_view text, Column* column) {
  int64_t v;
  if (!ParseInt64Text(text, &v)) return false;
  if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    return false;
  }
  column->AppendValue(static_cast<T>(v));
  return true;
}

bool AppendUInt64(std::string_view text, Column* column) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty() || text.size() > 20) return false;
  unsigned __int128 v = 0;
  for (char c : text) {
    const unsigned d = static_cast<unsigned char>(c - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  if (v > std::numeric_limits<uint64_t>::max()) return false;
  column->AppendValue(static_cast<uint64_t>(v));
  return true;
}

}  // namespace

bool DecodeBase64(std::string_view text, std::string* out) {
  // common/base64 is strict about padding; JSON writers also omit it, so the
  // missing '=' are restored first (a length of 4n+1 is impossible either way).
  std::string padded;
  if (text.size() % 4 != 0) {
    if (text.size() % 4 == 1) return false;
    padded.assign(text);
    padded.append(4 - text.size() % 4, '=');
    text = padded;
  }
  Result<std::string> bytes = Base64Decode(text);
  if (!bytes.ok()) return false;
  *out = std::move(*bytes);
  return true;
}

bool ParseUuidText(std::string_view text, uint8_t out[16]) {
  // columnar's ParseUuid reads the dashed form; 32 bare hex digits get the
  // dashes inserted first.
  std::string dashed;
  if (text.size() == 32) {
    dashed.reserve(36);
    for (size_t i = 0; i < 32; ++i) {
      if (i == 8 || i == 12 || i == 16 || i == 20) dashed.push_back('-');
      if (text[i] == '-') return false;
      dashed.push_back(text[i]);
    }
    text = dashed;
  }
  Result<std::string> bytes = ParseUuid(text);
  if (!bytes.ok()) return false;
  std::memcpy(out, bytes->data(), 16);
  return true;
}

Result<TextConverter> TextConverter::Make(const DataType& type, TextInference::Formats formats) {
  if (type.is_nested()) {
    return Status::NotSupported("a " + type.ToString() + " column has no text form");
  }
  if (type.id == TypeId::kFloat16) return Status::NotSupported("float16 columns are not read from text");
  return TextConverter(type, formats);
}

bool TextConverter::ParseTimestamp(std::string_view text, int64_t* out) const {
  if (!formats_.timestamp && CommonIsoTimestampToUnit(text, type_.unit, out)) return true;
  TimestampText ts;
  bool parsed;
  if (formats_.timestamp) {
    parsed = formats_.timestamp->Parse(text, &ts);
    if (!parsed) {
      if (formats_.date) {
        parsed = formats_.date->Parse(text, &ts);
      } else {
        int32_t days;
        parsed = ParseIsoDate(text, &days);
        ts = TimestampText{};
        ts.days = days;
      }
    }
  } else {
    parsed = ParseIsoTimestamp(text, &ts);
    if (!parsed && formats_.date) parsed = formats_.date->Parse(text, &ts);
  }
  return parsed && TimestampTextToUnit(ts, type_.unit, type_.utc, out);
}

bool TextConverter::Append(std::string_view text, Column* column) const {
  switch (type_.id) {
    case TypeId::kBool: {
      uint8_t v;
      if (EqualsIgnoreCase(text, "true") || text == "1") {
        v = 1;
      } else if (EqualsIgnoreCase(text, "false") || text == "0") {
        v = 0;
      } else {
        return false;
      }
      column->AppendValue(v);
      return true;
    }
    case TypeId::kInt8: return AppendInteger<int8_t>(text, column);
    case TypeId::kInt16: return AppendInteger<int16_t>(text, column);
    case TypeId::kInt32: return AppendInteger<int32_t>(text, column);
    case TypeId::kInt64: {
      int64_t v;
      if (!ParseInt64Text(text, &v)) return false;
      column->AppendValue(v);
      return true;
    }
    case TypeId::kUInt8: return AppendInteger<uint8_t>(text, column);
    case TypeId::kUInt16: return AppendInteger<uint16_t>(text, column);
    case TypeId::kUInt32: return AppendInteger<uint32_t>(text, column);
    case TypeId::kUInt64: return AppendUInt64(text, column);
    case TypeId::kFloat32: {
      float v;
      if (!ParseFloatText(text, &v)) return false;
      column->AppendValue(v);
      return true;
    }
    case TypeId::kFloat64: {
      double v;
      if (!ParseDoubleText(text, &v)) return false;
      column->AppendValue(v);
      return true;
    }
    case TypeId::kDecimal: {
      DecimalText parsed;
      __int128 v;
      if (!ParseDecimalText(text, &parsed) || !RescaleDecimal(parsed, type_.precision, type_.scale, &v)) {
        return false;
      }
      column->AppendValue(v);
      return true;
    }
    case TypeId::kDate: {
      int32_t days;
      if (formats_.date) {
        TimestampText ts;
        if (!formats_.date->Parse(text, &ts) || ts.nanos_of_day != 0 || ts.has_zone) return false;
        if (ts.days < INT32_MIN || ts.days > INT32_MAX) return false;
        days = static_cast<int32_t>(ts.days);
      } else if (!ParseIsoDate(text, &days)) {
        return false;
      }
      column->AppendValue(days);
      return true;
    }
    case TypeId::kTime: {
      int64_t nanos, v;
      int32_t digits;
      if (!ParseIsoTime(text, &nanos, &digits) || !TimeOfDayToUnit(nanos, type_.unit, &v)) return false;
      column->AppendValue(v);
      return true;
    }
    case TypeId::kTimestamp: {
      int64_t v;
      if (!ParseTimestamp(text, &v)) return false;
      column->AppendValue(v);
      return true;
    }
    case TypeId::kString: column->AppendBytes(text); return true;
    case TypeId::kBinary: {
      std::string bytes;
      if (!DecodeBase64(text, &bytes)) return false;
      column->AppendBytes(bytes);
      return true;
    }
    case TypeId::kFixedBinary: {
      std::string bytes;
      if (!DecodeBase64(text, &bytes) || static_cast<int32_t>(bytes.size()) != type_.byte_width) return false;
      column->AppendFixed(reinterpret_cast<const uint8_t*>(bytes.data()));
      return true;
    }
    case TypeId::kUuid: {
      uint8_t bytes[16];
      if (!ParseUuidText(text, bytes)) return false;
      column->AppendFixed(bytes);
      return true;
    }
    default: return false;
  }
}

}  // namespace floe::formats
