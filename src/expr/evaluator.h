// The vectorised evaluator: runs a BoundExpr over the rows of a Frame.
//
// Contract: every operator computes a whole column per call (no per-row
// interpretation of the tree). AND and OR evaluate their right side, CASE
// its branches and COALESCE its later arguments only on the rows that still
// need them (a selection of batch rows) when that side can fail at run
// time, so `x <> 0 AND 100 / x > 1` or `CASE WHEN ok THEN CAST(s AS int)
// END` never fail on rows they skip; sides that cannot fail are computed on
// all rows and blended, which is faster. Errors name the batch row (and the
// source file and row from the EvalContext). Thread-safe: evaluations share
// only the immutable BoundExpr.
#pragma once

#include "common/status.h"
#include "expr/bound_expr.h"
#include "expr/eval_context.h"
#include "expr/vector.h"

namespace floe::expr {

Result<Vector> EvaluateBound(const BoundExpr& e, const Frame& frame, const EvalContext& context);

}  // namespace floe::expr
