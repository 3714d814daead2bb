#include "ingest/schema/column_cast.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/schema/name_match.h"
#include "ingest/schema/type_compat.h"

namespace floe::ingest::internal {

namespace {

Status Unconvertible(const std::string& name, const DataType& from, const DataType& to) {
  return Status::InvalidArgument("column " + name + ": cannot convert file type " + from.ToString() +
                                 " to table type " + to.ToString());
}

// A target column sharing the source's length and validity; values to fill.
Column ShellLike(const Column& source, const DataType& target) {
  Column out(target);
  out.length = source.length;
  out.null_count = source.null_count;
  out.validity = source.validity;
  return out;
}

template <typename From, typename To>
void Widen(const Column& source, Column* out) {
  out->values.resize(static_cast<size_t>(source.length) * sizeof(To));
  for (int64_t i = 0; i < source.length; ++i) {
    To v = static_cast<To>(source.Value<From>(i));
    std::memcpy(out->values.data() + static_cast<size_t>(i) * sizeof(To), &v, sizeof(To));
  }
}

template <typename To>
bool WidenInteger(const Column& source, Column* out) {
  switch (source.type.id) {
    case TypeId::kInt8: Widen<int8_t, To>(source, out); return true;
    case TypeId::kInt16: Widen<int16_t, To>(source, out); return true;
    case TypeId::kInt32: Widen<int32_t, To>(source, out); return true;
    case TypeId::kUInt8: Widen<uint8_t, To>(source, out); return true;
    case TypeId::kUInt16: Widen<uint16_t, To>(source, out); return true;
    default: break;
  }
  if constexpr (sizeof(To) == 8) {
    if (source.type.id == TypeId::kInt64) {
      out->values = source.values;
      return true;
    }
    if (source.type.id == TypeId::kUInt32) {
      Widen<uint32_t, To>(source, out);
      return true;
    }
  }
  return false;
}

// Integers and short decimals into double (MatchPrimitive's kCastUp rule):
// false when `source` is neither; a long beyond 2^53 is OutOfRange naming it.
Result<bool> NumberToDouble(const Column& source, const std::string& name, Column* out) {
  switch (source.type.id) {
    case TypeId::kInt8: Widen<int8_t, double>(source, out); return true;
    case TypeId::kInt16: Widen<int16_t, double>(source, out); return true;
    case TypeId::kInt32: Widen<int32_t, double>(source, out); return true;
    case TypeId::kUInt8: Widen<uint8_t, double>(source, out); return true;
    case TypeId::kUInt16: Widen<uint16_t, double>(source, out); return true;
    case TypeId::kUInt32: Widen<uint32_t, double>(source, out); return true;
    case TypeId::kInt64: {
      constexpr int64_t kExact = int64_t{1} << 53;
      for (int64_t i = 0; i < source.length; ++i) {
        const int64_t v = source.Value<int64_t>(i);
        if (!source.IsNull(i) && (v > kExact || v < -kExact)) {
          return Status::OutOfRange("column " + name + ": value " + std::to_string(v) + " at row " +
                                    std::to_string(i) + " (long) has no exact double in the table's column");
        }
      }
      Widen<int64_t, double>(source, out);
      return true;
    }
    case TypeId::kDecimal: {
      if (source.type.scale < 0 || source.type.scale > 22) return false;
      double scale = 1;  // exact: powers of ten up to 1e22 are doubles
      for (int32_t k = 0; k < source.type.scale; ++k) scale *= 10;
      __int128 limit = 1;
      for (int32_t k = 0; k < internal::kMaxExactDecimalDigitsInDouble; ++k) limit *= 10;
      out->values.resize(static_cast<size_t>(source.length) * sizeof(double));
      for (int64_t i = 0; i < source.length; ++i) {
        __int128 unscaled;
        std::memcpy(&unscaled, source.values.data() + static_cast<size_t>(i) * 16, 16);
        if (source.IsNull(i)) unscaled = 0;
        if (unscaled >= limit || unscaled <= -limit) {
          return Status::OutOfRange(
              "column " + name + ": the value at row " + std::to_string(i) + " (" + source.type.ToString() +
              ") has more than " + std::to_string(internal::kMaxExactDecimalDigitsInDouble) +
              " significant digits, so the table's double column cannot hold it exactly");
        }
        // Both operands are exact doubles (|unscaled| < 1e15 < 2^53), so the
        // quotient is the double nearest the decimal.
        const double v = static_cast<double>(unscaled) / scale;
        std::memcpy(out->values.data() + static_cast<size_t>(i) * sizeof(double), &v, sizeof(double));
      }
      return true;
    }
    default: return false;
  }
}

float HalfBitsToFloat(uint16_t bits) {
  const int sign = (bits >> 15) & 1;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

template <typename To>
void WidenHalf(const Column& source, Column* out) {
  out->values.resize(static_cast<size_t>(source.length) * sizeof(To));
  for (int64_t i = 0; i < source.length; ++i) {
    To v = static_cast<To>(HalfBitsToFloat(source.Value<uint16_t>(i)));
    std::memcpy(out->values.data() + static_cast<size_t>(i) * sizeof(To), &v, sizeof(To));
  }
}

int64_t UnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMilli: return 1'000;
    case TimeUnit::kMicro: return 1'000'000;
    case TimeUnit::kNano: return 1'000'000'000;
  }
  return 1;
}

Status ConvertUnit(const Column& source, TimeUnit to, const std::string& name, Column* out) {
  const int64_t from_units = UnitsPerSecond(source.type.unit);
  const int64_t to_units = UnitsPerSecond(to);
  out->values = source.values;
  if (from_units == to_units) return Status::OK();
  int64_t* values = reinterpret_cast<int64_t*>(out->values.data());
  if (to_units > from_units) {
    const int64_t factor = to_units / from_units;
    for (int64_t i = 0; i < source.length; ++i) {
      if (source.IsNull(i)) continue;
      int64_t scaled;
      if (__builtin_mul_overflow(values[i], factor, &scaled)) {
        return Status::OutOfRange("column " + name + ": value " + std::to_string(values[i]) + " at row " +
                                  std::to_string(i) + " (" + source.type.ToString() +
                                  ") overflows when converted to the table's unit");
      }
      values[i] = scaled;
    }
    return Status::OK();
  }
  const int64_t divisor = from_units / to_units;
  for (int64_t i = 0; i < source.length; ++i) {
    int64_t q = values[i] / divisor;
    if (values[i] % divisor != 0 && values[i] < 0) --q;  // toward negative infinity
    values[i] = q;
  }
  return Status::OK();
}

void Uint64ToDecimal(const Column& source, Column* out) {
  out->values.resize(static_cast<size_t>(source.length) * 16);
  for (int64_t i = 0; i < source.length; ++i) {
    __int128 v = static_cast<__int128>(source.Value<uint64_t>(i));
    std::memcpy(out->values.data() + static_cast<size_t>(i) * 16, &v, 16);
  }
}

Result<Column> CastPrimitive(const Column& source, const DataType& target, const std::string& name) {
  const DataType& from = source.type;
  Column out = ShellLike(source, target);
  auto copy_values = [&] {
    out.values = source.values;
    return out;
  };
  switch (target.id) {
    case TypeId::kBool:
    case TypeId::kDate:
      if (from.id == target.id) return copy_values();
      break;
    case TypeId::kInt32:
      if (WidenInteger<int32_t>(source, &out)) return out;
      break;
    case TypeId::kInt64:
      if (WidenInteger<int64_t>(source, &out)) return out;
      break;
    case TypeId::kFloat32:
      if (from.id == TypeId::kFloat32) return copy_values();
      if (from.id == TypeId::kFloat16) {
        WidenHalf<float>(source, &out);
        return out;
      }
      break;
    case TypeId::kFloat64:
      if (from.id == TypeId::kFloat64) return copy_values();
      if (from.id == TypeId::kFloat32) {
        Widen<float, double>(source, &out);
        return out;
      }
      if (from.id == TypeId::kFloat16) {
        WidenHalf<double>(source, &out);
        return out;
      }
      {
        FLOE_ASSIGN_OR_RETURN(bool converted, NumberToDouble(source, name, &out));
        if (converted) return out;
      }
      break;
    case TypeId::kDecimal:
      if (from.id == TypeId::kDecimal && from.scale == target.scale && from.precision <= target.precision) {
        return copy_values();
      }
      if (from.id == TypeId::kUInt64 && target.scale == 0 && target.precision >= 20) {
        Uint64ToDecimal(source, &out);
        return out;
      }
      break;
    case TypeId::kTime:
    case TypeId::kTimestamp:
      if (from.id == target.id && (target.id == TypeId::kTime || from.utc == target.utc)) {
        FLOE_RETURN_IF_ERROR(ConvertUnit(source, target.unit, name, &out));
        return out;
      }
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      if (from.id == target.id) {
        out.offsets = source.offsets;
        out.data = source.data;
        return out;
      }
      break;
    case TypeId::kFixedBinary:
    case TypeId::kUuid:
      if (from.id == target.id && from.fixed_width() == target.fixed_width()) return copy_values();
      break;
    default: break;
  }
  return Unconvertible(name, from, target);
}

std::vector<std::string_view> MemberNames(const DataType& type) {
  std::vector<std::string_view> names;
  for (const Field& f : type.children) names.emplace_back(f.name);
  return names;
}

Result<Column> CastStruct(const Column& source, const DataType& target, const std::string& name) {
  Column out = ShellLike(source, target);
  auto matches = MatchNames(MemberNames(target), MemberNames(source.type));
  if (!matches.ok()) return matches.status().WithContext("column " + name);
  std::vector<int> source_of(target.children.size(), -1);
  for (size_t s = 0; s < matches->size(); ++s) {
    const NameMatch& match = (*matches)[s];
    if (!match.matched()) {
      return Status::InvalidArgument("column " + name + "." + source.type.children[s].name +
                                     ": not in the table schema (evolve the schema first)");
    }
    source_of[static_cast<size_t>(match.table_index)] = static_cast<int>(s);
  }
  for (size_t t = 0; t < target.children.size(); ++t) {
    const Field& member = target.children[t];
    if (source_of[t] < 0) {
      out.children.push_back(MakeNullColumn(member.type, source.length));
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(Column child, CastColumn(source.children[static_cast<size_t>(source_of[t])],
                                                   member.type, name + "." + member.name));
    out.children.push_back(std::move(child));
  }
  return out;
}

}  // namespace

Result<Column> CastColumn(const Column& source, const DataType& target, const std::string& name) {
  if (!target.is_nested()) {
    if (source.type.is_nested()) return Unconvertible(name, source.type, target);
    return CastPrimitive(source, target, name);
  }
  if (target.id == TypeId::kStruct) {
    if (source.type.id != TypeId::kStruct || source.type.children.size() != source.children.size()) {
      return Unconvertible(name, source.type, target);
    }
    return CastStruct(source, target, name);
  }
  if (source.type.id != target.id || source.children.size() != target.children.size()) {
    return Unconvertible(name, source.type, target);
  }
  Column out = ShellLike(source, target);
  out.offsets = source.offsets;
  for (size_t k = 0; k < target.children.size(); ++k) {
    std::string child_name = name + "." + target.children[k].name;
    FLOE_ASSIGN_OR_RETURN(Column child, CastColumn(source.children[k], target.children[k].type, child_name));
    out.children.push_back(std::move(child));
  }
  return out;
}

Column MakeNullColumn(const DataType& type, int64_t length) {
  Column out(type);
  out.length = length;
  out.null_count = length;
  out.validity.assign(static_cast<size_t>((length + 7) / 8), 0);
  if (int32_t width = type.fixed_width(); width > 0) {
    out.values.assign(static_cast<size_t>(length) * static_cast<size_t>(width), 0);
  }
  if (type.is_binary_like() || type.id == TypeId::kList || type.id == TypeId::kMap) {
    out.offsets.assign(static_cast<size_t>(length) + 1, 0);
  }
  for (const Field& child : type.children) {
    out.children.push_back(type.id == TypeId::kStruct ? MakeNullColumn(child.type, length)
                                                      : MakeEmptyColumn(child.type));
  }
  return out;
}

namespace {

// `present[i]` says whether slot i's parent holds a value; empty = all present.
Status CheckRequired(const Column& column, const Field& field, const std::string& name,
                     const std::vector<uint8_t>& present) {
  if (!field.nullable && column.null_count > 0) {
    for (int64_t i = 0; i < column.length; ++i) {
      if (column.IsNull(i) && (present.empty() || present[static_cast<size_t>(i)])) {
        return Status::InvalidArgument("column " + name + ": null at row " + std::to_string(i) +
                                       ", but the table requires a value");
      }
    }
  }
  const DataType& type = field.type;
  if (type.id == TypeId::kStruct) {
    std::vector<uint8_t> member_present;
    if (!present.empty() || column.null_count > 0) {
      member_present.resize(static_cast<size_t>(column.length));
      for (int64_t i = 0; i < column.length; ++i) {
        member_present[static_cast<size_t>(i)] =
            column.IsValid(i) && (present.empty() || present[static_cast<size_t>(i)]);
      }
    }
    for (size_t k = 0; k < type.children.size() && k < column.children.size(); ++k) {
      FLOE_RETURN_IF_ERROR(CheckRequired(column.children[k], type.children[k],
                                         name + "." + type.children[k].name, member_present));
    }
  } else if (type.id == TypeId::kList || type.id == TypeId::kMap) {
    // Elements exist only inside present, non-null slots (a null slot has an empty range).
    for (size_t k = 0; k < type.children.size() && k < column.children.size(); ++k) {
      FLOE_RETURN_IF_ERROR(
          CheckRequired(column.children[k], type.children[k], name + "." + type.children[k].name, {}));
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckRequiredValues(const Column& column, const Field& field, const std::string& name) {
  return CheckRequired(column, field, name, {});
}

}  // namespace floe::ingest::internal
