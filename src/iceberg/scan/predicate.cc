#include "iceberg/scan/predicate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/strings.h"

namespace floe::iceberg {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string_view Unquote(std::string_view text) {
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

template <typename T>
bool ParseInteger(std::string_view text, T* out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// Digits [begin, begin+count) of text as an unsigned number; false if not all digits.
bool ParseDigits(std::string_view text, size_t begin, size_t count, int64_t* out) {
  if (begin + count > text.size()) return false;
  int64_t value = 0;
  for (size_t i = begin; i < begin + count; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    value = value * 10 + (text[i] - '0');
  }
  *out = value;
  return true;
}

Result<int32_t> ParseDateText(std::string_view text) {
  int64_t year = 0, month = 0, day = 0;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-' || !ParseDigits(text, 0, 4, &year) ||
      !ParseDigits(text, 5, 2, &month) || !ParseDigits(text, 8, 2, &day) || month < 1 || month > 12 ||
      day < 1 || day > 31) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a date (YYYY-MM-DD)");
  }
  return static_cast<int32_t>(DaysFromCivil(year, static_cast<int32_t>(month), static_cast<int32_t>(day)));
}

// "HH:MM:SS[.fraction]" as units of 10^-digits seconds (digits 6 or 9).
Result<int64_t> ParseTimeText(std::string_view text, int digits) {
  int64_t hour = 0, minute = 0, second = 0;
  if (text.size() < 8 || text[2] != ':' || text[5] != ':' || !ParseDigits(text, 0, 2, &hour) ||
      !ParseDigits(text, 3, 2, &minute) || !ParseDigits(text, 6, 2, &second) || hour > 23 || minute > 59 ||
      second > 59) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a time (HH:MM:SS[.ffffff])");
  }
  int64_t fraction = 0;
  if (text.size() > 8) {
    const size_t count = text.size() - 9;
    if (text[8] != '.' || count == 0 || count > static_cast<size_t>(digits) ||
        !ParseDigits(text, 9, count, &fraction)) {
      return Status::InvalidArgument("'" + std::string(text) + "' has a bad fraction of a second");
    }
    for (size_t i = count; i < static_cast<size_t>(digits); ++i) fraction *= 10;
  }
  int64_t scale = 1;
  for (int i = 0; i < digits; ++i) scale *= 10;
  return ((hour * 60 + minute) * 60 + second) * scale + fraction;
}

Result<int64_t> ParseTimestampText(std::string_view text, int digits, bool* had_zone) {
  *had_zone = false;
  if (!text.empty() && (text.back() == 'Z' || text.back() == 'z')) {
    *had_zone = true;
    text.remove_suffix(1);
  } else if (text.size() > 6 && text.substr(text.size() - 6) == "+00:00") {
    *had_zone = true;
    text.remove_suffix(6);
  }
  if (text.size() == 10) {
    FLOE_ASSIGN_OR_RETURN(int32_t days, ParseDateText(text));
    int64_t per_day = 86400;
    for (int i = 0; i < digits; ++i) per_day *= 10;
    return days * per_day;
  }
  if (text.size() < 19 || (text[10] != 'T' && text[10] != ' ')) {
    return Status::InvalidArgument("'" + std::string(text) +
                                   "' is not a timestamp (YYYY-MM-DDTHH:MM:SS[.ffffff])");
  }
  FLOE_ASSIGN_OR_RETURN(int32_t days, ParseDateText(text.substr(0, 10)));
  FLOE_ASSIGN_OR_RETURN(int64_t time, ParseTimeText(text.substr(11), digits));
  int64_t per_day = 86400;
  for (int i = 0; i < digits; ++i) per_day *= 10;
  return days * per_day + time;
}

Result<std::string> ParseHex(std::string_view text) {
  if (text.size() % 2 != 0)
    return Status::InvalidArgument("hex value '" + std::string(text) + "' has odd length");
  std::string out;
  for (size_t i = 0; i < text.size(); i += 2) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + i + 2, value, 16);
    if (ec != std::errc() || ptr != text.data() + i + 2) {
      return Status::InvalidArgument("'" + std::string(text) + "' is not hex");
    }
    out.push_back(static_cast<char>(value));
  }
  return out;
}

Result<Literal> ParseDecimalText(std::string_view text, int32_t precision, int32_t scale) {
  bool negative = false;
  std::string_view body = text;
  if (!body.empty() && (body.front() == '-' || body.front() == '+')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  const size_t dot = body.find('.');
  std::string_view whole = body.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? std::string_view() : body.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || fraction.size() > static_cast<size_t>(scale)) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a decimal with scale " +
                                   std::to_string(scale));
  }
  Int128 unscaled = 0;
  int digits = 0;
  auto append = [&](char c) -> bool {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    unscaled = unscaled * 10 + (c - '0');
    return ++digits <= 38;
  };
  for (char c : whole) {
    if (!append(c)) return Status::InvalidArgument("'" + std::string(text) + "' is not a decimal");
  }
  for (size_t i = 0; i < static_cast<size_t>(scale); ++i) {
    if (!append(i < fraction.size() ? fraction[i] : '0')) {
      return Status::InvalidArgument("'" + std::string(text) + "' is not a decimal");
    }
  }
  Int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  if (unscaled >= limit) {
    return Status::OutOfRange("'" + std::string(text) + "' does not fit decimal(" +
                              std::to_string(precision) + "," + std::to_string(scale) + ")");
  }
  return Literal::Decimal(negative ? -unscaled : unscaled, scale);
}

