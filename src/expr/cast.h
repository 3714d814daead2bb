// CAST between the expression language's types, and the implicit widening
// of input columns to canonical types (expr_types.h CanonicalType).
//
// Contract: follows DuckDB's casts (docs/expressions.md, "CAST"): integers
// and decimals narrowing out of range fail; double -> integer rounds half to
// even, decimal -> integer and decimal -> decimal round half away from zero;
// strings are parsed (surrounding spaces allowed for numbers) and formatted
// as value_text.h says; timestamp <-> timestamptz keep the instant (a
// timestamp is read as UTC). A failing row is an InvalidArgument (bad text)
// or OutOfRange error naming the row and value; with try_cast it is null.
// Thread-safe over distinct outputs.
#pragma once

#include "common/status.h"
#include "expr/vector.h"

namespace floe::expr {

Result<Vector> EvalCast(const Vector& in, const DataType& to, bool try_cast, int64_t rows,
                        const EvalScope& scope);

// A decimal's value as the nearest double (correctly rounded).
double DecimalToDouble(__int128 unscaled, int32_t scale);

// The text of slot i of a scalar column as CAST(... AS string) gives it.
std::string ValueToText(const Column& column, int64_t i);

}  // namespace floe::expr
