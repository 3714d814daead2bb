// floe's expression language: the entry point for transforms and
// expectations (docs/expressions.md is the reference).
//
// Contract: Expression::Bind parses `text` and binds it against `schema`;
// any syntax or type error is returned there (at config load), as
// InvalidArgument `expression "<text>": position N: <what>`, naming the
// column or function. A bound Expression is immutable and may be evaluated
// from several threads at once. Evaluate takes a batch whose columns include
// the schema's (same order, same types; columns the expression does not read
// may be absent only at the end) and returns one value per row, or an error
// naming the expression, the row and the source position from the context
// (overflow, a failing cast).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "expr/eval_context.h"

namespace floe::expr {

struct BoundExpr;

class Expression {
 public:
  static Result<Expression> Bind(std::string_view text, const Schema& schema);
  // Parses `text` without binding it: the syntax errors Bind would return,
  // worded the same way (for checking a config before any schema is known).
  static Status CheckSyntax(std::string_view text);

  const std::string& text() const { return text_; }
  // The result type (canonical; a bare nested column keeps its type).
  const DataType& type() const;
  // Whether evaluating may fail at run time (overflow, a failing cast).
  // When false, evaluating rows whose values the caller then ignores is
  // harmless (no copy of the rows it wants is needed).
  bool can_error() const;
  // Indexes of the top-level schema columns the expression reads, ascending.
  const std::vector<int>& input_columns() const { return inputs_; }

  Result<Column> Evaluate(const RecordBatch& batch, const EvalContext& context) const;

  // For a boolean expression: the rows whose value is TRUE (a predicate;
  // false and null rows are left out), ascending.
  Result<std::vector<int32_t>> TrueRows(const RecordBatch& batch, const EvalContext& context) const;

 private:
  Status CheckBatch(const RecordBatch& batch) const;

  std::string text_;
  std::shared_ptr<const BoundExpr> bound_;
  std::vector<int> inputs_;
  std::vector<DataType> input_types_;  // parallel to inputs_
};

}  // namespace floe::expr
