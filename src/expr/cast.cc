#include "expr/cast.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "columnar/calendar.h"
#include "columnar/json_format.h"
#include "expr/decimal_math.h"
#include "expr/expr_types.h"
#include "expr/value_text.h"

namespace floe::expr {
namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

int64_t MicrosPer(TimeUnit unit, int64_t value) {
  switch (unit) {
    case TimeUnit::kMilli: return value * 1000;
    case TimeUnit::kMicro: return value;
    case TimeUnit::kNano: return FloorDiv(value, 1000);
  }
  return value;
}

// Reads slot i of a (possibly non-canonical) numeric column as int128, with
// the column's decimal scale (0 for integers).
std::optional<Int128> IntegerValue(const Column& c, int64_t i) {
  switch (c.type.id) {
    case TypeId::kBool: return c.Value<uint8_t>(i) ? 1 : 0;
    case TypeId::kInt8: return c.Value<int8_t>(i);
    case TypeId::kInt16: return c.Value<int16_t>(i);
    case TypeId::kInt32: return c.Value<int32_t>(i);
    case TypeId::kInt64: return c.Value<int64_t>(i);
    case TypeId::kUInt8: return c.Value<uint8_t>(i);
    case TypeId::kUInt16: return c.Value<uint16_t>(i);
    case TypeId::kUInt32: return c.Value<uint32_t>(i);
    case TypeId::kUInt64: return c.Value<uint64_t>(i);
    case TypeId::kDecimal: return c.Value<Int128>(i);
    default: return std::nullopt;
  }
}

std::optional<double> FloatValue(const Column& c, int64_t i) {
  switch (c.type.id) {
    case TypeId::kFloat16: return HalfToFloat(c.Value<uint16_t>(i));
    case TypeId::kFloat32: return c.Value<float>(i);
    case TypeId::kFloat64: return c.Value<double>(i);
    default: return std::nullopt;
  }
}

// Builds the output column of a per-row cast.
class Output {
 public:
  explicit Output(const DataType& to) : out_(to) {}
  template <typename T>
  void Put(T v) {
    out_.AppendValue(v);
  }
  void PutBytes(std::string_view s) { out_.AppendBytes(s); }
  void PutFixed(const uint8_t* bytes) { out_.AppendFixed(bytes); }
  void PutNull() { out_.AppendNull(); }
  Column Take() { return std::move(out_); }

 private:
  Column out_;
};

std::string Quote(std::string_view s) {
  std::string out = "'";
  out.append(s.substr(0, 200));
  if (s.size() > 200) out += "...";
  return out + "'";
}

}  // namespace

double DecimalToDouble(Int128 unscaled, int32_t scale) {
  // Exact operands give one correctly rounded division; beyond 2^53 the
  // decimal text is read back, which rounds correctly too (DuckDB's
  // conversion of wide decimals can be an ulp off).
  constexpr Int128 kExact = Int128{1} << 53;
  if (unscaled < kExact && unscaled > -kExact && scale <= 22) {
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    return static_cast<double>(unscaled) / kPow10[scale];
  }
  return std::strtod(FormatDecimalText(unscaled, scale).c_str(), nullptr);
}

std::string ValueToText(const Column& c, int64_t i) {
  switch (c.type.id) {
    case TypeId::kBool: return c.Value<uint8_t>(i) ? "true" : "false";
    case TypeId::kFloat16:
    case TypeId::kFloat32: return FormatFloat(static_cast<float>(*FloatValue(c, i)));
    case TypeId::kFloat64: return FormatDouble(c.Value<double>(i));
    case TypeId::kDecimal: return FormatDecimalText(c.Value<Int128>(i), c.type.scale);
    case TypeId::kDate: return FormatDateText(c.Value<int32_t>(i));
    case TypeId::kTime: return FormatTimeText(MicrosPer(c.type.unit, c.Value<int64_t>(i)));
    case TypeId::kTimestamp:
      return FormatTimestampText(MicrosPer(c.type.unit, c.Value<int64_t>(i)), c.type.utc);
    case TypeId::kString: return std::string(c.StringAt(i));
    case TypeId::kBinary: return FormatBinaryText(c.StringAt(i));
    case TypeId::kFixedBinary:
      return FormatBinaryText(
          std::string_view(reinterpret_cast<const char*>(c.values.data()) + i * c.type.byte_width,
                           static_cast<size_t>(c.type.byte_width)));
    case TypeId::kUuid: return FormatUuidText(c.values.data() + i * 16);
    default: {
      auto v = IntegerValue(c, i);
      if (!v) return "?";
      return FormatDecimalText(*v, 0);
    }
  }
}

