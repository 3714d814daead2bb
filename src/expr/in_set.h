// x IN (constant, ...): a hash set of the list's values.
//
// Contract: MakeInSet keeps the non-null values of one-row constant columns
// of `type` (doubles normalised so -0 = 0 and every NaN is one value, as the
// comparisons order them) and whether the list held a null. EvalInSet gives
// SQL's answer per row: null for a null x; true when x is in the set; else
// null when the list held a null, false otherwise (negated: NOT IN, the
// negation of that). The set is immutable and thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "expr/vector.h"

namespace floe::expr {

std::shared_ptr<const void> MakeInSet(const DataType& type, const std::vector<const Column*>& values);

Vector EvalInSet(const std::shared_ptr<const void>& set, const Vector& x, bool negated, int64_t rows);

}  // namespace floe::expr
