// The value types of floe's expression language and SQL's typing rules over
// them (docs/expressions.md, "Types").
//
// Contract: expressions compute over the canonical columnar types of
// Iceberg's primitives: boolean (kBool), int (kInt32), long (kInt64), float,
// double, decimal(p,s) with p <= 38, date, time (us), timestamp (us, local),
// timestamptz (us, UTC), string, uuid, binary. Input columns of other
// columnar types are read through an implicit widening (CanonicalType).
// All functions are pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "columnar/types.h"
#include "common/status.h"

namespace floe::expr {

constexpr int32_t kMaxDecimalPrecision = 38;

// The Iceberg name of a canonical type: "boolean", "int", "long", "float",
// "double", "decimal(10,2)", "date", "time", "timestamp", "timestamptz",
// "string", "uuid", "binary"; nested types print as columnar ToString().
std::string TypeName(const DataType& type);

// Parses a CAST target: the Iceberg names above, plus the SQL aliases
// bool, integer, int4, bigint, int8, real, float4, float8, double precision,
// numeric(p,s), decimal (= decimal(18,3), as DuckDB), varchar, text, blob,
// bytea, "timestamp with time zone". Lower-case input.
Result<DataType> ParseTypeName(std::string_view name);

// The canonical type an input column of `type` is read as, or nullopt when
// expressions cannot compute on it (nested types, fixed binary is binary):
// int8/int16/uint8/uint16 -> int, uint32 -> long, uint64 -> decimal(20,0),
// float16 -> float, time/timestamp of any unit -> microseconds, fixed -> binary.
std::optional<DataType> CanonicalType(const DataType& type);

bool IsNumeric(const DataType& type);
bool IsInteger(const DataType& type);   // int or long
bool IsTemporal(const DataType& type);  // date, timestamp, timestamptz

// The type both sides of a comparison, IN list, CASE branch or COALESCE
// argument are converted to, or nullopt when there is none (string vs number,
// boolean vs number, ...). Numbers: int < long < decimal < float < double,
// an integer meeting a decimal becomes decimal(10,0) / decimal(19,0) first and
// two decimals meet at max integer digits + max scale (capped at 38); date <
// timestamp < timestamptz (a timestamp is read as UTC).
std::optional<DataType> CommonSupertype(const DataType& a, const DataType& b);

// Result type of a decimal operation (both operands decimal or integer-as-decimal):
// + -: scale max(s1,s2), precision max(p1-s1,p2-s2)+scale+1; *: s1+s2, p1+p2;
// %: max scale, max integer digits + scale; /: scale max(6, s1+p2+1),
// precision p1-s1+s2+scale, reduced as Spark does when above 38. Precision is
// capped at 38; a scale above 38 is an error.
Result<DataType> DecimalResultType(char op, const DataType& a, const DataType& b);

// Integers as decimals: int -> decimal(10,0), long -> decimal(19,0).
DataType AsDecimal(const DataType& type);

}  // namespace floe::expr