int CompareBytes(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

bool IsIntegral(Literal::Kind kind) {
  switch (kind) {
    case Literal::Kind::kBoolean:
    case Literal::Kind::kInt:
    case Literal::Kind::kLong:
    case Literal::Kind::kDate:
    case Literal::Kind::kTime:
    case Literal::Kind::kTimestamp:
    case Literal::Kind::kTimestampTz:
    case Literal::Kind::kTimestampNs:
    case Literal::Kind::kTimestampTzNs: return true;
    default: return false;
  }
}

}  // namespace

const char* PredicateOpName(PredicateOp op) {
  switch (op) {
    case PredicateOp::kEq: return "=";
    case PredicateOp::kNotEq: return "!=";
    case PredicateOp::kLt: return "<";
    case PredicateOp::kLtEq: return "<=";
    case PredicateOp::kGt: return ">";
    case PredicateOp::kGtEq: return ">=";
    case PredicateOp::kIsNull: return "is null";
    case PredicateOp::kNotNull: return "is not null";
  }
  return "?";
}

Result<Predicate> ParsePredicate(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  const std::string lower = AsciiLower(trimmed);
  for (auto [suffix, op] : {std::pair<const char*, PredicateOp>{" is not null", PredicateOp::kNotNull},
                            std::pair<const char*, PredicateOp>{" is null", PredicateOp::kIsNull}}) {
    const std::string_view s(suffix);
    if (lower.size() > s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0) {
      std::string_view column = Trim(trimmed.substr(0, trimmed.size() - s.size()));
      if (column.empty()) break;
      return Predicate{std::string(Unquote(column)), op, ""};
    }
  }
  // The operator is the first of = ! < > outside the column name.
  const size_t at = trimmed.find_first_of("=!<>");
  if (at == std::string_view::npos || at == 0) {
    return Status::InvalidArgument(
        "filter '" + std::string(text) +
        "' is not '<column> <op> <value>' (op: = != < <= > >=, is null, is not null)");
  }
  PredicateOp op;
  size_t length = 1;
  const char c = trimmed[at];
  const char next = at + 1 < trimmed.size() ? trimmed[at + 1] : '\0';
  if (c == '!' && next == '=') {
    op = PredicateOp::kNotEq, length = 2;
  } else if (c == '<' && next == '>') {
    op = PredicateOp::kNotEq, length = 2;
  } else if (c == '<' && next == '=') {
    op = PredicateOp::kLtEq, length = 2;
  } else if (c == '>' && next == '=') {
    op = PredicateOp::kGtEq, length = 2;
  } else if (c == '=' && next == '=') {
    op = PredicateOp::kEq, length = 2;
  } else if (c == '<') {
    op = PredicateOp::kLt;
  } else if (c == '>') {
    op = PredicateOp::kGt;
  } else if (c == '=') {
    op = PredicateOp::kEq;
  } else {
    return Status::InvalidArgument("filter '" + std::string(text) + "' has an unknown operator");
  }
  const std::string_view column = Trim(trimmed.substr(0, at));
  const std::string_view value = Trim(trimmed.substr(at + length));
  if (column.empty()) return Status::InvalidArgument("filter '" + std::string(text) + "' names no column");
  return Predicate{std::string(Unquote(column)), op, std::string(Unquote(value))};
}

Result<BoundPredicate> BindPredicate(const Predicate& predicate, const Schema& schema) {
  const NestedField* field = schema.FindFieldByName(predicate.column);
  if (field == nullptr)
    return Status::InvalidArgument("filter column '" + predicate.column + "' is not in the schema");
  if (!field->type.is_primitive() || field->type.kind == TypeKind::kUnknown) {
    return Status::NotSupported("filter column '" + predicate.column + "' has type " +
                                field->type.ToString() + "; only primitive columns can be filtered");
  }
  BoundPredicate bound{predicate.column, field->id, field->type, predicate.op, Literal::Null()};
  if (predicate.op != PredicateOp::kIsNull && predicate.op != PredicateOp::kNotNull) {
    auto value = ParseLiteral(predicate.value, field->type);
    if (!value.ok()) return value.status().WithContext("filter on '" + predicate.column + "'");
    bound.value = std::move(*value);
  }
  return bound;
}

