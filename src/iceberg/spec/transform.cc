#include "iceberg/spec/transform.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/base64.h"
#include "common/strings.h"
#include "iceberg/spec/murmur3.h"

namespace floe::iceberg {

namespace {

constexpr int64_t kMicrosPerHour = 3600LL * 1000 * 1000;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

using K = Literal::Kind;

bool IsTimestampKind(K k) {
  return k == K::kTimestamp || k == K::kTimestampTz || k == K::kTimestampNs || k == K::kTimestampTzNs;
}

bool IsTimestampType(TypeKind k) {
  return k == TypeKind::kTimestamp || k == TypeKind::kTimestampTz || k == TypeKind::kTimestampNs ||
         k == TypeKind::kTimestampTzNs;
}

// Microseconds since epoch of a timestamp literal (nanos floor-divided).
int64_t TimestampMicros(const Literal& v) {
  return (v.kind == K::kTimestampNs || v.kind == K::kTimestampTzNs) ? FloorDiv(v.int_value, 1000)
                                                                    : v.int_value;
}

// Days since epoch of a date or timestamp literal.
int64_t EpochDays(const Literal& v) {
  return v.kind == K::kDate ? v.int_value : FloorDiv(TimestampMicros(v), kMicrosPerDay);
}

std::optional<int32_t> ParseBracketArgument(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size() + 2 || text.substr(0, prefix.size()) != prefix || text.back() != ']') {
    return std::nullopt;
  }
  std::string_view digits = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::string Pad(int64_t v, int width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (digits.size() < static_cast<size_t>(width))
    digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
  return v < 0 ? "-" + digits : digits;
}

// java.time.LocalDate.toString.
std::string FormatDate(int64_t days) {
  CivilDate d = CivilFromDays(days);
  std::string year = Pad(d.year, 4);
  if (d.year > 9999) year = "+" + year;
  return year + "-" + Pad(d.month, 2) + "-" + Pad(d.day, 2);
}

// java.time.LocalTime.toString for a nanosecond-of-day.
std::string FormatTimeOfDay(int64_t nanos_of_day) {
  int64_t seconds = nanos_of_day / 1000000000;
  int64_t nanos = nanos_of_day % 1000000000;
  std::string out = Pad(seconds / 3600, 2) + ":" + Pad(seconds / 60 % 60, 2);
  if (seconds % 60 != 0 || nanos != 0) {
    out += ":" + Pad(seconds % 60, 2);
    if (nanos != 0) {
      if (nanos % 1000000 == 0) {
        out += "." + Pad(nanos / 1000000, 3);
      } else if (nanos % 1000 == 0) {
        out += "." + Pad(nanos / 1000, 6);
      } else {
        out += "." + Pad(nanos, 9);
      }
    }
  }
  return out;
}

std::string FormatTimestampNanos(int64_t epoch_seconds, int64_t nanos_of_second) {
  int64_t days = FloorDiv(epoch_seconds, 86400);
  int64_t second_of_day = FloorMod(epoch_seconds, 86400);
  return FormatDate(days) + "T" + FormatTimeOfDay(second_of_day * 1000000000 + nanos_of_second);
}

std::string FormatTimestamp(const Literal& v) {
  bool nanos = v.kind == K::kTimestampNs || v.kind == K::kTimestampTzNs;
  int64_t per_second = nanos ? 1000000000 : 1000000;
  int64_t seconds = FloorDiv(v.int_value, per_second);
  int64_t fraction = FloorMod(v.int_value, per_second) * (nanos ? 1 : 1000);
  std::string out = FormatTimestampNanos(seconds, fraction);
  if (v.kind == K::kTimestampTz || v.kind == K::kTimestampTzNs) out += "Z";
  return out;
}

// Java's Double.toString / Float.toString from the shortest round-trip digits.
template <typename F>
std::string FormatFloating(F value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  if (ec != std::errc()) return "?";
  std::string sci(buf, end);  // "-d.ddde+XX"
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  int exponent = std::stoi(sci.substr(e + 1));
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  std::string out;
  F magnitude = std::fabs(value);
  if (magnitude >= F(1e-3) && magnitude < F(1e7)) {
    if (exponent >= 0) {
      std::string int_part = digits.substr(0, std::min(digits.size(), static_cast<size_t>(exponent) + 1));
      int_part.append(static_cast<size_t>(exponent) + 1 - int_part.size(), '0');
      std::string frac =
          digits.size() > static_cast<size_t>(exponent) + 1 ? digits.substr(exponent + 1) : "0";
      out = int_part + "." + frac;
    } else {
      out = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
  } else {
    out = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
          std::to_string(exponent);
  }
  return negative ? "-" + out : out;
}

// java.math.BigDecimal.toString.
std::string FormatDecimal(Int128 unscaled, int32_t scale) {
  std::string plain = DecimalToString(unscaled, 0);
  bool negative = plain[0] == '-';
  std::string digits = negative ? plain.substr(1) : plain;
  int64_t adjusted = -static_cast<int64_t>(scale) + static_cast<int64_t>(digits.size()) - 1;
  if (scale >= 0 && adjusted >= -6) return DecimalToString(unscaled, scale);
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += "E";
  if (adjusted >= 0) out += "+";
  out += std::to_string(adjusted);
  return negative ? "-" + out : out;
}

}  // namespace

std::string TruncateUtf8(std::string_view text, int32_t code_points) {
  int32_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    bool starts_code_point = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_code_point) {
      if (seen == code_points) return std::string(text.substr(0, i));
      ++seen;
    }
  }
  return std::string(text);
}

