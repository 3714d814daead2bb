// Vectorised arithmetic: + - * / // % and unary minus over Vectors.
//
// Contract: operands are already of the operation's type (binder.h): both
// int, long, float or double, or both decimal with their own scales and the
// result type of DecimalResultType. Integer and decimal overflow is an
// OutOfRange error naming the first overflowing row and its values; x % 0,
// x // 0 and decimal x / 0 are null; float and double follow IEEE 754
// (x / 0 is ±inf or nan), as DuckDB does. Null inputs give null. A result of
// constant inputs is constant. Thread-safe over distinct outputs.
#pragma once

#include "common/status.h"
#include "expr/bound_expr.h"
#include "expr/vector.h"

namespace floe::expr {

Result<Vector> EvalArithmetic(ArithmeticOp op, const DataType& type, const Vector& a, const Vector& b,
                              int64_t rows, const EvalScope& scope);
Result<Vector> EvalNegate(const Vector& a, int64_t rows, const EvalScope& scope);

const char* ArithmeticSymbol(ArithmeticOp op);

}  // namespace floe::expr
