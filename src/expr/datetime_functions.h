// Date and time functions: year, month, day, hour, minute, second and
// date_trunc over date, timestamp and timestamptz.
//
// Contract: timestamptz values are instants and are taken apart in UTC (as
// DuckDB does with TimeZone 'UTC'; floe has no session time zone). A date
// has hour, minute and second 0 and date_trunc of a date is a timestamp.
// date_trunc('week', x) starts weeks on Monday (ISO); 'decade', 'century'
// and 'millennium' start at years divisible by 10, 100, 1000, as DuckDB's
// do (PostgreSQL starts centuries at years ending in 01).
// Null in, null out. Thread-safe over distinct outputs.
#pragma once

#include <vector>

#include "common/status.h"
#include "expr/bound_expr.h"
#include "expr/vector.h"

namespace floe::expr {

// A date whose midnight or a truncation that leaves the timestamp range
// (about 290,000 years around 1970) is an OutOfRange error naming the row.
Result<Vector> EvalDatetimeFunction(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows,
                                    const EvalScope& scope);

}  // namespace floe::expr
