#include "expr/expr_types.h"

#include <algorithm>
#include <charconv>

namespace floe::expr {
namespace {

int NumericRank(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt32: return 1;
    case TypeId::kInt64: return 2;
    case TypeId::kDecimal: return 3;
    case TypeId::kFloat32: return 4;
    case TypeId::kFloat64: return 5;
    default: return 0;
  }
}

bool ParseInt(std::string_view text, int32_t* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::string TypeName(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool: return "boolean";
    case TypeId::kInt32: return "int";
    case TypeId::kInt64: return "long";
    case TypeId::kFloat32: return "float";
    case TypeId::kFloat64: return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ")";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return "time";
    case TypeId::kTimestamp: return t.utc ? "timestamptz" : "timestamp";
    case TypeId::kString: return "string";
    case TypeId::kUuid: return "uuid";
    case TypeId::kBinary: return "binary";
    default: return t.ToString();
  }
}

Result<DataType> ParseTypeName(std::string_view name) {
  std::string_view base = name;
  std::optional<int32_t> precision, scale;
  if (size_t open = name.find('('); open != std::string_view::npos) {
    base = name.substr(0, open);
    std::string_view args = name.substr(open + 1);
    if (!args.empty() && args.back() == ')') args.remove_suffix(1);
    const size_t comma = args.find(',');
    int32_t value = 0;
    if (!ParseInt(args.substr(0, comma), &value)) {
      return Status::InvalidArgument("type " + std::string(name) + " has a bad precision");
    }
    precision = value;
    if (comma != std::string_view::npos) {
      if (!ParseInt(args.substr(comma + 1), &value)) {
        return Status::InvalidArgument("type " + std::string(name) + " has a bad scale");
      }
      scale = value;
    }
  }
  const bool numeric = base == "decimal" || base == "numeric";
  if (precision && !numeric && base != "varchar") {
    return Status::InvalidArgument("type " + std::string(base) + " takes no parameters");
  }
  if (base == "boolean" || base == "bool") return Bool();
  if (base == "int" || base == "integer" || base == "int4") return Int32();
  if (base == "long" || base == "bigint" || base == "int8") return Int64();
  if (base == "float" || base == "real" || base == "float4") return Float32();
  if (base == "double" || base == "float8" || base == "double precision") return Float64();
  if (numeric) {
    const int32_t p = precision.value_or(18), s = scale.value_or(precision ? 0 : 3);
    if (p < 1 || p > kMaxDecimalPrecision || s < 0 || s > p) {
      return Status::InvalidArgument("type " + std::string(name) +
                                     ": decimal precision must be 1..38 and scale 0..precision");
    }
    return Decimal(p, s);
  }
  if (base == "date") return Date();
  if (base == "time") return Time(TimeUnit::kMicro);
  if (base == "timestamp") return Timestamp(TimeUnit::kMicro, false);
  if (base == "timestamptz" || base == "timestamp with time zone") return Timestamp(TimeUnit::kMicro, true);
  if (base == "string" || base == "varchar" || base == "text") return String();
  if (base == "uuid") return Uuid();
  if (base == "binary" || base == "blob" || base == "bytea") return Binary();
  return Status::InvalidArgument("unknown type '" + std::string(name) +
                                 "' (expected boolean, int, long, float, double, decimal(p,s), date, time, "
                                 "timestamp, timestamptz, string, uuid or binary)");
}

std::optional<DataType> CanonicalType(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDate:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: {
      DataType out = t;
      out.annotation = DataType::Annotation::kNone;
      return out;
    }
    case TypeId::kDecimal:
      if (t.precision < 1 || t.precision > kMaxDecimalPrecision || t.scale < 0 || t.scale > t.precision) {
        return std::nullopt;
      }
      return Decimal(t.precision, t.scale);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kUInt8:
    case TypeId::kUInt16: return Int32();
    case TypeId::kUInt32: return Int64();
    case TypeId::kUInt64: return Decimal(20, 0);
    case TypeId::kFloat16: return Float32();
    case TypeId::kTime: return Time(TimeUnit::kMicro);
    case TypeId::kTimestamp: return Timestamp(TimeUnit::kMicro, t.utc);
    case TypeId::kFixedBinary: return Binary();
    default: return std::nullopt;
  }
}

bool IsNumeric(const DataType& t) {
  return NumericRank(t) > 0;
}
bool IsInteger(const DataType& t) {
  return t.id == TypeId::kInt32 || t.id == TypeId::kInt64;
}
bool IsTemporal(const DataType& t) {
  return t.id == TypeId::kDate || t.id == TypeId::kTimestamp;
}

DataType AsDecimal(const DataType& t) {
  if (t.id == TypeId::kInt32) return Decimal(10, 0);
  if (t.id == TypeId::kInt64) return Decimal(19, 0);
  return t;
}

std::optional<DataType> CommonSupertype(const DataType& a, const DataType& b) {
  if (a == b) return a;
  if (IsNumeric(a) && IsNumeric(b)) {
    const int ra = NumericRank(a), rb = NumericRank(b);
    if (ra >= 4 || rb >= 4) return ra > rb ? a : b;
    if (ra <= 2 && rb <= 2) return ra > rb ? a : b;
    const DataType da = AsDecimal(a), db = AsDecimal(b);
    const int32_t scale = std::max(da.scale, db.scale);
    const int32_t digits = std::max(da.precision - da.scale, db.precision - db.scale);
    return Decimal(std::min(kMaxDecimalPrecision, digits + scale), scale);
  }
  if (IsTemporal(a) && IsTemporal(b)) {
    const bool utc = (a.id == TypeId::kTimestamp && a.utc) || (b.id == TypeId::kTimestamp && b.utc);
    return Timestamp(TimeUnit::kMicro, utc);
  }
  return std::nullopt;
}

Result<DataType> DecimalResultType(char op, const DataType& left, const DataType& right) {
  const DataType a = AsDecimal(left), b = AsDecimal(right);
  const int32_t p1 = a.precision, s1 = a.scale, p2 = b.precision, s2 = b.scale;
  int32_t precision = 0, scale = 0;
  switch (op) {
    case '+':
    case '-':
      scale = std::max(s1, s2);
      precision = std::max(p1 - s1, p2 - s2) + scale + 1;
      break;
    case '*':
      scale = s1 + s2;
      precision = p1 + p2;
      break;
    case '%':
      scale = std::max(s1, s2);
      precision = std::max(p1 - s1, p2 - s2) + scale;
      break;
    case '/': {
      scale = std::max(6, s1 + p2 + 1);
      precision = p1 - s1 + s2 + scale;
      if (precision > kMaxDecimalPrecision) {
        const int32_t digits = precision - scale;
        scale = std::max(kMaxDecimalPrecision - digits, std::min(scale, 6));
        precision = kMaxDecimalPrecision;
      }
      break;
    }
    default: return Status::Internal("no decimal rule for operator " + std::string(1, op));
  }
  if (scale > kMaxDecimalPrecision) {
    return Status::InvalidArgument("the result of " + TypeName(left) + " " + op + " " + TypeName(right) +
                                   " would need scale " + std::to_string(scale) + " (above 38)");
  }
  precision = std::min(precision, kMaxDecimalPrecision);
  return Decimal(std::max(precision, scale), scale);
}

}  // namespace floe::expr
