// Scan filters: simple predicates "column op literal" joined by AND.
//
// Contract: ParsePredicate accepts "<column> <op> <value>" with op one of
// = != < <= > >=, and "<column> is null" / "<column> is not null" (case
// insensitive); the column may contain spaces (it is everything before the
// operator) and the value may be quoted with ' or ". Binding resolves the
// column by (dotted) name in a schema to a field id and parses the value as
// that field's primitive type. Comparisons follow Iceberg value order:
// numbers numerically, strings and binary by unsigned bytes, decimals by
// value at equal scale. A null value never satisfies a comparison; NaN
// satisfies only != .
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/schema.h"

namespace floe::iceberg {

enum class PredicateOp : uint8_t { kEq, kNotEq, kLt, kLtEq, kGt, kGtEq, kIsNull, kNotNull };

struct Predicate {
  std::string column;
  PredicateOp op = PredicateOp::kEq;
  std::string value;  // unparsed; empty for is null / not null
};

struct BoundPredicate {
  std::string column;
  int32_t field_id = 0;
  Type type;  // the field's (primitive) type
  PredicateOp op = PredicateOp::kEq;
  Literal value;  // of `type`; null for is null / not null
};

Result<Predicate> ParsePredicate(std::string_view text);
Result<BoundPredicate> BindPredicate(const Predicate& predicate, const Schema& schema);
const char* PredicateOpName(PredicateOp op);

// Parses literal text as a value of primitive `type`: true/false, integers,
// decimals "-12.30", floats, dates "2024-01-31", times "12:30:00[.ffffff]",
// timestamps "2024-01-31T12:30:00[.ffffff][Z]" (also with a space), uuids,
// and hex for binary/fixed.
Result<Literal> ParseLiteral(std::string_view text, const Type& type);

// <0, 0, >0, or nullopt when the two are not comparable (different kinds,
// decimals of different scales, NaN, nulls).
std::optional<int> CompareValues(const Literal& a, const Literal& b);

// Whether a row value (possibly null) satisfies `op value`.
bool EvaluateOn(PredicateOp op, const Literal& row_value, const Literal& value);

}  // namespace floe::iceberg