std::string EscapePathComponent(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
        c == '*' || c == '_') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kUpperHexDigits[c >> 4];
      out += kUpperHexDigits[c & 15];
    }
  }
  return out;
}

std::string LiteralToHumanString(const Literal& value) {
  switch (value.kind) {
    case K::kNull: return "null";
    case K::kBoolean: return value.int_value ? "true" : "false";
    case K::kInt:
    case K::kLong: return std::to_string(value.int_value);
    case K::kFloat: return FormatFloating(static_cast<float>(value.double_value));
    case K::kDouble: return FormatFloating(value.double_value);
    case K::kDecimal: return FormatDecimal(value.unscaled, value.scale);
    case K::kDate: return FormatDate(value.int_value);
    case K::kTime: return FormatTimeOfDay(FloorMod(value.int_value, kMicrosPerDay) * 1000);
    case K::kTimestamp:
    case K::kTimestampTz:
    case K::kTimestampNs:
    case K::kTimestampTzNs: return FormatTimestamp(value);
    case K::kString: return value.bytes;
    case K::kUuid: return FormatUuid(value.bytes);
    case K::kFixed:
    case K::kBinary: return Base64Encode(value.bytes);
  }
  return "?";
}

Result<Transform> Transform::Parse(std::string_view text) {
  if (text == "identity") return Identity();
  if (text == "year") return Year();
  if (text == "month") return Month();
  if (text == "day") return Day();
  if (text == "hour") return Hour();
  if (text == "void") return Void();
  for (auto [prefix, kind] : {std::pair<std::string_view, Kind>{"bucket[", Kind::kBucket},
                              std::pair<std::string_view, Kind>{"truncate[", Kind::kTruncate}}) {
    if (text.substr(0, prefix.size()) == prefix) {
      auto arg = ParseBracketArgument(text, prefix);
      if (!arg || *arg <= 0) {
        return Status::Corruption("invalid transform '" + std::string(text) +
                                  "': needs a positive integer argument");
      }
      return Transform(kind, *arg);
    }
  }
  Transform unknown(Kind::kUnknown, 0);
  unknown.unknown_name_ = std::string(text);
  return unknown;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case Kind::kIdentity: return "identity";
    case Kind::kBucket: return "bucket[" + std::to_string(parameter_) + "]";
    case Kind::kTruncate: return "truncate[" + std::to_string(parameter_) + "]";
    case Kind::kYear: return "year";
    case Kind::kMonth: return "month";
    case Kind::kDay: return "day";
    case Kind::kHour: return "hour";
    case Kind::kVoid: return "void";
    case Kind::kUnknown: return unknown_name_;
  }
  return unknown_name_;
}

bool Transform::CanApply(const Type& source) const {
  const TypeKind k = source.kind;
  switch (kind_) {
    case Kind::kIdentity: return source.is_primitive() && k != TypeKind::kUnknown;
    case Kind::kVoid: return true;
    case Kind::kBucket:
      return k == TypeKind::kInt || k == TypeKind::kLong || k == TypeKind::kDecimal || k == TypeKind::kDate ||
             k == TypeKind::kTime || IsTimestampType(k) || k == TypeKind::kString || k == TypeKind::kUuid ||
             k == TypeKind::kFixed || k == TypeKind::kBinary;
    case Kind::kTruncate:
      return k == TypeKind::kInt || k == TypeKind::kLong || k == TypeKind::kDecimal ||
             k == TypeKind::kString || k == TypeKind::kBinary;
    case Kind::kYear:
    case Kind::kMonth:
    case Kind::kDay: return k == TypeKind::kDate || IsTimestampType(k);
    case Kind::kHour: return IsTimestampType(k);
    case Kind::kUnknown: return false;
  }
  return false;
}

