// Vectorised comparisons: = <> < <= > >= and BETWEEN over Vectors of one type.
//
// Contract: both operands have the same canonical type (binder.h). Numbers
// compare by value; float and double use DuckDB's total order (-0 = 0, NaN
// equals NaN and is above every other value); strings and binary compare by
// unsigned bytes (UTF-8 code point order), uuids by their 16 big-endian
// bytes; decimals compare at their common scale (the binder made them one
// type). A null operand gives null. Thread-safe over distinct outputs.
#pragma once

#include "expr/bound_expr.h"
#include "expr/vector.h"

namespace floe::expr {

Vector EvalCompare(CompareOp op, const Vector& a, const Vector& b, int64_t rows);

// low <= x AND x <= high with three-valued logic (a row is false when either
// comparison is false, even if the other is null); negated: NOT of that.
Vector EvalBetween(const Vector& x, const Vector& low, const Vector& high, bool negated, int64_t rows);

// Three-valued AND / OR / NOT of boolean vectors.
Vector EvalAnd(const Vector& a, const Vector& b, int64_t rows);
Vector EvalOr(const Vector& a, const Vector& b, int64_t rows);
Vector EvalNot(const Vector& a, int64_t rows);

}  // namespace floe::expr