Result<Literal> ParseLiteral(std::string_view text, const Type& type) {
  const std::string value(text);
  auto bad = [&](const char* what) {
    return Status::InvalidArgument("'" + value + "' is not " + what + " (column type " + type.ToString() +
                                   ")");
  };
  switch (type.kind) {
    case TypeKind::kBoolean: {
      const std::string lower = AsciiLower(text);
      if (lower == "true") return Literal::Boolean(true);
      if (lower == "false") return Literal::Boolean(false);
      return bad("a boolean");
    }
    case TypeKind::kInt: {
      int32_t v = 0;
      if (!ParseInteger(text, &v)) return bad("an int");
      return Literal::Int(v);
    }
    case TypeKind::kLong: {
      int64_t v = 0;
      if (!ParseInteger(text, &v)) return bad("a long");
      return Literal::Long(v);
    }
    case TypeKind::kFloat:
    case TypeKind::kDouble: {
      if (text.empty()) return bad("a number");
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (end != value.c_str() + value.size()) return bad("a number");
      if (type.kind == TypeKind::kFloat) return Literal::Float(static_cast<float>(v));
      return Literal::Double(v);
    }
    case TypeKind::kDecimal: return ParseDecimalText(text, type.precision, type.scale);
    case TypeKind::kDate: {
      FLOE_ASSIGN_OR_RETURN(int32_t days, ParseDateText(text));
      return Literal::Date(days);
    }
    case TypeKind::kTime: {
      FLOE_ASSIGN_OR_RETURN(int64_t micros, ParseTimeText(text, 6));
      return Literal::Time(micros);
    }
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      const bool nanos = type.kind == TypeKind::kTimestampNs || type.kind == TypeKind::kTimestampTzNs;
      bool had_zone = false;
      FLOE_ASSIGN_OR_RETURN(int64_t v, ParseTimestampText(text, nanos ? 9 : 6, &had_zone));
      switch (type.kind) {
        case TypeKind::kTimestamp: return Literal::Timestamp(v);
        case TypeKind::kTimestampTz: return Literal::TimestampTz(v);
        case TypeKind::kTimestampNs: return Literal::TimestampNs(v);
        default: return Literal::TimestampTzNs(v);
      }
    }
    case TypeKind::kString: return Literal::String(value);
    case TypeKind::kUuid: {
      FLOE_ASSIGN_OR_RETURN(std::string bytes, ParseUuid(text));
      return Literal::Uuid(std::move(bytes));
    }
    case TypeKind::kFixed: {
      FLOE_ASSIGN_OR_RETURN(std::string bytes, ParseHex(text));
      if (static_cast<int32_t>(bytes.size()) != type.length) return bad("hex of the fixed length");
      return Literal::Fixed(std::move(bytes));
    }
    case TypeKind::kBinary: {
      FLOE_ASSIGN_OR_RETURN(std::string bytes, ParseHex(text));
      return Literal::Binary(std::move(bytes));
    }
    default:
      return Status::NotSupported("literals of type " + type.ToString() + " are not supported in filters");
  }
}

std::optional<int> CompareValues(const Literal& a, const Literal& b) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  if (IsIntegral(a.kind) && IsIntegral(b.kind)) {
    if (a.kind != b.kind && !((a.kind == Literal::Kind::kInt || a.kind == Literal::Kind::kLong) &&
                              (b.kind == Literal::Kind::kInt || b.kind == Literal::Kind::kLong))) {
      return std::nullopt;
    }
    return a.int_value < b.int_value ? -1 : (a.int_value > b.int_value ? 1 : 0);
  }
  const bool a_float = a.kind == Literal::Kind::kFloat || a.kind == Literal::Kind::kDouble;
  const bool b_float = b.kind == Literal::Kind::kFloat || b.kind == Literal::Kind::kDouble;
  if (a_float && b_float) {
    if (std::isnan(a.double_value) || std::isnan(b.double_value)) return std::nullopt;
    return a.double_value < b.double_value ? -1 : (a.double_value > b.double_value ? 1 : 0);
  }
  if (a.kind != b.kind) return std::nullopt;
  if (a.kind == Literal::Kind::kDecimal) {
    if (a.scale != b.scale) return std::nullopt;
    return a.unscaled < b.unscaled ? -1 : (a.unscaled > b.unscaled ? 1 : 0);
  }
  return CompareBytes(a.bytes, b.bytes);
}

bool EvaluateOn(PredicateOp op, const Literal& row_value, const Literal& value) {
  if (op == PredicateOp::kIsNull) return row_value.is_null();
  if (op == PredicateOp::kNotNull) return !row_value.is_null();
  if (row_value.is_null()) return false;
  const std::optional<int> c = CompareValues(row_value, value);
  if (!c) return op == PredicateOp::kNotEq;  // NaN: unequal to everything
  switch (op) {
    case PredicateOp::kEq: return *c == 0;
    case PredicateOp::kNotEq: return *c != 0;
    case PredicateOp::kLt: return *c < 0;
    case PredicateOp::kLtEq: return *c <= 0;
    case PredicateOp::kGt: return *c > 0;
    case PredicateOp::kGtEq: return *c >= 0;
    default: return false;
  }
}

}  // namespace floe::iceberg