Result<Vector> EvalCast(const Vector& in, const DataType& to, bool try_cast, int64_t rows,
                        const EvalScope& scope) {
  const Column& c = in.col();
  const DataType& from = c.type;
  const int64_t n = in.constant ? 1 : rows;
  if (from == to) return in;

  // Fast paths: lossless widenings of whole columns (validity kept as is).
  auto widen = [&](auto from_tag, auto to_tag) {
    using F = decltype(from_tag);
    using T = decltype(to_tag);
    Column out(to);
    out.length = n;
    out.validity = c.validity;
    out.null_count = c.null_count;
    out.values.resize(static_cast<size_t>(n) * sizeof(T));
    const F* x = c.ValuesAs<F>();
    T* o = reinterpret_cast<T*>(out.values.data());
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(x[i]);
    return OwnedVector(std::move(out), in.constant);
  };
  if (to.id == TypeId::kInt64 && from.id == TypeId::kInt32) return widen(int32_t{}, int64_t{});
  if (to.id == TypeId::kFloat64 && from.id == TypeId::kInt32) return widen(int32_t{}, double{});
  if (to.id == TypeId::kFloat64 && from.id == TypeId::kInt64) return widen(int64_t{}, double{});
  if (to.id == TypeId::kFloat64 && from.id == TypeId::kFloat32) return widen(float{}, double{});
  if (to.id == TypeId::kInt32 && from.id == TypeId::kInt16) return widen(int16_t{}, int32_t{});
  if (to.id == TypeId::kInt32 && from.id == TypeId::kInt8) return widen(int8_t{}, int32_t{});
  if (to.id == TypeId::kInt32 && from.id == TypeId::kUInt8) return widen(uint8_t{}, int32_t{});
  if (to.id == TypeId::kInt32 && from.id == TypeId::kUInt16) return widen(uint16_t{}, int32_t{});
  if (to.id == TypeId::kInt64 && from.id == TypeId::kUInt32) return widen(uint32_t{}, int64_t{});
  if (to.id == TypeId::kTimestamp && from.id == TypeId::kTimestamp && from.unit == to.unit) {
    Column out = c;  // timestamp <-> timestamptz: the same instant
    out.type = to;
    return OwnedVector(std::move(out), in.constant);
  }
  // Integers and decimals to a decimal with room for every value: one
  // multiplication by 10^(scale difference) per row, which cannot overflow.
  if (to.id == TypeId::kDecimal && (IsInteger(from) || from.id == TypeId::kDecimal)) {
    const DataType source = AsDecimal(from);
    if (to.scale >= source.scale && to.precision - to.scale >= source.precision - source.scale) {
      Vector widened = from.id == TypeId::kInt32   ? widen(int32_t{}, Int128{})
                       : from.id == TypeId::kInt64 ? widen(int64_t{}, Int128{})
                                                   : widen(Int128{}, Int128{});
      const Int128 factor = Pow10(to.scale - source.scale);
      if (factor != 1) {
        Int128* v = reinterpret_cast<Int128*>(const_cast<Column&>(widened.col()).values.data());
        for (int64_t i = 0; i < n; ++i) v[i] *= factor;
      }
      return widened;
    }
  }

  Output out(to);
  for (int64_t i = 0; i < n; ++i) {
    if (c.IsNull(i)) {
      out.PutNull();
      continue;
    }
    // Each case either Puts a value or sets `failure` (and `kind`).
    std::string failure;
    ErrorKind kind = ErrorKind::kInvalidArgument;
    auto out_of_range = [&](const std::string& value) {
      failure = "value " + value + " of " + TypeName(from) + " is out of range for " + TypeName(to);
      kind = ErrorKind::kOutOfRange;
    };
    auto bad_text = [&](std::string_view text) {
      failure = "cannot cast string " + Quote(text) + " to " + TypeName(to);
    };
    const bool from_string = from.id == TypeId::kString;
    switch (to.id) {
      case TypeId::kBool: {
        if (from_string) {
          auto v = ParseBoolean(c.StringAt(i));
          if (v)
            out.Put<uint8_t>(*v);
          else
            bad_text(c.StringAt(i));
        } else if (auto d = FloatValue(c, i)) {
          out.Put<uint8_t>(*d != 0);
        } else if (auto v = IntegerValue(c, i)) {
          out.Put<uint8_t>(*v != 0);
        } else {
          failure = "no cast";
        }
        break;
      }
      case TypeId::kInt32:
      case TypeId::kInt64: {
        const bool is32 = to.id == TypeId::kInt32;
        const Int128 lo = is32 ? INT32_MIN : INT64_MIN, hi = is32 ? INT32_MAX : INT64_MAX;
        std::optional<Int128> value;
        if (from_string) {
          const std::string_view text = c.StringAt(i);
          auto v = ParseInteger(text);
          if (!v) {
            bad_text(text);
            break;
          }
          value = *v;
        } else if (auto d = FloatValue(c, i)) {
          const double r = std::nearbyint(*d);
          if (!(r >= -9.3e18 && r <= 9.3e18) || r < static_cast<double>(lo) || r > static_cast<double>(hi)) {
            out_of_range(FormatDouble(*d));
            break;
          }
          value = static_cast<Int128>(r);
        } else if (auto v = IntegerValue(c, i)) {
          Int128 x = *v;
          if (from.id == TypeId::kDecimal) Rescale(x, from.scale, 0, &x);
          value = x;
        }
        if (!value) {
          if (failure.empty()) failure = "no cast";
          break;
        }
        if (*value < lo || *value > hi) {
          if (!from_string)
            out_of_range(ValueToText(c, i));
          else
            bad_text(c.StringAt(i));
          break;
        }
        if (is32)
          out.Put<int32_t>(static_cast<int32_t>(*value));
        else
          out.Put<int64_t>(static_cast<int64_t>(*value));
        break;
      }
      case TypeId::kFloat32:
      case TypeId::kFloat64: {
        std::optional<double> value;
        if (from_string) {
          value = ParseDouble(c.StringAt(i));
          if (!value) bad_text(c.StringAt(i));
        } else if (auto d = FloatValue(c, i)) {
          value = *d;
        } else if (auto v = IntegerValue(c, i)) {
          value = from.id == TypeId::kDecimal ? DecimalToDouble(*v, from.scale) : static_cast<double>(*v);
        }
        if (!value) {
          if (failure.empty()) failure = "no cast";
          break;
        }
        if (to.id == TypeId::kFloat32) {
          const float f = static_cast<float>(*value);
          if (std::isinf(f) && !std::isinf(*value)) {
            out_of_range(FormatDouble(*value));
            break;
          }
          out.Put<float>(f);
        } else {
          out.Put<double>(*value);
        }
        break;
      }
      case TypeId::kDecimal: {
        const Int128 limit = Pow10(to.precision);
        std::optional<Int128> value;
        if (from_string) {
          value = ParseDecimal(c.StringAt(i), to.precision, to.scale);
          if (!value) bad_text(c.StringAt(i));
        } else if (auto d = FloatValue(c, i)) {
          const double scaled = std::round(*d * std::pow(10.0, to.scale));
          if (!(std::fabs(scaled) < 1e38) || std::fabs(scaled) >= static_cast<double>(limit)) {
            out_of_range(FormatDouble(*d));
            break;
          }
          value = static_cast<Int128>(scaled);
        } else if (auto v = IntegerValue(c, i)) {
          Int128 x;
          if (!Rescale(*v, from.id == TypeId::kDecimal ? from.scale : 0, to.scale, &x) || x >= limit ||
              x <= -limit) {
            out_of_range(ValueToText(c, i));
            break;
          }
          value = x;
        }
        if (!value) {
          if (failure.empty()) failure = "no cast";
          break;
        }
        out.Put<Int128>(*value);
        break;
      }
      case TypeId::kDate: {
        if (from_string) {
          auto v = ParseDate(c.StringAt(i));
          if (!v) {
            // A timestamp's text names a date too (DuckDB: '2024-01-01 10:00'::DATE).
            auto ts = ParseTimestamp(c.StringAt(i), /*apply_offset=*/false);
            if (ts) v = static_cast<int32_t>(FloorDiv(*ts, kMicrosPerDay));
          }
          if (v)
            out.Put<int32_t>(*v);
          else
            bad_text(c.StringAt(i));
        } else if (from.id == TypeId::kTimestamp) {
          const int64_t days = FloorDiv(MicrosPer(from.unit, c.Value<int64_t>(i)), kMicrosPerDay);
          out.Put<int32_t>(static_cast<int32_t>(days));
        } else {
          failure = "no cast";
        }
        break;
      }
      case TypeId::kTime: {
        if (from_string) {
          auto v = ParseTime(c.StringAt(i));
          if (v)
            out.Put<int64_t>(*v);
          else
            bad_text(c.StringAt(i));
        } else if (from.id == TypeId::kTime) {
          out.Put<int64_t>(MicrosPer(from.unit, c.Value<int64_t>(i)));
        } else {
          failure = "no cast";
        }
        break;
      }
      case TypeId::kTimestamp: {
        if (from_string) {
          auto v = ParseTimestamp(c.StringAt(i), to.utc);
          if (v)
            out.Put<int64_t>(*v);
          else
            bad_text(c.StringAt(i));
        } else if (from.id == TypeId::kDate) {
          int64_t micros;
          if (__builtin_mul_overflow(static_cast<int64_t>(c.Value<int32_t>(i)), kMicrosPerDay, &micros)) {
            out_of_range(FormatDateText(c.Value<int32_t>(i)));
            break;
          }
          out.Put<int64_t>(micros);
        } else if (from.id == TypeId::kTimestamp) {
          const int64_t v = c.Value<int64_t>(i);
          if (from.unit == TimeUnit::kMilli && (v > INT64_MAX / 1000 || v < INT64_MIN / 1000)) {
            out_of_range(std::to_string(v) + " ms");
            break;
          }
          out.Put<int64_t>(MicrosPer(from.unit, v));
        } else {
          failure = "no cast";
        }
        break;
      }
      case TypeId::kString: {
        out.PutBytes(ValueToText(c, i));
        break;
      }
      case TypeId::kBinary: {
        if (from.is_binary_like()) {
          out.PutBytes(c.StringAt(i));
        } else if (from.id == TypeId::kUuid || from.id == TypeId::kFixedBinary) {
          const int32_t w = from.fixed_width();
          out.PutBytes(std::string_view(reinterpret_cast<const char*>(c.values.data()) + i * w,
                                        static_cast<size_t>(w)));
        } else {
          failure = "no cast";
        }
        break;
      }
      case TypeId::kUuid: {
        if (from_string) {
          auto v = ParseUuidText(c.StringAt(i));
          if (v)
            out.PutFixed(reinterpret_cast<const uint8_t*>(v->data()));
          else
            bad_text(c.StringAt(i));
        } else {
          failure = "no cast";
        }
        break;
      }
      default: failure = "no cast"; break;
    }
    if (!failure.empty()) {
      if (failure == "no cast") {
        return Status::Internal("no cast from " + from.ToString() + " to " + to.ToString());
      }
      if (!try_cast) return scope.RowError(kind, i, failure);
      out.PutNull();
    }
  }
  return OwnedVector(out.Take(), in.constant);
}

}  // namespace floe::expr
