#include "columnar/json_format.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "columnar/calendar.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace floe {
namespace {

void AppendPadded(uint64_t value, int width, std::string* out) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(buf[--n]);
}

void AppendDate(int64_t days, std::string* out) {
  const CivilDate civil = CivilFromDays(days);
  const int64_t year = civil.year;
  const auto month = static_cast<unsigned>(civil.month), day = static_cast<unsigned>(civil.day);
  if (year < 0) out->push_back('-');
  AppendPadded(static_cast<uint64_t>(year < 0 ? -year : year), 4, out);
  out->push_back('-');
  AppendPadded(month, 2, out);
  out->push_back('-');
  AppendPadded(day, 2, out);
}

int FractionDigits(TimeUnit unit) {
  return unit == TimeUnit::kMilli ? 3 : unit == TimeUnit::kMicro ? 6 : 9;
}

// `value` in [0, units per day).
void AppendTimeOfDay(int64_t value, TimeUnit unit, std::string* out) {
  const int64_t per_second = TicksPerSecond(unit);
  const int64_t seconds = value / per_second;
  AppendPadded(static_cast<uint64_t>(seconds / 3600), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(seconds / 60 % 60), 2, out);
  out->push_back(':');
  AppendPadded(static_cast<uint64_t>(seconds % 60), 2, out);
  out->push_back('.');
  AppendPadded(static_cast<uint64_t>(value % per_second), FractionDigits(unit), out);
}

void AppendTimestamp(int64_t value, TimeUnit unit, bool utc, std::string* out) {
  const int64_t per_day = TicksPerSecond(unit) * 86400;
  const int64_t days = FloorDiv(value, per_day);
  int64_t of_day = value % per_day;
  if (of_day < 0) of_day += per_day;
  AppendDate(days, out);
  out->push_back('T');
  AppendTimeOfDay(of_day, unit, out);
  if (utc) out->push_back('Z');
}

void AppendDecimal(__int128 v, int32_t scale, std::string* out) {
  unsigned __int128 magnitude =
      v < 0 ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[48];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude > 0);
  while (n <= scale) buf[n++] = '0';  // at least one integer digit
  if (v < 0) out->push_back('-');
  for (int i = n - 1; i >= 0; --i) {
    out->push_back(buf[i]);
    if (i == scale && scale > 0) out->push_back('.');
  }
}

template <typename F>
void AppendFloat(F value, std::string* out) {
  if (std::isnan(value)) {
    out->append("\"NaN\"");
  } else if (std::isinf(value)) {
    out->append(value > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    char buf[64];
    auto result = std::to_chars(buf, buf + sizeof(buf), value);
    out->append(buf, result.ptr);
  }
}

template <typename I>
void AppendInteger(I value, std::string* out) {
  char buf[32];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, result.ptr);
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    // Runs of printable ASCII are copied in one append.
    size_t run = i;
    while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\') ++run;
    if (run > i) {
      out->append(reinterpret_cast<const char*>(s + i), run - i);
      i = run;
      continue;
    }
    const unsigned char c = s[i];
    switch (c) {
      case '"':
        out->append("\\\"");
        ++i;
        continue;
      case '\\':
        out->append("\\\\");
        ++i;
        continue;
      case '\n':
        out->append("\\n");
        ++i;
        continue;
      case '\r':
        out->append("\\r");
        ++i;
        continue;
      case '\t':
        out->append("\\t");
        ++i;
        continue;
      default: break;
    }
    if (c < 0x20) {
      out->append("\\u00");
      out->push_back(kLowerHexDigits[c >> 4]);
      out->push_back(kLowerHexDigits[c & 15]);
      ++i;
      continue;
    }
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out->append("\\uFFFD");
      ++i;
    } else {
      out->append(reinterpret_cast<const char*>(s + i), length);
      i += length;
    }
  }
  out->push_back('"');
}

