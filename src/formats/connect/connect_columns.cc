#include "formats/connect/connect_columns.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "columnar/integer_cells.h"
#include "columnar/json_format.h"
#include "columnar/uuid_text.h"
#include "common/base64.h"
#include "formats/connect/offset_time_text.h"

namespace floe::connect {

namespace {

using int128 = __int128;
using uint128 = unsigned __int128;

// Exact decimal text of variable-scale decimals is bounded: a value of more
// bytes than this (about 2,400 digits) is a value error, not a quadratic loop.
constexpr size_t kMaxVariableDecimalBytes = 1024;
constexpr int64_t kMaxVariableDecimalScale = 1000;

const int128* PowersOfTen() {
  static const auto* table = [] {
    auto* t = new int128[39];
    t[0] = 1;
    for (int i = 1; i <= 38; ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return table;
}

// Two's complement big-endian bytes as an int128; nullopt when they do not fit.
std::optional<int128> Int128FromBigEndian(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  size_t start = 0;
  while (bytes.size() - start > 16) {  // only redundant sign bytes may go
    const auto b = static_cast<uint8_t>(bytes[start]);
    const auto next = static_cast<uint8_t>(bytes[start + 1]);
    if (!((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80)))) return std::nullopt;
    ++start;
  }
  uint128 v = (static_cast<uint8_t>(bytes[start]) & 0x80) ? ~uint128{0} : uint128{0};
  for (size_t i = start; i < bytes.size(); ++i) v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  return static_cast<int128>(v);
}

// Decimal digits of two's complement big-endian bytes of any length, with
// a '-' for negative values.
std::string SignedDigits(std::string_view bytes) {
  std::vector<uint8_t> magnitude(bytes.begin(), bytes.end());
  const bool negative = !magnitude.empty() && (magnitude[0] & 0x80);
  if (negative) {  // two's complement negation
    for (auto& b : magnitude) b = static_cast<uint8_t>(~b);
    for (size_t i = magnitude.size(); i-- > 0;) {
      if (++magnitude[i] != 0) break;
    }
  }
  std::string digits;
  size_t first = 0;
  while (first < magnitude.size()) {
    // magnitude /= 1e9, collecting the remainder's nine digits.
    uint64_t remainder = 0;
    for (size_t i = first; i < magnitude.size(); ++i) {
      const uint64_t cur = (remainder << 8) | magnitude[i];
      magnitude[i] = static_cast<uint8_t>(cur / 1000000000);
      remainder = cur % 1000000000;
    }
    while (first < magnitude.size() && magnitude[first] == 0) ++first;
    for (int k = 0; k < 9; ++k) {
      digits.push_back(static_cast<char>('0' + remainder % 10));
      remainder /= 10;
    }
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits.empty()) digits = "0";
  if (negative && digits != "0") digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

// The exact text of unscaled * 10^-scale (scale may be negative).
std::string DecimalText(std::string_view unscaled_bytes, int32_t scale) {
  std::string digits = SignedDigits(unscaled_bytes);
  const bool negative = digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (scale <= 0) {
    if (digits != "0") digits.append(static_cast<size_t>(-static_cast<int64_t>(scale)), '0');
  } else {
    if (digits.size() <= static_cast<size_t>(scale))
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

// unscaled * 10^(to - from) when exact and within 38 digits of `precision`.
std::optional<int128> Rescale(int128 unscaled, int32_t from, int32_t to, int32_t precision,
                              std::string* error) {
  const int128* pow10 = PowersOfTen();
  if (to >= from) {
    const int32_t up = to - from;
    if (up > 38) {
      *error = "does not fit decimal(" + std::to_string(precision) + ", " + std::to_string(to) + ")";
      return std::nullopt;
    }
    const int128 limit = pow10[38] / pow10[up];
    if (unscaled >= limit || unscaled <= -limit) {
      *error = "does not fit decimal(" + std::to_string(precision) + ", " + std::to_string(to) + ")";
      return std::nullopt;
    }
    unscaled *= pow10[up];
  } else {
    const int32_t down = from - to;
    if (down > 38 || unscaled % pow10[down] != 0) {
      *error = "has more than " + std::to_string(to) + " fraction digits";
      return std::nullopt;
    }
    unscaled /= pow10[down];
  }
  if (unscaled >= pow10[precision] || unscaled <= -pow10[precision]) {
    *error = "does not fit decimal(" + std::to_string(precision) + ", " + std::to_string(to) + ")";
    return std::nullopt;
  }
  return unscaled;
}

// The row of `parent` that element `index` of a list or map child belongs to.
int64_t ParentRow(const Column& parent, int64_t index) {
  auto it = std::upper_bound(parent.offsets.begin(), parent.offsets.end(), index);
  return std::max<int64_t>(0, static_cast<int64_t>(it - parent.offsets.begin()) - 1);
}

// A value that did not convert: its row, the path of the value (with
// element indexes, "after.tags[2]") and what was wrong.
struct Problem {
  int64_t row;
  std::string path;
  std::string what;
};

class Converter {
 public:
  Converter(const ConnectTypeOptions& options, std::vector<Problem>* errors)
      : options_(options), errors_(errors) {}

  Result<Column> Convert(const ConnectSchema& schema, Column raw, const std::string& path) {
    FLOE_ASSIGN_OR_RETURN(DataType target, FloeTypeOf(schema, path, options_));
    return ConvertTo(schema, std::move(target), std::move(raw), path);
  }

 private:
  void Fail(int64_t row, const std::string& path, const std::string& what) {
    errors_->push_back({row, path, what});
  }

  static Status Mismatch(const std::string& path, const DataType& target, const Column& raw) {
    return Status::SchemaMismatch(path + ": a " + raw.type.ToString() + " column cannot hold " +
                                  target.ToString());
  }

  // Builds a column of `type` row by row: value(row, &error) returns the
  // value, or nullopt with the error (the slot becomes null); nulls stay
  // null. `append` stores a value into the column.
  template <typename V, typename F, typename A>
  Column Build(const Column& raw, const DataType& type, const std::string& path, F&& value, A&& append) {
    Column out(type);
    std::string error;
    for (int64_t row = 0; row < raw.length; ++row) {
      if (raw.IsNull(row)) {
        out.AppendNull();
        continue;
      }
      error.clear();
      std::optional<V> v = value(row, &error);
      if (v) {
        append(out, *v);
      } else {
        out.AppendNull();
        Fail(row, path, error);
      }
    }
    return out;
  }

  // A fixed-width column whose values are T.
  template <typename T, typename F>
  Column BuildFixed(const Column& raw, const DataType& type, const std::string& path, F&& value) {
    return Build<T>(raw, type, path, value, [](Column& out, T v) { out.AppendValue<T>(v); });
  }

  // A string or binary column, or a 16-byte uuid column from 16-byte strings.
  template <typename F>
  Column BuildBytes(const Column& raw, const DataType& type, const std::string& path, F&& value) {
    return Build<std::string>(raw, type, path, value, [](Column& out, const std::string& v) {
      if (out.type.fixed_width() > 0) {
        out.AppendFixed(reinterpret_cast<const uint8_t*>(v.data()));
      } else {
        out.AppendBytes(v);
      }
    });
  }

  // The integral value at `row` of an integer or integral float column.
  static std::optional<int64_t> IntegralAt(const Column& raw, int64_t row) {
    if (IsIntegerType(raw.type)) return IntegerCell(raw, row);
    double v;
    if (raw.type.id == TypeId::kFloat64) {
      v = raw.Value<double>(row);
    } else if (raw.type.id == TypeId::kFloat32) {
      v = raw.Value<float>(row);
    } else {
      return std::nullopt;
    }
    if (!std::isfinite(v) || v != std::trunc(v) || v < -9.2233720368547758e18 || v >= 9.2233720368547758e18) {
      return std::nullopt;
    }
    return static_cast<int64_t>(v);
  }

  // Integer, date, time and timestamp targets.
  Result<Column> ConvertIntegral(Column raw, const DataType& target, const std::string& path) {
    const bool same_kind =
        raw.type.id == target.id &&
        (target.id == TypeId::kDate || target.id == TypeId::kTime || target.id == TypeId::kTimestamp);
    const bool numeric =
        IsIntegerType(raw.type) || raw.type.id == TypeId::kFloat32 || raw.type.id == TypeId::kFloat64;
    if (!same_kind && !numeric) return Mismatch(path, target, raw);
    // Already the target's layout and meaning: keep the buffers.
    if (raw.type.id == target.id && (target.id == TypeId::kDate || raw.type.unit == target.unit) &&
        target.id != TypeId::kTime) {
      raw.type = target;
      return raw;
    }
    int64_t lo = std::numeric_limits<int64_t>::min();
    int64_t hi = std::numeric_limits<int64_t>::max();
    switch (target.id) {
      case TypeId::kInt8: lo = INT8_MIN, hi = INT8_MAX; break;
      case TypeId::kInt16: lo = INT16_MIN, hi = INT16_MAX; break;
      case TypeId::kInt32:
      case TypeId::kDate: lo = INT32_MIN, hi = INT32_MAX; break;
      case TypeId::kTime: lo = 0, hi = 86400 * TicksPerSecond(target.unit) - 1; break;
      default: break;
    }
    // A temporal raw column in another unit converts exactly, or not at all.
    int64_t multiply = 1;
    int64_t divide = 1;
    if (same_kind && target.id != TypeId::kDate) {
      const int64_t from = TicksPerSecond(raw.type.unit);
      const int64_t to = TicksPerSecond(target.unit);
      if (to >= from) multiply = to / from;
      if (from > to) divide = from / to;
    }
    // (A date column is never converted here: dates have no unit.)
    auto value = [&](int64_t row, std::string* error) -> std::optional<int64_t> {
      std::optional<int64_t> v =
          same_kind ? std::optional<int64_t>(raw.Value<int64_t>(row)) : IntegralAt(raw, row);
      if (!v) {
        *error = "value is not an integer within 64 bits";
        return std::nullopt;
      }
      int64_t out = *v;
      if (divide > 1) {
        if (out % divide != 0) {
          *error = std::to_string(out) + " has more precision than " + target.ToString();
          return std::nullopt;
        }
        out /= divide;
      }
      if (multiply > 1 && __builtin_mul_overflow(out, multiply, &out)) {
        *error = std::to_string(*v) + " overflows " + target.ToString();
        return std::nullopt;
      }
      if (out < lo || out > hi) {
        *error = std::to_string(*v) +
                 (target.id == TypeId::kTime ? " is not a time of day of " : " does not fit ") +
                 target.ToString();
        return std::nullopt;
      }
      return out;
    };
    switch (target.fixed_width()) {
      case 1:
        return BuildFixed<int8_t>(raw, target, path,
                                  [&](int64_t row, std::string* e) -> std::optional<int8_t> {
                                    auto v = value(row, e);
                                    return v ? std::optional<int8_t>(static_cast<int8_t>(*v)) : std::nullopt;
                                  });
      case 2:
        return BuildFixed<int16_t>(
            raw, target, path, [&](int64_t row, std::string* e) -> std::optional<int16_t> {
              auto v = value(row, e);
              return v ? std::optional<int16_t>(static_cast<int16_t>(*v)) : std::nullopt;
            });
      case 4:
        return BuildFixed<int32_t>(
            raw, target, path, [&](int64_t row, std::string* e) -> std::optional<int32_t> {
              auto v = value(row, e);
              return v ? std::optional<int32_t>(static_cast<int32_t>(*v)) : std::nullopt;
            });
      default: return BuildFixed<int64_t>(raw, target, path, value);
    }
  }

  Result<Column> ConvertFloat(Column raw, const DataType& target, const std::string& path) {
    if (raw.type.id == target.id) {
      raw.type = target;
      return raw;
    }
    const bool numeric =
        IsIntegerType(raw.type) || raw.type.id == TypeId::kFloat32 || raw.type.id == TypeId::kFloat64;
    if (!numeric) return Mismatch(path, target, raw);
    auto as_double = [&](int64_t row, std::string* error) -> std::optional<double> {
      if (raw.type.id == TypeId::kFloat64) return raw.Value<double>(row);
      if (raw.type.id == TypeId::kFloat32) return static_cast<double>(raw.Value<float>(row));
      std::optional<int64_t> v = IntegerCell(raw, row);
      // Integers convert only when the float holds them exactly.
      if (!v || (*v > (int64_t{1} << 53) || *v < -(int64_t{1} << 53))) {
        *error = "integer is not exactly representable as " + target.ToString();
        return std::nullopt;
      }
      return static_cast<double>(*v);
    };
    if (target.id == TypeId::kFloat64) return BuildFixed<double>(raw, target, path, as_double);
    // Connect float32 values travel as the shortest decimal of the float;
    // rounding the double back gives the float that was written.
    return BuildFixed<float>(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<float> {
      auto v = as_double(row, e);
      return v ? std::optional<float>(static_cast<float>(*v)) : std::nullopt;
    });
  }

  // The bytes at `row` of binary, fixed or base64-text columns.
  static std::optional<std::string> BytesAt(const Column& raw, int64_t row, std::string* error) {
    switch (raw.type.id) {
      case TypeId::kBinary: return std::string(raw.StringAt(row));
      case TypeId::kFixedBinary:
      case TypeId::kUuid: {
        const size_t width = static_cast<size_t>(raw.type.fixed_width());
        return std::string(
            reinterpret_cast<const char*>(raw.values.data()) + static_cast<size_t>(row) * width, width);
      }
      case TypeId::kString: {
        Result<std::string> bytes = Base64Decode(raw.StringAt(row));
        if (!bytes.ok()) {
          *error = "bytes are not valid base64 text";
          return std::nullopt;
        }
        return std::move(bytes).value();
      }
      default: return std::nullopt;
    }
  }

  static bool HoldsBytes(const Column& raw) {
    return raw.type.id == TypeId::kBinary || raw.type.id == TypeId::kFixedBinary ||
           raw.type.id == TypeId::kString || raw.type.id == TypeId::kUuid;
  }

  Result<Column> ConvertBinary(Column raw, const DataType& target, const std::string& path) {
    if (raw.type.id == TypeId::kBinary) {
      raw.type = target;
      return raw;
    }
    if (!HoldsBytes(raw)) return Mismatch(path, target, raw);
    return BuildBytes(raw, target, path, [&](int64_t row, std::string* e) { return BytesAt(raw, row, e); });
  }

  Result<Column> ConvertString(Column raw, const DataType& target, const std::string& path) {
    if (raw.type.id != TypeId::kString) return Mismatch(path, target, raw);
    raw.type = target;
    return raw;
  }

  Result<Column> ConvertDecimal(Column raw, const DataType& target, const std::string& path) {
    const int32_t precision = target.precision;
    const int32_t scale = target.scale;
    if (raw.type.id == TypeId::kDecimal) {
      return BuildFixed<int128>(raw, target, path, [&](int64_t row, std::string* e) {
        return Rescale(raw.Value<int128>(row), raw.type.scale, scale, precision, e);
      });
    }
    if (!HoldsBytes(raw)) return Mismatch(path, target, raw);
    return BuildFixed<int128>(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<int128> {
      std::optional<std::string> bytes = BytesAt(raw, row, e);
      if (!bytes) return std::nullopt;
      std::optional<int128> unscaled = Int128FromBigEndian(*bytes);
      if (!unscaled) {
        *e = bytes->empty() ? "empty Decimal bytes"
                            : "Decimal of " + std::to_string(bytes->size()) + " bytes does not fit decimal(" +
                                  std::to_string(precision) + ", " + std::to_string(scale) + ")";
        return std::nullopt;
      }
      return Rescale(*unscaled, scale, scale, precision, e);
    });
  }

  Result<Column> ConvertUuid(Column raw, const DataType& target, const std::string& path) {
    if (raw.type.id == TypeId::kUuid) return raw;
    if (raw.type.id == TypeId::kString) {
      return BuildBytes(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<std::string> {
        Result<std::string> bytes = ParseUuid(raw.StringAt(row));
        if (!bytes.ok()) {
          *e = bytes.status().message();
          return std::nullopt;
        }
        return std::move(bytes).value();
      });
    }
    if (raw.type.id != TypeId::kBinary && raw.type.id != TypeId::kFixedBinary)
      return Mismatch(path, target, raw);
    return BuildBytes(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<std::string> {
      std::optional<std::string> bytes = BytesAt(raw, row, e);
      if (bytes && bytes->size() != 16) {
        *e = "a UUID needs 16 bytes, got " + std::to_string(bytes->size());
        return std::nullopt;
      }
      return bytes;
    });
  }

  template <typename Parse>
  Result<Column> ConvertZoned(Column raw, const DataType& target, const std::string& path, Parse&& parse) {
    if (raw.type.id == target.id) return ConvertIntegral(std::move(raw), target, path);
    if (raw.type.id != TypeId::kString) return Mismatch(path, target, raw);
    return BuildFixed<int64_t>(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<int64_t> {
      Result<int64_t> micros = parse(raw.StringAt(row));
      if (!micros.ok()) {
        *e = micros.status().message();
        return std::nullopt;
      }
      return *micros;
    });
  }

  // The raw members of a struct column by name (-1 when absent).
  static int ChildIndex(const Column& raw, const std::string& name) {
    for (size_t i = 0; i < raw.type.children.size() && i < raw.children.size(); ++i) {
      if (raw.type.children[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  Result<Column> ConvertVariableScaleDecimal(Column raw, const DataType& target, const std::string& path) {
    if (raw.type.id != TypeId::kStruct) return Mismatch(path, target, raw);
    const int scale_index = ChildIndex(raw, "scale");
    const int value_index = ChildIndex(raw, "value");
    if (scale_index < 0 || value_index < 0 || !IsIntegerType(raw.children[scale_index].type) ||
        !HoldsBytes(raw.children[value_index])) {
      return Status::SchemaMismatch(path +
                                    ": a VariableScaleDecimal column needs members scale (integer) and value "
                                    "(bytes), got " +
                                    raw.type.ToString());
    }
    const Column& scales = raw.children[scale_index];
    const Column& values = raw.children[value_index];
    // The unscaled bytes and scale of a row, or nullopt with the error.
    auto parts = [&](int64_t row, std::string* e) -> std::optional<std::pair<std::string, int32_t>> {
      if (scales.IsNull(row) || values.IsNull(row)) {
        *e = "VariableScaleDecimal without its scale or value";
        return std::nullopt;
      }
      std::optional<int64_t> s = IntegerCell(scales, row);
      // PostgreSQL's numeric scales lie within ±1000; a larger one would turn
      // a few bytes into a huge text.
      if (!s || *s < -kMaxVariableDecimalScale || *s > kMaxVariableDecimalScale) {
        *e = "VariableScaleDecimal scale out of range";
        return std::nullopt;
      }
      std::optional<std::string> bytes = BytesAt(values, row, e);
      if (!bytes) return std::nullopt;
      if (bytes->empty() || bytes->size() > kMaxVariableDecimalBytes) {
        *e = "VariableScaleDecimal value of " + std::to_string(bytes->size()) + " bytes";
        return std::nullopt;
      }
      return std::make_pair(std::move(*bytes), static_cast<int32_t>(*s));
    };
    if (target.id == TypeId::kString) {
      return BuildBytes(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<std::string> {
        auto p = parts(row, e);
        if (!p) return std::nullopt;
        return DecimalText(p->first, p->second);
      });
    }
    return BuildFixed<int128>(raw, target, path, [&](int64_t row, std::string* e) -> std::optional<int128> {
      auto p = parts(row, e);
      if (!p) return std::nullopt;
      std::optional<int128> unscaled = Int128FromBigEndian(p->first);
      if (!unscaled || p->second > 76 || p->second < -38) {
        *e = DecimalText(p->first, p->second) + " does not fit " + target.ToString();
        return std::nullopt;
      }
      auto v = Rescale(*unscaled, p->second, target.scale, target.precision, e);
      if (!v) *e = DecimalText(p->first, p->second) + " " + *e;
      return v;
    });
  }

  Result<Column> ConvertStruct(const ConnectSchema& schema, Column raw, const DataType& target,
                               const std::string& path) {
    if (raw.type.id != TypeId::kStruct) return Mismatch(path, target, raw);
    Column out(target);
    out.length = raw.length;
    out.null_count = raw.null_count;
    out.validity = std::move(raw.validity);
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const ConnectField& field = schema.fields[i];
      const std::string member_path = path + "." + field.name;
      const int index = ChildIndex(raw, field.name);
      Column child = MakeEmptyColumn(target.children[i].type);
      if (index < 0) {
        for (int64_t row = 0; row < raw.length; ++row) child.AppendNull();
      } else {
        std::vector<Problem> child_errors;
        Converter child_converter(options_, &child_errors);
        FLOE_ASSIGN_OR_RETURN(child, child_converter.ConvertTo(
                                         field.schema, target.children[i].type,
                                         std::move(raw.children[static_cast<size_t>(index)]), member_path));
        // The member slots of a null struct hold nothing (null or zeros):
        // what they fail to convert is no error.
        for (auto& error : child_errors) {
          if (out.IsValid(error.row)) errors_->push_back(std::move(error));
        }
      }
      if (child.length != out.length) {
        return Status::SchemaMismatch(member_path + ": struct member has " + std::to_string(child.length) +
                                      " values for " + std::to_string(out.length) + " rows");
      }
      out.children.push_back(std::move(child));
    }
    return out;
  }

  // Converts the element (and key) children of lists and maps, reporting
  // their errors against the rows that hold them.
  Result<Column> ConvertNested(const ConnectSchema& schema, Column raw, const DataType& target,
                               const std::string& path) {
    const bool is_map = target.id == TypeId::kMap;
    if (raw.type.id != target.id || raw.children.size() != (is_map ? 2u : 1u))
      return Mismatch(path, target, raw);
    Column out(target);
    out.length = raw.length;
    out.null_count = raw.null_count;
    out.validity = std::move(raw.validity);
    out.offsets = std::move(raw.offsets);
    out.children.clear();
    for (size_t c = 0; c < raw.children.size(); ++c) {
      std::vector<Problem> child_errors;
      Converter child_converter(options_, &child_errors);
      const std::string child_path = path + (is_map ? (c == 0 ? ".key[]" : ".value[]") : "[]");
      FLOE_ASSIGN_OR_RETURN(Column child,
                            child_converter.ConvertTo(schema.children[c], target.children[c].type,
                                                      std::move(raw.children[c]), child_path));
      // Element i of the child belongs to the row whose offsets hold it.
      for (auto& error : child_errors) {
        const int64_t row = ParentRow(out, error.row);
        const int64_t index = error.row - out.offsets[static_cast<size_t>(row)];
        error.path = child_path.substr(0, child_path.size() - 1) + std::to_string(index) + "]" +
                     error.path.substr(std::min(error.path.size(), child_path.size()));
        error.row = row;
        errors_->push_back(std::move(error));
      }
      out.children.push_back(std::move(child));
    }
    return out;
  }

  Result<Column> ConvertTo(const ConnectSchema& schema, DataType target, Column raw,
                           const std::string& path) {
    switch (schema.semantic) {
      case SemanticType::kDebeziumZonedTimestamp:
        return ConvertZoned(std::move(raw), target, path, ParseOffsetTimestampMicros);
      case SemanticType::kDebeziumZonedTime:
        return ConvertZoned(std::move(raw), target, path, ParseOffsetTimeMicros);
      case SemanticType::kDebeziumVariableScaleDecimal:
        return ConvertVariableScaleDecimal(std::move(raw), target, path);
      default: break;
    }
    switch (target.id) {
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp: return ConvertIntegral(std::move(raw), target, path);
      case TypeId::kFloat32:
      case TypeId::kFloat64: return ConvertFloat(std::move(raw), target, path);
      case TypeId::kBool:
        if (raw.type.id != TypeId::kBool) return Mismatch(path, target, raw);
        return raw;
      case TypeId::kString: return ConvertString(std::move(raw), target, path);
      case TypeId::kBinary: return ConvertBinary(std::move(raw), target, path);
      case TypeId::kDecimal: return ConvertDecimal(std::move(raw), target, path);
      case TypeId::kUuid: return ConvertUuid(std::move(raw), target, path);
      case TypeId::kStruct: return ConvertStruct(schema, std::move(raw), target, path);
      case TypeId::kList:
      case TypeId::kMap: return ConvertNested(schema, std::move(raw), target, path);
      default: return Mismatch(path, target, raw);
    }
  }

  const ConnectTypeOptions& options_;
  std::vector<Problem>* errors_;
};

// The messages of `problems`, in row order.
std::vector<ValueError> Messages(std::vector<Problem> problems) {
  std::stable_sort(problems.begin(), problems.end(),
                   [](const Problem& a, const Problem& b) { return a.row < b.row; });
  std::vector<ValueError> out;
  out.reserve(problems.size());
  for (auto& p : problems) out.push_back({p.row, p.path + ", row " + std::to_string(p.row) + ": " + p.what});
  return out;
}

}  // namespace

Result<ConvertedColumn> ConvertConnectColumn(const ConnectSchema& schema, Column raw, std::string_view path,
                                             const ConnectTypeOptions& options) {
  ConvertedColumn out;
  std::vector<Problem> problems;
  Converter converter(options, &problems);
  const int64_t length = raw.length;
  FLOE_ASSIGN_OR_RETURN(out.column, converter.Convert(schema, std::move(raw), std::string(path)));
  if (out.column.length != length) {
    return Status::Internal(std::string(path) + ": conversion changed the length");
  }
  out.errors = Messages(std::move(problems));
  return out;
}

Result<ConvertedBatch> ConvertConnectBatch(const ConnectSchema& struct_schema, RecordBatch raw,
                                           std::string_view path, const ConnectTypeOptions& options) {
  FLOE_ASSIGN_OR_RETURN(Schema schema, FloeSchemaOf(struct_schema, path, options));
  ConvertedBatch out;
  out.batch.schema = schema;
  out.batch.num_rows = raw.num_rows;
  for (size_t i = 0; i < struct_schema.fields.size(); ++i) {
    const ConnectField& field = struct_schema.fields[i];
    const std::string member_path = path.empty() ? field.name : std::string(path) + "." + field.name;
    int index = -1;
    for (size_t j = 0; j < raw.schema.size() && j < raw.columns.size(); ++j) {
      if (raw.schema[j].name == field.name) index = static_cast<int>(j);
    }
    Column column = MakeEmptyColumn(schema[i].type);
    if (index < 0) {
      for (int64_t row = 0; row < raw.num_rows; ++row) column.AppendNull();
    } else {
      FLOE_ASSIGN_OR_RETURN(
          ConvertedColumn converted,
          ConvertConnectColumn(field.schema, std::move(raw.columns[static_cast<size_t>(index)]), member_path,
                               options));
      column = std::move(converted.column);
      for (auto& e : converted.errors) out.errors.push_back(std::move(e));
    }
    if (column.length != raw.num_rows) {
      return Status::SchemaMismatch(member_path + ": " + std::to_string(column.length) + " values for " +
                                    std::to_string(raw.num_rows) + " rows");
    }
    out.batch.columns.push_back(std::move(column));
  }
  std::stable_sort(out.errors.begin(), out.errors.end(),
                   [](const ValueError& a, const ValueError& b) { return a.row < b.row; });
  return out;
}

}  // namespace floe::connect
