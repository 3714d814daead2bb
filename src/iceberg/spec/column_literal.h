// One cell of a floe column as an Iceberg Literal: partition source values,
// scan filters, equality-delete keys.
//
// Contract: `column` holds values of ToFloeType(type); LiteralAt reads slot
// `row` after checking that the row exists and that the column's buffers
// really hold a value of `type` there (a column of another width, or one
// whose values or offsets are shorter than its length, is InvalidArgument;
// a row outside the column is OutOfRange),
// so a mismatched column never reads past its buffers. A null slot is
// Literal::Null(). Types without a single-value form (nested types) are
// NotSupported. Pure function; thread-safe.
#pragma once

#include <cstdint>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

Result<Literal> LiteralAt(const Column& column, int64_t row, const Type& type);

}  // namespace floe::iceberg