namespace {

// The `width` bytes of fixed-width slot `row`.
std::string_view ValueBytes(const Column& c, int64_t row, size_t width) {
  return std::string_view(reinterpret_cast<const char*>(c.values.data()) + static_cast<size_t>(row) * width,
                          width);
}

// Scalar text without JSON quoting; returns false for nested types.
bool AppendScalarText(const Column& c, int64_t row, bool json, std::string* out) {
  const DataType& t = c.type;
  auto quoted = [&](auto&& body) {
    if (json) out->push_back('"');
    body();
    if (json) out->push_back('"');
  };
  switch (t.id) {
    case TypeId::kBool: out->append(c.Value<uint8_t>(row) ? "true" : "false"); return true;
    case TypeId::kInt8: AppendInteger(c.Value<int8_t>(row), out); return true;
    case TypeId::kInt16: AppendInteger(c.Value<int16_t>(row), out); return true;
    case TypeId::kInt32: AppendInteger(c.Value<int32_t>(row), out); return true;
    case TypeId::kInt64: AppendInteger(c.Value<int64_t>(row), out); return true;
    case TypeId::kUInt8: AppendInteger(c.Value<uint8_t>(row), out); return true;
    case TypeId::kUInt16: AppendInteger(c.Value<uint16_t>(row), out); return true;
    case TypeId::kUInt32: AppendInteger(c.Value<uint32_t>(row), out); return true;
    case TypeId::kUInt64: AppendInteger(c.Value<uint64_t>(row), out); return true;
    case TypeId::kFloat16: AppendFloat(HalfToFloat(c.Value<uint16_t>(row)), out); return true;
    case TypeId::kFloat32: AppendFloat(c.Value<float>(row), out); return true;
    case TypeId::kFloat64: AppendFloat(c.Value<double>(row), out); return true;
    case TypeId::kDecimal: quoted([&] { AppendDecimal(c.Value<__int128>(row), t.scale, out); }); return true;
    case TypeId::kDate: quoted([&] { AppendDate(c.Value<int32_t>(row), out); }); return true;
    case TypeId::kTime:
      quoted([&] {
        const int64_t per_day = TicksPerSecond(t.unit) * 86400;
        int64_t v = c.Value<int64_t>(row) % per_day;
        if (v < 0) v += per_day;
        AppendTimeOfDay(v, t.unit, out);
      });
      return true;
    case TypeId::kTimestamp:
      quoted([&] { AppendTimestamp(c.Value<int64_t>(row), t.unit, t.utc, out); });
      return true;
    case TypeId::kString:
      if (json) {
        AppendJsonString(c.StringAt(row), out);
      } else {
        out->append(c.StringAt(row));
      }
      return true;
    case TypeId::kBinary: quoted([&] { AppendHex(c.StringAt(row), out); }); return true;
    case TypeId::kFixedBinary:
      quoted([&] { AppendHex(ValueBytes(c, row, static_cast<size_t>(t.byte_width)), out); });
      return true;
    case TypeId::kUuid: quoted([&] { AppendUuid(ValueBytes(c, row, 16), out); }); return true;
    default: return false;
  }
}

}  // namespace

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3FF) << 13;
    }
  } else if (exponent == 0x1F) {
    bits = sign | 0x7F800000 | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void AppendJsonValue(const Column& column, int64_t row, std::string* out) {
  if (column.IsNull(row)) {
    out->append("null");
    return;
  }
  if (AppendScalarText(column, row, true, out)) return;
  const DataType& t = column.type;
  switch (t.id) {
    case TypeId::kStruct:
      out->push_back('{');
      for (size_t k = 0; k < column.children.size(); ++k) {
        if (k) out->push_back(',');
        AppendJsonString(t.children[k].name, out);
        out->push_back(':');
        AppendJsonValue(column.children[k], row, out);
      }
      out->push_back('}');
      return;
    case TypeId::kList:
      out->push_back('[');
      for (int64_t i = column.offsets[row]; i < column.offsets[row + 1]; ++i) {
        if (i > column.offsets[row]) out->push_back(',');
        AppendJsonValue(column.children[0], i, out);
      }
      out->push_back(']');
      return;
    case TypeId::kMap:
      out->push_back('[');
      for (int64_t i = column.offsets[row]; i < column.offsets[row + 1]; ++i) {
        if (i > column.offsets[row]) out->push_back(',');
        out->append("{\"key\":");
        AppendJsonValue(column.children[0], i, out);
        out->append(",\"value\":");
        AppendJsonValue(column.children[1], i, out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
    default: out->append("null");
  }
}

void AppendJsonRow(const RecordBatch& batch, int64_t row, std::string* out) {
  out->push_back('{');
  for (size_t k = 0; k < batch.columns.size(); ++k) {
    if (k) out->push_back(',');
    AppendJsonString(batch.schema[k].name, out);
    out->push_back(':');
    AppendJsonValue(batch.columns[k], row, out);
  }
  out->push_back('}');
}

namespace {
void AppendCsvField(std::string_view text, std::string* out) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char ch : text) {
    if (ch == '"') out->push_back('"');
    out->push_back(ch);
  }
  out->push_back('"');
}
}  // namespace

void AppendCsvHeader(const Schema& schema, std::string* out) {
  for (size_t k = 0; k < schema.size(); ++k) {
    if (k) out->push_back(',');
    AppendCsvField(schema[k].name, out);
  }
  out->append("\r\n");
}

void AppendCsvRow(const RecordBatch& batch, int64_t row, std::string* out) {
  std::string text;
  for (size_t k = 0; k < batch.columns.size(); ++k) {
    if (k) out->push_back(',');
    const Column& column = batch.columns[k];
    if (column.IsNull(row)) continue;
    text.clear();
    if (!AppendScalarText(column, row, false, &text)) AppendJsonValue(column, row, &text);
    AppendCsvField(text, out);
  }
  out->append("\r\n");
}

std::string FormatDate(int32_t days_since_epoch) {
  std::string out;
  AppendDate(days_since_epoch, &out);
  return out;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit, bool utc) {
  std::string out;
  AppendTimestamp(value, unit, utc, &out);
  return out;
}

std::string FormatTimeOfDay(int64_t value, TimeUnit unit) {
  std::string out;
  const int64_t per_day = TicksPerSecond(unit) * 86400;
  value %= per_day;
  if (value < 0) value += per_day;
  AppendTimeOfDay(value, unit, &out);
  return out;
}

std::string FormatDecimal(__int128 unscaled, int32_t scale) {
  std::string out;
  AppendDecimal(unscaled, scale, &out);
  return out;
}

}  // namespace floe
