// Binding: resolves a parsed expression's columns against a schema, checks
// and infers types (docs/expressions.md), inserts implicit casts and folds
// constant sub-expressions.
//
// Contract: Bind returns a BoundExpr or an InvalidArgument
// "position N: <what is wrong>" naming the column or function concerned.
// Column names resolve exactly first, then ASCII case-insensitively when that
// match is unique; `a.b` walks struct members the same way. Thread-safe
// (no shared state).
#pragma once

#include "columnar/types.h"
#include "common/status.h"
#include "expr/ast.h"
#include "expr/bound_expr.h"

namespace floe::expr {

Result<BoundExpr> Bind(const ParsedExpr& parsed, const Schema& schema);

}  // namespace floe::expr