Result<Type> Transform::ResultType(const Type& source) const {
  if (!CanApply(source)) {
    return Status::InvalidArgument("transform " + ToString() + " cannot be applied to " + source.ToString());
  }
  switch (kind_) {
    case Kind::kBucket:
    case Kind::kYear:
    case Kind::kMonth:
    case Kind::kHour: return PrimitiveType(TypeKind::kInt);
    case Kind::kDay: return PrimitiveType(TypeKind::kDate);
    default: return source;
  }
}

Result<Literal> Transform::Apply(const Literal& value) const {
  if (value.is_null() || kind_ == Kind::kVoid) return Literal::Null();
  auto reject = [&]() {
    return Status::InvalidArgument("transform " + ToString() + " cannot be applied to " + value.ToString());
  };
  switch (kind_) {
    case Kind::kIdentity: return value;
    case Kind::kBucket: {
      if (value.kind == K::kBoolean || value.kind == K::kFloat || value.kind == K::kDouble) return reject();
      FLOE_ASSIGN_OR_RETURN(int32_t hash, HashLiteral(value));
      return Literal::Int((hash & std::numeric_limits<int32_t>::max()) % parameter_);
    }
    case Kind::kTruncate: {
      const int64_t width = parameter_;
      switch (value.kind) {
        case K::kInt: {
          // Java int arithmetic wraps at the low end; do the same.
          int64_t v = value.int_value;
          return Literal::Int(static_cast<int32_t>(static_cast<uint32_t>(v - FloorMod(v, width))));
        }
        case K::kLong: {
          uint64_t v = static_cast<uint64_t>(value.int_value);
          return Literal::Long(
              static_cast<int64_t>(v - static_cast<uint64_t>(FloorMod(value.int_value, width))));
        }
        case K::kDecimal: {
          Int128 rem = value.unscaled % width;
          if (rem < 0) rem += width;
          // Valid decimals (<= 38 digits) are far from the int128 limits; unsigned math keeps other input
          // defined.
          auto truncated =
              static_cast<unsigned __int128>(value.unscaled) - static_cast<unsigned __int128>(rem);
          return Literal::Decimal(static_cast<Int128>(truncated), value.scale);
        }
        case K::kString: return Literal::String(TruncateUtf8(value.bytes, parameter_));
        case K::kBinary: return Literal::Binary(value.bytes.substr(0, static_cast<size_t>(parameter_)));
        default: return reject();
      }
    }
    case Kind::kYear:
    case Kind::kMonth:
    case Kind::kDay: {
      if (value.kind != K::kDate && !IsTimestampKind(value.kind)) return reject();
      int64_t days = EpochDays(value);
      if (kind_ == Kind::kDay) return Literal::Date(static_cast<int32_t>(days));
      CivilDate d = CivilFromDays(days);
      if (kind_ == Kind::kYear) return Literal::Int(static_cast<int32_t>(d.year - 1970));
      return Literal::Int(static_cast<int32_t>((d.year - 1970) * 12 + (d.month - 1)));
    }
    case Kind::kHour:
      if (!IsTimestampKind(value.kind)) return reject();
      return Literal::Int(static_cast<int32_t>(FloorDiv(TimestampMicros(value), kMicrosPerHour)));
    default: return reject();
  }
}

std::string Transform::ToHumanString(const Literal& result) const {
  if (result.is_null()) return "null";
  switch (kind_) {
    case Kind::kYear: return Pad(1970 + result.int_value, 4);
    case Kind::kMonth: {
      int64_t year = 1970 + FloorDiv(result.int_value, 12);
      return Pad(year, 4) + "-" + Pad(FloorMod(result.int_value, 12) + 1, 2);
    }
    case Kind::kDay: return FormatDate(result.int_value);
    case Kind::kHour: {
      int64_t days = FloorDiv(result.int_value, 24);
      return FormatDate(days) + "-" + Pad(FloorMod(result.int_value, 24), 2);
    }
    default: return LiteralToHumanString(result);
  }
}

}  // namespace floe::iceberg
