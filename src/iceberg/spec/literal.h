// A single Iceberg value: partition values, transform inputs and results,
// column bounds.
//
// Contract: a Literal is a small tagged value. Integral kinds (int, long,
// date, time, timestamps) share `int_value`; float and double share
// `double_value` (a float literal holds a value exactly representable as
// float); decimals hold an unscaled int128 and a scale; string, binary, fixed
// and uuid hold raw bytes (uuid: 16 bytes big-endian). Null has no type.
#pragma once

#include <cstdint>
#include <string>

#include "columnar/calendar.h"
#include "columnar/uuid_text.h"
#include "common/status.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

__extension__ typedef __int128 Int128;

struct Literal {
  enum class Kind : uint8_t {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kDecimal,
    kDate,           // days since 1970-01-01
    kTime,           // microseconds since midnight
    kTimestamp,      // microseconds since epoch
    kTimestampTz,    // microseconds since epoch, UTC
    kTimestampNs,    // nanoseconds since epoch
    kTimestampTzNs,  // nanoseconds since epoch, UTC
    kString,
    kUuid,
    kFixed,
    kBinary,
  };

  Kind kind = Kind::kNull;
  int64_t int_value = 0;
  double double_value = 0;
  Int128 unscaled = 0;  // kDecimal
  int32_t scale = 0;    // kDecimal
  std::string bytes;    // kString (UTF-8), kUuid, kFixed, kBinary

  static Literal Null() { return Literal(); }
  static Literal Boolean(bool v);
  static Literal Int(int32_t v);
  static Literal Long(int64_t v);
  static Literal Float(float v);
  static Literal Double(double v);
  static Literal Decimal(Int128 unscaled, int32_t scale);
  static Literal Date(int32_t days);
  static Literal Time(int64_t micros);
  static Literal Timestamp(int64_t micros);
  static Literal TimestampTz(int64_t micros);
  static Literal TimestampNs(int64_t nanos);
  static Literal TimestampTzNs(int64_t nanos);
  static Literal String(std::string utf8);
  static Literal Uuid(std::string bytes16);
  static Literal Fixed(std::string bytes);
  static Literal Binary(std::string bytes);

  bool is_null() const { return kind == Kind::kNull; }
  // Debug form: "int(34)", "decimal(1420, scale 2)", "string(\"abc\")".
  std::string ToString() const;
  bool operator==(const Literal& other) const;
};

// The literal kind that holds values of a primitive Iceberg type.
Result<Literal::Kind> LiteralKindFor(const Type& type);
// Whether `literal` is null or holds a value of `type` (decimal: same scale).
bool LiteralMatchesType(const Literal& literal, const Type& type);

// "f79c3e09-677c-4bbd-a479-3f349cb785e7" <-> 16 big-endian bytes (columnar/uuid_text.h).
using floe::FormatUuid;
using floe::ParseUuid;

// Decimal text of an unscaled value: (1420, 2) -> "14.20"; (-5, 2) -> "-0.05".
std::string DecimalToString(Int128 unscaled, int32_t scale);

// Calendar helpers shared by transforms and human strings (proleptic
// Gregorian): the columnar layer's, named here for the iceberg code.
using floe::CivilDate;
using floe::CivilFromDays;
using floe::DaysFromCivil;
using floe::FloorDiv;
using floe::FloorMod;

}  // namespace floe::iceberg
