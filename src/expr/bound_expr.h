// The bound (typed) form of an expression: what the evaluator runs.
//
// Contract: produced only by Bind (binder.h). Every node has its result type
// (a canonical type of expr_types.h, or a nested type for a bare nested
// column), its 1-based source position and whether evaluating it can fail at
// run time (overflow, a failing cast): the evaluator short-circuits AND, OR,
// CASE and COALESCE through selections only where a skipped row could
// otherwise raise an error. Immutable after binding; evaluation reads it
// from any number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"

namespace floe::expr {

enum class BoundKind : uint8_t {
  kConstant,    // constant: one row of `type`
  kColumn,      // column_path: top-level index, then struct member indexes
  kCast,        // children[0] to type; try_cast: failures become null
  kNegate,      // -children[0]
  kNot,         // NOT children[0]
  kArithmetic,  // arithmetic(children[0], children[1]); operands already of the operation's type
  kCompare,     // compare(children[0], children[1]); operands of one type
  kAnd,
  kOr,
  kIsNull,   // negated: IS NOT NULL
  kIn,       // children[0] IN (children[1..]); negated
  kBetween,  // children[0] BETWEEN children[1] AND children[2]; negated
  kLike,     // children[0] LIKE children[1] [ESCAPE children[2]]; ilike; negated
  kCase,     // children: (when, then)*, else (always present, maybe a null constant)
  kCoalesce,
  kFunction,  // function(children...)
};

enum class ArithmeticOp : uint8_t { kAdd, kSubtract, kMultiply, kDivide, kIntegerDivide, kModulo };
enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

enum class FunctionId : uint8_t {
  kLength,
  kLower,
  kUpper,
  kTrim,
  kLtrim,
  kRtrim,
  kSubstr,
  kConcat,    // concat(...): nulls skipped
  kConcatOp,  // a || b: null if either is null
  kRegexpMatches,
  kDateTrunc,  // part in `text`
  kYear,
  kMonth,
  kDay,
  kHour,
  kMinute,
  kSecond,
  kToDate,
  kCurrentTimestamp,
  kIngestionTime,
  kSourceFile,
  kSourceRow,
};

// A constant written as NULL or as a string literal adapts to the type it
// meets (`ts > '2024-01-01'` reads the string as a timestamp at bind time).
enum class LiteralKind : uint8_t { kNone, kNull, kString };

struct BoundExpr {
  BoundKind kind = BoundKind::kConstant;
  LiteralKind literal = LiteralKind::kNone;  // kConstant only
  DataType type;
  int32_t position = 1;
  bool can_error = false;  // this node or a descendant may fail at run time
  std::vector<BoundExpr> children;

  Column constant;               // kConstant
  std::vector<int> column_path;  // kColumn
  std::string text;              // kColumn: the column's name as resolved; kDateTrunc: the part
  ArithmeticOp arithmetic = ArithmeticOp::kAdd;
  CompareOp compare = CompareOp::kEq;
  FunctionId function = FunctionId::kLength;
  bool negated = false;
  bool try_cast = false;
  bool ilike = false;
  // Compiled state: a LIKE matcher or RE2 for constant patterns, an IN set.
  std::shared_ptr<const void> state;
};

}  // namespace floe::expr
